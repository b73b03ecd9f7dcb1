package core

import (
	"bytes"
	"context"
	stderrors "errors"
	"log/slog"
	"math"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	apierrors "github.com/memberplatform/memberplatform-go/errors"
)

func TestRetryBudgetTakeAndGive(t *testing.T) {
	b := NewRetryBudget(BudgetConfig{Capacity: 30, ThrottleCost: 5, ErrorCost: 10, TimeoutCost: 15, SuccessRefill: 1})
	steps := []struct {
		op   string
		n    int
		ok   bool
		left int
	}{
		{"take", 10, true, 20},
		{"take", 15, true, 5},
		{"take", 10, false, 5}, // not enough: nothing taken
		{"take", 5, true, 0},
		{"take", 1, false, 0},
		{"give", 1, true, 1},
		{"give", 100, true, 30}, // capped at the capacity
		{"give", 1, true, 30},
	}
	for i, s := range steps {
		ok := true
		if s.op == "take" {
			ok = b.take(s.n)
		} else {
			b.give(s.n)
		}
		if ok != s.ok || b.Tokens() != s.left {
			t.Fatalf("step %d %s(%d) = %v, %d left; want %v, %d", i, s.op, s.n, ok, b.Tokens(), s.ok, s.left)
		}
	}
}

func TestRetryBudgetConcurrentTakesNeverOverdraw(t *testing.T) {
	b := NewRetryBudget(BudgetConfig{Capacity: 1000})
	var mu sync.Mutex
	granted := 0
	var wg sync.WaitGroup
	for range 50 {
		wg.Go(func() {
			for range 100 {
				if b.take(7) {
					mu.Lock()
					granted++
					mu.Unlock()
				}
			}
		})
	}
	wg.Wait()
	if granted != 1000/7 || b.Tokens() != 1000%7 {
		t.Fatalf("granted %d takes of 7, %d left; want %d, %d", granted, b.Tokens(), 1000/7, 1000%7)
	}
}

func TestDefaultSettingsHaveAFreshBudgetAndPacerPerArea(t *testing.T) {
	a, b := DefaultSettings(), DefaultSettings()
	want := BudgetConfig{Capacity: 500, ThrottleCost: 5, PacedThrottleCost: 0, ErrorCost: 10, TimeoutCost: 15, SuccessRefill: 1}
	for i, sc := range a.Scopes {
		if sc.Budget == nil || sc.Budget == b.Scopes[i].Budget || i > 0 && sc.Budget == a.Scopes[i-1].Budget {
			t.Fatalf("area %s: DefaultSettings must give each client and each area a budget of its own", areas[i])
		}
		if sc.Pacer == nil || sc.Pacer == b.Scopes[i].Pacer || i > 0 && sc.Pacer == a.Scopes[i-1].Pacer {
			t.Fatalf("area %s: DefaultSettings must give each client and each area a pacer of its own", areas[i])
		}
		if _, engaged := sc.Pacer.Rate(); engaged {
			t.Fatalf("area %s: the default pacer must start dormant", areas[i])
		}
		if got := sc.Budget.Config(); got != want || sc.Budget.Tokens() != 500 {
			t.Fatalf("area %s: default budget %+v with %d tokens, want %+v full", areas[i], got, sc.Budget.Tokens(), want)
		}
		if sc.Limiter != nil {
			t.Fatalf("area %s: a limiter by default", areas[i])
		}
	}
}

// budgetClient is rtNewClient with a budget of cfg and no backoff to speak of.
func budgetClient(t *testing.T, url string, cfg BudgetConfig) (*Client, *RetryBudget) {
	b := NewRetryBudget(cfg)
	return rtNewClient(t, url, func(s *Settings) { other(s).Budget = b }), b
}

// Exact token counts through the pipeline: each kind of retry costs its
// own price, a retry that gets a healthy answer is refunded, a call
// answered at once (2xx or a final 4xx) refills, a call that fails does not.
func TestRetryBudgetAccountingThroughThePipeline(t *testing.T) {
	var mu sync.Mutex
	var script []func(w http.ResponseWriter)
	srv := rtNewServer(t, func(w http.ResponseWriter, r *http.Request, hit int) {
		mu.Lock()
		answer := script[0]
		script = script[1:]
		mu.Unlock()
		answer(w)
	})
	status := func(code int, body string) func(w http.ResponseWriter) {
		return func(w http.ResponseWriter) { rtJSON(w, code, body) }
	}
	throttle := func(w http.ResponseWriter) {
		w.Header().Set("Retry-After-Ms", "1")
		rtJSON(w, 429, `{"title":"Too Many Requests","status":429}`)
	}
	reset := func(w http.ResponseWriter) { rtReset(t, w) }
	ok := status(200, `{}`)

	c, b := budgetClient(t, srv.URL, BudgetConfig{Capacity: 100, ThrottleCost: 3, PacedThrottleCost: 3, ErrorCost: 10, TimeoutCost: 20, SuccessRefill: 2}) // an explicit throttle cost charges paced throttles too
	var during []int                                                                                                                                       // tokens left when each retry was decided
	c.settings.Retry.OnRetry = func(int, time.Duration) { during = append(during, b.Tokens()) }

	calls := []struct {
		name    string
		answers []func(http.ResponseWriter)
		during  []int
		after   int
		wantErr bool
	}{
		{"503 503 200: two error retries, the last refunded", []func(http.ResponseWriter){status(503, `{}`), status(503, `{}`), ok}, []int{90, 80}, 90, false},
		{"429 200: a throttled retry, refunded", []func(http.ResponseWriter){throttle, ok}, []int{87}, 90, false},
		{"reset 200: a connection retry, refunded", []func(http.ResponseWriter){reset, ok}, []int{70}, 90, false},
		{"200: a refill", []func(http.ResponseWriter){ok}, nil, 92, false},
		{"404: a healthy answer refills too", []func(http.ResponseWriter){status(404, `{}`)}, nil, 94, true},
		{"503 ×4: three retries, no refill", []func(http.ResponseWriter){status(503, `{}`), status(503, `{}`), status(503, `{}`), status(503, `{}`)}, []int{84, 74, 64}, 64, true},
	}
	for _, call := range calls {
		mu.Lock()
		script = call.answers
		mu.Unlock()
		during = nil
		err := c.do(context.Background(), rtCall(rtPutOp, nil))
		if (err != nil) != call.wantErr {
			t.Fatalf("%s: err = %v", call.name, err)
		}
		if stderrors.Is(err, apierrors.ErrRetryBudgetExhausted) {
			t.Fatalf("%s: %v matches ErrRetryBudgetExhausted, but the budget never refused", call.name, err)
		}
		if !equalInts(during, call.during) || b.Tokens() != call.after {
			t.Fatalf("%s: tokens at each retry %v, after %d; want %v, %d", call.name, during, b.Tokens(), call.during, call.after)
		}
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// An empty budget stops the retry of an error response: the call returns
// the response's *errors.Error, which still matches its own kind and also
// ErrRetryBudgetExhausted, and says why in its text.
func TestRetryBudgetStopsErrorResponseRetries(t *testing.T) {
	srv := rtNewServer(t, func(w http.ResponseWriter, r *http.Request, hit int) {
		w.Header().Set("X-Request-Id", "req-1")
		rtJSON(w, 503, `{"title":"Service Unavailable","status":503}`)
	})
	c, b := budgetClient(t, srv.URL, BudgetConfig{Capacity: 30, ErrorCost: 10, SuccessRefill: 1})
	// The first call spends the whole budget on its three retries and
	// ends because the policy's retries ran out, not the budget.
	err := c.do(context.Background(), rtCall(rtPutOp, nil))
	rtWantAPIError(t, err, 503, 4)
	if stderrors.Is(err, apierrors.ErrRetryBudgetExhausted) || b.Tokens() != 0 {
		t.Fatalf("first call: %v, %d tokens left; want retries exhausted and an empty budget", err, b.Tokens())
	}
	err = c.do(context.Background(), rtCall(rtPutOp, nil))
	ae := rtWantAPIError(t, err, 503, 1)
	if !stderrors.Is(err, apierrors.ErrRetryBudgetExhausted) || !stderrors.Is(err, apierrors.ErrServiceUnavailable) {
		t.Fatalf("second call: %v; want both ErrRetryBudgetExhausted and ErrServiceUnavailable", err)
	}
	if ae.RequestID != "req-1" || !strings.Contains(err.Error(), "retry budget is exhausted") {
		t.Fatalf("second call: %q (request id %q); want the response described and the budget named", err, ae.RequestID)
	}
	if srv.hits() != 5 {
		t.Fatalf("server hits = %d, want 4 + 1", srv.hits())
	}
}

// A call the budget stopped says so in the give-up log record.
func TestRetryBudgetStopIsLogged(t *testing.T) {
	srv := rtNewServer(t, func(w http.ResponseWriter, r *http.Request, hit int) { rtJSON(w, 503, `{}`) })
	var buf bytes.Buffer
	c := rtNewClient(t, srv.URL, func(s *Settings) {
		other(s).Budget = NewRetryBudget(BudgetConfig{ErrorCost: 10})
		s.Logger = slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelWarn}))
	})
	_ = c.do(context.Background(), rtCall(rtPutOp, nil))
	if got := buf.String(); !strings.Contains(got, "giving up") || !strings.Contains(got, `reason="retry budget exhausted"`) {
		t.Fatalf("log = %q, want a giving-up record naming the budget", got)
	}
}

// An empty budget stops the retry of a connection failure: the call returns
// a *errors.TransportError whose cause is still reachable.
func TestRetryBudgetStopsTransportRetries(t *testing.T) {
	srv := rtNewServer(t, func(w http.ResponseWriter, r *http.Request, hit int) { rtReset(t, w) })
	c, _ := budgetClient(t, srv.URL, BudgetConfig{Capacity: 14, TimeoutCost: 15})
	err := c.do(context.Background(), rtCall(rtPutOp, nil))
	te := rtWantTransportError(t, err, 1)
	var uerr *url.Error
	if !stderrors.Is(err, apierrors.ErrRetryBudgetExhausted) || !stderrors.As(err, &uerr) {
		t.Fatalf("err = %v; want ErrRetryBudgetExhausted with the *url.Error still reachable", err)
	}
	if !strings.Contains(te.Error(), "retry budget is exhausted") {
		t.Fatalf("err = %q, want the budget named", te.Error())
	}
}

// A per-attempt timeout stopped by the budget is still a timeout.
func TestRetryBudgetKeepsTimeout(t *testing.T) {
	release := make(chan struct{})
	srv := rtNewServer(t, func(w http.ResponseWriter, r *http.Request, hit int) { <-release })
	defer close(release)
	c := rtNewClient(t, srv.URL, func(s *Settings) {
		other(s).Budget = NewRetryBudget(BudgetConfig{Capacity: 0, TimeoutCost: 15})
		s.AttemptTimeout = 20 * time.Millisecond
	})
	err := c.do(context.Background(), rtCall(rtPutOp, nil))
	te := rtWantTransportError(t, err, 1)
	if !te.Timeout() || !stderrors.Is(err, apierrors.ErrRetryBudgetExhausted) {
		t.Fatalf("err = %v (Timeout %v); want a timeout stopped by the budget", err, te.Timeout())
	}
}

// With the budget off, every call retries on its own, as before (admission
// control, which would refuse the retries of an area failing whole, off too).
func TestRetryBudgetDisabled(t *testing.T) {
	srv := rtNewServer(t, func(w http.ResponseWriter, r *http.Request, hit int) { rtJSON(w, 503, `{}`) })
	c := rtNewClient(t, srv.URL, func(s *Settings) { other(s).Budget, other(s).Admission = nil, nil })
	for range 3 {
		err := c.do(context.Background(), rtCall(rtPutOp, nil))
		rtWantAPIError(t, err, 503, 4)
		if stderrors.Is(err, apierrors.ErrRetryBudgetExhausted) {
			t.Fatalf("err = %v with no budget", err)
		}
	}
}

// After an outage emptied the budget, calls succeed at once when the
// service recovers, and once the healthy answers refill the budget, retries
// resume.
func TestRetryBudgetRecovery(t *testing.T) {
	var mu sync.Mutex
	healthy := false
	srv := rtNewServer(t, func(w http.ResponseWriter, r *http.Request, hit int) {
		mu.Lock()
		h := healthy
		mu.Unlock()
		if h {
			rtJSON(w, 200, `{}`)
			return
		}
		rtJSON(w, 503, `{}`)
	})
	c, b := budgetClient(t, srv.URL, BudgetConfig{Capacity: 20, ErrorCost: 10, SuccessRefill: 1})
	setHealthy := func(v bool) { mu.Lock(); healthy = v; mu.Unlock() }

	_ = c.do(context.Background(), rtCall(rtPutOp, nil)) // 1 attempt + 2 retries empty it
	rtWantAPIError(t, c.do(context.Background(), rtCall(rtPutOp, nil)), 503, 1)

	setHealthy(true)
	for i := range 9 {
		if err := c.do(context.Background(), rtCall(rtPutOp, nil)); err != nil {
			t.Fatalf("call %d after recovery: %v", i, err)
		}
	}
	setHealthy(false)
	// 9 tokens: not yet enough for a retry.
	rtWantAPIError(t, c.do(context.Background(), rtCall(rtPutOp, nil)), 503, 1)
	setHealthy(true)
	if err := c.do(context.Background(), rtCall(rtPutOp, nil)); err != nil {
		t.Fatal(err)
	}
	setHealthy(false)
	// 10 tokens: one retry.
	err := c.do(context.Background(), rtCall(rtPutOp, nil))
	rtWantAPIError(t, err, 503, 2)
	if !stderrors.Is(err, apierrors.ErrRetryBudgetExhausted) || b.Tokens() != 0 {
		t.Fatalf("err = %v, %d tokens; want one retry, then the budget empty again", err, b.Tokens())
	}
	if want := 3 + 1 + 9 + 1 + 1 + 2; srv.hits() != want {
		t.Fatalf("server hits = %d, want %d", srv.hits(), want)
	}
}

// A capacity of math.MaxInt means "no limit": refunds saturate at it
// instead of wrapping into a negative budget that refuses every retry.
func TestRetryBudgetRefundSaturatesAtAHugeCapacity(t *testing.T) {
	b := NewRetryBudget(BudgetConfig{Capacity: math.MaxInt, ThrottleCost: 5, ErrorCost: 10, TimeoutCost: 15, SuccessRefill: 1})
	if !b.take(15) {
		t.Fatal("take(15) from a full budget failed")
	}
	for range 14 {
		b.give(1)
	}
	b.give(15)
	if got := b.Tokens(); got != math.MaxInt {
		t.Fatalf("tokens = %d, want the capacity %d", got, math.MaxInt)
	}
	if !b.take(5) {
		t.Fatal("the budget refuses retries after refunds")
	}
}

// A retry that is never sent (the context ended during its backoff) gives
// back what it took: only retries that reach the service drain the budget.
func TestRetryBudgetRefundsARetryThatIsNotSent(t *testing.T) {
	srv := rtNewServer(t, func(w http.ResponseWriter, _ *http.Request, _ int) {
		w.Header().Set("Retry-After", "5")
		w.WriteHeader(http.StatusServiceUnavailable)
	})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	budget := NewRetryBudget(DefaultBudgetConfig())
	c := rtNewClient(t, srv.URL, func(s *Settings) {
		other(s).Budget = budget
		s.Retry.OnRetry = func(int, time.Duration) { cancel() } // the backoff wait is cut short
	})
	err := c.do(ctx, rtCall(rtPutOp, nil))
	if !stderrors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want the cancellation", err)
	}
	if got, want := budget.Tokens(), DefaultBudgetConfig().Capacity; got != want {
		t.Fatalf("budget = %d after a retry that was never sent, want %d", got, want)
	}
}
