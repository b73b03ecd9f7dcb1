package core

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"time"

	memberplatform "github.com/memberplatform/memberplatform-go"
	apierrors "github.com/memberplatform/memberplatform-go/errors"
	"github.com/memberplatform/memberplatform-go/observe"
)

// This file tells the client's Observer (option.WithObserver) what the
// stages do. They call it only when an observer is set, so an unobserved
// call pays a nil check and no allocation.

// AddObserver adds o to the settings' observers (option.WithObserver). A
// Combiner may merge with one already set; otherwise all are called in order.
func (s *Settings) AddObserver(o observe.Observer) error {
	if NilInside(o) {
		return fmt.Errorf("memberplatform: option.WithObserver: a nil %T", o)
	}
	if v, ok := o.(observe.Validator); ok {
		if err := v.Validate(); err != nil {
			return err
		}
	}
	chain, _ := s.Observer.(observers)
	if chain == nil && s.Observer != nil {
		chain = observers{s.Observer}
	}
	chain = append(observers{}, chain...) // the settings being copied may share it
	if c, ok := o.(observe.Combiner); ok {
		if len(chain) == 0 {
			o, _ = c.Combine(nil)
		}
		for i, prev := range chain {
			var merged bool
			if o, merged = c.Combine(prev); merged {
				chain[i], o = o, nil
				break
			}
		}
	}
	if o != nil {
		chain = append(chain, o)
	}
	switch len(chain) {
	case 0:
	case 1:
		s.Observer = chain[0]
	default:
		s.Observer = chain
	}
	return nil
}

// callInfo describes op to an observer.
func callInfo(op *Operation) observe.Call {
	info := observe.Call{Operation: op.Name, Method: op.Method, URLTemplate: op.Path, Token: op.Credential, Area: op.area()}
	if op.Name == executeOperation {
		info.URLTemplate = "" // the caller's own path, which may hold IDs
	}
	return info
}

// executeOperation is client.Execute's operation name: its Path is no template.
const executeOperation = "client.Execute"

// attemptState is an observed attempt. It travels in the request's context,
// not in the callState, so an unobserved call's state is no larger.
type attemptState struct {
	ctx     context.Context // the observer's context for the attempt
	attempt observe.Attempt
	open    bool
}

type attemptStateKey struct{}

// endAttempt tells the observer how the attempt of ctx ended, once.
func (state *callState) endAttempt(ctx context.Context, result observe.AttemptResult) {
	if a, _ := ctx.Value(attemptStateKey{}).(*attemptState); a != nil && a.open {
		a.open = false
		state.s.Observer.EndAttempt(a.ctx, a.attempt, result)
	}
}

// startAttempt tells the observer an attempt starts, after the token and
// before the signature, so propagation headers it adds are signed. Its
// context becomes req's, in place: req is not yet handed to net/http.
func (state *callState) startAttempt(req *http.Request) {
	obs := state.s.Observer
	a := &attemptState{attempt: observe.Attempt{Call: callInfo(state.op), Request: req, Resend: state.prior + state.attempts}, open: true}
	a.ctx = obs.StartAttempt(state.ctx, a.attempt)
	if a.ctx == nil || stateOf(a.ctx) != state {
		// Not derived from the one given: the send's state and deadline would be lost.
		a.ctx = state.ctx
	}
	a.attempt.Request = nil // not kept past StartAttempt: the observer must not read it later
	*req = *req.WithContext(context.WithValue(a.ctx, attemptStateKey{}, a))
}

// observeAttempt tells the observer how an attempt ended (as checkRetry has
// it) and what was decided: a retry after wait, or the budget's refusal.
func (state *callState) observeAttempt(ctx context.Context, resp *http.Response, apiErr *apierrors.Error, err error, d Decision, wait time.Duration) {
	obs := state.s.Observer
	outcome := err
	if err == nil && apiErr != nil { // not a typed nil
		outcome = apiErr
	}
	result := observe.AttemptResult{Err: outcome}
	if resp != nil {
		result.StatusCode = resp.StatusCode
	}
	state.endAttempt(ctx, result)
	switch d {
	case Retry:
		obs.Retry(state.ctx, observe.Retry{Attempt: state.prior + state.attempts, Reason: observe.ErrorType(outcome), Delay: wait})
	case StopBudget:
		obs.BudgetRefused(state.ctx, observe.Refusal{Attempt: state.prior + state.attempts, Reason: observe.ErrorType(outcome), Area: state.op.area()})
	case StopShed:
		state.observeShed(state.refusal)
	}
}

// observeClient hands the observer of a new client its token cache and, for
// a StateObserver, the readers of its budget and pacer (kept alive by it).
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
	scopes := &c.settings.Scopes // of the client, which the State keeps alive
	known := func(a memberplatform.Area) (*Scope, bool) {
		i := AreaIndex(a)
		return &scopes[i], areas[i] == a
	}
	budget := func(a memberplatform.Area) (int, bool) {
		if sc, ok := known(a); ok && sc.Budget != nil {
			return sc.Budget.Tokens(), true
		}
		return 0, false
	}
	rate := func(a memberplatform.Area) (float64, bool) {
		if sc, ok := known(a); ok && sc.Pacer != nil {
			rate, _ := sc.Pacer.Rate()
			return rate, true
		}
		return 0, false
	}
	shed := func(a memberplatform.Area) (float64, bool) {
		if sc, ok := known(a); ok && sc.Admission != nil {
			return sc.Admission.ShedRatio(), true
		}
		return 0, false
	}
	throttledResources := func(a memberplatform.Area) (int, bool) {
		if sc, ok := known(a); ok && sc.Pacer != nil && sc.Resources != nil {
			return sc.Resources.Own(), true
		}
		return 0, false
	}
	unfollowed := func(a memberplatform.Area) (float64, bool) {
		if sc, ok := known(a); ok && sc.Pacer != nil {
			share, _ := sc.Pacer.Unfollowed()
			return share, true
		}
		return 0, false
	}
	c.observed = &observe.State{
		RetryBudget:   func() (int, bool) { return budget(memberplatform.AreaAccessMgmt) },
		PacerRate:     func() (float64, bool) { return rate(memberplatform.AreaAccessMgmt) },
		Areas:         slices.Clone(areas[:]), // a copy: an observer must not reach the pipeline's
		RetryBudgetOf: budget,
		PacerRateOf:   rate,
		ShedRatioOf:   shed,

		ThrottledResourcesOf: throttledResources,
		UnfollowedShareOf:    unfollowed,
	}
	so.ObserveState(c.observed)
}

// observers calls several observers, in order; each Start method gets the
// context the one before returned.
type observers []observe.Observer

func (o observers) each(f func(observe.Observer)) {
	for _, x := range o {
		f(x)
	}
}

func (o observers) StartCall(ctx context.Context, call observe.Call) context.Context {
	o.each(func(x observe.Observer) { ctx = x.StartCall(ctx, call) })
	return ctx
}

func (o observers) EndCall(ctx context.Context, call observe.Call, err error) {
	o.each(func(x observe.Observer) { x.EndCall(ctx, call, err) })
}

func (o observers) StartAttempt(ctx context.Context, attempt observe.Attempt) context.Context {
	o.each(func(x observe.Observer) { ctx = x.StartAttempt(ctx, attempt) })
	return ctx
}

func (o observers) EndAttempt(ctx context.Context, attempt observe.Attempt, result observe.AttemptResult) {
	o.each(func(x observe.Observer) { x.EndAttempt(ctx, attempt, result) })
}

func (o observers) StartTokenFetch(ctx context.Context) context.Context {
	o.each(func(x observe.Observer) { ctx = x.StartTokenFetch(ctx) })
	return ctx
}

func (o observers) EndTokenFetch(ctx context.Context, err error) {
	o.each(func(x observe.Observer) { x.EndTokenFetch(ctx, err) })
}

func (o observers) Retry(ctx context.Context, retry observe.Retry) {
	o.each(func(x observe.Observer) { x.Retry(ctx, retry) })
}

func (o observers) RateLimitWait(ctx context.Context, wait observe.Wait) {
	o.each(func(x observe.Observer) { x.RateLimitWait(ctx, wait) })
}

func (o observers) BudgetRefused(ctx context.Context, refusal observe.Refusal) {
	o.each(func(x observe.Observer) { x.BudgetRefused(ctx, refusal) })
}

// Shed tells every ShedObserver of o of a shed attempt.
func (o observers) Shed(ctx context.Context, shed observe.Shed) {
	o.each(func(x observe.Observer) {
		if so, ok := x.(observe.ShedObserver); ok {
			so.Shed(ctx, shed)
		}
	})
}

// ObserveState hands state to every StateObserver of o.
func (o observers) ObserveState(state *observe.State) {
	o.each(func(x observe.Observer) {
		if so, ok := x.(observe.StateObserver); ok {
			so.ObserveState(state)
		}
	})
}

// orParent is an observer's returned context, or parent when it returned nil.
func orParent(ctx, parent context.Context) context.Context {
	if ctx == nil {
		return parent
	}
	return ctx
}
