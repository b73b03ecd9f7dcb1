package core

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

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
	var tooLong *bodyTooLong
	secrets := secretsSent(resp)
	head := out.body[:min(len(out.body), apierrors.MaxBodySnippet+1)] // +1: more than the snippet was read
	e.Body, e.BodyTruncated = redactSnippet(bytes.Clone(head), secrets, apierrors.MaxBodySnippet, errors.As(err, &tooLong))
	redactDecoded(e, e.Body, secrets)
	return e
}

// bodyTooLong is the cause of the error for a 2xx body longer than
// option.WithMaxResponseBytes.
type bodyTooLong struct{ limit int64 }

func (e *bodyTooLong) Error() string {
	return fmt.Sprintf("the response body is longer than the %d-byte limit (option.WithMaxResponseBytes)", e.limit)
}
