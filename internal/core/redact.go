package core

import (
	"net/http"
	"strings"

	apierrors "github.com/memberplatform/memberplatform-go/errors"
	"github.com/memberplatform/memberplatform-go/internal/httpx"
	"github.com/memberplatform/memberplatform-go/internal/redact"
)

// Everything the SDK hands back from a response (an error, the response
// given to option.WithResponseInto, a log record) goes through
// internal/redact with the secrets the requests carried, so a server that
// echoes a credential, in any spelling, cannot leak it. Only error and
// capture paths pay for it: a successful call with no WithResponseInto and
// no logger never looks.

// secretsOf returns the secret values a request's headers carry: the
// Authorization value and the bearer token or SigV4 signature inside it,
// and the AWS session token. A server may echo any of them (in a problem's
// detail, a request ID, a Location, a debug page), and none may reach an
// error, a log record or a field of an error.
func secretsOf(h http.Header) []string {
	var secrets []string
	for _, v := range h.Values("Authorization") {
		secrets = append(secrets, v)
		if token, ok := strings.CutPrefix(v, "Bearer "); ok {
			secrets = append(secrets, token)
		}
		if _, sig, ok := strings.Cut(v, "Signature="); ok {
			secrets = append(secrets, strings.TrimRight(sig, ", "))
		}
	}
	return append(secrets, h.Values("X-Amz-Security-Token")...)
}

// secretsSent returns the secrets of resp's request and of the requests
// before it in a redirect chain.
func secretsSent(resp *http.Response) []string {
	var secrets []string
	for req := resp.Request; req != nil; {
		secrets = append(secrets, secretsOf(req.Header)...)
		if req.Response == nil {
			break
		}
		req = req.Response.Request
	}
	return secrets
}

// errorFor is the typed error for resp, whose body, as read, is body:
// decoded as an error answer when decode is set, with at most a snippet of
// the body kept. Every secret the requests carried is replaced, in the
// bytes first (before the cut, then a secret's beginning left at the cut),
// then in the decoded texts, which may spell one with escapes the bytes did
// not match. truncated says the body was cut short or its reading failed.
func errorFor(resp *http.Response, body []byte, truncated, decode bool) *apierrors.Error {
	secrets := secretsSent(resp)
	set := redact.New(secrets...)
	body = set.Bytes(body)
	if len(body) > apierrors.MaxBodySnippet {
		body, truncated = body[:apierrors.MaxBodySnippet], true
	}
	if truncated {
		body = set.Cut(body)
	}
	var e *apierrors.Error
	if decode {
		e = apierrors.Decode(resp.StatusCode, resp.Header, body)
	} else {
		e = &apierrors.Error{StatusCode: resp.StatusCode, Header: resp.Header, RequestID: httpx.RequestID(resp.Header)}
	}
	e.Body = nil // redacted already: a large snippet is not searched twice
	e.Redact(secrets...)
	e.Body, e.BodyTruncated = body, truncated
	return e
}

// redactText replaces every secret in s.
func redactText(s string, secrets []string) string {
	return redact.New(secrets...).String(s)
}

// redactedError shows a cause's text with the secrets replaced, and still
// unwraps to the cause for errors.Is and errors.As.
type redactedError struct {
	err  error
	text string
}

func (e *redactedError) Error() string { return e.text }

func (e *redactedError) Unwrap() error { return e.err }

// redactError returns err, or err behind a redactedError when its text
// holds a secret (a transport error quoting an echoed Location, say).
func redactError(err error, secrets []string) error {
	if err == nil {
		return err
	}
	if text := err.Error(); redactText(text, secrets) != text {
		return &redactedError{err: err, text: redactText(text, secrets)}
	}
	return err
}

// responseForCaller is the final response as option.WithResponseInto hands
// it over: status, headers, trailers and the request, with the body already
// read and closed. The credentials of every request in its redirect chain
// read Redacted, and every response of the chain has the secrets replaced
// in its header and trailer names and values, so a caller logging the
// response cannot leak the token or the signature.
func responseForCaller(resp *http.Response) *http.Response {
	return redactedResponse(resp, redact.New(secretsSent(resp)...))
}

// redactedResponse copies resp, without its body, with the secrets
// replaced in its headers and trailers and in its request's redirect chain.
func redactedResponse(resp *http.Response, set *redact.Set) *http.Response {
	cp := *resp
	cp.Body = http.NoBody
	cp.Header = resp.Header.Clone()
	set.Header(cp.Header)
	if resp.Trailer != nil {
		cp.Trailer = resp.Trailer.Clone()
		set.Header(cp.Trailer)
	}
	cp.Request = redactedRequest(resp.Request, set)
	return &cp
}

// redactedRequest copies req, and the requests and responses before it in
// a redirect chain, with their credential headers replaced by Redacted and
// no body.
func redactedRequest(req *http.Request, set *redact.Set) *http.Request {
	if req == nil {
		return nil
	}
	cp := req.Clone(req.Context())
	for _, h := range credentialHeaders {
		if cp.Header.Get(h) != "" {
			cp.Header.Set(h, apierrors.Redacted)
		}
	}
	set.Header(cp.Header)
	cp.Body, cp.GetBody = nil, nil
	if req.Response != nil {
		cp.Response = redactedResponse(req.Response, set)
	}
	return cp
}
