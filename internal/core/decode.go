package core

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"

	apierrors "github.com/memberplatform/memberplatform-go/errors"
	"github.com/memberplatform/memberplatform-go/internal/httpx"
)

// decodeResult decodes a 2xx body, already read in full, into
// call.Result. An empty body is a success with no content. A body with data
// after the first JSON value is accepted, as json.Decoder would.
func decodeResult(out *outcome, call *Call, req *request) error {
	if out.refused != nil {
		return undecodable(out, call, req, out.refused)
	}
	var err error
	switch result := call.Result.(type) {
	case nil:
		return nil
	case *[]byte:
		*result = out.body
		return nil
	default:
		if len(bytes.TrimSpace(out.body)) == 0 {
			return nil
		}
		err = json.Unmarshal(out.body, result)
		if err != nil {
			var syntaxErr *json.SyntaxError
			if errors.As(err, &syntaxErr) {
				err = json.NewDecoder(bytes.NewReader(out.body)).Decode(result)
			}
		}
	}
	if err != nil {
		return undecodable(out, call, req, err)
	}
	return nil
}

// undecodable is the typed error for a 2xx body that could not be decoded:
// it keeps the status, headers, request ID and a snippet of the body, and
// wraps the decoding error (errors.Is(err, ErrUnexpectedResponseBody)).
func undecodable(out *outcome, call *Call, req *request, err error) error {
	resp := out.resp
	e := &apierrors.Error{Operation: call.Op.Name, Method: call.Op.Method, Path: req.path, StatusCode: resp.StatusCode,
		Header: resp.Header, RequestID: httpx.RequestID(resp.Header), Attempts: out.attempts, Err: err}
	body := out.body
	if len(body) > apierrors.MaxBodySnippet {
		body, e.BodyTruncated = body[:apierrors.MaxBodySnippet], true
	}
	e.Body = redactResponse(resp, bytes.Clone(body))
	e.RequestID = httpx.RequestID(resp.Header)
	return e
}

// responseForCaller is the final response as option.WithResponseInto hands
// it over: status, headers and the request, with the body already read and
// closed. The request's credential headers are replaced by Redacted, so a
// caller logging the response cannot leak the token or the signature.
func responseForCaller(resp *http.Response) *http.Response {
	cp := *resp
	cp.Body = http.NoBody
	if resp.Request != nil {
		req := resp.Request.Clone(resp.Request.Context())
		for _, h := range credentialHeaders {
			if req.Header.Get(h) != "" {
				req.Header.Set(h, Redacted)
			}
		}
		req.Body, req.GetBody = nil, nil
		cp.Request = req
	}
	return &cp
}
