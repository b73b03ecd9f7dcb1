package core

import (
	"context"
	stderrors "errors"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/time/rate"

	"github.com/memberplatform/memberplatform-go/internal/pacer"
)

// --- Through the pipeline ----------------------------------------------------

// countingLimiter counts waits.
type countingLimiter struct {
	n   atomic.Int32
	err error
}

func (l *countingLimiter) Wait(ctx context.Context) error {
	l.n.Add(1)
	return l.err
}

// Every attempt waits on the limiter: the first and each retry.
func TestRateLimiterWaitedBeforeEveryAttempt(t *testing.T) {
	srv := rtNewServer(t, func(w http.ResponseWriter, r *http.Request, hit int) {
		if hit < 3 {
			rtJSON(w, 503, `{}`)
			return
		}
		rtJSON(w, 200, `{}`)
	})
	l := &countingLimiter{}
	c := rtNewClient(t, srv.URL, func(s *Settings) { other(s).Limiter = l })
	if err := c.do(context.Background(), rtCall(rtPutOp, nil)); err != nil {
		t.Fatal(err)
	}
	if l.n.Load() != 3 || srv.hits() != 3 {
		t.Fatalf("%d waits for %d attempts, want 3 and 3", l.n.Load(), srv.hits())
	}
}

// A limiter's error ends the call before anything is sent, as a
// TransportError that wraps it.
func TestRateLimiterErrorEndsTheCall(t *testing.T) {
	srv := rtNewServer(t, func(w http.ResponseWriter, r *http.Request, hit int) { rtJSON(w, 200, `{}`) })
	boom := stderrors.New("shared limiter unreachable")
	c := rtNewClient(t, srv.URL, func(s *Settings) { other(s).Limiter = &countingLimiter{err: boom} })
	err := c.do(context.Background(), rtCall(rtPutOp, nil))
	rtWantTransportError(t, err, 0)
	if !stderrors.Is(err, boom) || srv.hits() != 0 {
		t.Fatalf("err = %v, %d hits; want the limiter's error and nothing sent", err, srv.hits())
	}
}

// A *rate.Limiter refuses, at once, a wait that would end after the
// deadline; the call fails without waiting for the slot.
func TestRateLimiterDeadlineRule(t *testing.T) {
	srv := rtNewServer(t, func(w http.ResponseWriter, r *http.Request, hit int) { rtJSON(w, 200, `{}`) })
	l := rate.NewLimiter(rate.Every(10*time.Second), 1)
	c := rtNewClient(t, srv.URL, func(s *Settings) { other(s).Limiter = l })
	if err := c.do(context.Background(), rtCall(rtPutOp, nil)); err != nil {
		t.Fatal(err) // the burst
	}
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	err := c.do(ctx, rtCall(rtPutOp, nil))
	rtWantTransportError(t, err, 0)
	if time.Since(start) > 100*time.Millisecond || srv.hits() != 1 {
		t.Fatalf("err = %v after %v, %d hits; want a refusal at once", err, time.Since(start), srv.hits())
	}
}

// A retry's wait on the limiter is after its backoff, and a refusal there
// keeps the last answer on the TransportError.
func TestRateLimiterRefusalBeforeARetryKeepsTheLastAnswer(t *testing.T) {
	srv := rtNewServer(t, func(w http.ResponseWriter, r *http.Request, hit int) {
		rtJSON(w, 503, `{"title":"Service Unavailable","status":503}`)
	})
	a := pacer.New()
	c := rtNewClient(t, srv.URL, func(s *Settings) { other(s).Pacer = a })
	// Engaged at 0.5/s: the first attempt goes at once, the next slot is
	// 2s after it.
	a.Engage(0.5)
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	err := c.do(ctx, rtCall(rtPutOp, nil))
	te := rtWantTransportError(t, err, 1)
	if !stderrors.Is(err, context.DeadlineExceeded) || te.Last == nil || te.Last.StatusCode != 503 {
		t.Fatalf("err = %v (last %v); want the slot refused for the deadline, the 503 kept", err, te.Last)
	}
	if ctx.Err() != nil {
		t.Fatalf("the call waited until its deadline instead of refusing at once")
	}
}

// A 429, or the contract's rate-limited problem at another status, engages
// the adaptive limiter; an admitted answer or a 5xx does not.
func TestAdaptiveLimiterLearnsFromThePipeline(t *testing.T) {
	for _, tc := range []struct {
		name    string
		answer  func(w http.ResponseWriter)
		engages bool
	}{
		{"429", func(w http.ResponseWriter) {
			w.Header().Set("Retry-After-Ms", "1")
			rtJSON(w, 429, `{}`)
		}, true},
		{"503 rate limited problem", func(w http.ResponseWriter) {
			w.Header().Set("Content-Type", "application/problem+json")
			w.WriteHeader(503)
			_, _ = w.Write([]byte(`{"title":"Rate limit exceeded","status":503}`))
		}, true},
		{"503", func(w http.ResponseWriter) { rtJSON(w, 503, `{}`) }, false},
		{"404", func(w http.ResponseWriter) { rtJSON(w, 404, `{}`) }, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := rtNewServer(t, func(w http.ResponseWriter, r *http.Request, hit int) {
				if hit == 1 {
					tc.answer(w)
					return
				}
				rtJSON(w, 200, `{}`)
			})
			a := pacer.New()
			// No retry: with nothing admitted before it, a throttle
			// engages the limiter at its floor, one attempt every 2s.
			// (Without the tracker of resources, which holds back a lone
			// call's throttle: resources_test.go.)
			c := rtNewClient(t, srv.URL, func(s *Settings) { other(s).Pacer, other(s).Resources, s.Retry.MaxRetries = a, nil, 0 })
			_ = c.do(context.Background(), rtCall(rtPutOp, nil))
			if _, engaged := a.Rate(); engaged != tc.engages {
				t.Fatalf("engaged = %v, want %v", engaged, tc.engages)
			}
		})
	}
}

// The option types agree: a *rate.Limiter is a RateLimiter.
var _ RateLimiter = (*rate.Limiter)(nil)
