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
	"strconv"
	"strings"
	"time"

	"github.com/hashicorp/go-retryablehttp"

	apierrors "github.com/memberplatform/memberplatform-go/errors"
	"github.com/memberplatform/memberplatform-go/internal/httpx"
	"github.com/memberplatform/memberplatform-go/internal/redact"
)

// RetryAttemptHeader carries the retry number (1 for the first retry) on
// retried requests, for server-side telemetry. It is set before signing, so
// it is covered by a SigV4 signature rather than breaking it.
const RetryAttemptHeader = "X-Retry-Attempt"

// This file is the pipeline's boundary with go-retryablehttp, and the
// state of one send with everything that changes it.
//
// The library's loop, per attempt, calls the hooks in this order:
//
//	RequestLogHook (attemptStarts)  the attempt starts: its clock, the retry paid for goes out
//	HTTPClient.Do                   attemptTransport (transport.go) under the *http.Client
//	CheckRetry (checkRetry)         read and decode the answer, ask the policy and the budget
//	Backoff (noLibraryBackoff)      0: checkRetry chose the wait, prepareRetry waits it
//	PrepareRetry (prepareRetry)     wait, pace, number the retry, authorize and sign again
//	ErrorHandler (returnLastError)  once, when the loop ends on an error
//
// Library settings that exist here only to be switched off: RetryMax
// (the policy counts retries, so a call's options can change the limit
// while the library client is shared), Backoff (it gets no context and a
// nil response after a connection error), the library's logger (the SDK
// logs allow-listed records, log.go), and its "giving up after N attempts"
// error (ErrorHandler returns the cause). The library also calls the
// transport's CloseIdleConnections when it gives up; attemptTransport
// hides it from a shared pool.
//
// The hooks are plain functions shared by every call of a Client, and read
// the call's state from the request's context (stateOf). Closures per call
// would cost each call a library client and its allocations; the success
// path has none to spare.

// attemptClient runs the attempts of a call on go-retryablehttp.
type attemptClient struct {
	http  *http.Client
	retry *retryablehttp.Client
}

func newAttemptClient(hc *http.Client) *attemptClient {
	return &attemptClient{http: hc, retry: &retryablehttp.Client{
		HTTPClient:     hc,
		RetryMax:       math.MaxInt32,
		CheckRetry:     checkRetry,
		Backoff:        noLibraryBackoff,
		PrepareRetry:   prepareRetry,
		ErrorHandler:   returnLastError,
		RequestLogHook: attemptStarts,
	}}
}

// callState is what the hooks know about one send: the call, its settings
// and the outcome of each attempt so far. It lives in the request's context
// for the duration of the send.
type callState struct {
	client   *Client
	s        *Settings
	call     *Call
	req      *request
	tok      *CachedToken // nil when the call carries no bearer token
	ctx      context.Context
	prior    int // attempts made before this send (a resend after 401)
	attempts int // attempts of this send
	stop     Decision
	wait     time.Duration // chosen by checkRetry, waited by prepareRetry
	waited   time.Duration
	start    time.Time     // when the current attempt started
	sent     *http.Request // the current attempt's request, as authorized
	own      ownedHeaders  // the first attempt's header values (setHeaders)

	lastStatus int
	lastErr    *apierrors.Error // the last error response, decoded once
	body       []byte           // the last response's body, read inside the attempt
	// refused says why a 2xx body will not be used (too long, or a
	// credential from another origin), nil when it will.
	refused error

	loadState // retry budget and adaptive limiter bookkeeping (budget.go)
}

type callStateKey struct{}

func stateOf(ctx context.Context) *callState {
	state, _ := ctx.Value(callStateKey{}).(*callState)
	return state
}

// outcome is the result of a send that got a final response.
type outcome struct {
	resp     *http.Response   // body already read into body and closed
	body     []byte           // the final response's body
	apiErr   *apierrors.Error // decoded when the final status is not 2xx
	attempts int              // every attempt of the call so far
	refused  error            // why a 2xx body will not be used, if so
	tok      *CachedToken     // the token the final attempt carried, nil for none
}

// ownedHeaders holds the values of the headers the SDK sets on an attempt.
// Each send has its own (in its callState, which is allocated anyway), so
// a middleware or RoundTripper that writes req.Header["Authorization"][0]
// in place (legal http.Header use) changes only that request: no other
// call, goroutine or the token cache shares the slice. A retry gets fresh
// slices from prepareRetry's Header.Clone.
type ownedHeaders [4]string

const (
	ownedUserAgent = iota
	ownedAccept
	ownedContentType
	ownedAuthorization
)

// own stores v in slot i and returns a one-element slice of it whose
// capacity ends there, so that an append by the caller reallocates instead
// of writing into the next slot.
func (o *ownedHeaders) own(i int, v string) []string {
	o[i] = v
	return o[i : i+1 : i+1]
}

// setHeaders sets the headers every attempt carries: User-Agent, Accept,
// Content-Type and the caller's extra headers, each in slices this request
// owns. Authorization and the signature are added later, per attempt.
func (c *Client) setHeaders(h http.Header, s *Settings, hasBody bool, own *ownedHeaders) {
	ua := c.userAgent
	if s.AppInfo != c.settings.AppInfo {
		ua = UserAgent(s.AppInfo)
	}
	h["User-Agent"] = own.own(ownedUserAgent, ua)
	h["Accept"] = own.own(ownedAccept, acceptHeader)
	if hasBody {
		h["Content-Type"] = own.own(ownedContentType, jsonContentType)
	}
	if len(s.Header) > 0 {
		// Extra headers (option.WithHeader): one allocation holds every
		// value, so the request owns them as well.
		n := 0
		for _, v := range s.Header {
			n += len(v)
		}
		vals := make([]string, 0, n)
		for k, v := range s.Header {
			start := len(vals)
			vals = append(vals, v...)
			h[k] = vals[start:len(vals):len(vals)]
		}
	}
}

// Header values the SDK sends.
const (
	acceptHeader    = "application/json, application/problem+json"
	jsonContentType = "application/json"
)

// send makes the attempts of one request with token tok (nil for none). It
// returns the final response, or the typed error that ended the call
// without one (*errors.TransportError, *errors.TokenError).
func (ac *attemptClient) send(ctx context.Context, c *Client, s *Settings, call *Call, req *request, tok *CachedToken, prior int) (outcome, error) {
	state := &callState{client: c, s: s, call: call, req: req, tok: tok, prior: prior}
	ctx = context.WithValue(ctx, callStateKey{}, state)
	state.ctx = ctx
	var body any
	if req.body != nil {
		body = req.body
	}
	rreq, err := retryablehttp.NewRequestWithContext(ctx, call.Op.Method, req.url, body)
	if err != nil {
		// Unreachable for the SDK's own paths (escaped) and Execute's
		// (checked); the query is dropped from the text all the same.
		var uerr *url.Error
		if errors.As(err, &uerr) {
			uerr.URL, _, _ = strings.Cut(uerr.URL, "?")
		}
		return outcome{}, invalidCall(call, "url", err.Error())
	}
	c.setHeaders(rreq.Header, s, req.body != nil, &state.own)
	if err := state.waitTurn(ctx); err != nil {
		return outcome{}, state.failure(err)
	}
	if err := state.authorizeAttempt(rreq.Request, false); err != nil {
		return outcome{}, state.failure(err)
	}
	resp, err := ac.retry.Do(rreq)
	if err != nil {
		return outcome{}, state.failure(err)
	}
	if state.stop.givesUp() && s.Logger != nil {
		state.log(slog.LevelWarn, "giving up", resp, nil, slog.String("reason", state.stop.String()))
	}
	out := outcome{resp: resp, body: state.body, attempts: prior + state.attempts, refused: state.refused, tok: state.tok}
	if !success(resp.StatusCode) {
		if state.lastErr == nil || state.lastErr.StatusCode != resp.StatusCode {
			// checkRetry reads every response; this only guards against a
			// library that would hand one back unread.
			_, _ = state.readResponse(resp)
		}
		out.apiErr = state.lastErr
		out.apiErr.Attempts = out.attempts
	}
	state.settleBudget(out.apiErr)
	return out, nil
}

func success(status int) bool { return status >= 200 && status <= 299 }

// checkRetry runs after every attempt (go-retryablehttp's CheckRetry). It
// reads the body inside the attempt, decodes an error response once, and
// asks the policy what to do. A 2xx whose body could not be read in full
// lost the result: it is handled like a transport failure (retried when the
// operation is idempotent). An error status whose body was cut short is
// decided on its status, with what was read of the body.
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
	d, wait := state.s.Retry.Decide(ctx, state.attempts, state.call.Op.Idempotent || state.s.Idempotent, apiErr, err)
	if d == Retry && !state.spendRetry(apiErr, err) {
		d = StopBudget
	}
	state.stop = d
	if state.s.Observer != nil {
		state.observeAttempt(ctx, resp, apiErr, err, d, wait)
	}
	if d != Retry {
		// A non-nil error makes go-retryablehttp pass it to the
		// ErrorHandler instead of returning the emptied response.
		return false, bodyErr
	}
	state.wait = wait
	if state.s.Retry.OnRetry != nil {
		state.s.Retry.OnRetry(state.attempts, wait)
	}
	if state.s.Logger != nil {
		state.log(slog.LevelWarn, "retrying", resp, err, slog.Duration("wait", wait))
	}
	return true, nil
}

// readResponse reads resp's body into state.body and, for an error status,
// decodes it into state.lastErr. A 2xx body that could not be read whole is
// returned as an error.
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
			state.body = body[:limit] // the byte past the limit only told that there is more
			state.refused = &bodyTooLong{limit: limit}
		case state.call.Op.Credential && resp.Request != nil && !state.sameOrigin(resp.Request):
			state.refused = errors.New("the credential response came from another origin than the base URL after a redirect; refused")
		}
		return nil, nil
	}
	body, err := readBody(resp, apierrors.MaxBodySnippet)
	e := errorFor(resp, body, err != nil, true)
	state.body = e.Body
	e.Operation, e.Method, e.Path, e.Attempts = state.call.Op.Name, state.call.Op.Method, state.req.path, state.prior+state.attempts
	state.lastErr = e
	return e, nil
}

// noLibraryBackoff is go-retryablehttp's Backoff hook. The library calls it
// without a context, and with a nil response after a connection error, so it
// cannot reach the call's policy: checkRetry chooses the wait (the deadline
// rule needs it there) and prepareRetry waits it, with the request's context.
func noLibraryBackoff(_, _ time.Duration, _ int, _ *http.Response) time.Duration { return 0 }

// prepareRetry runs before every retry (go-retryablehttp's PrepareRetry):
// it waits the backoff checkRetry chose, then numbers the retry, attaches
// the current token (it may have been refreshed meanwhile) and signs again.
func prepareRetry(req *http.Request) error {
	state := stateOf(req.Context())
	if err := state.sleep(req.Context()); err != nil {
		return err
	}
	if err := state.waitTurn(req.Context()); err != nil {
		return err
	}
	req.Header = req.Header.Clone()
	req.Header.Set(RetryAttemptHeader, strconv.Itoa(state.attempts))
	return state.authorizeAttempt(req, true)
}

// sleep waits state.wait, or until ctx ends, and counts the time in state.waited.
func (state *callState) sleep(ctx context.Context) error {
	if state.wait <= 0 {
		return nil
	}
	start := time.Now()
	timer := time.NewTimer(state.wait)
	defer timer.Stop()
	select {
	case <-timer.C:
		state.waited += state.wait
		return nil
	case <-ctx.Done():
		state.waited += min(time.Since(start), state.wait)
		return ctx.Err()
	}
}

// returnLastError is go-retryablehttp's ErrorHandler: it replaces the
// library's "giving up after N attempts" error with the cause (a transport
// error, a 2xx body read error from checkRetry, or a prepareRetry failure)
// and hands a final error response back undrained, to be returned as the
// decoded *errors.Error.
func returnLastError(resp *http.Response, err error, _ int) (*http.Response, error) {
	if err != nil {
		if resp != nil {
			httpx.DrainAndClose(resp.Body)
		}
		return nil, err
	}
	return resp, nil
}

// attemptStarts is go-retryablehttp's RequestLogHook, called before each
// attempt: it notes the start time for the attempt's log record (read only
// when there is a logger, so the clock is read only then).
func attemptStarts(_ retryablehttp.Logger, req *http.Request, _ int) {
	state := stateOf(req.Context())
	if state.s.Logger != nil {
		state.start = time.Now()
	}
	state.retrySent()
}

// authorizeAttempt sets the bearer token and the signature on one attempt.
// refresh asks the cache again first: before a retry, the token may have
// been refreshed during the backoff.
func (state *callState) authorizeAttempt(req *http.Request, refresh bool) error {
	if state.tok != nil {
		if refresh {
			t, err := state.client.tokens.Get(req.Context())
			if err != nil {
				return err
			}
			state.tok = t
		}
		if refresh {
			// prepareRetry cloned the headers; the retry gets its own slice.
			req.Header["Authorization"] = []string{state.tok.Header}
		} else {
			req.Header["Authorization"] = state.own.own(ownedAuthorization, state.tok.Header)
		}
	}
	if state.s.Observer != nil {
		state.startAttempt(req) // observe.go: before signing, so propagation headers are signed
	}
	if state.call.Sign != nil {
		if err := state.call.Sign(req, state.req.body); err != nil {
			return state.abandonAttempt(req, &apierrors.TokenError{Reason: "signing the request", Err: err}) // observe.go
		}
	}
	state.sent = req
	return nil
}

// DefaultMaxResponseBytes bounds a 2xx body the SDK reads (see
// option.WithMaxResponseBytes). The contract's largest response, a role
// with thousands of permission slugs, is a few hundred KiB; 8 MiB leaves
// room for growth while keeping a misbehaving server from exhausting memory.
const DefaultMaxResponseBytes = 8 << 20

// readBody reads resp's body inside the attempt, so that the per-attempt
// timeout covers it, a body cut short can be retried, and the connection
// goes back to the pool before any backoff. It reads at most limit+1 bytes
// (one more tells that the body is longer than limit), then drains a
// bounded amount more and closes the body, which is replaced by
// http.NoBody: the bytes are returned instead. On a read error, the bytes
// read so far are returned with the error.
func readBody(resp *http.Response, limit int64) ([]byte, error) {
	orig := resp.Body
	if orig == nil || orig == http.NoBody {
		return nil, nil
	}
	resp.Body = http.NoBody
	max := limit + 1 // one more byte tells that the body is longer than limit
	if max <= 0 {
		max = math.MaxInt64 // limit was math.MaxInt64: no limit
	}
	body, err := readAtMost(orig, max, resp.ContentLength)
	if err != nil || int64(len(body)) < max {
		// Read to EOF (or failed): nothing is left to drain.
		_ = orig.Close()
	} else {
		httpx.DrainAndClose(orig)
	}
	return body, err
}

// readAtMost reads r until EOF or max bytes. The buffer starts at the
// announced length (when known and within max) and otherwise doubles, never
// past max, so a body longer than max costs about 2·max of allocation, not
// its own size.
func readAtMost(r io.Reader, max, announced int64) ([]byte, error) {
	size := int64(bytes.MinRead)
	if announced > 0 && announced < max {
		size = announced + 1 // +1 to see EOF without growing
	}
	// Reserve at most what a body this size plausibly needs up front: a
	// huge Content-Length must not allocate before a byte arrives.
	size = min(size, max, 1<<20)
	buf := make([]byte, 0, size)
	for {
		if len(buf) == cap(buf) {
			if int64(len(buf)) >= max {
				return buf, nil
			}
			grown := make([]byte, len(buf), min(2*int64(cap(buf)), max, int64(cap(buf))+64<<20))
			copy(grown, buf)
			buf = grown
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return buf, err
		}
	}
}

// failure turns the error that ended a send without a final response into
// the SDK's typed error: a token or signing failure stays a TokenError;
// anything else is a TransportError that keeps the server's last answer.
func (state *callState) failure(err error) error {
	state.refundRetry()
	var te *apierrors.TokenError
	if errors.As(err, &te) {
		if state.lastErr == nil || te.Last != nil {
			return withOperation(err, state.call.Op.Name)
		}
		// A refresh failed between retries: keep the answer that was
		// being retried (a 429, say) reachable with errors.Is and As. The
		// error may be shared by every caller of the fetch: copy it.
		cp := *te
		cp.Last = state.lastErr
		cp.Last.Attempts = state.prior + state.attempts
		return withOperation(&cp, state.call.Op.Name)
	}
	var uerr *url.Error
	if errors.As(err, &uerr) {
		// Never echo a query string (it may hold caller secrets).
		if u, perr := url.Parse(uerr.URL); perr == nil {
			uerr.URL = redactURL(u)
		}
	}
	// A server can put a credential where net/http quotes it (an echoed
	// Location): the error's text must not show it.
	err = redactError(err, state.secrets())
	err = state.budgetCause(err)
	attempts := state.prior + state.attempts
	e := &apierrors.TransportError{Operation: state.call.Op.Name, Method: state.call.Op.Method, Path: state.req.path,
		Attempts: attempts, Waited: state.waited, LastStatus: state.lastStatus, Err: err}
	if state.lastErr != nil {
		// The server's last answer (a 503, say) is kept: its problem,
		// request ID and Retry-After are what an operator needs.
		e.Last = state.lastErr
		e.Last.Attempts = attempts
	}
	return e
}

// secrets returns what the current attempt's request carried that must not
// come back out in an error or a log record.
func (state *callState) secrets() []string {
	if state.sent == nil {
		return nil
	}
	return secretsOf(state.sent.Header)
}

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

// waitTurn waits until the call may send its next attempt: first on the
// adaptive limiter (internal/pacer), then on the user's limiter. It runs
// before the first attempt of a send and after the backoff of each retry,
// before the attempt is signed, so a long wait cannot stale a signature.
// The adaptive limiter never starts a wait longer than MaxRetryAfter, the
// longest the client waits when the provider itself asks.
func (state *callState) waitTurn(ctx context.Context) error {
	if state.s.Observer != nil {
		defer state.observeWait(state.waitStarts()) // observe.go
	}
	if a := state.s.Adaptive; a != nil {
		epoch, err := a.Wait(ctx, state.s.Retry.MaxRetryAfter)
		if err != nil {
			return pacedOut(err)
		}
		state.epoch = epoch
	}
	if l := state.s.RateLimiter; l != nil {
		if err := l.Wait(ctx); err != nil {
			return fmt.Errorf("waiting on the rate limiter: %w", err)
		}
	}
	return nil
}

// observeRate tells the adaptive limiter how an attempt went: apiErr is its
// decoded error response (nil for a 2xx) and err the failure that left it
// without a usable response.
func (state *callState) observeRate(apiErr *apierrors.Error, err error) {
	a := state.s.Adaptive
	if a == nil || err != nil {
		return // no answer: nothing learnt about the provider's rate
	}
	switch {
	case apiErr == nil:
		a.Admitted()
	case rateLimited(apiErr):
		a.Throttled(state.epoch, apiErr.RetryAfter)
	case apiErr.StatusCode < http.StatusInternalServerError:
		// A 4xx was admitted by the provider's limit just as a 2xx was. A
		// 5xx says nothing about the rate and is left to the retry budget.
		a.Admitted()
	}
}

// sameOrigin reports whether req goes to the base URL's scheme and host
// (with its port).
func (state *callState) sameOrigin(req *http.Request) bool {
	base := state.client.settings.BaseURL
	return strings.EqualFold(req.URL.Scheme, base.Scheme) && strings.EqualFold(req.URL.Host, base.Host)
}
