package core

import (
	"cmp"
	"net/http"
	"time"

	memberplatform "github.com/memberplatform/memberplatform-go"
	apierrors "github.com/memberplatform/memberplatform-go/errors"
	"github.com/memberplatform/memberplatform-go/internal/httpx"
	"github.com/memberplatform/memberplatform-go/observe"
)

// This file connects a call to its area's admission control (admission.go).

// admissionRefusal is why an attempt was refused (the last failure's kind
// and, for a 5xx, status), how long to wait (until the operation's next
// probe, or the last 5xx's Retry-After if later) and whether the whole
// area was judged down.
type admissionRefusal struct {
	reason failureReason
	status int
	wait   time.Duration
	area   bool
}

// answerHealth classifies an attempt's answer for admission control: a 5xx
// says the backend failed, but 501 and the provider-not-configured problem
// (answers of a working backend) and the rate-limited problem (the
// pacer's); no answer is a failure unless the call's context ended.
func (state *callState) answerHealth(apiErr *apierrors.Error, err error) failureReason {
	switch {
	case err != nil && state.ctx.Err() != nil:
		return uncounted
	case err != nil && httpx.IsTimeout(err):
		return failedTimeout
	case err != nil:
		return failedTransport
	case apiErr == nil || apiErr.StatusCode < http.StatusInternalServerError || apiErr.StatusCode == http.StatusNotImplemented ||
		rateLimited(apiErr) || apiErr.Kind() == apierrors.ErrProviderNotConfigured:
		return accepted
	}
	return failedUnavailable
}

// observeAdmission tells the area's admission control how an attempt went.
func (state *callState) observeAdmission(apiErr *apierrors.Error, err error) {
	if a := state.scope.Admission; a != nil {
		health := state.answerHealth(apiErr, err)
		if health == failedUnavailable {
			a.answeredOp(state.admissionKey(), health, apiErr.StatusCode, apiErr.RetryAfter)
			return
		}
		a.answeredOp(state.admissionKey(), health, 0, 0)
	}
}

// admissionState is what a send keeps of admission control: its
// operation's key, once known, and the refusal of its retry, if any.
type admissionState struct {
	key     string
	keyed   bool
	refusal admissionRefusal
}

// admissionKey is the key admission control judges the call's operation
// by: its name, or for client.Execute its method and path shape.
func (state *callState) admissionKey() string {
	if !state.keyed {
		state.key, state.keyed = operationKey(state.op), true
	}
	return state.key
}

// admitFirst asks the area's admission control for the send's first
// attempt; a refusal is the call's error, typed as the operation's failures.
func (state *callState) admitFirst() error {
	a := state.scope.Admission
	if a == nil || a.watchUntil.Load() == 0 { // a healthy area: no key needed
		return nil
	}
	r, refused := a.admitOp(state.admissionKey(), true)
	if !refused {
		return nil
	}
	state.observeShed(r)
	cause := state.shedCause(r, nil)
	if r.reason == failedTransport || r.reason == failedTimeout {
		return &apierrors.TransportError{Operation: state.op.Name, Method: state.op.Method, Path: state.req.path, Attempts: state.prior, Err: cause}
	}
	return &apierrors.Error{Operation: state.op.Name, Method: state.op.Method, Path: state.req.path,
		StatusCode: cmp.Or(r.status, http.StatusServiceUnavailable), Attempts: state.prior, Err: cause}
}

// admitRetry asks the area's admission control for a retry the policy
// decided; refused, the call ends with the attempt's error.
func (state *callState) admitRetry() bool {
	a := state.scope.Admission
	if a == nil || a.watchUntil.Load() == 0 {
		return true
	}
	r, refused := a.admitOp(state.admissionKey(), false)
	state.refusal = r
	return !refused
}

// shedCause is the cause of a call ended by a refusal, wrapping the last
// attempt's transport failure, if any.
func (state *callState) shedCause(r admissionRefusal, cause error) *loadShedError {
	return &loadShedError{Area: state.op.area(), Reason: r.errorType(), Wait: r.wait, Retry: state.attempts > 0, WholeArea: r.area, Err: cause}
}

// observeShed tells a ShedObserver of a refused attempt.
func (state *callState) observeShed(r admissionRefusal) {
	if obs, ok := state.s.Observer.(observe.ShedObserver); ok {
		scope := observe.ShedOperation
		if r.area {
			scope = observe.ShedArea
		}
		obs.Shed(state.ctx, observe.Shed{Area: state.op.area(), Reason: r.errorType(), Operation: state.op.Name, Scope: scope})
	}
}

// errorType is the observe.ErrorType value of the failure r stands for:
// transport, timeout, or the last 5xx's (service_unavailable, internal,
// 5xx).
func (r admissionRefusal) errorType() string {
	switch r.reason {
	case failedTransport:
		return observe.ErrorTransport
	case failedTimeout:
		return observe.ErrorTimeout
	}
	return observe.ErrorType(&apierrors.Error{StatusCode: cmp.Or(r.status, http.StatusServiceUnavailable)})
}

// loadShedError is the cause of a call whose attempt admission control
// refused: it matches errors.ErrLoadShed, errors.RetryAfterOf reads when
// the operation's next probe goes out, and Timeout reports true when the
// failures it stands for were attempt timeouts.
type loadShedError struct {
	Area   memberplatform.Area
	Reason string        // the ErrorType of the operation's last failure: transport, timeout, service_unavailable, internal...
	Wait   time.Duration // until the operation's next probe
	Retry  bool          // a retry was refused, not the call's first attempt
	// WholeArea: the area was shed whole (every operation failing), not
	// the operation on its own.
	WholeArea bool
	Err       error // the last attempt's transport failure, if any
}

func (e *loadShedError) Error() string {
	what := "5xx"
	switch e.Reason {
	case observe.ErrorTransport:
		what = "without an answer"
	case observe.ErrorTimeout:
		what = "timed out"
	}
	s := "refused locally by admission control"
	if e.Retry {
		s = "not retried: admission control refused the retry"
	}
	if e.WholeArea {
		s += ": nearly all recent attempts of every operation in area " + string(e.Area) + " failed ("
	} else {
		s += ": nearly all recent attempts of the operation in area " + string(e.Area) + " failed ("
	}
	s += what + "); retry after " + e.Wait.Round(time.Millisecond).String()
	if e.Err != nil {
		return e.Err.Error() + " (" + s + ")"
	}
	return s
}

// Is matches errors.ErrLoadShed.
func (e *loadShedError) Is(target error) bool { return target == apierrors.ErrLoadShed }

// Timeout reports whether the failures the refusal stands for were
// attempt timeouts, as net.Error's Timeout does for the attempts.
func (e *loadShedError) Timeout() bool { return e.Reason == observe.ErrorTimeout }

// RetryAfter is the wait until the operation's next probe.
func (e *loadShedError) RetryAfter() time.Duration { return e.Wait }

// Unwrap returns the last attempt's failure, if any.
func (e *loadShedError) Unwrap() error { return e.Err }
