package core

import (
	"context"
	"errors"
	"fmt"
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
)

// RetryAttemptHeader carries the retry number (1 for the first retry) on
// retried requests, for server-side telemetry. It is set before signing, so
// it is covered by a SigV4 signature rather than breaking it.
const RetryAttemptHeader = "X-Retry-Attempt"

// attemptClient runs the attempts of a call on go-retryablehttp. One
// library client serves every call of a core.Client: its hooks are plain
// functions, and each call's state travels in the request's context
// (callState), which the library hands to CheckRetry and PrepareRetry.
type attemptClient struct {
	http  *http.Client
	retry *retryablehttp.Client
}

func newAttemptClient(hc *http.Client) *attemptClient {
	return &attemptClient{http: hc, retry: &retryablehttp.Client{
		HTTPClient: hc,
		// The SDK's policy counts retries in checkRetry, because a call's
		// options may change the limit while the library client is shared.
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
	own      ownedHeaders  // the first attempt's header values (request.go)

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
	if state.stop.givesUp() {
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
	state.log(slog.LevelDebug, "attempt", resp, err)
	state.observeRate(apiErr, err)
	d, wait := state.s.Retry.Decide(ctx, state.attempts, state.call.Op.Idempotent || state.s.Idempotent, apiErr, err)
	if d == Retry && !state.spendRetry(apiErr, err) {
		d = StopBudget
	}
	state.stop = d
	state.observeAttempt(ctx, resp, apiErr, err, d, wait)
	if d != Retry {
		// A non-nil error makes go-retryablehttp pass it to the
		// ErrorHandler instead of returning the emptied response.
		return false, bodyErr
	}
	state.wait = wait
	state.retryPending = true
	if state.s.Retry.OnRetry != nil {
		state.s.Retry.OnRetry(state.attempts, wait)
	}
	state.log(slog.LevelWarn, "retrying", resp, err, slog.Duration("wait", wait))
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
	// Secrets are replaced in the bytes, then in the decoded texts, which
	// may spell one with escapes the bytes did not match.
	secrets := secretsSent(resp)
	body, truncated := redactSnippet(body, secrets, apierrors.MaxBodySnippet, err != nil)
	state.body = body
	e := apierrors.Decode(resp.StatusCode, resp.Header, body)
	redactDecoded(e, body, secrets)
	e.BodyTruncated = truncated
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
	state.retryPending = false // the retry the budget paid for goes out
}
