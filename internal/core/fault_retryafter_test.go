package core

import (
	"bytes"
	"context"
	stderrors "errors"
	"io"
	"net/http"
	"runtime"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	apierrors "github.com/memberplatform/memberplatform-go/errors"
)

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

// A call answered bare 429s six times and then 200 succeeds (a throttle
// is retried twice MaxRetries times); one answered 429 every time ends
// after 7 attempts, a rate-limited error, each retry numbered.
func TestThrottlesAreRetriedTwiceMaxRetriesTimes(t *testing.T) {
	t.Parallel()
	for _, throttles := range []int{6, 100} {
		srv := rtNewServer(t, func(w http.ResponseWriter, r *http.Request, hit int) {
			if hit <= throttles {
				rtJSON(w, 429, `{"title":"Too Many Requests","status":429}`)
				return
			}
			rtJSON(w, 200, `{}`)
		})
		// (No pacer: it would space a refusing provider's retries a second apart.)
		c := rtNewClient(t, srv.URL, func(s *Settings) { other(s).Pacer = nil })
		err := c.do(context.Background(), rtCall(rtPutOp, nil))
		var apiErr *apierrors.Error
		switch {
		case throttles == 6 && (err != nil || srv.hits() != 7):
			t.Fatalf("6 throttles then 200: err %v after %d attempts; want success at the 7th", err, srv.hits())
		case throttles > 6 && (!stderrors.As(err, &apiErr) || !stderrors.Is(err, apierrors.ErrRateLimited) || apiErr.Attempts != 7 || srv.hits() != 7):
			t.Fatalf("429 every time: err %v after %d attempts; want ErrRateLimited after 7", err, srv.hits())
		}
		for i, req := range srv.recorded()[1:] {
			if got := req.Header.Get("X-Retry-Attempt"); got != strconv.Itoa(i+1) {
				t.Fatalf("attempt %d carries X-Retry-Attempt %q, want %d", i+2, got, i+1)
			}
		}
	}
}
