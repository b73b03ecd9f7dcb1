package core

import (
	"context"
	"fmt"
	"net/http"
	"reflect"
	"time"

	apierrors "github.com/memberplatform/memberplatform-go/errors"
	"github.com/memberplatform/memberplatform-go/observe"
)

// This file is the pipeline's side of package observe: it tells the
// client's Observer (option.WithObserver) what the stages do. The stages
// call it only when an observer is set, so an unobserved call pays a nil
// check and no allocation: Do (observeCall), the attempts' authorizeAttempt
// (startAttempt, abandonAttempt), checkRetry (observeAttempt) and waitTurn
// (observeWait), the token cache (fetchObserved) and New (observeClient).

// AddObserver adds o to the settings' observers (option.WithObserver). A
// Combiner may merge with the observer already set; otherwise both are
// called, the earlier first.
func (s *Settings) AddObserver(o observe.Observer) error {
	if o == nil {
		return nil
	}
	if v := reflect.ValueOf(o); (v.Kind() == reflect.Pointer || v.Kind() == reflect.Func || v.Kind() == reflect.Map) && v.IsNil() {
		return fmt.Errorf("memberplatform: option.WithObserver: a nil %T", o)
	}
	if c, ok := o.(observe.Combiner); ok {
		o = combine(s, c)
		if o == nil {
			return nil
		}
	}
	switch prev := s.Observer.(type) {
	case nil:
		s.Observer = o
	case observers:
		s.Observer = append(observers{}, append(prev, o)...)
	default:
		s.Observer = observers{prev, o}
	}
	return nil
}

// combine offers c each observer already set, until one merges with it, and
// returns the observer to add after them, or nil when c merged.
func combine(s *Settings, c observe.Combiner) observe.Observer {
	switch prev := s.Observer.(type) {
	case nil:
		o, _ := c.Combine(nil)
		return o
	case observers:
		for i, x := range prev {
			if o, merged := c.Combine(x); merged {
				chain := append(observers{}, prev...)
				chain[i] = o
				s.Observer = chain
				return nil
			}
		}
		o, _ := c.Combine(nil)
		return o
	default:
		o, merged := c.Combine(prev)
		if merged {
			s.Observer = o
			return nil
		}
		return o
	}
}

// callInfo describes op to an observer.
func callInfo(op *Operation) observe.Call {
	info := observe.Call{Operation: op.Name, Method: op.Method, URLTemplate: op.Path, Token: op.Credential}
	if op.Name == executeOperation {
		info.URLTemplate = "" // the caller's own path, which may hold IDs
	}
	return info
}

// executeOperation is client.Execute's operation name: its Path is not a
// template.
const executeOperation = "client.Execute"

// observeCall is Do for a client with an observer: the call between the
// observer's StartCall and EndCall.
func observeCall[O any](ctx context.Context, c *Client, call *Call, opts []O) error {
	obs := c.settings.Observer
	info := callInfo(call.Op)
	ctx = orParent(obs.StartCall(ctx, info), ctx)
	err := doCall(ctx, c, call, opts)
	obs.EndCall(ctx, info, err)
	return err
}

// attemptState is what the pipeline keeps about an observed attempt. It
// travels in the attempt's context, which becomes the request's (see
// startAttempt), rather than in the callState, so that an unobserved
// call's state is not one byte larger.
type attemptState struct {
	ctx     context.Context // the observer's context for the attempt
	attempt observe.Attempt
	open    bool
}

type attemptStateKey struct{}

// attemptOf returns the observed attempt whose request, or request's
// context, is given; nil when there is none.
func attemptOf(ctx context.Context) *attemptState {
	a, _ := ctx.Value(attemptStateKey{}).(*attemptState)
	return a
}

// startAttempt tells the observer an attempt starts. It runs in
// authorizeAttempt after the token is attached and before the signature,
// so that propagation headers the observer adds are signed, not a change
// that breaks the signature. The observer's context becomes req's: req has
// not been handed to net/http yet (a retry's is a fresh copy), so it is
// changed in place.
func (state *callState) startAttempt(req *http.Request) {
	obs := state.s.Observer
	a := &attemptState{attempt: observe.Attempt{Call: callInfo(state.call.Op), Request: req, Resend: state.prior + state.attempts}, open: true}
	a.ctx = obs.StartAttempt(state.ctx, a.attempt)
	if a.ctx == nil || stateOf(a.ctx) != state {
		// Not derived from the one it was given: the send's state, and
		// the call's deadline, would be lost. The attempt keeps its own.
		a.ctx = state.ctx
	}
	a.attempt.Request = nil // not kept past StartAttempt: the observer must not read it later
	*req = *req.WithContext(context.WithValue(a.ctx, attemptStateKey{}, a))
}

// observeAttempt tells the observer how an attempt ended (ctx, resp,
// apiErr and err as checkRetry has them) and what the policy decided: a
// retry after wait, or the budget's refusal.
func (state *callState) observeAttempt(ctx context.Context, resp *http.Response, apiErr *apierrors.Error, err error, d Decision, wait time.Duration) {
	obs := state.s.Observer
	var outcome error
	switch {
	case err != nil:
		outcome = err
	case apiErr != nil:
		outcome = apiErr
	}
	if a := attemptOf(ctx); a != nil && a.open {
		result := observe.AttemptResult{Err: outcome}
		if resp != nil {
			result.StatusCode = resp.StatusCode
		}
		a.open = false
		obs.EndAttempt(a.ctx, a.attempt, result)
	}
	switch d {
	case Retry:
		obs.Retry(state.ctx, observe.Retry{Attempt: state.prior + state.attempts, Reason: observe.ErrorType(outcome), Delay: wait})
	case StopBudget:
		obs.BudgetRefused(state.ctx, observe.Refusal{Attempt: state.prior + state.attempts, Reason: observe.ErrorType(outcome)})
	}
}

// abandonAttempt ends the attempt of req, started but not sent (signing
// failed), with err, and returns err.
func (state *callState) abandonAttempt(req *http.Request, err error) error {
	if state.s.Observer == nil {
		return err
	}
	if a := attemptOf(req.Context()); a != nil && a.open {
		a.open = false
		state.s.Observer.EndAttempt(a.ctx, a.attempt, observe.AttemptResult{Err: err})
	}
	return err
}

// waitStarts returns when a wait for the rate limiters starts, or the zero
// time when no limiter could make the attempt wait (no user limiter, and
// the pacer absent or dormant).
func (state *callState) waitStarts() time.Time {
	if state.s.RateLimiter == nil {
		if a := state.s.Adaptive; a == nil {
			return time.Time{}
		} else if _, engaged := a.Rate(); !engaged {
			return time.Time{}
		}
	}
	return time.Now()
}

// observeWait tells the observer how long the wait that began at start
// lasted (deferred by waitTurn).
func (state *callState) observeWait(start time.Time) {
	if start.IsZero() {
		return
	}
	state.s.Observer.RateLimitWait(state.ctx, observe.Wait{Duration: time.Since(start)})
}

// fetchObserved is fetchRecovering between the observer's StartTokenFetch
// and EndTokenFetch.
func (c *TokenCache) fetchObserved(ctx context.Context) (string, time.Time, error) {
	obs := c.observer
	if obs == nil {
		return c.fetchRecovering(ctx)
	}
	ctx = orParent(obs.StartTokenFetch(ctx), ctx)
	v, exp, err := c.fetchRecovering(ctx)
	obs.EndTokenFetch(ctx, err)
	return v, exp, err
}

// observeClient hands the observer of a client just built its token cache
// and, for a StateObserver, the readers of its retry budget and pacer. The
// client keeps the State alive (see observe.StateObserver).
func observeClient(c *Client) {
	obs := c.settings.Observer
	if obs == nil {
		return
	}
	if c.tokens != nil {
		c.tokens.observer = obs
	}
	so, ok := obs.(observe.StateObserver)
	if !ok {
		return
	}
	budget, pacer := c.settings.RetryBudget, c.settings.Adaptive
	c.observed = &observe.State{
		RetryBudget: func() (int, bool) {
			if budget == nil {
				return 0, false
			}
			return budget.Tokens(), true
		},
		PacerRate: func() (float64, bool) {
			if pacer == nil {
				return 0, false
			}
			rate, _ := pacer.Rate()
			return rate, true
		},
	}
	so.ObserveState(c.observed)
}

// observers calls several observers, in order; each Start method gets the
// context the one before returned.
type observers []observe.Observer

func (o observers) StartCall(ctx context.Context, call observe.Call) context.Context {
	for _, x := range o {
		ctx = x.StartCall(ctx, call)
	}
	return ctx
}

func (o observers) EndCall(ctx context.Context, call observe.Call, err error) {
	for _, x := range o {
		x.EndCall(ctx, call, err)
	}
}

func (o observers) StartAttempt(ctx context.Context, attempt observe.Attempt) context.Context {
	for _, x := range o {
		ctx = x.StartAttempt(ctx, attempt)
	}
	return ctx
}

func (o observers) EndAttempt(ctx context.Context, attempt observe.Attempt, result observe.AttemptResult) {
	for _, x := range o {
		x.EndAttempt(ctx, attempt, result)
	}
}

func (o observers) StartTokenFetch(ctx context.Context) context.Context {
	for _, x := range o {
		ctx = x.StartTokenFetch(ctx)
	}
	return ctx
}

func (o observers) EndTokenFetch(ctx context.Context, err error) {
	for _, x := range o {
		x.EndTokenFetch(ctx, err)
	}
}

func (o observers) Retry(ctx context.Context, retry observe.Retry) {
	for _, x := range o {
		x.Retry(ctx, retry)
	}
}

func (o observers) RateLimitWait(ctx context.Context, wait observe.Wait) {
	for _, x := range o {
		x.RateLimitWait(ctx, wait)
	}
}

func (o observers) BudgetRefused(ctx context.Context, refusal observe.Refusal) {
	for _, x := range o {
		x.BudgetRefused(ctx, refusal)
	}
}

// ObserveState hands state to every StateObserver of o.
func (o observers) ObserveState(state *observe.State) {
	for _, x := range o {
		if so, ok := x.(observe.StateObserver); ok {
			so.ObserveState(state)
		}
	}
}

// orParent is an observer's returned context, or parent when the observer
// returned nil, so that a faulty observer cannot turn a call into a
// nil-context failure.
func orParent(ctx, parent context.Context) context.Context {
	if ctx == nil {
		return parent
	}
	return ctx
}
