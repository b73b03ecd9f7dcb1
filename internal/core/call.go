package core

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/google/go-querystring/query"

	apierrors "github.com/memberplatform/memberplatform-go/errors"
	"github.com/memberplatform/memberplatform-go/internal/rawjson"
	"github.com/memberplatform/memberplatform-go/internal/redact"
)

// Do runs call through the pipeline with the client's settings and opts
// (option.RequestOption values). Every failure is a typed error.
//
// A call refused before anything is sent (call.Invalid, a nil ctx, a bad
// option) is still a call to the client's observer: it starts and ends,
// with its *errors.ValidationError and no attempt, so spans and error
// counts show input the SDK refused. Only a nil client has no observer.
func Do[O any](ctx context.Context, c *Client, call *Call, opts []O) error {
	if c == nil {
		if call.Invalid != nil {
			return call.Invalid
		}
		return invalidCall(call, "client", "is not configured: use the services of a client built by client.New")
	}
	refused := call.Invalid
	if ctx == nil {
		if refused == nil {
			refused = invalidCall(call, "ctx", "must not be nil (use context.Background())")
		}
		ctx = context.Background() // the observer's, which must not get nil
	}
	obs := c.settings.Observer
	if obs == nil {
		if refused != nil {
			return refused
		}
		return doCall(ctx, c, call, opts)
	}
	info := callInfo(call.Op)
	ctx = orParent(obs.StartCall(ctx, info), ctx)
	err := refused
	if err == nil {
		err = doCall(ctx, c, call, opts)
	}
	obs.EndCall(ctx, info, err)
	return err
}

func doCall[O any](ctx context.Context, c *Client, call *Call, opts []O) error {
	s, ac, err := callSettings(c, call, opts)
	if err != nil {
		return err
	}
	if s.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, s.Timeout)
		defer cancel()
	}
	req, err := newRequest(s, call)
	if err != nil {
		return err
	}
	if err := ctx.Err(); err != nil { // already over: no token fetch, no attempt
		return &apierrors.TransportError{Operation: call.Op.Name, Method: call.Op.Method, Path: req.path, Err: err}
	}
	if call.ReadBody != nil {
		if req.body, err = call.ReadBody(ctx); err != nil {
			if ctxErr := ctx.Err(); ctxErr != nil {
				err = &apierrors.TransportError{Operation: call.Op.Name, Method: call.Op.Method, Path: req.path,
					Err: fmt.Errorf("reading the request body: %w", ctxErr)}
			}
			return err
		}
	}
	if len(s.JSONSet) > 0 {
		if req.body, err = setMembers(call, req.body, s.JSONSet); err != nil {
			return err
		}
	}
	if s.ResponseInto != nil {
		*s.ResponseInto = nil
	}
	out, err := c.authorize(ctx, s, ac, call, &req)
	if err != nil {
		return err
	}
	c.reportDeprecation(ctx, s, call.Op, out.resp)
	if s.ResponseInto != nil {
		*s.ResponseInto = redactedResponse(out.resp, redact.New(secretsSent(out.resp)...))
	}
	if call.Status != nil {
		*call.Status = out.resp.StatusCode
	}
	if call.Secrets != nil {
		*call.Secrets = secretsSent(out.resp)
	}
	if out.lastErr != nil {
		return out.lastErr
	}
	return out.decodeResult()
}

// invalidCall is the error for a call refused before anything was sent.
func invalidCall(call *Call, field, msg string) error {
	return &apierrors.ValidationError{Operation: call.Op.Name, Fields: []apierrors.FieldError{{Field: field, Message: msg}}}
}

// callSettings returns the client's settings (shared, never written), or a
// copy with opts applied, and the attempt client: a new one only when an
// option changed the transport or the attempt timeout.
func callSettings[O any](c *Client, call *Call, opts []O) (*Settings, *attemptClient, error) {
	if len(opts) == 0 {
		return &c.settings, c.attempts, nil
	}
	s := c.settings
	s.cloned = false
	s.Transport = nil // a per-call WithTransport is seen by presence: == may panic on a func type
	if err := Apply(&s, true, opts); err != nil {
		return nil, nil, invalidCall(call, "options", strings.TrimPrefix(err.Error(), "memberplatform: "))
	}
	if !sameBaseURL(s.BaseURL, c.settings.BaseURL) { // the token must never go to another host
		return nil, nil, invalidCall(call, "options", "a per-call WithBaseURL must equal the client's base URL")
	}
	s.BaseURL = c.settings.BaseURL
	if s.AllowInsecureBearer != c.settings.AllowInsecureBearer {
		return nil, nil, invalidCall(call, "options", "WithInsecureBearerOverHTTP applies to client.New, not to a single call")
	}
	ac := c.attempts
	ownTransport := s.Transport != nil
	if !ownTransport {
		s.Transport = c.settings.Transport
	}
	if ownTransport || s.HTTPClient != c.settings.HTTPClient || s.AttemptTimeout != c.settings.AttemptTimeout {
		ac = newAttemptClient(buildHTTPClient(&s, c.attempts.HTTPClient))
	}
	return &s, ac, nil
}

// sameBaseURL compares scheme, host and path prefix, a trailing slash aside.
func sameBaseURL(a, b *url.URL) bool {
	return strings.EqualFold(a.Scheme, b.Scheme) && strings.EqualFold(a.Host, b.Host) &&
		strings.TrimSuffix(a.EscapedPath(), "/") == strings.TrimSuffix(b.EscapedPath(), "/")
}

// request is what every attempt of a call sends, headers aside.
type request struct {
	url   string // base URL + escaped path + query
	path  string // the escaped path alone, for errors
	query string // the encoded query, "" for none
	body  []byte // the JSON body, nil for none
	// direct says url.Parse(url) would give back the base URL's scheme and
	// host, path and query unchanged, so an attempt fills its URL from them
	// (newAttemptRequest): parsing is most of building a request.
	direct bool
}

// newRequest builds the URL and the body, once for all attempts.
func newRequest(s *Settings, call *Call) (request, error) {
	r := request{}
	q, err := queryOf(call.Query, s.Query, call.Cursor)
	if err != nil {
		return r, invalidCall(call, "query", err.Error())
	}
	r.url, r.path, r.query = buildURL(s, call.Op.Path, call.PathParams[:], q)
	r.direct = plainPath(r.path) && strings.IndexByte(s.BaseURL.Host, '%') < 0 // a zone: url.Parse unescapes it
	if call.EncodedBody != nil {
		r.body = call.EncodedBody
	} else if call.Body != nil {
		b, err := json.Marshal(call.Body)
		if err != nil {
			return r, invalidCall(call, "body", "cannot encode as JSON: "+err.Error())
		}
		r.body = b
	}
	return r, nil
}

// queryOf encodes the call's query parameters (query.go), with cursor, if
// set, as CursorParam in place of theirs, then the options' (option.WithQuery).
func queryOf(params any, extra url.Values, cursor string) (string, error) {
	if len(extra) == 0 && params != nil {
		if _, isValues := params.(url.Values); !isValues {
			if q, ok := planned(params, cursor); ok {
				return q, nil
			}
		}
	}
	var q url.Values
	switch p := params.(type) {
	case nil:
	case url.Values:
		q = p
	default:
		var err error
		// go-querystring (`url` tags): every query that planned (query.go) cannot encode.
		if q, err = query.Values(params); err != nil {
			return "", err
		}
	}
	if len(extra) == 0 && cursor == "" {
		return q.Encode(), nil
	}
	all := url.Values{}
	for _, vs := range []url.Values{q, extra} {
		for k, v := range vs {
			all[k] = append(all[k], v...)
		}
	}
	if cursor != "" {
		all.Set(CursorParam, cursor)
	}
	return all.Encode(), nil
}

// buildURL joins the base URL, the path template with its parameters
// escaped, and the encoded query; path is the escaped path alone.
func buildURL(s *Settings, tmpl string, params []string, query string) (full, path, _ string) {
	base := strings.TrimSuffix(s.BaseURL.EscapedPath(), "/")
	size := len(s.BaseURL.Scheme) + len("://") + len(s.BaseURL.Host) + len(base) + len(tmpl) + 16
	for _, p := range params {
		size += len(p)
	}
	var b strings.Builder
	b.Grow(size)
	b.WriteString(s.BaseURL.Scheme)
	b.WriteString("://")
	b.WriteString(s.BaseURL.Host)
	origin := b.Len()
	b.WriteString(base)
	for i := 0; ; i++ {
		open := strings.IndexByte(tmpl, '{')
		end := strings.IndexByte(tmpl[max(open, 0):], '}')
		if open < 0 || end < 0 {
			b.WriteString(tmpl)
			break
		}
		b.WriteString(tmpl[:open])
		if i < len(params) {
			b.WriteString(escapeSegment(params[i]))
		}
		tmpl = tmpl[open+end+1:]
	}
	full = b.String()
	path = full[origin:]
	if query != "" {
		full += "?" + query
	}
	return full, path, query
}

// plainPath reports whether url.Parse would keep every byte of p as it is
// (no '%', nothing it escapes, no '?' or '#'): its Path is then p itself.
func plainPath(p string) bool {
	for i := 0; i < len(p); i++ {
		if !pathByte[p[i]] {
			return false
		}
	}
	return true
}

// pathByte holds the bytes net/url leaves unescaped in a path: the
// unreserved ones, the sub-delimiters, ':', '@' and '/'.
var pathByte = func() (t [256]bool) {
	for c := range 256 {
		t[c] = 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("-_.~$&+,/:;=@", byte(c)) >= 0
	}
	return t
}()

// escapeSegment escapes a path segment, "." and ".." too, so no parameter
// can climb out of its place.
func escapeSegment(p string) string {
	switch p {
	case ".":
		return "%2E"
	case "..":
		return "%2E%2E"
	}
	return url.PathEscape(p)
}

// authorize sends req with the bearer token when the operation needs one.
// A 401 is sent once more with the token that replaced the rejected one
// (TokenCache.Rejected), unless none can help: the rejected token was
// fetched moments ago because of another 401, or the source hands back
// the same (static) token.
func (c *Client) authorize(ctx context.Context, s *Settings, ac *attemptClient, call *Call, req *request) (*callState, error) {
	if !call.Op.Auth || c.tokens == nil {
		return ac.send(ctx, c, s, call, req, nil, 0)
	}
	tok, err := c.tokens.Get(ctx)
	for prior, resent := 0, false; ; resent = true {
		if err != nil {
			return nil, withOperation(err, call.Op.Name)
		}
		out, sendErr := ac.send(ctx, c, s, call, req, tok, prior)
		if sendErr != nil || out.resp.StatusCode != http.StatusUnauthorized || resent {
			return out, sendErr
		}
		if out.resp.Request != nil && out.resp.Request.Header.Get("Authorization") == "" {
			return out, nil // a redirect left the origin without the token: a new one cannot help
		}
		// out.tok is the token as the SDK attached it, whatever a middleware wrote.
		if tok, err = c.tokens.Rejected(ctx, out.tok); err == nil && (tok == nil || tok.Header == out.tok.Header) {
			return out, nil // the area's own 401, or the source hands back the rejected token
		}
		prior += out.attempts
	}
}

// withOperation names the call on a token error, in a copy: every caller
// of a shared fetch has the same one.
func withOperation(err error, op string) error {
	te, ok := err.(*apierrors.TokenError)
	if !ok || te.Operation != "" {
		return err
	}
	cp := *te
	cp.Operation = op
	return &cp
}

// decodeResult decodes a 2xx body into call.Result. An empty body is a
// success, unless the operation requires a result; data after the first
// JSON value is accepted, as json.Decoder does. A result that embeds
// memberplatform.Raw keeps the body it was decoded from, uncopied.
func (out *callState) decodeResult() error {
	if out.refused != nil {
		return out.undecodable(out.refused)
	}
	trimmed := bytes.TrimSpace(out.body)
	if out.op.ResultRequired && (len(trimmed) == 0 || string(trimmed) == "null") {
		return out.undecodable(errNoResult)
	}
	switch result := out.result.(type) {
	case nil:
	case *[]byte:
		*result = out.body
	default:
		if len(trimmed) == 0 {
			return nil
		}
		if err := json.Unmarshal(out.body, result); err != nil {
			var syntaxErr *json.SyntaxError // declared here: it escapes, so it costs an allocation
			if errors.As(err, &syntaxErr) {
				err = json.NewDecoder(bytes.NewReader(out.body)).Decode(result)
			}
			if err != nil {
				return out.undecodable(err)
			}
		}
		if c, ok := result.(checkedResult); ok {
			if err := c.checkResult(); err != nil {
				return out.undecodable(err)
			}
		}
		if string(trimmed) != "null" { // a null body is none: the result is built by hand
			rawjson.Keep(result, out.body) // its memberplatform.Raw, if it embeds one; never written again
		}
	}
	return nil
}

// checkedResult is a Call.Result with a check of what was decoded into it
// (a list's page): its error makes the 2xx body undecodable.
type checkedResult interface{ checkResult() error }

// undecodable is the typed error for a 2xx body that could not be used,
// with a snippet, wrapping err.
func (out *callState) undecodable(err error) error {
	var tooLong *bodyTooLong
	head := out.body[:min(len(out.body), apierrors.MaxBodySnippet+1)] // +1: errorFor sees there was more
	e := errorFor(out.resp, bytes.Clone(head), errors.As(err, &tooLong), false)
	e.Operation, e.Method, e.Path, e.Attempts, e.Err = out.op.Name, out.op.Method, out.req.path, out.prior+out.attempts, err
	return e
}

// errNoResult is the cause for an empty (or null) 2xx body of a read.
var errNoResult = errors.New("the 2xx response has no body, or null, and the operation returns one")

// bodyTooLong is the cause for a 2xx body over option.WithMaxResponseBytes.
type bodyTooLong struct{ limit int64 }

func (e *bodyTooLong) Error() string {
	return fmt.Sprintf("the response body is longer than the %d-byte limit (option.WithMaxResponseBytes)", e.limit)
}

// redactedResponse is what option.WithResponseInto hands over: a copy
// without body, secrets replaced in it and its redirect chain (the status
// line's reason phrase, headers, trailers, each request's URL).
func redactedResponse(resp *http.Response, set *redact.Set) *http.Response {
	cp := *resp
	cp.Status = set.String(resp.Status)
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

// redactedRequest is redactedResponse's copy of a request.
func redactedRequest(req *http.Request, set *redact.Set) *http.Request {
	if req == nil {
		return nil
	}
	cp := req.Clone(req.Context()) // its URL too
	scrubURL(cp.URL, set)
	cp.Host = set.String(cp.Host)
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

// scrubURL replaces the secrets in every part of u, in place: a server may
// redirect to a URL that carries the token it was sent.
func scrubURL(u *url.URL, set *redact.Set) {
	if u == nil {
		return
	}
	for _, part := range []*string{&u.Opaque, &u.Host, &u.Path, &u.RawPath, &u.RawQuery, &u.Fragment, &u.RawFragment} {
		*part = set.String(*part)
	}
	if u.User != nil {
		name := set.String(u.User.Username())
		if pw, ok := u.User.Password(); ok {
			u.User = url.UserPassword(name, set.String(pw))
		} else {
			u.User = url.User(name)
		}
	}
}
