package core

import (
	"github.com/hashicorp/go-cleanhttp"

	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	stderrors "errors"
	"fmt"
	"io"
	"log"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hashicorp/go-retryablehttp"

	apierrors "github.com/memberplatform/memberplatform-go/errors"
)

var (
	rtPutOp  = &Operation{Name: "test.Put", Method: http.MethodPut, Path: "/things/{id}", Idempotent: true}
	rtPostOp = &Operation{Name: "test.Post", Method: http.MethodPost, Path: "/things/{id}", Idempotent: false}
)

// rtBody is a request body with bytes that a careless replay would mangle.
var rtBody = map[string]any{"name": "Zoë <&> \u2028", "n": 42, "list": []string{"a", "b"}}

// rtRecorded is one request as the server saw it.
type rtRecorded struct {
	Header http.Header
	Body   []byte
	CL     int64
}

// rtServer is a loopback server that records requests and counts new TCP
// connections.
type rtServer struct {
	*httptest.Server
	conns atomic.Int32
	mu    sync.Mutex
	reqs  []rtRecorded
}

func (s *rtServer) hits() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.reqs)
}

func (s *rtServer) recorded() []rtRecorded {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]rtRecorded(nil), s.reqs...)
}

// rtNewServer starts a server whose handler h is called with the 1-based
// hit number, after the request body has been read and recorded.
func rtNewServer(t *testing.T, h func(w http.ResponseWriter, r *http.Request, hit int)) *rtServer {
	t.Helper()
	s := &rtServer{}
	s.Server = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		s.mu.Lock()
		s.reqs = append(s.reqs, rtRecorded{Header: r.Header.Clone(), Body: b, CL: r.ContentLength})
		n := len(s.reqs)
		s.mu.Unlock()
		h(w, r, n)
	}))
	s.Config.ConnState = func(_ net.Conn, st http.ConnState) {
		if st == http.StateNew {
			s.conns.Add(1)
		}
	}
	s.Config.ErrorLog = log.New(io.Discard, "", 0)
	s.Start()
	t.Cleanup(s.Close)
	return s
}

// rtNewTransport returns a transport whose idle connections are closed
// when the test ends (the SDK itself never closes them).
func rtNewTransport(t *testing.T) *http.Transport {
	tr := &http.Transport{MaxIdleConnsPerHost: 4, DisableCompression: true}
	t.Cleanup(tr.CloseIdleConnections)
	return tr
}

// rtNewClient returns a core client for baseURL with 1ms..4ms backoff, a
// test-owned transport, and mut applied.
func rtNewClient(t *testing.T, baseURL string, mut func(*Settings)) *Client {
	t.Helper()
	s := DefaultSettings()
	u, err := url.Parse(baseURL)
	if err != nil {
		t.Fatal(err)
	}
	s.BaseURL = u
	s.Transport = rtNewTransport(t)
	s.Retry.BaseDelay, s.Retry.MaxDelay = time.Millisecond, 4*time.Millisecond
	if mut != nil {
		mut(&s)
	}
	c, err := New(s, nil)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func rtJSON(w http.ResponseWriter, status int, body string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = io.WriteString(w, body)
}

func rtCall(op *Operation, out any) *Call {
	return &Call{Op: op, PathParams: [2]string{"t-1"}, Body: rtBody, Result: out}
}

func rtWantAPIError(t *testing.T, err error, status, attempts int) *apierrors.Error {
	t.Helper()
	var ae *apierrors.Error
	if !stderrors.As(err, &ae) {
		t.Fatalf("err = %T %v, want *errors.Error", err, err)
	}
	if ae.StatusCode != status || ae.Attempts != attempts {
		t.Fatalf("status %d, attempts %d; want %d, %d (%v)", ae.StatusCode, ae.Attempts, status, attempts, err)
	}
	return ae
}

func rtWantTransportError(t *testing.T, err error, attempts int) *apierrors.TransportError {
	t.Helper()
	var te *apierrors.TransportError
	if !stderrors.As(err, &te) {
		t.Fatalf("err = %T %v, want *errors.TransportError", err, err)
	}
	if te.Attempts != attempts {
		t.Fatalf("Attempts = %d, want %d (%v)", te.Attempts, attempts, err)
	}
	if !stderrors.Is(err, apierrors.ErrTransport) {
		t.Fatalf("errors.Is(err, ErrTransport) = false")
	}
	return te
}

// rtWantReuse checks that the attempts shared connections. Draining itself
// is asserted on the bodies (rtBodyTracker); the connection count only
// confirms it, and loosely: net/http gives up a connection when its writer
// goroutine has not confirmed the request written within 50 ms of the
// response (transport.go, maxWriteWaitBeforeConnReuse), which CPU
// starvation alone causes. An undrained body costs a connection per
// request, so only conns == requests (no reuse at all) fails.
func rtWantReuse(t *testing.T, conns int32, requests int) {
	t.Helper()
	switch {
	case int(conns) >= requests:
		t.Errorf("%d TCP connections for %d requests, want 1: no connection was reused", conns, requests)
	case conns > 1:
		t.Logf("%d TCP connections for %d requests: net/http dropped a connection under load", conns, requests)
	}
}

// rtWantDrained checks that every response body was read to EOF and closed.
func rtWantDrained(t *testing.T, tr *rtBodyTracker, responses int) {
	t.Helper()
	tr.mu.Lock()
	defer tr.mu.Unlock()
	if len(tr.bodies) != responses {
		t.Fatalf("%d responses, want %d", len(tr.bodies), responses)
	}
	for i, b := range tr.bodies {
		if !b.eof.Load() || !b.closed.Load() {
			t.Errorf("response %d: read to EOF %v, closed %v; want both", i+1, b.eof.Load(), b.closed.Load())
		}
	}
}

// --- Retry sequence, telemetry header and body replay -----------------------

func TestRetry503Then503Then200(t *testing.T) {
	srv := rtNewServer(t, func(w http.ResponseWriter, r *http.Request, hit int) {
		if hit < 3 {
			rtJSON(w, 503, `{"title":"Service Unavailable","status":503,"serviceCode":"50300000"}`)
			return
		}
		rtJSON(w, 200, `{"ok":true}`)
	})
	var waits []time.Duration
	tr := &rtBodyTracker{rt: rtNewTransport(t)}
	c := rtNewClient(t, srv.URL, func(s *Settings) {
		s.Transport = tr
		s.Retry.Rand = rand.New(rand.NewPCG(1, 2)).Float64
		s.Retry.OnRetry = func(n int, d time.Duration) {
			if n != len(waits)+1 {
				t.Errorf("OnRetry retry number %d, want %d", n, len(waits)+1)
			}
			waits = append(waits, d)
		}
	})
	var out struct{ OK bool }
	status := 0
	call := rtCall(rtPutOp, &out)
	call.Status = &status
	if err := c.do(context.Background(), call); err != nil {
		t.Fatal(err)
	}
	if !out.OK || status != 200 {
		t.Fatalf("out = %+v, status %d; want ok, 200", out, status)
	}
	// The exact seeded waits: r_n × 1ms·2ⁿ for the PCG(1,2) sequence.
	if want := []time.Duration{676455, 922772}; fmt.Sprint(waits) != fmt.Sprint(want) {
		t.Fatalf("waits = %v, want %v", waits, want)
	}
	reqs := srv.recorded()
	if len(reqs) != 3 {
		t.Fatalf("server saw %d requests, want 3", len(reqs))
	}
	want, _ := json.Marshal(rtBody)
	for i, r := range reqs {
		if !bytes.Equal(r.Body, want) || r.CL != int64(len(want)) {
			t.Errorf("attempt %d body %q (Content-Length %d), want %q (%d)", i+1, r.Body, r.CL, want, len(want))
		}
		got := r.Header.Values(RetryAttemptHeader)
		if i == 0 && len(got) != 0 {
			t.Errorf("first attempt carries %s: %q", RetryAttemptHeader, got)
		}
		if i > 0 && (len(got) != 1 || got[0] != strconv.Itoa(i)) {
			t.Errorf("attempt %d %s = %q, want [%d]", i+1, RetryAttemptHeader, got, i)
		}
		if r.Header.Get("Content-Type") != "application/json" {
			t.Errorf("attempt %d Content-Type = %q", i+1, r.Header.Get("Content-Type"))
		}
	}
	// Bodies drained before retrying, so the connection is reused.
	rtWantDrained(t, tr, 3)
	rtWantReuse(t, srv.conns.Load(), 3)
}

func TestRetryExhaustedReturnsLastResponse(t *testing.T) {
	srv := rtNewServer(t, func(w http.ResponseWriter, r *http.Request, hit int) {
		w.Header().Set("X-Request-Id", "req-"+strconv.Itoa(hit))
		rtJSON(w, 502, `{"title":"Bad Gateway","status":502,"serviceCode":"50200000","detail":"attempt `+strconv.Itoa(hit)+`"}`)
	})
	c := rtNewClient(t, srv.URL, nil)
	err := c.do(context.Background(), rtCall(rtPutOp, nil))
	ae := rtWantAPIError(t, err, 502, 4)
	if ae.RequestID != "req-4" || ae.Problem == nil || ae.Problem.Detail != "attempt 4" {
		t.Fatalf("error does not describe the last response: request ID %q, problem %+v", ae.RequestID, ae.Problem)
	}
	if ae.Operation != "test.Put" || ae.Method != http.MethodPut || ae.Path != "/things/t-1" {
		t.Fatalf("error names %q %s %s", ae.Operation, ae.Method, ae.Path)
	}
	if srv.hits() != 4 {
		t.Fatalf("server hits = %d, want 4 (3 retries)", srv.hits())
	}
}

func TestRetryMaxRetriesClientWideAndPerCall(t *testing.T) {
	srv := rtNewServer(t, func(w http.ResponseWriter, r *http.Request, hit int) { rtJSON(w, 500, `{}`) })
	c := rtNewClient(t, srv.URL, func(s *Settings) { s.Retry.MaxRetries = 1 })
	rtWantAPIError(t, c.do(context.Background(), rtCall(rtPutOp, nil)), 500, 2)
	noRetry := func(s *Settings) error { s.Retry.MaxRetries = 0; return nil }
	rtWantAPIError(t, c.do(context.Background(), rtCall(rtPutOp, nil), noRetry), 500, 1)
	five := func(s *Settings) error { s.Retry.MaxRetries = 5; return nil }
	rtWantAPIError(t, c.do(context.Background(), rtCall(rtPutOp, nil), five), 500, 6)
	if srv.hits() != 2+1+6 {
		t.Fatalf("server hits = %d, want 9", srv.hits())
	}
}

// --- Statuses that are not retried -----------------------------------------

func TestNotRetriedStatuses(t *testing.T) {
	for _, status := range []int{400, 401, 403, 404, 409, 422, 501} {
		t.Run(strconv.Itoa(status), func(t *testing.T) {
			srv := rtNewServer(t, func(w http.ResponseWriter, r *http.Request, hit int) {
				w.Header().Set("Content-Type", "application/problem+json")
				w.WriteHeader(status)
				_, _ = fmt.Fprintf(w, `{"type":"about:blank","title":%q,"status":%d,"serviceCode":"00000000"}`, http.StatusText(status), status)
			})
			c := rtNewClient(t, srv.URL, nil)
			rtWantAPIError(t, c.do(context.Background(), rtCall(rtPutOp, nil)), status, 1)
			if srv.hits() != 1 {
				t.Fatalf("server hits = %d, want 1", srv.hits())
			}
		})
	}
}

// Kinds that retrying cannot fix are not retried, whatever their status.
func TestFinalKindsNotRetried(t *testing.T) {
	for _, tt := range []struct {
		status int
		body   string
		kind   error
	}{
		{501, `{"type":"about:blank","title":"Not implemented","status":501,"serviceCode":"not-implemented"}`, apierrors.ErrNotImplemented},
		{503, `{"type":"https://errors.example.com/provider-not-configured","title":"Provider not configured","status":503,"serviceCode":"50300001"}`, apierrors.ErrProviderNotConfigured},
	} {
		t.Run(strconv.Itoa(tt.status), func(t *testing.T) {
			srv := rtNewServer(t, func(w http.ResponseWriter, r *http.Request, hit int) {
				w.Header().Set("Content-Type", "application/problem+json")
				w.WriteHeader(tt.status)
				_, _ = io.WriteString(w, tt.body)
			})
			c := rtNewClient(t, srv.URL, nil)
			err := c.do(context.Background(), rtCall(rtPutOp, nil))
			ae := rtWantAPIError(t, err, tt.status, 1)
			if !stderrors.Is(err, tt.kind) || ae.Problem == nil || srv.hits() != 1 {
				t.Fatalf("err %v, hits %d; want %v with its problem decoded after 1 hit", err, srv.hits(), tt.kind)
			}
		})
	}
}

func TestNonIdempotentNotRetriedOnStatus(t *testing.T) {
	srv := rtNewServer(t, func(w http.ResponseWriter, r *http.Request, hit int) { rtJSON(w, 503, `{}`) })
	c := rtNewClient(t, srv.URL, nil)
	rtWantAPIError(t, c.do(context.Background(), rtCall(rtPostOp, nil)), 503, 1)
}

// --- Retry-After -------------------------------------------------------------

func TestRetryAfterSeconds429(t *testing.T) {
	t.Parallel()
	srv := rtNewServer(t, func(w http.ResponseWriter, r *http.Request, hit int) {
		if hit == 1 {
			w.Header().Set("Retry-After", "1")
			rtJSON(w, 429, `{"title":"Too Many Requests","status":429,"serviceCode":"42900000"}`)
			return
		}
		rtJSON(w, 200, `{}`)
	})
	var waits []time.Duration
	c := rtNewClient(t, srv.URL, func(s *Settings) {
		s.Retry.OnRetry = func(_ int, d time.Duration) { waits = append(waits, d) }
	})
	start := time.Now()
	if err := c.do(context.Background(), rtCall(rtPutOp, nil)); err != nil {
		t.Fatal(err)
	}
	elapsed := time.Since(start)
	if len(waits) != 1 || waits[0] < time.Second || waits[0] > 1400*time.Millisecond {
		t.Fatalf("waits = %v, want [1s..1.4s] from Retry-After and its jitter (not the 1ms..4ms backoff)", waits)
	}
	if elapsed < time.Second || srv.hits() != 2 {
		t.Fatalf("elapsed %v, hits %d; want >= 1s, 2", elapsed, srv.hits())
	}
}

func TestRetryAfterHTTPDate429(t *testing.T) {
	date := time.Now().Add(time.Hour).UTC().Truncate(time.Second)
	srv := rtNewServer(t, func(w http.ResponseWriter, r *http.Request, hit int) {
		if hit == 1 {
			w.Header().Set("Retry-After", date.Format(http.TimeFormat))
			rtJSON(w, 429, `{}`)
			return
		}
		rtJSON(w, 200, `{}`)
	})
	var waits []time.Duration
	c := rtNewClient(t, srv.URL, func(s *Settings) {
		// The injected clock puts the date 30ms in the future.
		s.Retry.Now = func() time.Time { return date.Add(-30 * time.Millisecond) }
		s.Retry.OnRetry = func(_ int, d time.Duration) { waits = append(waits, d) }
	})
	start := time.Now()
	if err := c.do(context.Background(), rtCall(rtPutOp, nil)); err != nil {
		t.Fatal(err)
	}
	if len(waits) != 1 || waits[0] < 30*time.Millisecond || waits[0] > 42*time.Millisecond {
		t.Fatalf("waits = %v, want [30ms..42ms] from the HTTP-date and its jitter", waits)
	}
	if el := time.Since(start); el < 30*time.Millisecond || srv.hits() != 2 {
		t.Fatalf("elapsed %v, hits %d; want >= 30ms, 2", el, srv.hits())
	}
}

func TestRetryAfterMs503(t *testing.T) {
	srv := rtNewServer(t, func(w http.ResponseWriter, r *http.Request, hit int) {
		if hit == 1 {
			w.Header().Set("Retry-After-Ms", "20")
			w.Header().Set("Retry-After", "60")
			rtJSON(w, 503, `{}`)
			return
		}
		rtJSON(w, 200, `{}`)
	})
	var waits []time.Duration
	c := rtNewClient(t, srv.URL, func(s *Settings) {
		s.Retry.OnRetry = func(_ int, d time.Duration) { waits = append(waits, d) }
	})
	if err := c.do(context.Background(), rtCall(rtPutOp, nil)); err != nil {
		t.Fatal(err)
	}
	if len(waits) != 1 || waits[0] < 20*time.Millisecond || waits[0] > 28*time.Millisecond {
		t.Fatalf("waits = %v, want [20ms..28ms] from Retry-After-Ms and its jitter", waits)
	}
}

func TestRetryAfterOverCapStopsAtOnce(t *testing.T) {
	srv := rtNewServer(t, func(w http.ResponseWriter, r *http.Request, hit int) {
		w.Header().Set("Retry-After", "30")
		w.Header().Set("Content-Type", "application/problem+json")
		w.WriteHeader(429)
		_, _ = io.WriteString(w, `{"type":"about:blank","title":"Provider rate limited","status":429,"serviceCode":"42900001"}`)
	})
	var retries atomic.Int32
	c := rtNewClient(t, srv.URL, func(s *Settings) {
		s.Retry.MaxRetryAfter = 5 * time.Second
		s.Retry.OnRetry = func(int, time.Duration) { retries.Add(1) }
	})
	start := time.Now()
	err := c.do(context.Background(), rtCall(rtPutOp, nil))
	el := time.Since(start)
	ae := rtWantAPIError(t, err, 429, 1)
	if !stderrors.Is(err, apierrors.ErrRateLimited) || ae.RetryAfter != 30*time.Second {
		t.Fatalf("err = %v (RetryAfter %v), want ErrRateLimited asking 30s", err, ae.RetryAfter)
	}
	// "At once" is counted, not timed: no wait was started. The time is
	// only a sanity bound, far below the 30s asked and the 5s cap.
	if retries.Load() != 0 || srv.hits() != 1 || el > 5*time.Second {
		t.Fatalf("%d waits, %d hits, %v; want no wait and 1 hit", retries.Load(), srv.hits(), el)
	}
}

// The deadline is generous (5s), so a slow machine still gets its first
// answer in time; the asked 10s wait ends after it. Had the wait started,
// the call would end at the deadline with a TransportError wrapping
// DeadlineExceeded; returning the 503 itself, with no wait reported,
// proves it stopped at once.
func TestRetryAfterBeyondDeadlineStopsAtOnce(t *testing.T) {
	srv := rtNewServer(t, func(w http.ResponseWriter, r *http.Request, hit int) {
		w.Header().Set("Retry-After", "10")
		rtJSON(w, 503, `{}`)
	})
	var retries atomic.Int32
	c := rtNewClient(t, srv.URL, func(s *Settings) { s.Retry.OnRetry = func(int, time.Duration) { retries.Add(1) } })
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err := c.do(ctx, rtCall(rtPutOp, nil))
	ae := rtWantAPIError(t, err, 503, 1)
	if ae.RetryAfter != 10*time.Second || retries.Load() != 0 {
		t.Fatalf("RetryAfter %v after %d waits; want 10s and no wait started", ae.RetryAfter, retries.Load())
	}
}

// As above, for the SDK's own backoff and WithTimeout: a started wait
// would end in a TransportError at the deadline, not the 500.
func TestBackoffBeyondDeadlineNotStarted(t *testing.T) {
	srv := rtNewServer(t, func(w http.ResponseWriter, r *http.Request, hit int) { rtJSON(w, 500, `{}`) })
	var retries atomic.Int32
	c := rtNewClient(t, srv.URL, func(s *Settings) {
		s.Retry.BaseDelay, s.Retry.MaxDelay = 10*time.Second, 10*time.Second
		s.Retry.Rand = func() float64 { return 0.9 } // a 9s wait
		s.Retry.OnRetry = func(int, time.Duration) { retries.Add(1) }
		s.Timeout = 3 * time.Second // WithTimeout
	})
	err := c.do(context.Background(), rtCall(rtPutOp, nil))
	rtWantAPIError(t, err, 500, 1)
	if retries.Load() != 0 {
		t.Fatalf("%d waits started; a wait ending past the deadline must not start", retries.Load())
	}
}

// --- Context cancellation during backoff -------------------------------------

// Cancelling during a backoff ends the call at once, and Waited reports the
// time actually slept. The planned wait is an hour, so the bound on the lag
// can be generous for a starved machine and still pin that the sleep was cut
// short; the cancel follows the OnRetry event, the wait being chosen.
func TestCancelDuringBackoffReturnsPromptly(t *testing.T) {
	srv := rtNewServer(t, func(w http.ResponseWriter, r *http.Request, n int) { rtJSON(w, 503, `{}`) })
	retrying := make(chan time.Time, 1)
	const planned = time.Hour
	c := rtNewClient(t, srv.URL, func(s *Settings) {
		s.Retry.BaseDelay, s.Retry.MaxDelay, s.Retry.MaxRetryAfter = 2*planned, 2*planned, 2*planned
		s.Retry.Rand = func() float64 { return 0.5 } // a one-hour backoff
		s.Retry.OnRetry = func(int, time.Duration) {
			select {
			case retrying <- time.Now():
			default:
			}
		}
	})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	type result struct {
		err error
		at  time.Time
	}
	done := make(chan result, 1)
	go func() {
		err := c.do(ctx, rtCall(rtPutOp, nil))
		done <- result{err, time.Now()}
	}()
	retryAt := <-retrying
	waitForStack(t, "core.(*callState).sleep") // cancel inside the sleep, not before it
	cancelAt := time.Now()
	cancel()
	const bound = 30 * time.Second // a starved machine, not the planned hour
	var r result
	select {
	case r = <-done:
	case <-time.After(bound):
		t.Fatalf("Do did not return within %v after cancel (planned wait %v)", bound, planned)
	}
	t.Logf("cancel → return: %v", r.at.Sub(cancelAt))
	te := rtWantTransportError(t, r.err, 1)
	if !stderrors.Is(r.err, context.Canceled) || te.LastStatus != 503 {
		t.Fatalf("err = %v (last status %d), want context.Canceled after a 503", r.err, te.LastStatus)
	}
	// The sleep began after OnRetry and ended before Do returned: Waited
	// fits in between, and is not the planned hour.
	if slept := r.at.Sub(retryAt); te.Waited <= 0 || te.Waited > slept {
		t.Fatalf("Waited = %v, want the time actually slept (0 < Waited <= %v), not the planned %v", te.Waited, slept, planned)
	}
	if srv.hits() != 1 {
		t.Fatalf("server hits = %d, want 1", srv.hits())
	}
}

// waitForStack polls the goroutines' stacks until one runs fn: an event, not
// a guess at how long the machine takes to get there.
func waitForStack(t *testing.T, fn string) {
	t.Helper()
	buf := make([]byte, 1<<20)
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		if bytes.Contains(buf[:runtime.Stack(buf, true)], []byte(fn)) {
			return
		}
	}
	t.Fatalf("no goroutine reached %s", fn)
}

// --- Connection faults --------------------------------------------------------

// rtReset hijacks the connection and closes it with an RST.
func rtReset(t *testing.T, w http.ResponseWriter) {
	conn, _, err := http.NewResponseController(w).Hijack()
	if err != nil {
		t.Errorf("hijack: %v", err)
		return
	}
	if tc, ok := conn.(*net.TCPConn); ok {
		_ = tc.SetLinger(0)
	}
	_ = conn.Close()
}

func TestConnectionResetMidRequest(t *testing.T) {
	t.Run("idempotent retried", func(t *testing.T) {
		srv := rtNewServer(t, func(w http.ResponseWriter, r *http.Request, hit int) {
			if hit == 1 {
				rtReset(t, w)
				return
			}
			rtJSON(w, 200, `{"ok":true}`)
		})
		c := rtNewClient(t, srv.URL, nil)
		var out struct{ OK bool }
		if err := c.do(context.Background(), rtCall(rtPutOp, &out)); err != nil {
			t.Fatal(err)
		}
		reqs := srv.recorded()
		if !out.OK || len(reqs) != 2 || !bytes.Equal(reqs[0].Body, reqs[1].Body) {
			t.Fatalf("out %+v, %d requests; want success on the identical second attempt", out, len(reqs))
		}
	})
	t.Run("exhausted", func(t *testing.T) {
		srv := rtNewServer(t, func(w http.ResponseWriter, r *http.Request, hit int) { rtReset(t, w) })
		c := rtNewClient(t, srv.URL, nil)
		err := c.do(context.Background(), rtCall(rtPutOp, nil))
		te := rtWantTransportError(t, err, 4)
		var ue *url.Error
		if !stderrors.As(err, &ue) || te.LastStatus != 0 || srv.hits() != 4 {
			t.Fatalf("err = %v (last status %d), hits %d; want a wrapped *url.Error after 4 hits", err, te.LastStatus, srv.hits())
		}
	})
	t.Run("non-idempotent written not retried", func(t *testing.T) {
		srv := rtNewServer(t, func(w http.ResponseWriter, r *http.Request, hit int) { rtReset(t, w) })
		c := rtNewClient(t, srv.URL, nil)
		rtWantTransportError(t, c.do(context.Background(), rtCall(rtPostOp, nil)), 1)
		if srv.hits() != 1 {
			t.Fatalf("server hits = %d, want 1", srv.hits())
		}
	})
}

func TestNonIdempotentRetriedWhenDialFails(t *testing.T) {
	srv := rtNewServer(t, func(w http.ResponseWriter, r *http.Request, hit int) { rtJSON(w, 200, `{}`) })
	refused := rtClosedAddr(t)
	var dials atomic.Int32
	tr := rtNewTransport(t)
	var d net.Dialer
	tr.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		if dials.Add(1) == 1 {
			return d.DialContext(ctx, network, refused) // connection refused
		}
		return d.DialContext(ctx, network, addr)
	}
	c := rtNewClient(t, srv.URL, func(s *Settings) { s.Transport = tr })
	if err := c.do(context.Background(), rtCall(rtPostOp, nil)); err != nil {
		t.Fatal(err)
	}
	if dials.Load() != 2 || srv.hits() != 1 {
		t.Fatalf("dials %d, hits %d; want 2, 1", dials.Load(), srv.hits())
	}
}

// rtClosedAddr returns a loopback address nothing listens on.
func rtClosedAddr(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	_ = l.Close()
	return addr
}

func TestConnectionRefusedExhausted(t *testing.T) {
	c := rtNewClient(t, "http://"+rtClosedAddr(t), nil)
	err := c.do(context.Background(), rtCall(rtPostOp, nil))
	rtWantTransportError(t, err, 4)
	var oe *net.OpError
	if !stderrors.As(err, &oe) || oe.Op != "dial" {
		t.Fatalf("err = %v, want the dial error reachable with errors.As", err)
	}
}

func TestServerNeverAnswersAttemptTimeout(t *testing.T) {
	release := make(chan struct{})
	srv := rtNewServer(t, func(w http.ResponseWriter, r *http.Request, hit int) {
		select {
		case <-r.Context().Done():
		case <-release:
		}
	})
	defer close(release) // before srv.Close, which waits for handlers
	// Attempts are counted where they start, in the transport: on a
	// starved machine an attempt may time out before its request reaches
	// the handler, so the server's count can be lower (it once read 2).
	var trips atomic.Int32
	tr := rtNewTransport(t)
	const timeout = 50 * time.Millisecond
	c := rtNewClient(t, srv.URL, func(s *Settings) {
		s.Transport = &rtCountingTransport{rt: tr, n: &trips}
		s.AttemptTimeout = timeout
		s.Retry.MaxRetries = 2
	})
	start := time.Now()
	err := c.do(context.Background(), rtCall(rtPutOp, nil))
	el := time.Since(start)
	te := rtWantTransportError(t, err, 3)
	if !te.Timeout() || trips.Load() != 3 || srv.hits() > 3 {
		t.Fatalf("err = %v (timeout %v), %d round trips, %d hits; want a timeout after 3 round trips", err, te.Timeout(), trips.Load(), srv.hits())
	}
	// Each attempt lasts at least the timeout (a timer never fires early);
	// the upper bound only catches a hang.
	if el < 3*timeout || el > 30*time.Second {
		t.Fatalf("took %v, want at least 3 × %v", el, timeout)
	}
}

func TestTruncatedBody(t *testing.T) {
	truncate := func(w http.ResponseWriter, status int) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Length", "100")
		w.WriteHeader(status)
		_, _ = io.WriteString(w, `{"ok":tr`)
	}
	t.Run("2xx retried", func(t *testing.T) {
		srv := rtNewServer(t, func(w http.ResponseWriter, r *http.Request, hit int) {
			if hit == 1 {
				truncate(w, 200)
				return
			}
			rtJSON(w, 200, `{"ok":true}`)
		})
		c := rtNewClient(t, srv.URL, nil)
		var out struct{ OK bool }
		if err := c.do(context.Background(), rtCall(rtPutOp, &out)); err != nil {
			t.Fatal(err)
		}
		if !out.OK || srv.hits() != 2 {
			t.Fatalf("out %+v, hits %d; want success on the second attempt", out, srv.hits())
		}
	})
	t.Run("2xx exhausted", func(t *testing.T) {
		srv := rtNewServer(t, func(w http.ResponseWriter, r *http.Request, hit int) { truncate(w, 200) })
		c := rtNewClient(t, srv.URL, nil)
		err := c.do(context.Background(), rtCall(rtPutOp, &struct{}{}))
		te := rtWantTransportError(t, err, 4)
		if !stderrors.Is(err, io.ErrUnexpectedEOF) || te.LastStatus != 200 {
			t.Fatalf("err = %v (last status %d), want io.ErrUnexpectedEOF after a 200", err, te.LastStatus)
		}
	})
	t.Run("2xx non-idempotent not retried", func(t *testing.T) {
		srv := rtNewServer(t, func(w http.ResponseWriter, r *http.Request, hit int) { truncate(w, 200) })
		c := rtNewClient(t, srv.URL, nil)
		rtWantTransportError(t, c.do(context.Background(), rtCall(rtPostOp, nil)), 1)
	})
	t.Run("4xx decided on status", func(t *testing.T) {
		srv := rtNewServer(t, func(w http.ResponseWriter, r *http.Request, hit int) { truncate(w, 400) })
		c := rtNewClient(t, srv.URL, nil)
		ae := rtWantAPIError(t, c.do(context.Background(), rtCall(rtPutOp, nil)), 400, 1)
		if !ae.BodyTruncated || string(ae.Body) != `{"ok":tr` {
			t.Fatalf("body %q truncated=%v; want the partial body, marked truncated", ae.Body, ae.BodyTruncated)
		}
	})
}

func TestTLSCertificateErrorNotRetried(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1) }))
	var handshakes atomic.Int32
	srv.Config.ErrorLog = log.New(io.Discard, "", 0)
	srv.TLS = &tls.Config{GetConfigForClient: func(*tls.ClientHelloInfo) (*tls.Config, error) {
		handshakes.Add(1)
		return nil, nil
	}}
	srv.StartTLS()
	defer srv.Close()
	c := rtNewClient(t, srv.URL, nil) // the transport does not trust the test CA
	err := c.do(context.Background(), rtCall(rtPutOp, nil))
	rtWantTransportError(t, err, 1)
	var cv *tls.CertificateVerificationError
	if !stderrors.As(err, &cv) || handshakes.Load() != 1 || hits.Load() != 0 {
		t.Fatalf("err = %v, %d handshakes, %d hits; want one failed verification", err, handshakes.Load(), hits.Load())
	}
}

// --- SDK errors that are never retried ---------------------------------------

func TestSigningErrorNotRetried(t *testing.T) {
	srv := rtNewServer(t, func(w http.ResponseWriter, r *http.Request, hit int) { rtJSON(w, 503, `{}`) })
	c := rtNewClient(t, srv.URL, nil)
	signErr := stderrors.New("no credentials")
	t.Run("first attempt", func(t *testing.T) {
		call := rtCall(rtPutOp, nil)
		call.Sign = func(*http.Request, []byte) error { return signErr }
		err := c.do(context.Background(), call)
		if !stderrors.Is(err, apierrors.ErrTokenUnavailable) || !stderrors.Is(err, signErr) || srv.hits() != 0 {
			t.Fatalf("err = %v, hits %d; want a TokenError before any request", err, srv.hits())
		}
	})
	t.Run("on retry", func(t *testing.T) {
		n := 0
		call := rtCall(rtPutOp, nil)
		call.Sign = func(*http.Request, []byte) error {
			if n++; n > 1 {
				return signErr
			}
			return nil
		}
		err := c.do(context.Background(), call)
		var te *apierrors.TokenError
		if !stderrors.As(err, &te) || !stderrors.Is(err, signErr) {
			t.Fatalf("err = %T %v; want the signing TokenError, not the drained 503", err, err)
		}
		if n != 2 || srv.hits() != 1 {
			t.Fatalf("signed %d times, %d hits; want 2, 1", n, srv.hits())
		}
	})
}

func TestValidationErrorNotSent(t *testing.T) {
	srv := rtNewServer(t, func(w http.ResponseWriter, r *http.Request, hit int) { rtJSON(w, 200, `{}`) })
	c := rtNewClient(t, srv.URL, nil)
	call := rtCall(rtPutOp, nil)
	call.Body = map[string]any{"bad": make(chan int)}
	err := c.do(context.Background(), call)
	if !stderrors.Is(err, apierrors.ErrInvalidInput) || srv.hits() != 0 {
		t.Fatalf("err = %v, hits %d; want ErrInvalidInput and no request", err, srv.hits())
	}
}

// --- Body hygiene and connection reuse ---------------------------------------

// rtCountingTransport counts round trips: attempts as the client starts
// them, whether or not they reach the server.
type rtCountingTransport struct {
	rt http.RoundTripper
	n  *atomic.Int32
}

func (c *rtCountingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	c.n.Add(1)
	return c.rt.RoundTrip(r)
}

// rtBodyTracker wraps a transport and records every response body.
type rtBodyTracker struct {
	rt     http.RoundTripper
	mu     sync.Mutex
	bodies []*rtTrackedBody
}

type rtTrackedBody struct {
	rc     io.ReadCloser
	eof    atomic.Bool
	closed atomic.Bool
}

func (b *rtTrackedBody) Read(p []byte) (int, error) {
	n, err := b.rc.Read(p)
	if err == io.EOF {
		b.eof.Store(true)
	}
	return n, err
}

func (b *rtTrackedBody) Close() error { b.closed.Store(true); return b.rc.Close() }

func (t *rtBodyTracker) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := t.rt.RoundTrip(r)
	if resp != nil {
		tb := &rtTrackedBody{rc: resp.Body}
		resp.Body = tb
		t.mu.Lock()
		t.bodies = append(t.bodies, tb)
		t.mu.Unlock()
	}
	return resp, err
}

func TestEveryBodyDrainedAndClosed(t *testing.T) {
	big := strings.Repeat("x", 100<<10) // far beyond go-retryablehttp's 4 KiB drain
	srv := rtNewServer(t, func(w http.ResponseWriter, r *http.Request, hit int) {
		switch {
		case r.URL.Path == "/things/ok" && hit%2 == 1:
			rtJSON(w, 503, `{"detail":"`+big+`"}`)
		case r.URL.Path == "/things/ok":
			rtJSON(w, 200, `{"ok":true}`+"\n\n  ")
		default:
			rtJSON(w, 404, `{"code":"NOT_FOUND","message":"`+big+`"}`)
		}
	})
	tr := &rtBodyTracker{rt: rtNewTransport(t)}
	c := rtNewClient(t, srv.URL, func(s *Settings) { s.Transport = tr })
	var out struct{ OK bool }
	if err := c.do(context.Background(), &Call{Op: rtPutOp, PathParams: [2]string{"ok"}, Result: &out}); err != nil || !out.OK {
		t.Fatalf("err %v, out %+v", err, out)
	}
	rtWantAPIError(t, c.do(context.Background(), &Call{Op: rtPutOp, PathParams: [2]string{"missing"}}), 404, 1)
	rtWantDrained(t, tr, 3)
	rtWantReuse(t, srv.conns.Load(), 3)
}

func TestThousandCallsOneConnection(t *testing.T) {
	var flaky sync.Map
	errBody := `{"type":"about:blank","title":"x","status":0,"serviceCode":"00000000","detail":"` + strings.Repeat("e", 100<<10) + `"}` // longer than the 64 KiB snippet: the rest must be drained
	srv := rtNewServer(t, func(w http.ResponseWriter, r *http.Request, hit int) {
		id := strings.TrimPrefix(r.URL.Path, "/things/")
		switch id[:2] {
		case "ok":
			rtJSON(w, 200, `{"ok":true}`)
		case "br":
			rtJSON(w, 400, errBody)
		case "nf":
			rtJSON(w, 404, `{"code":"NOT_FOUND","message":"no"}`)
		case "ie":
			rtJSON(w, 500, errBody)
		case "fl": // 503 with a 100 KiB body, then 200
			if _, seen := flaky.LoadOrStore(id, true); !seen {
				rtJSON(w, 503, errBody)
				return
			}
			rtJSON(w, 200, `{"ok":true}`)
		}
	})
	// The SDK's default pooled transport, limited to one connection per
	// host: under CPU starvation net/http may dial a spare connection while
	// the idle one is on its way back to the pool, which says nothing about
	// draining. With the limit, a new connection is dialed only when the
	// previous one was closed, which is what an undrained body causes.
	tr := cleanhttp.DefaultPooledTransport()
	tr.MaxConnsPerHost = 1
	t.Cleanup(tr.CloseIdleConnections)
	c := rtNewClient(t, srv.URL, func(s *Settings) { s.Transport = tr })
	noRetry := func(s *Settings) error { s.Retry.MaxRetries = 0; return nil }
	ctx := context.Background()
	kinds := []string{"ok", "br", "nf", "ie", "fl"}
	for i := range 1000 {
		kind := kinds[i%len(kinds)]
		call := &Call{Op: rtPutOp, PathParams: [2]string{kind + strconv.Itoa(i)}, Body: rtBody}
		var out struct{ OK bool }
		call.Result = &out
		var err error
		switch kind {
		case "ie":
			err = c.do(ctx, call, noRetry)
		default:
			err = c.do(ctx, call)
		}
		wantErr := kind == "br" || kind == "nf" || kind == "ie"
		if (err != nil) != wantErr || (!wantErr && !out.OK) {
			t.Fatalf("call %d (%s): err %v, out %+v", i, kind, err, out)
		}
	}
	// One connection is what a quiet machine shows. net/http itself gives
	// up a connection when its writer goroutine has not confirmed the
	// request was written within 50 ms of the response (transport.go,
	// maxWriteWaitBeforeConnReuse), which happens only under heavy CPU
	// starvation; allow two such drops. A body left undrained costs one
	// connection per error response: hundreds here.
	if n := srv.conns.Load(); n > 3 {
		t.Fatalf("%d TCP connections for 1,000 calls, want 1", n)
	} else if n > 1 {
		t.Logf("%d TCP connections for 1,000 calls: net/http dropped a connection under load", n)
	}
	if h := srv.hits(); h != 1200 {
		t.Fatalf("server hits = %d, want 1200 (200 flaky calls retried once)", h)
	}
}

// rtIdleRecorder is a user transport that records CloseIdleConnections.
type rtIdleRecorder struct {
	http.RoundTripper
	closes atomic.Int32
}

func (r *rtIdleRecorder) CloseIdleConnections() { r.closes.Add(1) }

func TestGivingUpKeepsUserIdleConnections(t *testing.T) {
	srv := rtNewServer(t, func(w http.ResponseWriter, r *http.Request, hit int) {
		switch r.URL.Path {
		case "/things/reset":
			rtReset(t, w)
		case "/things/slow":
			rtJSON(w, 503, `{}`)
		default:
			rtJSON(w, 503, `{}`)
		}
	})
	rec := &rtIdleRecorder{RoundTripper: rtNewTransport(t)}

	// The recorder works, and go-retryablehttp does call it when it gives up
	// on a transport it can reach directly.
	bare := &retryablehttp.Client{HTTPClient: &http.Client{Transport: rec}, RetryMax: 1,
		RetryWaitMin: time.Millisecond, RetryWaitMax: time.Millisecond, CheckRetry: retryablehttp.DefaultRetryPolicy, Backoff: retryablehttp.DefaultBackoff}
	req, _ := retryablehttp.NewRequest(http.MethodGet, srv.URL+"/things/reset", nil)
	if _, err := bare.Do(req); err == nil {
		t.Fatal("bare go-retryablehttp: want an error")
	}
	if rec.closes.Load() == 0 {
		t.Fatal("recorder saw no CloseIdleConnections from bare go-retryablehttp; the test cannot detect the problem")
	}
	rec.closes.Store(0)

	for _, hc := range []bool{false, true} {
		c := rtNewClient(t, srv.URL, func(s *Settings) {
			if hc {
				s.Transport, s.HTTPClient = nil, &http.Client{Transport: rec}
			} else {
				s.Transport = rec
			}
			other(s).Admission = nil // every failure here must be retried: none refused
		})
		ctx := context.Background()
		rtWantTransportError(t, c.do(ctx, &Call{Op: rtPutOp, PathParams: [2]string{"reset"}}), 4)
		rtWantAPIError(t, c.do(ctx, &Call{Op: rtPutOp, PathParams: [2]string{"503"}}), 503, 4)
		cctx, cancel := context.WithCancel(ctx)
		slow := func(s *Settings) error {
			s.Retry.BaseDelay, s.Retry.MaxDelay = time.Minute, time.Minute
			s.Retry.OnRetry = func(int, time.Duration) { cancel() }
			return nil
		}
		err := c.do(cctx, &Call{Op: rtPutOp, PathParams: [2]string{"slow"}}, slow)
		if !stderrors.Is(err, context.Canceled) {
			t.Fatalf("err = %v, want context.Canceled", err)
		}
		signFail := 0
		call := &Call{Op: rtPutOp, PathParams: [2]string{"503"}, Sign: func(*http.Request, []byte) error {
			if signFail++; signFail > 1 {
				return stderrors.New("sign")
			}
			return nil
		}}
		if err := c.do(ctx, call); !stderrors.Is(err, apierrors.ErrTokenUnavailable) {
			t.Fatalf("err = %v, want a TokenError", err)
		}
		if n := rec.closes.Load(); n != 0 {
			t.Fatalf("HTTPClient=%v: the SDK called the user's CloseIdleConnections %d times", hc, n)
		}
	}
}

// --- Errors the SDK cannot classify as transient -----------------------------

// rtErrTransport fails every round trip with err and counts the calls.
type rtErrTransport struct {
	err   error
	calls atomic.Int32
}

func (e *rtErrTransport) RoundTrip(*http.Request) (*http.Response, error) {
	e.calls.Add(1)
	return nil, e.err
}

// An invalid header value is a malformed request, not a transient failure:
// sending it again fails the same way. It was retried 3 times before.
func TestUnclassifiedErrorNotRetried(t *testing.T) {
	t.Run("from a transport", func(t *testing.T) {
		tr := &rtErrTransport{err: stderrors.New(`net/http: invalid header field value for "User-Agent"`)}
		c := rtNewClient(t, "http://127.0.0.1:1", func(s *Settings) { s.Transport = tr })
		err := c.do(context.Background(), rtCall(rtPutOp, nil))
		rtWantTransportError(t, err, 1)
		if n := tr.calls.Load(); n != 1 || !strings.Contains(err.Error(), "invalid header field value") {
			t.Fatalf("%d round trips, err %v; want 1 and the cause kept", n, err)
		}
	})
	t.Run("from net/http itself", func(t *testing.T) {
		srv := rtNewServer(t, func(w http.ResponseWriter, r *http.Request, hit int) { rtJSON(w, 200, `{}`) })
		c := rtNewClient(t, srv.URL, func(s *Settings) {
			// Options refuse such a value; set it below them to get the
			// real net/http error.
			s.Header = http.Header{"X-Bad": {"a\nb"}}
		})
		err := c.do(context.Background(), rtCall(rtPutOp, nil))
		rtWantTransportError(t, err, 1)
		if !strings.Contains(err.Error(), "invalid header field value") || srv.hits() != 0 {
			t.Fatalf("err %v, %d hits; want net/http's invalid header error before anything was sent", err, srv.hits())
		}
	})
}
