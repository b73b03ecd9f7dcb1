package core

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	apierrors "github.com/memberplatform/memberplatform-go/errors"
	"github.com/memberplatform/memberplatform-go/internal/pacer"
	"github.com/memberplatform/memberplatform-go/observe"
)

// Scope is one area's load control; a nil field is switched off. Every
// call of the area shares it, retries included; the token fetch a call
// triggers is a call of the token area.
type Scope struct {
	Budget  *RetryBudget // spent by retries of failures (retry.go)
	Pacer   *pacer.Pacer // the adaptive rate limit
	Limiter RateLimiter  // option.WithRateLimiter's, waited on after the pacer
	// Admission refuses attempts locally while nearly all of the area's
	// recent answers fail (admission.go).
	Admission *Admission
	// Resources keeps from the pacer the throttles that belong to one
	// resource of the area (resources.go); nil gives the pacer every one.
	Resources *ResourceThrottles
}

// RateLimiter is option.RateLimiter (its contract is documented there).
type RateLimiter interface {
	Wait(ctx context.Context) error
}

// paceState is what a send keeps of its pacing.
type paceState struct {
	epoch uint64 // the area pacer's, when the attempt was let through
	own   bool   // the last throttle was its resource's own (resources.go)
	went  Sent   // when the attempt went, for its resource's admissions (resourcehold.go)
}

// waitTurn waits on the area's adaptive pacer (never longer than
// MaxRetryAfter), then its limiter. It runs before signing, so no wait
// stales a signature.
func (state *callState) waitTurn(ctx context.Context) error {
	sc := state.scope
	// The observer hears of a wait the attempt may have made: on the
	// limiter, on an engaged pacer, or held for its resource's next
	// admission, which an area whose pacer is dormant has too (a hot
	// user's throttles are kept from the pacer: resources.go).
	waits := sc.Limiter != nil || sc.Pacer != nil && sc.Pacer.Engaged()
	if state.s.Observer != nil {
		defer func(start time.Time) {
			if waits {
				state.s.Observer.RateLimitWait(state.ctx, observe.Wait{Area: state.op.area(), Duration: time.Since(start)})
			}
		}(time.Now())
	}
	if sc.Pacer != nil && sc.Resources != nil {
		if state.attempts == 0 {
			if ahead, refused := sc.Resources.Refuse(state.op.Method, state.req.path); refused {
				return rateLimitedWait(&resourceRefusal{ahead})
			}
		}
		held, err := state.holdForAdmission(ctx)
		waits = waits || held > 0
		if err != nil {
			return rateLimitedWait(err)
		}
	}
	if sc.Pacer != nil {
		epoch, err := sc.Pacer.Wait(ctx, state.s.Retry.MaxRetryAfter)
		if err != nil {
			return rateLimitedWait(err)
		}
		state.epoch = epoch
	}
	if sc.Limiter != nil {
		if err := sc.Limiter.Wait(ctx); err != nil {
			err = fmt.Errorf("waiting on the rate limiter: %w", err)
			if !limitRefused(err) {
				return err
			}
			return rateLimitedWait(err)
		}
	}
	return nil
}

// limitRefused reports whether a limiter's error is the rate limit's: its
// refusal to wait, or the context ending while it waited. It is not when
// the limiter says so: a misconfigured one's (errors.ErrInvalidInput), or
// an error whose chain has a RateLimited() bool method returning false,
// such as fleet's while its store cannot answer (option.RateLimiter).
func limitRefused(err error) bool {
	if errors.Is(err, apierrors.ErrInvalidInput) {
		return false
	}
	rl, ok := errors.AsType[interface {
		error
		RateLimited() bool
	}](err)
	return !ok || rl.RateLimited()
}

// rateLimitedWait marks the error of a wait for a rate limit, a refusal or
// the context ending during it, as the rate limit's: it matches
// errors.ErrRateLimited beside its cause (context.Canceled,
// context.DeadlineExceeded, a limiter's own refusal: see limitRefused).
func rateLimitedWait(err error) error {
	return markedError{cause: err, sentinel: apierrors.ErrRateLimited}
}

// observeRate tells the area's pacer how an attempt went; a 5xx or no
// answer says nothing about the rate, nor does a throttle that belongs to
// one resource of the area (resources.go).
func (state *callState) observeRate(apiErr *apierrors.Error, err error) {
	p := state.scope.Pacer
	if p == nil {
		return
	}
	throttled := err == nil && rateLimited(apiErr)
	state.own = false
	if r := state.scope.Resources; r != nil && r.Answered(state.op.Method, state.req.path, state.attempts == 1, state.went, outcomeOf(apiErr, err), retryAfterOf(apiErr)) {
		state.own = true
		return
	}
	switch {
	case err != nil:
	case apiErr == nil:
		p.Admitted(state.epoch)
	case throttled:
		p.Throttled(state.epoch, apiErr.RetryAfter)
	case apiErr.StatusCode < http.StatusInternalServerError:
		p.Admitted(state.epoch)
	}
}

// outcomeOf is what an attempt's answer says of its resource's rate.
func outcomeOf(apiErr *apierrors.Error, err error) Outcome {
	switch {
	case err != nil:
		return Unanswered
	case rateLimited(apiErr):
		return Throttled
	case apiErr == nil || apiErr.StatusCode < http.StatusInternalServerError:
		return Admitted
	}
	return Unanswered
}

// spaceRetry returns when the retry after a throttle of the resource's own
// goes, wait at the earliest (ResourceThrottles.SpaceRetry).
func (state *callState) spaceRetry(ctx context.Context, wait time.Duration) time.Duration {
	if !state.own {
		return wait
	}
	dl, _ := ctx.Deadline()
	return state.scope.Resources.SpaceRetry(state.op.Method, state.req.path, wait, dl)
}

// retryAfterOf is apiErr's Retry-After, 0 for none or no error response.
func retryAfterOf(apiErr *apierrors.Error) time.Duration {
	if apiErr == nil {
		return 0
	}
	return apiErr.RetryAfter
}

// resourceRefusal is the cause of a call refused before its first attempt
// because its resource's throttles are its own and its retries queued
// ahead take what it admits (ResourceThrottles.Refuse).
type resourceRefusal struct{ ahead time.Duration }

func (e *resourceRefusal) Error() string {
	return fmt.Sprintf("not sent: the provider throttles this resource (operation and path) on its own, and its calls' retries queued ahead reach %v from now", e.ahead.Round(time.Millisecond))
}

// RetryAfter returns how far the retries queued ahead reach: when to try again.
func (e *resourceRefusal) RetryAfter() time.Duration { return e.ahead }
