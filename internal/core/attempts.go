package core

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/hashicorp/go-retryablehttp"

	apierrors "github.com/memberplatform/memberplatform-go/errors"
	"github.com/memberplatform/memberplatform-go/internal/httpx"
	"github.com/memberplatform/memberplatform-go/internal/redact"
	"github.com/memberplatform/memberplatform-go/observe"
)

// RetryAttemptHeader carries the retry number (1 for the first retry) on
// retried requests. It is set before signing, so a SigV4 signature covers it.
const RetryAttemptHeader = "X-Retry-Attempt"

// This file is the boundary with go-retryablehttp and the state of one send.
// The library's loop calls, per attempt:
//
//	RequestLogHook (attemptStarts)  the attempt starts: its clock; a paid retry goes out
//	HTTPClient.Do                   attemptTransport (transport.go)
//	CheckRetry (checkRetry)         read and decode the answer, decide (retry.go)
//	Backoff (noLibraryBackoff)      0: checkRetry chose the wait, prepareRetry waits it
//	PrepareRetry (prepareRetry)     wait, number the retry, pace, authorize and sign again
//	ErrorHandler (returnLastError)  once, when the loop ends on an error
//
// Library settings that exist only to be switched off: RetryMax (the policy
// counts, so a call's options can change it on a shared library client),
// Backoff (it gets no context, and no response after a connection error),
// the logger (the SDK logs allow-listed records, log.go) and the "giving
// up after N attempts" error (ErrorHandler returns the cause).
//
// The hooks are shared by every call of a Client and read the call's state
// from the request's context (stateOf): per-call closures would cost each
// call a library client, which the success path's allocation budget lacks.

// attemptClient runs the attempts of a call on go-retryablehttp.
type attemptClient retryablehttp.Client

func newAttemptClient(hc *http.Client) *attemptClient {
	return &attemptClient{
		HTTPClient:     hc,
		RetryMax:       math.MaxInt32,
		CheckRetry:     checkRetry,
		Backoff:        noLibraryBackoff,
		PrepareRetry:   prepareRetry,
		ErrorHandler:   returnLastError,
		RequestLogHook: attemptStarts,
	}
}

// Header values the SDK sends.
const (
	acceptHeader    = "application/json, application/problem+json"
	jsonContentType = "application/json"
)

// send makes the attempts of req with token tok (nil for none).
func (ac *attemptClient) send(ctx context.Context, c *Client, s *Settings, call *Call, req *request, tok *CachedToken, prior int) (*callState, error) {
	state := &callState{client: c, s: s, scope: &s.Scopes[AreaIndex(call.Op.Area)], op: call.Op, result: call.Result, sign: call.Sign, req: *req, tok: tok, prior: prior}
	ctx = context.WithValue(ctx, callStateKey{}, state)
	state.ctx = ctx
	var body any
	if req.body != nil {
		state.bodyRead.Reset(req.body)
		body = &state.bodyRead // a pointer, unlike a []byte, goes in an interface unallocated
	}
	if err := state.admitFirst(); err != nil {
		if s.Logger != nil {
			state.log(slog.LevelDebug, "refused locally", nil, err)
		}
		return nil, err
	}
	rreq, err := newAttemptRequest(ctx, call.Op.Method, s.BaseURL, req, body)
	if err != nil {
		var uerr *url.Error
		if errors.As(err, &uerr) {
			uerr.URL, _, _ = strings.Cut(uerr.URL, "?") // the query may hold secrets
		}
		return nil, invalidCall(call, "url", err.Error())
	}
	state.setHeaders(rreq.Header)
	if err := state.readyAttempt(rreq.Request, false); err != nil {
		return nil, state.failure(err)
	}
	resp, err := (*retryablehttp.Client)(ac).Do(rreq)
	if err != nil {
		return nil, state.failure(err)
	}
	if state.stop.givesUp() && s.Logger != nil {
		state.log(slog.LevelWarn, "giving up", resp, nil, slog.String("reason", state.stop.String()))
	}
	state.resp = resp
	if success(resp.StatusCode) {
		state.lastErr = nil // the final answer is this 2xx, not an earlier error
	} else {
		state.lastErr.Attempts = prior + state.attempts
	}
	state.settleBudget(state.lastErr)
	return state, nil
}

// newAttemptRequest is retryablehttp.NewRequestWithContext without parsing
// the URL again when req is direct: the URL is filled from the parsed base
// URL and the plain path, as url.Parse and net/http would fill it.
func newAttemptRequest(ctx context.Context, method string, base *url.URL, req *request, body any) (*retryablehttp.Request, error) {
	if !req.direct {
		return retryablehttp.NewRequestWithContext(ctx, method, req.url, body)
	}
	hreq, err := http.NewRequestWithContext(ctx, method, "", nil)
	if err != nil {
		return nil, err
	}
	u := hreq.URL
	u.Scheme, u.Host, u.Path, u.RawQuery = base.Scheme, strings.TrimSuffix(base.Host, ":"), req.path, req.query
	hreq.Host = u.Host
	rreq := &retryablehttp.Request{Request: hreq}
	if err := rreq.SetBody(body); err != nil {
		return nil, err
	}
	return rreq, nil
}

func success(status int) bool { return status >= 200 && status <= 299 }

// setHeaders sets every attempt's headers, in slices the request owns, so
// a middleware writing req.Header["Authorization"][0] in place changes
// only its request.
func (state *callState) setHeaders(h http.Header) {
	c, s := state.client, state.s
	ua := c.userAgent
	if s.AppInfo != c.settings.AppInfo {
		ua = UserAgent(s.AppInfo)
	}
	h["User-Agent"] = []string{ua}
	h["Accept"] = []string{acceptHeader}
	if state.req.body != nil {
		h["Content-Type"] = []string{jsonContentType}
	}
	for k, v := range s.Header {
		h[k] = slices.Clone(v)
	}
}

// attemptStarts is the RequestLogHook.
func attemptStarts(_ retryablehttp.Logger, req *http.Request, _ int) {
	state := stateOf(req.Context())
	state.attemptLogClock()
	state.retryWentOut()
}

// checkRetry is the CheckRetry hook. It reads the body inside the attempt,
// so the attempt's timeout covers it, a 2xx body cut short is retried as a
// transport failure, and the connection is pooled before any backoff.
func checkRetry(ctx context.Context, resp *http.Response, err error) (bool, error) {
	state := stateOf(ctx)
	state.attempts++
	var apiErr *apierrors.Error
	var bodyErr error
	if resp != nil {
		state.lastStatus = resp.StatusCode
		if err == nil {
			apiErr, bodyErr = state.readResponse(resp)
			if bodyErr != nil {
				err, resp = bodyErr, nil
			}
		}
	}
	if state.s.Logger != nil {
		state.log(slog.LevelDebug, "attempt", resp, err)
	}
	state.observeRate(apiErr, err)
	state.observeAdmission(apiErr, err)
	d, wait := state.decide(ctx, apiErr, err)
	if d == Retry {
		wait = state.spaceRetry(ctx, wait)
	}
	state.stop = d
	if state.s.Observer != nil {
		state.observeAttempt(ctx, resp, apiErr, err, d, wait)
	}
	if d != Retry {
		return false, bodyErr // non-nil: the library calls the ErrorHandler
	}
	state.wait = wait
	if state.op.Credential {
		noteTokenWait(ctx, apiErr, wait) // a caller whose deadline comes first returns the answer now
	}
	if state.s.Retry.OnRetry != nil {
		state.s.Retry.OnRetry(state.attempts, wait)
	}
	if state.s.Logger != nil {
		state.log(slog.LevelWarn, "retrying", resp, err, slog.Duration("wait", wait))
	}
	return true, nil
}

// readResponse reads resp's body and decodes an error status into
// state.lastErr; it fails for a 2xx body not read whole.
func (state *callState) readResponse(resp *http.Response) (*apierrors.Error, error) {
	if success(resp.StatusCode) {
		limit := state.s.MaxResponseBytes
		body, err := readBody(resp, limit)
		state.body, state.refused = body, nil
		if err != nil {
			return nil, fmt.Errorf("reading the %d response body: %w", resp.StatusCode, err)
		}
		switch {
		case int64(len(body)) > limit:
			state.body = body[:limit]
			state.refused = &bodyTooLong{limit: limit}
		case state.op.Credential && resp.Request != nil && !sameOrigin(resp.Request, state.client.settings.BaseURL):
			state.refused = errors.New("the credential response came from another origin than the base URL after a redirect; refused")
		}
		return nil, nil
	}
	body, err := readBody(resp, apierrors.MaxBodySnippet)
	e := errorFor(resp, body, err != nil, true)
	state.body = e.Body
	e.Operation, e.Method, e.Path, e.Attempts = state.op.Name, state.op.Method, state.req.path, state.prior+state.attempts
	state.lastErr = e
	return e, nil
}

// noLibraryBackoff is the Backoff hook: checkRetry chose the wait (the
// deadline rule needs it) and prepareRetry waits it.
func noLibraryBackoff(_, _ time.Duration, _ int, _ *http.Response) time.Duration { return 0 }

// prepareRetry is the PrepareRetry hook.
func prepareRetry(req *http.Request) error {
	state := stateOf(req.Context())
	if err := state.sleep(req.Context()); err != nil {
		return err
	}
	req.Header = req.Header.Clone()
	req.Header.Set(RetryAttemptHeader, strconv.Itoa(state.attempts))
	return state.readyAttempt(req, true)
}

// sleep waits state.wait or until ctx ends, adding to state.waited.
func (state *callState) sleep(ctx context.Context) error {
	slept, err := sleepCtx(ctx, state.wait)
	state.waited += slept
	return err
}

// sleepCtx waits d or until ctx ends, and returns how long it slept and
// ctx.Err() if it ended first.
func sleepCtx(ctx context.Context, d time.Duration) (time.Duration, error) {
	if d <= 0 {
		return 0, nil
	}
	start := time.Now()
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
		return d, nil
	case <-ctx.Done():
		return min(time.Since(start), d), ctx.Err()
	}
}

// returnLastError is the ErrorHandler: the cause, not "giving up", or a
// final error response undrained.
func returnLastError(resp *http.Response, err error, _ int) (*http.Response, error) {
	if err == nil {
		return resp, nil
	}
	if resp != nil {
		httpx.DrainAndClose(resp.Body)
	}
	return nil, err
}

// readyAttempt waits for the attempt's turn, then sets the bearer token (a
// retry's from the cache again, it may have been refreshed) and signs.
func (state *callState) readyAttempt(req *http.Request, retry bool) error {
	if err := state.waitTurn(req.Context()); err != nil {
		return err
	}
	if state.tok != nil {
		if retry {
			t, err := state.client.tokens.Get(req.Context())
			if err != nil {
				return err
			}
			state.tok = t
			req.Header["Authorization"] = []string{t.Header} // prepareRetry cloned the headers
		} else {
			state.authz[0] = state.tok.Header
			req.Header["Authorization"] = state.authz[:1:1]
		}
	}
	if state.s.Observer != nil {
		state.startAttempt(req) // before signing, so propagation headers are signed
	}
	if state.sign != nil {
		if err := state.sign(req, state.req.body); err != nil {
			err := &apierrors.TokenError{Reason: "signing the request", Err: err}
			if state.s.Observer != nil { // the attempt started and is not sent
				state.endAttempt(req.Context(), observe.AttemptResult{Err: err})
			}
			return err
		}
	}
	state.sent = req
	return nil
}

// DefaultMaxResponseBytes bounds a 2xx body (option.WithMaxResponseBytes):
// the contract's largest response is a few hundred KiB.
const DefaultMaxResponseBytes = 8 << 20

// readBody reads at most limit+1 bytes of resp's body (the extra one tells
// it is longer), drains and closes it, and leaves http.NoBody.
func readBody(resp *http.Response, limit int64) ([]byte, error) {
	orig := resp.Body
	if orig == nil || orig == http.NoBody {
		return nil, nil
	}
	resp.Body = http.NoBody
	max := limit + 1
	if max <= 0 {
		max = math.MaxInt64 // limit was math.MaxInt64
	}
	size := int64(bytes.MinRead)
	if resp.ContentLength > 0 && resp.ContentLength < max {
		size = resp.ContentLength + 1 // +1 to see EOF without growing
	}
	buf := make([]byte, 0, min(size, max, 1<<20))
	for {
		if len(buf) == cap(buf) {
			if int64(len(buf)) >= max {
				httpx.DrainAndClose(orig)
				return buf, nil
			}
			buf = append(make([]byte, 0, min(2*int64(cap(buf)), max, int64(cap(buf))+64<<20)), buf...)
		}
		n, err := orig.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err != nil {
			_ = orig.Close() // at EOF, or failed: nothing to drain
			if err == io.EOF {
				err = nil
			}
			return buf, err
		}
	}
}

// failure is the typed error for a send without a final response: a
// TokenError, or a TransportError keeping the server's last answer.
func (state *callState) failure(err error) error {
	state.refundRetry()
	attempts := state.prior + state.attempts
	if state.lastErr != nil {
		state.lastErr.Attempts = attempts
	}
	var te *apierrors.TokenError
	if errors.As(err, &te) {
		if state.lastErr == nil || te.Last != nil {
			return withOperation(err, state.op.Name)
		}
		cp := *te // shared by every caller of the fetch
		cp.Last = state.lastErr
		return withOperation(&cp, state.op.Name)
	}
	var uerr *url.Error
	if errors.As(err, &uerr) {
		if u, perr := url.Parse(uerr.URL); perr == nil {
			uerr.URL = redactURL(u) // never echo a query string
		}
	}
	if text := err.Error(); state.scrub(text) != text { // net/http may quote an echoed Location's credential
		err = &redactedError{err: err, text: state.scrub(text)}
	}
	switch state.stop {
	case StopBudget:
		err = budgetStopped(err)
	case StopShed:
		err = state.shedCause(state.refusal, err)
	}
	return &apierrors.TransportError{Operation: state.op.Name, Method: state.op.Method, Path: state.req.path,
		Attempts: attempts, Waited: state.waited, LastStatus: state.lastStatus, Err: err, Last: state.lastErr}
}

// scrub replaces in text the secrets the current attempt carried.
func (state *callState) scrub(text string) string {
	if state.sent == nil {
		return text
	}
	return redact.New(secretsOf(state.sent.Header)...).String(text)
}

// redactedError is a cause's text with the secrets replaced.
type redactedError struct {
	err  error
	text string
}

func (e *redactedError) Error() string { return e.text }

func (e *redactedError) Unwrap() error { return e.err }

// secretsOf returns a request's secrets: the credential headers, the bearer
// token and the SigV4 signature.
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

// secretsSent returns the secrets of resp's redirect chain.
func secretsSent(resp *http.Response) []string {
	var secrets []string
	for r := resp; r != nil && r.Request != nil; r = r.Request.Response {
		secrets = append(secrets, secretsOf(r.Request.Header)...)
	}
	return secrets
}

// errorFor is the typed error for resp and its body (decoded when decode is
// set), keeping a snippet. Secrets are replaced in the bytes, then in the
// decoded texts, which may spell one with escapes.
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
	e.Body = nil // redacted already: not searched twice
	e.Redact(secrets...)
	e.Body, e.BodyTruncated = body, truncated
	return e
}
