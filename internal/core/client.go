package core

import (
	"bytes"
	"context"
	"encoding/json"
	stderrors "errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/go-cleanhttp"
	"github.com/hashicorp/go-retryablehttp"

	memberplatform "github.com/memberplatform/memberplatform-go"
	apierrors "github.com/memberplatform/memberplatform-go/errors"
	"github.com/memberplatform/memberplatform-go/internal/httpx"
)

// Operation describes one API operation.
type Operation struct {
	Name   string // "accessmgmt.UpdateUser": used in errors and logs
	Method string
	// Path is the path template, with {name} placeholders filled, in order,
	// by Call.PathParams (each escaped with url.PathEscape).
	Path string
	// Idempotent says whether the request may be repeated after it reached
	// the server. Non-idempotent requests are retried only when the
	// connection failed before the request was written.
	Idempotent bool
	// Auth says whether the request carries the bearer token.
	Auth bool
}

// Call is one invocation of an Operation.
type Call struct {
	Op         *Operation
	PathParams []string
	Body       any // marshalled to JSON once; nil sends no body
	// Out receives the decoded 2xx body; nil discards it. A *[]byte gets the
	// raw bytes (at most 1 MiB). An empty 2xx body leaves Out untouched.
	Out any
	// Sign, if set, is called before every attempt, after all other headers
	// are final, with the exact body bytes.
	Sign func(req *http.Request, body []byte) error
	// Status, if set, receives the final HTTP status.
	Status *int
}

// Client runs calls. It is safe for concurrent use.
type Client struct {
	settings  Settings
	http      *http.Client
	userAgent string
	uaHeader  []string // []string{userAgent}, shared by every request (never mutated)
	tokens    *TokenCache
}

// New returns a Client for settings s. tokens may be nil (no Authorization).
func New(s Settings, tokens *TokenCache) (*Client, error) {
	c := &Client{settings: s, tokens: tokens}
	if err := c.check(&s); err != nil {
		return nil, err
	}
	c.http = buildHTTPClient(&s, nil)
	c.userAgent = UserAgent(s.AppInfo)
	c.uaHeader = []string{c.userAgent}
	return c, nil
}

// Settings returns a copy of the client's settings.
func (c *Client) Settings() Settings { return c.settings }

// Tokens returns the client's token cache, or nil.
func (c *Client) Tokens() *TokenCache { return c.tokens }

func (c *Client) check(s *Settings) error {
	if s.BaseURL == nil || s.BaseURL.Host == "" || (s.BaseURL.Scheme != "http" && s.BaseURL.Scheme != "https") {
		return fmt.Errorf("memberplatform: base URL must be an absolute http or https URL (set client.WithBaseURL or MEMBERPLATFORM_BASE_URL), got %q", redactURL(s.BaseURL))
	}
	if c.tokens != nil {
		return CheckBearerTransport(s)
	}
	return nil
}

// CheckBearerTransport refuses a base URL over which a bearer token would
// travel in clear text: plain http to a host that is not loopback, unless
// AllowInsecureBearer is set. It guards both sending the token (API calls)
// and receiving it (the token call).
func CheckBearerTransport(s *Settings) error {
	if u := s.BaseURL; u != nil && u.Scheme == "http" && !s.AllowInsecureBearer && !httpx.IsLoopbackHost(u.Hostname()) {
		return fmt.Errorf("memberplatform: refusing to carry a bearer token over plain http to or from non-loopback host %q; use https, or client.WithInsecureBearerOverHTTP() if you really mean it", u.Hostname())
	}
	return nil
}

func redactURL(u *url.URL) string {
	if u == nil {
		return ""
	}
	r := *u
	r.User = nil
	r.RawQuery = ""
	return r.String()
}

// UserAgent returns "memberplatform-go/<version> (go<ver>; <os>/<arch>)"
// followed by appInfo, if any.
func UserAgent(appInfo string) string {
	ua := "memberplatform-go/" + memberplatform.Version + " (" + runtime.Version() + "; " + runtime.GOOS + "/" + runtime.GOARCH + ")"
	if appInfo != "" {
		ua += " " + appInfo
	}
	return ua
}

// buildHTTPClient makes the *http.Client the retry loop uses: the user's
// transport (or a pooled default) behind a wrapper that hides
// CloseIdleConnections, because go-retryablehttp calls it when it gives up
// and that would tear down the user's shared connection pool.
func buildHTTPClient(s *Settings, prev *http.Client) *http.Client {
	rt := s.Transport
	hc := &http.Client{}
	if s.HTTPClient != nil {
		hc.Jar = s.HTTPClient.Jar
		hc.CheckRedirect = s.HTTPClient.CheckRedirect
		hc.Timeout = s.HTTPClient.Timeout
		if rt == nil {
			rt = s.HTTPClient.Transport
		}
	}
	if rt == nil {
		if prev != nil {
			if w, ok := prev.Transport.(keepIdle); ok {
				rt = w.rt
			}
		}
		if rt == nil {
			rt = cleanhttp.DefaultPooledTransport()
		}
	}
	if s.AttemptTimeout > 0 {
		hc.Timeout = s.AttemptTimeout
	}
	if hc.CheckRedirect == nil {
		hc.CheckRedirect = sameOriginRedirect
	}
	hc.Transport = keepIdle{rt}
	return hc
}

// sameOriginRedirect follows up to 5 redirects that stay on the original
// scheme and host. A redirect elsewhere is not followed: its 3xx response is
// returned (and becomes an *errors.Error), so a request body carrying
// personal data is never replayed to another host.
func sameOriginRedirect(req *http.Request, via []*http.Request) error {
	if len(via) >= 5 || req.URL.Scheme != via[0].URL.Scheme || req.URL.Host != via[0].URL.Host {
		return http.ErrUseLastResponse
	}
	return nil
}

// keepIdle forwards to a RoundTripper without exposing
// CloseIdleConnections.
type keepIdle struct{ rt http.RoundTripper }

func (k keepIdle) RoundTrip(r *http.Request) (*http.Response, error) { return k.rt.RoundTrip(r) }

// Do runs call with the client's settings and opts applied.
func (c *Client) Do(ctx context.Context, call *Call, opts ...Option) error {
	if ctx == nil {
		return &apierrors.ValidationError{Operation: call.Op.Name, Fields: []apierrors.FieldError{{Field: "ctx", Message: "must not be nil (use context.Background())"}}}
	}
	s := &c.settings
	hc := c.http
	if len(opts) > 0 {
		cp := c.settings
		// Header and Query are shared with the client: copy them before a
		// per-call option writes to them. TokenSourceSet is cleared so that
		// a per-call WithTokenSource is detected without comparing sources
		// (a TokenSourceFunc is not comparable: == would panic).
		cp.cloned = false
		cp.TokenSourceSet = false
		if err := cp.Apply(opts); err != nil {
			return &apierrors.ValidationError{Operation: call.Op.Name, Fields: []apierrors.FieldError{{Field: "options", Message: err.Error()}}}
		}
		if cp.TokenSourceSet {
			return &apierrors.ValidationError{Operation: call.Op.Name, Fields: []apierrors.FieldError{{Field: "options", Message: "WithTokenSource and WithSigV4 apply to client.New, not to a single call"}}}
		}
		if cp.BaseURL != c.settings.BaseURL {
			// The client's token must never go to a host it was not
			// built for.
			return &apierrors.ValidationError{Operation: call.Op.Name, Fields: []apierrors.FieldError{{Field: "options", Message: "WithBaseURL applies to client.New, not to a single call"}}}
		}
		if cp.Transport != c.settings.Transport || cp.HTTPClient != c.settings.HTTPClient || cp.AttemptTimeout != c.settings.AttemptTimeout {
			hc = buildHTTPClient(&cp, c.http)
		}
		s = &cp
	}
	if s.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, s.Timeout)
		defer cancel()
	}
	rawURL, path := buildURL(s, call.Op.Path, call.PathParams)
	var body []byte
	if call.Body != nil {
		var err error
		if body, err = json.Marshal(call.Body); err != nil {
			return &apierrors.ValidationError{Operation: call.Op.Name, Fields: []apierrors.FieldError{{Field: "body", Message: "cannot encode as JSON: " + err.Error()}}}
		}
	}
	useAuth := call.Op.Auth && c.tokens != nil
	attempts := 0
	for authRetry := 0; ; authRetry++ {
		var tok *CachedToken
		if useAuth {
			var err error
			if tok, err = c.tokens.Get(ctx); err != nil {
				return withOperation(err, call.Op.Name)
			}
		}
		resp, n, err := c.send(ctx, s, hc, call, rawURL, path, body, tok)
		attempts += n
		if err != nil {
			if te, ok := err.(*apierrors.TransportError); ok {
				te.Attempts = attempts
			}
			return err
		}
		if resp.StatusCode == http.StatusUnauthorized && useAuth && authRetry == 0 {
			// The token was rejected: drop exactly that token (a newer
			// one is kept), fetch a fresh one and resend once. When the
			// source hands back the very token that was rejected (a
			// static token), resending cannot help: the 401 is returned.
			sent := tok.Header
			if resp.Request != nil {
				sent = resp.Request.Header.Get("Authorization")
			}
			c.tokens.InvalidateRejected(resp.Request, tok)
			fresh, err := c.tokens.Get(ctx)
			if err != nil {
				httpx.DrainAndClose(resp.Body)
				return withOperation(err, call.Op.Name)
			}
			if fresh.Header != sent {
				httpx.DrainAndClose(resp.Body)
				continue
			}
		}
		if call.Status != nil {
			*call.Status = resp.StatusCode
		}
		if resp.StatusCode < 200 || resp.StatusCode > 299 {
			e := apierrors.FromResponse(resp)
			e.Operation, e.Method, e.Path, e.Attempts = call.Op.Name, call.Op.Method, path, attempts
			return e
		}
		return decodeSuccess(resp, call, path, attempts)
	}
}

// withOperation names the call on a token error. The error may be shared by
// every caller that waited for the same fetch, so it is copied, not changed.
func withOperation(err error, op string) error {
	te, ok := err.(*apierrors.TokenError)
	if !ok || te.Operation != "" {
		return err
	}
	cp := *te
	cp.Operation = op
	return &cp
}

func decodeSuccess(resp *http.Response, call *Call, path string, attempts int) error {
	if bb, ok := resp.Body.(*bufferedBody); ok && bb.Len() == len(bb.b) {
		// Read in full inside the attempt (bufferBody): decode the bytes
		// where they are instead of copying them again through a
		// json.Decoder, and skip the drain (there is nothing to drain).
		return decodeBuffered(resp, bb.b, call, path, attempts)
	}
	defer httpx.DrainAndClose(resp.Body)
	if call.Out == nil {
		return nil
	}
	var err error
	if raw, ok := call.Out.(*[]byte); ok {
		*raw, err = io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	} else {
		err = json.NewDecoder(resp.Body).Decode(call.Out)
		if err == io.EOF {
			err = nil // an empty 2xx body is a success with no content
		}
	}
	if err != nil {
		return undecodable(resp, call, path, attempts, nil, err)
	}
	return nil
}

// undecodable is the typed error for a 2xx body that could not be decoded:
// it keeps the status, headers, request ID and a snippet of the body, and
// wraps the decoding error (errors.Is(err, ErrUnexpectedResponseBody)).
func undecodable(resp *http.Response, call *Call, path string, attempts int, body []byte, err error) error {
	e := &apierrors.Error{Operation: call.Op.Name, Method: call.Op.Method, Path: path, StatusCode: resp.StatusCode,
		Header: resp.Header, RequestID: httpx.RequestID(resp.Header), Attempts: attempts, Err: err}
	if len(body) > apierrors.MaxBodySnippet {
		body, e.BodyTruncated = body[:apierrors.MaxBodySnippet], true
	}
	e.Body = body
	return e
}

// decodeBuffered is decodeSuccess for a body already in memory, with the
// same results: json.Unmarshal parses in place, and a syntax error (such as
// data after the first value, which json.Decoder ignores) falls back to
// json.Decoder so the outcome and the error are exactly decodeSuccess's.
func decodeBuffered(resp *http.Response, b []byte, call *Call, path string, attempts int) error {
	var err error
	switch out := call.Out.(type) {
	case nil:
		return nil
	case *[]byte:
		*out = b // at most maxBuffered (1 MiB), no longer used by the body
		return nil
	default:
		if len(bytes.TrimSpace(b)) == 0 {
			return nil // an empty 2xx body is a success with no content
		}
		err = json.Unmarshal(b, out)
		var se *json.SyntaxError
		if stderrors.As(err, &se) {
			err = json.NewDecoder(bytes.NewReader(b)).Decode(out)
		}
	}
	if err != nil {
		return undecodable(resp, call, path, attempts, b, err)
	}
	return nil
}

// buildURL joins the base URL (keeping its path prefix), the escaped path
// and the query. It returns the full URL and the escaped path alone.
func buildURL(s *Settings, tmpl string, params []string) (string, string) {
	// One allocation: the full URL is built in one buffer and the path is
	// a substring of it.
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
	i := 0
	for {
		open := strings.IndexByte(tmpl, '{')
		if open < 0 {
			b.WriteString(tmpl)
			break
		}
		end := strings.IndexByte(tmpl[open:], '}')
		if end < 0 {
			b.WriteString(tmpl)
			break
		}
		b.WriteString(tmpl[:open])
		if i < len(params) {
			b.WriteString(escapeSegment(params[i]))
		}
		i++
		tmpl = tmpl[open+end+1:]
	}
	full := b.String()
	path := full[origin:]
	if len(s.Query) > 0 {
		full += "?" + s.Query.Encode()
	}
	return full, path
}

// escapeSegment escapes one path segment; "." and ".." are encoded too, so
// no parameter can climb out of its place in the path.
func escapeSegment(p string) string {
	switch p {
	case ".":
		return "%2E"
	case "..":
		return "%2E%2E"
	}
	return url.PathEscape(p)
}

// send runs the retry loop for one token. It returns the final response, or
// a typed error when none was received, and the number of attempts made.
func (c *Client) send(ctx context.Context, s *Settings, hc *http.Client, call *Call, rawURL, path string, body []byte, tok *CachedToken) (*http.Response, int, error) {
	run := retryRuns.Get().(*retryRun)
	defer run.release()
	st := &run.st
	*st = attemptState{ctx: ctx, c: c, s: s, call: call, path: path, body: body, tok: tok}
	var rawBody any
	if body != nil {
		rawBody = body
	}
	req, err := retryablehttp.NewRequestWithContext(ctx, call.Op.Method, rawURL, rawBody)
	if err != nil {
		return nil, 0, &apierrors.ValidationError{Operation: call.Op.Name, Fields: []apierrors.FieldError{{Field: "url", Message: err.Error()}}}
	}
	h := req.Header
	if s.AppInfo != c.settings.AppInfo {
		h["User-Agent"] = []string{UserAgent(s.AppInfo)}
	} else {
		h["User-Agent"] = c.uaHeader
	}
	h["Accept"] = acceptHeader
	if body != nil {
		h["Content-Type"] = jsonContentType
	}
	for k, v := range s.Header {
		h[k] = v
	}
	if tok != nil {
		h["Authorization"] = tok.headerValues()
	}
	if call.Sign != nil {
		if err := call.Sign(req.Request, body); err != nil {
			return nil, 0, &apierrors.TokenError{Reason: "signing the request", Err: err}
		}
	}
	rc := &run.rc
	rc.HTTPClient = hc
	rc.RetryMax = s.Retry.MaxRetries
	if s.Logger != nil {
		rc.RequestLogHook = run.logHook
	}
	resp, err := rc.Do(req)
	if st.sleeping {
		// The context ended during the backoff sleep.
		st.waited += min(time.Since(st.sleepStart), st.wait)
		st.sleeping = false
	}
	if err != nil {
		if st.prepareErr != nil {
			return nil, st.attempts, st.prepareErr
		}
		return nil, st.attempts, st.transportError(err)
	}
	if st.stop == StopRetryAfter || st.stop == StopDeadline || st.stop == StopExhausted {
		st.log(slog.LevelWarn, "giving up", resp, nil, slog.String("reason", stopReason(st.stop)))
	}
	return resp, st.attempts, nil
}

// retryRun is one send's attemptState and the go-retryablehttp client
// whose hooks are bound to it. Binding a hook (a method value) allocates, so
// runs are pooled and their hooks bound once, when the run is made: a call
// then allocates neither its state, nor the client, nor five closures.
//
// A run is reused as soon as send returns: nothing may keep a pointer to it,
// to its attemptState or to its hooks beyond that (not a response body, an
// error, a request's GetBody or a goroutine). Errors copy what they need out
// of the state. (The request body is deliberately not served from the run:
// resp.Request.GetBody outlives send.)
type retryRun struct {
	st      attemptState
	rc      retryablehttp.Client
	logHook retryablehttp.RequestLogHook
}

var retryRuns = sync.Pool{New: func() any {
	r := new(retryRun)
	st := &r.st
	r.rc.CheckRetry = st.checkRetry
	r.rc.Backoff = st.backoff
	r.rc.ErrorHandler = st.errorHandler
	r.rc.PrepareRetry = st.prepareRetry
	r.logHook = st.requestLogHook
	return r
}}

// release clears the run's references and returns it to the pool.
func (r *retryRun) release() {
	r.st = attemptState{}
	r.rc.HTTPClient = nil
	r.rc.RequestLogHook = nil
	retryRuns.Put(r)
}

var (
	acceptHeader    = []string{"application/json, application/problem+json"}
	jsonContentType = []string{"application/json"}
)

// RetryAttemptHeader carries the retry number (1 for the first retry) on
// retried requests, for server-side telemetry. It is set before signing, so
// it is covered by a SigV4 signature rather than breaking it.
const RetryAttemptHeader = "X-Retry-Attempt"

// attemptState is the per-call state the retry hooks share.
type attemptState struct {
	ctx        context.Context // the call's: log records carry it (trace IDs)
	c          *Client
	s          *Settings
	call       *Call
	path       string
	body       []byte
	tok        *CachedToken
	attempts   int
	stop       Decision
	wait       time.Duration
	waited     time.Duration
	sleeping   bool      // a backoff sleep of wait started at sleepStart
	sleepStart time.Time // and is not yet counted in waited
	lastStatus int
	lastResp   *http.Response // the last error response retried, body buffered
	start      time.Time
	prepareErr error
}

// checkRetry runs after every attempt. It reads the response body inside
// the attempt (see bufferBody) and asks the policy what to do. A 2xx whose
// body could not be read in full lost the result: it is handled like a
// transport failure (retried when the operation is idempotent, else a
// TransportError). An error status whose body was cut short is decided on
// its status, with what was read of the body.
func (st *attemptState) checkRetry(ctx context.Context, resp *http.Response, err error) (bool, error) {
	st.attempts++
	var bodyErr error
	if resp != nil {
		st.lastStatus = resp.StatusCode
		if err == nil {
			grow := int64(maxBuffered)
			if resp.StatusCode < 200 || resp.StatusCode > 299 {
				limitErrorBody(resp)
				grow = apierrors.MaxBodySnippet + 1
			}
			if berr := bufferBody(resp, grow); berr != nil && resp.StatusCode >= 200 && resp.StatusCode <= 299 {
				resp.Body = http.NoBody // bufferBody closed the original
				bodyErr = fmt.Errorf("reading the %d response body: %w", resp.StatusCode, berr)
				err, resp = bodyErr, nil
			}
		}
	}
	st.log(slog.LevelDebug, "attempt", resp, err)
	d, wait := st.s.Retry.Decide(ctx, st.attempts, st.call.Op.Idempotent, resp, err)
	st.stop = d
	if d != Retry {
		// A non-nil error makes go-retryablehttp pass it to errorHandler
		// instead of returning the emptied response as a success.
		return false, bodyErr
	}
	if resp != nil {
		st.lastResp = resp
	}
	st.wait = wait
	st.sleeping, st.sleepStart = true, time.Now()
	if st.s.Retry.OnRetry != nil {
		st.s.Retry.OnRetry(st.attempts, wait)
	}
	st.log(slog.LevelWarn, "retrying", resp, err, slog.Duration("wait", wait))
	return true, nil
}

// limitErrorBody bounds what bufferBody reads of an error response to what
// apierrors.FromResponse keeps: MaxBodySnippet, plus one byte to tell that
// the body was longer. Closing the limited body drains a bounded amount more
// (httpx.DrainAndClose), so a moderately long error page does not cost the
// connection. Without it, every attempt answered with a huge error body
// would allocate maxBuffered (1 MiB) and more while reading it.
func limitErrorBody(resp *http.Response) {
	if resp.Body == nil || resp.Body == http.NoBody {
		return
	}
	resp.Body = &errorSnippetBody{Reader: io.LimitReader(resp.Body, apierrors.MaxBodySnippet+1), rc: resp.Body}
}

// errorSnippetBody is the head of an error body; Close drains and closes
// the whole body.
type errorSnippetBody struct {
	io.Reader
	rc io.ReadCloser
}

func (b *errorSnippetBody) Close() error {
	httpx.DrainAndClose(b.rc)
	return nil
}

func (st *attemptState) backoff(_, _ time.Duration, _ int, _ *http.Response) time.Duration {
	return st.wait
}

// errorHandler replaces go-retryablehttp's "giving up after N attempts"
// error. It is called with the last response and the last cause: a
// transport error, a body read error from checkRetry, or a prepareRetry
// failure (then resp is the previous attempt's response, already drained
// and closed, and must not be decoded). A response that comes with a cause
// is drained and closed and the cause passed on; a response without one is
// handed back, undrained, to be decoded.
func (st *attemptState) errorHandler(resp *http.Response, err error, _ int) (*http.Response, error) {
	if st.prepareErr != nil {
		// Preparing the retry failed (no token, signing error): report
		// that, not the previous attempt's already drained response.
		err = st.prepareErr
	}
	if err != nil {
		if resp != nil {
			httpx.DrainAndClose(resp.Body)
		}
		return nil, err
	}
	return resp, nil
}

func (st *attemptState) prepareRetry(req *http.Request) error {
	if st.sleeping {
		st.waited += st.wait
		st.sleeping = false
	}
	req.Header = req.Header.Clone()
	req.Header.Set(RetryAttemptHeader, strconv.Itoa(st.attempts))
	if st.tok != nil {
		// The cached token may have been refreshed during the backoff.
		if t, err := st.c.tokens.Get(req.Context()); err == nil {
			st.tok = t
			req.Header["Authorization"] = t.headerValues()
		} else {
			st.prepareErr = err
			return err
		}
	}
	if st.call.Sign != nil {
		if err := st.call.Sign(req, st.body); err != nil {
			st.prepareErr = &apierrors.TokenError{Reason: "signing the request", Err: err}
			return st.prepareErr
		}
	}
	return nil
}

func (st *attemptState) requestLogHook(_ retryablehttp.Logger, _ *http.Request, _ int) {
	st.start = time.Now()
}

func (st *attemptState) transportError(err error) error {
	var uerr *url.Error
	if stderrors.As(err, &uerr) {
		// Never echo a query string (it may hold caller secrets).
		if u, perr := url.Parse(uerr.URL); perr == nil {
			uerr.URL = redactURL(u)
		}
	}
	te := &apierrors.TransportError{Operation: st.call.Op.Name, Method: st.call.Op.Method, Path: st.path,
		Attempts: st.attempts, Waited: st.waited, LastStatus: st.lastStatus, Err: err}
	if r := st.lastResp; r != nil {
		// The server's last answer (a 503, say) is kept: its problem,
		// request ID and Retry-After are what an operator needs.
		var body []byte
		if bb, ok := r.Body.(*bufferedBody); ok {
			body = bb.b
		}
		te.Last = apierrors.Decode(r.StatusCode, r.Header, body)
		te.Last.Operation, te.Last.Method, te.Last.Path, te.Last.Attempts = st.call.Op.Name, st.call.Op.Method, st.path, st.attempts
	}
	return te
}

// log writes one record if a logger is configured. Only allow-listed values
// are logged: operation, method, path template, status, attempt, duration,
// request ID and error text; never headers or bodies.
func (st *attemptState) log(level slog.Level, msg string, resp *http.Response, err error, extra ...slog.Attr) {
	l := st.s.Logger
	if l == nil {
		return
	}
	ctx := st.ctx
	if ctx == nil {
		ctx = context.Background()
	}
	if !l.Enabled(ctx, level) {
		return
	}
	attrs := make([]slog.Attr, 0, 9+len(extra))
	attrs = append(attrs,
		slog.String("operation", st.call.Op.Name),
		slog.String("method", st.call.Op.Method),
		slog.String("path", st.call.Op.Path),
		slog.Int("attempt", st.attempts))
	if !st.start.IsZero() {
		attrs = append(attrs, slog.Duration("duration", time.Since(st.start)))
	}
	if resp != nil {
		attrs = append(attrs, slog.Int("status", resp.StatusCode))
		if id := httpx.RequestID(resp.Header); id != "" {
			attrs = append(attrs, slog.String("request_id", id))
		}
	}
	if err != nil {
		var uerr *url.Error
		if stderrors.As(err, &uerr) {
			err = uerr.Err // the URL may carry a caller's query string
		}
		attrs = append(attrs, slog.String("error", err.Error()))
	}
	attrs = append(attrs, extra...)
	l.LogAttrs(ctx, level, "memberplatform: "+msg, attrs...)
}

func stopReason(d Decision) string {
	switch d {
	case StopExhausted:
		return "retries exhausted"
	case StopRetryAfter:
		return "Retry-After exceeds the configured maximum"
	case StopDeadline:
		return "next retry would end after the context deadline"
	}
	return ""
}
