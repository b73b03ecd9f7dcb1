package core

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/time/rate"

	memberplatform "github.com/memberplatform/memberplatform-go"
	"github.com/memberplatform/memberplatform-go/internal/pacer"
	"github.com/memberplatform/memberplatform-go/observe"
)

// recorder is an Observer that writes down what it is told, one line per
// event, and marks each context it returns so the test can check which
// context each method gets.
type recorder struct {
	name string
	mu   sync.Mutex
	log  []string
}

type scopeKey struct{}

func (r *recorder) add(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.log = append(r.log, fmt.Sprintf(format, args...))
}

func (r *recorder) lines() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.log...)
}

func scopeOf(ctx context.Context) string { s, _ := ctx.Value(scopeKey{}).(string); return s }

func (r *recorder) StartCall(ctx context.Context, call observe.Call) context.Context {
	r.add("start call %s %s %q token=%v", call.Operation, call.Method, call.URLTemplate, call.Token)
	return context.WithValue(ctx, scopeKey{}, scopeOf(ctx)+"/"+call.Operation)
}

func (r *recorder) EndCall(ctx context.Context, call observe.Call, err error) {
	r.add("end call %s %s in %s", call.Operation, observe.ErrorType(err), scopeOf(ctx))
}

func (r *recorder) StartAttempt(ctx context.Context, a observe.Attempt) context.Context {
	a.Request.Header.Set("X-Observed", "yes")
	r.add("start attempt resend=%d in %s", a.Resend, scopeOf(ctx))
	return context.WithValue(ctx, scopeKey{}, scopeOf(ctx)+"/attempt")
}

func (r *recorder) EndAttempt(ctx context.Context, a observe.Attempt, res observe.AttemptResult) {
	r.add("end attempt resend=%d status=%d %s in %s", a.Resend, res.StatusCode, observe.ErrorType(res.Err), scopeOf(ctx))
}

func (r *recorder) StartTokenFetch(ctx context.Context) context.Context {
	r.add("start fetch in %s", scopeOf(ctx))
	return context.WithValue(ctx, scopeKey{}, scopeOf(ctx)+"/fetch")
}

func (r *recorder) EndTokenFetch(ctx context.Context, err error) {
	r.add("end fetch %s in %s", observe.ErrorType(err), scopeOf(ctx))
}

func (r *recorder) Retry(ctx context.Context, retry observe.Retry) {
	r.add("retry %d %s", retry.Attempt, retry.Reason)
}

func (r *recorder) RateLimitWait(ctx context.Context, w observe.Wait) {
	r.add("wait")
}

func (r *recorder) BudgetRefused(ctx context.Context, refusal observe.Refusal) {
	r.add("refused %d %s %s", refusal.Attempt, refusal.Reason, refusal.Area)
}

// statusTransport answers the statuses in order (the last one repeats),
// and checks that each request carries the observer's header and context.
type statusTransport struct {
	t        *testing.T
	mu       sync.Mutex
	statuses []int
	scopes   []string
}

func (tr *statusTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	if req.Body != nil {
		_, _ = io.Copy(io.Discard, req.Body)
		_ = req.Body.Close()
	}
	status := tr.statuses[0]
	if len(tr.statuses) > 1 {
		tr.statuses = tr.statuses[1:]
	}
	tr.scopes = append(tr.scopes, scopeOf(req.Context())+" "+req.Header.Get("X-Observed"))
	body := `{"ok":true}`
	if status >= 400 {
		body = `{"title":"failed"}`
	}
	return &http.Response{StatusCode: status, Header: http.Header{"Content-Type": {"application/json"}},
		Body: io.NopCloser(strings.NewReader(body)), ContentLength: int64(len(body)), Request: req}, nil
}

func observedClient(t *testing.T, obs observe.Observer, tokens *TokenCache, statuses ...int) (*Client, *statusTransport) {
	t.Helper()
	tr := &statusTransport{t: t, statuses: statuses}
	s := DefaultSettings()
	s.BaseURL, _ = url.Parse("https://api.example.test")
	s.Transport = tr
	s.Retry.BaseDelay, s.Retry.MaxDelay = time.Millisecond, 2*time.Millisecond
	if err := s.AddObserver(obs); err != nil {
		t.Fatal(err)
	}
	c, err := New(s, tokens)
	if err != nil {
		t.Fatal(err)
	}
	return c, tr
}

func wantLines(t *testing.T, got, want []string) {
	t.Helper()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("events:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestObserverSeesEveryStage: a call answered 503, 503, 200 with a token
// fetch tells the observer each stage, in order, each with the context
// the matching Start method returned, and each request carries the
// attempt's context and the header StartAttempt set.
func TestObserverSeesEveryStage(t *testing.T) {
	rec := &recorder{}
	tokens := NewTokenCache(func(context.Context) (string, time.Time, error) { return "tok", time.Time{}, nil })
	c, tr := observedClient(t, rec, tokens, 503, 503, 200)
	op := &Operation{Name: "test.Put", Method: http.MethodPut, Path: "/things/{id}", Idempotent: true, Auth: true}
	if err := c.do(context.Background(), &Call{Op: op, PathParams: [2]string{"id-1"}}); err != nil {
		t.Fatal(err)
	}
	wantLines(t, rec.lines(), []string{
		`start call test.Put PUT "/things/{id}" token=false`,
		`start fetch in /test.Put`,
		`end fetch  in /test.Put/fetch`,
		`start attempt resend=0 in /test.Put`,
		`end attempt resend=0 status=503 service_unavailable in /test.Put/attempt`,
		`retry 1 service_unavailable`,
		`start attempt resend=1 in /test.Put`,
		`end attempt resend=1 status=503 service_unavailable in /test.Put/attempt`,
		`retry 2 service_unavailable`,
		`start attempt resend=2 in /test.Put`,
		`end attempt resend=2 status=200  in /test.Put/attempt`,
		`end call test.Put  in /test.Put`,
	})
	wantLines(t, tr.scopes, []string{"/test.Put/attempt yes", "/test.Put/attempt yes", "/test.Put/attempt yes"})
}

// TestObserverBudgetAndWaits: a retry the budget refuses is reported as a
// refusal, not a retry; waits are reported only when a limiter is in play.
func TestObserverBudgetAndWaits(t *testing.T) {
	rec := &recorder{}
	c, _ := observedClient(t, rec, nil, 503)
	other(&c.settings).Budget = NewRetryBudget(BudgetConfig{Capacity: 1, ErrorCost: 10})
	err := c.do(context.Background(), rtCall(rtPutOp, nil))
	if observe.ErrorType(err) != observe.ErrorServiceUnavailable {
		t.Fatalf("err = %v", err)
	}
	wantLines(t, rec.lines(), []string{
		`start call test.Put PUT "/things/{id}" token=false`,
		`start attempt resend=0 in /test.Put`,
		`end attempt resend=0 status=503 service_unavailable in /test.Put/attempt`,
		`refused 1 service_unavailable other`,
		`end call test.Put service_unavailable in /test.Put`,
	})

	rec = &recorder{}
	c, _ = observedClient(t, rec, nil, 200)
	other(&c.settings).Limiter = rate.NewLimiter(rate.Inf, 1)
	if err := c.do(context.Background(), rtCall(rtPutOp, nil)); err != nil {
		t.Fatal(err)
	}
	if got := strings.Count(strings.Join(rec.lines(), "\n"), "wait"); got != 1 {
		t.Errorf("%d waits reported with a user limiter, want 1: %v", got, rec.lines())
	}
	rec = &recorder{}
	c, _ = observedClient(t, rec, nil, 200)
	other(&c.settings).Pacer = pacer.New() // dormant: nothing to wait for
	if err := c.do(context.Background(), rtCall(rtPutOp, nil)); err != nil {
		t.Fatal(err)
	}
	if got := strings.Count(strings.Join(rec.lines(), "\n"), "wait"); got != 0 {
		t.Errorf("%d waits reported with a dormant pacer, want 0: %v", got, rec.lines())
	}
}

// TestObserverSigningFailure: an attempt whose signature fails is ended
// with the failure, never left open.
func TestObserverSigningFailure(t *testing.T) {
	rec := &recorder{}
	c, _ := observedClient(t, rec, nil, 200)
	call := rtCall(rtPutOp, nil)
	call.Sign = func(*http.Request, []byte) error { return errors.New("no credentials") }
	if err := c.do(context.Background(), call); err == nil {
		t.Fatal("want the signing error")
	}
	wantLines(t, rec.lines(), []string{
		`start call test.Put PUT "/things/{id}" token=false`,
		`start attempt resend=0 in /test.Put`,
		`end attempt resend=0 status=0 token_unavailable in /test.Put/attempt`,
		`end call test.Put token_unavailable in /test.Put`,
	})
}

// combining is a Combiner that merges with another combining.
type combining struct {
	*recorder
	parts string
}

func (c *combining) Combine(prev observe.Observer) (observe.Observer, bool) {
	if p, ok := prev.(*combining); ok {
		return &combining{recorder: p.recorder, parts: p.parts + "+" + c.parts}, true
	}
	return &combining{recorder: &recorder{}, parts: c.parts}, false
}

// TestAddObserver: observers chain in order; a Combiner merges with its
// own kind, wherever it sits in the chain; a nil pointer is refused. (A
// per-call observer is refused by the option: option's scope test.)
func TestAddObserver(t *testing.T) {
	t.Parallel()
	var s Settings
	first, second := &recorder{name: "first"}, &recorder{name: "second"}
	for _, o := range []observe.Observer{first, &combining{parts: "a"}, second, &combining{parts: "b"}} {
		if err := s.AddObserver(o); err != nil {
			t.Fatal(err)
		}
	}
	chain, ok := s.Observer.(observers)
	if !ok || len(chain) != 3 || chain[0] != first || chain[2] != second {
		t.Fatalf("observers = %#v, want first, the combined one, second", s.Observer)
	}
	if c, ok := chain[1].(*combining); !ok || c.parts != "a+b" {
		t.Errorf("combined observer = %#v, want parts a+b", chain[1])
	}
	if err := s.AddObserver((*recorder)(nil)); err == nil || !strings.Contains(err.Error(), "nil *core.recorder") {
		t.Errorf("a nil pointer: err = %v", err)
	}
	if err := s.AddObserver(nil); err != nil || len(s.Observer.(observers)) != 3 {
		t.Errorf("nil: err = %v, observers %v; want no change", err, s.Observer)
	}

}

// stateRecorder is a StateObserver.
type stateRecorder struct {
	recorder
	state *observe.State
}

func (r *stateRecorder) ObserveState(state *observe.State) { r.state = state }

// TestObserverState: a StateObserver reads each area's budget and pacer.
func TestObserverState(t *testing.T) {
	obs := &stateRecorder{}
	c, _ := observedClient(t, obs, nil, 200)
	if obs.state == nil {
		t.Fatal("ObserveState was not called")
	}
	if !slices.Equal(obs.state.Areas, areas[:]) {
		t.Fatalf("Areas = %v, want %v", obs.state.Areas, areas)
	}
	c.settings.Scopes[0].Budget.take(7)
	c.settings.Scopes[2].Pacer.Engage(42)
	for i, a := range areas {
		if tokens, ok := obs.state.RetryBudgetOf(a); !ok || tokens != c.settings.Scopes[i].Budget.Tokens() || (i == 0) != (tokens == 493) {
			t.Errorf("RetryBudgetOf(%s) = %d, %v", a, tokens, ok)
		}
		if r, ok := obs.state.PacerRateOf(a); !ok || (i == 2) != (r == 42) {
			t.Errorf("PacerRateOf(%s) = %v, %v", a, r, ok)
		}
	}
	if _, ok := obs.state.RetryBudgetOf("nowhere"); ok {
		t.Error("RetryBudgetOf an unknown area ok")
	}
	// The fields of 0.3 read access management's, the access provider's.
	if tokens, ok := obs.state.RetryBudget(); !ok || tokens != 493 {
		t.Errorf("RetryBudget() = %d, %v; want access management's 493", tokens, ok)
	}
	c.settings.Scopes[0].Pacer.Engage(7)
	if r, ok := obs.state.PacerRate(); !ok || r != 7 {
		t.Errorf("PacerRate() = %v, %v; want access management's 7", r, ok)
	}

	obs = &stateRecorder{}
	s := DefaultSettings()
	s.BaseURL, _ = url.Parse("http://api.example.test")
	other(&s).Budget, other(&s).Pacer = nil, pacer.New()
	_ = s.AddObserver(obs)
	if _, err := New(s, nil); err != nil {
		t.Fatal(err)
	}
	if _, ok := obs.state.RetryBudgetOf(memberplatform.AreaOther); ok {
		t.Error("RetryBudgetOf ok without a budget")
	}
	if r, ok := obs.state.PacerRateOf(memberplatform.AreaOther); !ok || r != 0 {
		t.Errorf("PacerRateOf = %v, %v for a dormant pacer, want 0, true", r, ok)
	}
}

// faultyObserver returns contexts no observer should: nil, or one not
// derived from the context it was given.
type faultyObserver struct {
	observe.Nop
	unrelated bool
}

func (f faultyObserver) pick(ctx context.Context) context.Context {
	if f.unrelated {
		return context.Background()
	}
	return nil // the fault under test
}

func (f faultyObserver) StartCall(ctx context.Context, _ observe.Call) context.Context {
	if f.unrelated {
		return ctx // a call context need not carry anything of the pipeline's
	}
	return f.pick(ctx)
}
func (f faultyObserver) StartAttempt(ctx context.Context, _ observe.Attempt) context.Context {
	return f.pick(ctx)
}
func (f faultyObserver) StartTokenFetch(ctx context.Context) context.Context {
	if f.unrelated {
		return ctx
	}
	return f.pick(ctx)
}

// A faulty observer cannot break a call: a nil context is ignored, and an
// attempt context that lost the send's state is replaced by the send's own.
// A retried call with a token fetch goes through every Start method.
func TestFaultyObserverCannotBreakACall(t *testing.T) {
	for _, unrelated := range []bool{false, true} {
		tokens := NewTokenCache(func(context.Context) (string, time.Time, error) { return "tok", time.Time{}, nil })
		c, _ := observedClient(t, faultyObserver{unrelated: unrelated}, tokens, 503, 200)
		op := &Operation{Name: "test.Put", Method: http.MethodPut, Path: "/things/{id}", Idempotent: true, Auth: true}
		var err error
		func() {
			defer func() {
				if p := recover(); p != nil {
					t.Fatalf("unrelated=%v: the call panicked: %v", unrelated, p)
				}
			}()
			err = c.do(context.Background(), &Call{Op: op, PathParams: [2]string{"id-1"}})
		}()
		if err != nil {
			t.Fatalf("unrelated=%v: %v", unrelated, err)
		}
	}
}
