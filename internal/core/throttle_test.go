package core

import (
	"context"
	stderrors "errors"
	"net/http"
	"testing"
	"time"

	apierrors "github.com/memberplatform/memberplatform-go/errors"
	"github.com/memberplatform/memberplatform-go/internal/pacer"
)

// Throttles are paced, failures are budgeted: the rules of the defaults,
// through the pipeline.

// throttleThenOK answers 429 with the given headers first, then 200.
func throttleThenOK(t *testing.T, header, value string) *rtServer {
	return rtNewServer(t, func(w http.ResponseWriter, r *http.Request, hit int) {
		if hit == 1 {
			w.Header().Set(header, value)
			rtJSON(w, 429, `{"title":"Too Many Requests","status":429}`)
			return
		}
		rtJSON(w, 200, `{}`)
	})
}

// emptyBudget returns a default budget with nothing left in it, as after
// an outage.
func emptyBudget() *RetryBudget {
	b := NewRetryBudget(DefaultBudgetConfig())
	b.take(b.Tokens())
	return b
}

// While the adaptive limiter is on (the default), a throttled retry costs
// the budget nothing: an empty budget still lets it go. Without the
// limiter it costs ThrottleCost again, and an empty budget stops it.
func TestThrottledRetryCostsTheBudgetNothingWhilePaced(t *testing.T) {
	for _, tc := range []struct {
		name      string
		paced     bool
		wantSpent bool // the retry was refused by the budget
	}{
		{"paced (default)", true, false},
		{"WithoutAdaptiveRateLimit", false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := throttleThenOK(t, "Retry-After-Ms", "1")
			b := emptyBudget()
			c := rtNewClient(t, srv.URL, func(s *Settings) {
				other(s).Budget = b
				if !tc.paced {
					other(s).Pacer = nil
				}
			})
			err := c.do(context.Background(), rtCall(rtPutOp, nil))
			if tc.wantSpent {
				if !stderrors.Is(err, apierrors.ErrRetryBudgetExhausted) || srv.hits() != 1 {
					t.Fatalf("err = %v after %d attempts; want the retry refused by the budget", err, srv.hits())
				}
				return
			}
			if err != nil || srv.hits() != 2 {
				t.Fatalf("err = %v after %d attempts; want success at the retry", err, srv.hits())
			}
			// The retry was free, and the healthy answer refilled 1.
			if b.Tokens() != 1 {
				t.Fatalf("%d tokens after a free retry and a refill, want 1", b.Tokens())
			}
		})
	}
}

// The contract's rate-limited problem, at a 503, is a throttle too.
func TestRateLimitedProblemIsPacedNotBudgeted(t *testing.T) {
	srv := rtNewServer(t, func(w http.ResponseWriter, r *http.Request, hit int) {
		if hit == 1 {
			w.Header().Set("Content-Type", "application/problem+json")
			w.WriteHeader(503)
			_, _ = w.Write([]byte(`{"title":"Rate limit exceeded","status":503,"detail":"The configured access provider rate limited the request"}`))
			return
		}
		rtJSON(w, 200, `{}`)
	})
	b := emptyBudget()
	c := rtNewClient(t, srv.URL, func(s *Settings) { other(s).Budget, s.Retry.BaseDelay = b, time.Millisecond })
	if err := c.do(context.Background(), rtCall(rtPutOp, nil)); err != nil || srv.hits() != 2 {
		t.Fatalf("err = %v after %d attempts; want success at the free retry", err, srv.hits())
	}
}

// A lone call throttled once, with an empty budget: its retry leaves when
// the Retry-After ends, not at the pacer's floor of one attempt a second
// (it engages at 1/Retry-After at least). The provider had admitted
// nothing for a second before the throttle, so its admitting the retry
// releases the pacer: the next call is not paced.
func TestLoneThrottledCallRetriesWhenRetryAfterEnds(t *testing.T) {
	srv := throttleThenOK(t, "Retry-After-Ms", "300")
	c := rtNewClient(t, srv.URL, func(s *Settings) { other(s).Budget = emptyBudget() })
	start := time.Now()
	if err := c.do(context.Background(), rtCall(rtPutOp, nil)); err != nil {
		t.Fatal(err)
	}
	if el := time.Since(start); el < 300*time.Millisecond || el > 900*time.Millisecond {
		t.Fatalf("the call took %v; want its Retry-After (300ms), well under the 1 s floor", el)
	}
	if r, engaged := other(&c.settings).Pacer.Rate(); engaged {
		t.Fatalf("pacer at %v/s after the provider admitted the retry, want it released", r)
	}
}

// What a caller sees when the limiter refuses a throttled call's retry: a
// TransportError whose Last is the 429, matching ErrRateLimited, also
// context.DeadlineExceeded when the deadline was the reason; never
// ErrRetryBudgetExhausted.
func TestPacerRefusalErrorShapes(t *testing.T) {
	for _, tc := range []struct {
		name         string
		deadline     time.Duration // 0: none
		maxRetryWait time.Duration
		wantDeadline bool
	}{
		{"past the deadline", 500 * time.Millisecond, 20 * time.Second, true},
		{"longer than MaxRetryAfter, no deadline", 0, 300 * time.Millisecond, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := rtNewServer(t, func(w http.ResponseWriter, r *http.Request, hit int) {
				w.Header().Set("Retry-After-Ms", "1")
				rtJSON(w, 429, `{"title":"Too Many Requests","status":429}`)
			})
			p := pacer.New()
			p.Engage(0.5) // the first attempt goes at once; its 429 puts the next slot 2 s away
			c := rtNewClient(t, srv.URL, func(s *Settings) {
				other(s).Pacer, other(s).Budget, s.Retry.MaxRetryAfter = p, emptyBudget(), tc.maxRetryWait
			})
			ctx := context.Background()
			if tc.deadline > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, tc.deadline)
				defer cancel()
			}
			start := time.Now()
			err := c.do(ctx, rtCall(rtPutOp, nil))
			te := rtWantTransportError(t, err, 1)
			if te.Last == nil || te.Last.StatusCode != 429 {
				t.Fatalf("Last = %v, want the 429", te.Last)
			}
			if !stderrors.Is(err, apierrors.ErrRateLimited) || stderrors.Is(err, apierrors.ErrRetryBudgetExhausted) {
				t.Fatalf("err = %v: want ErrRateLimited, not ErrRetryBudgetExhausted", err)
			}
			if stderrors.Is(err, context.DeadlineExceeded) != tc.wantDeadline {
				t.Fatalf("err = %v: matches DeadlineExceeded %v, want %v", err, !tc.wantDeadline, tc.wantDeadline)
			}
			if el := time.Since(start); el > 400*time.Millisecond && tc.deadline == 0 || ctx.Err() != nil {
				t.Fatalf("refused after %v (ctx %v); want at once", el, ctx.Err())
			}
			// The pacer's next slot, about a second away, not the 429's 1ms.
			if wait, ok := apierrors.RetryAfterOf(err); !ok || wait < 500*time.Millisecond || wait > time.Second {
				t.Fatalf("RetryAfterOf = %v, %v; want the pacer's next slot, up to 1s away", wait, ok)
			}
		})
	}
}

// A call that saw no 429 itself, refused its first slot by an engaged
// limiter, still fails as rate limited: the limiter is engaged because the
// provider throttled the client.
func TestPacerRefusalOfAFirstAttemptIsRateLimited(t *testing.T) {
	srv, c := pacedClient(t)
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	err := c.do(ctx, rtCall(rtPutOp, nil))
	te := rtWantTransportError(t, err, 0)
	if te.Last != nil || !stderrors.Is(err, apierrors.ErrRateLimited) || !stderrors.Is(err, context.DeadlineExceeded) || srv.hits() != 1 {
		t.Fatalf("err = %v (last %v), %d hits; want a refusal matching ErrRateLimited and DeadlineExceeded, nothing sent", err, te.Last, srv.hits())
	}
	if wait, ok := apierrors.RetryAfterOf(err); !ok || wait <= 200*time.Millisecond {
		t.Fatalf("RetryAfterOf = %v, %v; want the pacer's next slot, beyond the deadline", wait, ok)
	}
}

// A call whose context ends while it waits for a slot matches both the
// context's error and ErrRateLimited: it waited for the rate limit. So does
// one whose context ends in a Retry-After wait.
func TestPacerWaitCancelledMatchesBoth(t *testing.T) {
	_, c := pacedClient(t)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	err := c.do(ctx, rtCall(rtPutOp, nil))
	if !stderrors.Is(err, context.Canceled) || !stderrors.Is(err, apierrors.ErrRateLimited) {
		t.Fatalf("cancelled at the pacer: err = %v; want context.Canceled and ErrRateLimited", err)
	}

	srv := rtNewServer(t, func(w http.ResponseWriter, r *http.Request, hit int) {
		w.Header().Set("Retry-After", "5")
		rtJSON(w, 429, `{"title":"Too Many Requests","status":429}`)
	})
	c = rtNewClient(t, srv.URL, func(s *Settings) { other(s).Pacer = nil })
	ctx, cancel = context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	err = c.do(ctx, rtCall(rtPutOp, nil))
	if !stderrors.Is(err, context.Canceled) || !stderrors.Is(err, apierrors.ErrRateLimited) {
		t.Fatalf("cancelled in a Retry-After wait: err = %v; want context.Canceled and ErrRateLimited", err)
	}
	if wait, ok := apierrors.RetryAfterOf(err); !ok || wait != 5*time.Second {
		t.Fatalf("RetryAfterOf = %v, %v; want the platform's 5s", wait, ok)
	}
}

// pacedClient is a client whose engaged limiter has just let one call
// through: its next slot is 2 s away.
func pacedClient(t *testing.T) (*rtServer, *Client) {
	srv := rtNewServer(t, func(w http.ResponseWriter, r *http.Request, hit int) { rtJSON(w, 200, `{}`) })
	p := pacer.New()
	p.Engage(0.5)
	c := rtNewClient(t, srv.URL, func(s *Settings) { other(s).Pacer = p })
	if err := c.do(context.Background(), rtCall(rtPutOp, nil)); err != nil {
		t.Fatal(err)
	}
	return srv, c
}
