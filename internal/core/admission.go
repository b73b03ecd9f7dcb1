package core

import (
	"cmp"
	"math/rand/v2"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	memberplatform "github.com/memberplatform/memberplatform-go"
	apierrors "github.com/memberplatform/memberplatform-go/errors"
	"github.com/memberplatform/memberplatform-go/observe"
)

// Admission control (option.WithoutAdmissionControl turns it off): when
// nearly all of an area's recent answers are failures, the client refuses
// a share of the area's attempts locally, at once, without sending them,
// so a backend that is down is not sent the whole demand and callers are
// not held up by it. It follows Google SRE's client-side adaptive
// throttling (Envoy's admission-control filter is the same idea):
//
//   - It judges by the last AdmissionWindow of the area's attempts: their
//     requests (attempts the area's calls wanted to make, refused ones
//     included), accepts (attempts answered with anything but a failure:
//     a 2xx, any 4xx, a 429 or a rate-limited problem, which the pacer
//     owns) and failures (5xx but 501 and the provider-not-configured
//     problem, or no answer). A caller's own cancellation counts as
//     nothing.
//   - It refuses an attempt with probability
//     max(0, (requests − K·accepts) / (requests + 1)), K = 5: nothing
//     while at least a fifth of the answers are accepts (a backend failing
//     1 in 10, or 7 in 10, loses no attempt: it is failing, not down),
//     nearly all once accepts stop. SRE's K = 2 would start at half, and,
//     refused attempts counting as requests, drift to refusing nearly all
//     of an area that still serves 30-40 %: stricter than the provider.
//   - A refused call matches what the area's last failure matched: its
//     status (a 500 stays ErrInternal, a 503 ErrServiceUnavailable) or no
//     answer (ErrTransport), and its Retry-After, when later than the next
//     probe, is the refusal's.
//   - Nothing is refused while the window holds fewer than
//     AdmissionMinFailures failures: a quiet area, a lone call's retries,
//     or failures older than the window.
//   - While it refuses, one call's first attempt per
//     AdmissionProbeInterval goes out anyway (a probe; its retries do
//     not), and an accepted answer while it refuses reopens
//     the area: its history is forgotten and every attempt is sent again. So a backend
//     that heals is seen within a probe interval and served at once.
//
// A healthy area costs each attempt two atomic loads (and two clock reads
// once it has failed at some time): answers are counted, under a lock,
// only from a failure until AdmissionWindow after the last one.

// Admission control's settings.
const (
	AdmissionWindow        = 2 * time.Second        // how far back the answers count
	AdmissionK             = 5                      // accepts count K times against requests
	AdmissionMinFailures   = 10                     // fewer failures in the window refuse nothing
	AdmissionProbeInterval = 100 * time.Millisecond // one attempt this often goes out while refusing
	admissionBuckets       = 20                     // the window's resolution: 100 ms
	admissionBucketWidth   = int64(AdmissionWindow) / admissionBuckets
)

// Admission is one area's admission control. It is safe for concurrent
// use; the zero value is not usable: use NewAdmission.
type Admission struct {
	now  func() time.Time // the clock; time.Now in NewAdmission
	rand func() float64   // a float in [0,1); rand.Float64 in NewAdmission
	// watchUntil is when the last failure leaves the window (unix nanos):
	// before it, answers are counted; after it, nothing is and every
	// attempt is admitted without taking the lock.
	watchUntil atomic.Int64

	mu        sync.Mutex
	buckets   [admissionBuckets]admissionBucket
	nextProbe int64         // unix nanos from which a refused attempt goes out as a probe
	reason    failureReason // the last failure's
	status    int           // the last 5xx's status (reason failedUnavailable)
	notBefore int64         // unix nanos the last failure's Retry-After asked to wait until, or 0
}

// admissionBucket counts one bucket of the window; slot is its start in
// bucket widths since the epoch, so a stale bucket is told apart.
type admissionBucket struct {
	slot                                 int64
	requests, accepts, failures, refused int
}

// failureReason is what an answer says of the area's health.
type failureReason uint8

const (
	accepted          failureReason = iota // the backend answered (2xx, 4xx, 429...)
	failedUnavailable                      // a 5xx: the backend answered that it could not serve
	failedTransport                        // no answer: refused or reset connection, attempt timeout
	uncounted                              // nothing known: the caller gave up
)

// NewAdmission returns an area's admission control, admitting everything
// until the area fails.
func NewAdmission() *Admission { return &Admission{now: time.Now, rand: rand.Float64} }

// admit decides whether an attempt may be sent now: a call's first
// attempt, which may go out as a probe, or a retry, which never does (a
// probe's retry would hold its call in a backoff while the area heals).
// A refusal says why and when the next probe goes out.
func (a *Admission) admit(first bool) (refusal admissionRefusal, refused bool) {
	until := a.watchUntil.Load()
	if until == 0 { // never failed: no clock read
		return admissionRefusal{}, false
	}
	ns := a.now().UnixNano()
	if ns >= until {
		return admissionRefusal{}, false
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	p := a.window(ns).refusalProbability()
	if p == 0 || a.rand() >= p {
		return admissionRefusal{}, false
	}
	if first && ns >= a.nextProbe {
		a.nextProbe = ns + int64(AdmissionProbeInterval)
		return admissionRefusal{}, false
	}
	b := a.bucket(ns)
	b.requests++
	b.refused++
	wait := max(time.Duration(a.nextProbe-ns), time.Duration(a.notBefore-ns), time.Millisecond)
	return admissionRefusal{reason: a.reason, status: a.status, wait: wait}, true
}

// answered counts the answer to an admitted attempt, as answeredWith does
// a failure of no status (no answer) or an accept.
func (a *Admission) answered(r failureReason) { a.answeredWith(r, 0, 0) }

// answeredWith counts the answer to an admitted attempt: r, and for a 5xx
// (failedUnavailable) its status and Retry-After, which refusals report
// until the next failure replaces them.
func (a *Admission) answeredWith(r failureReason, status int, retryAfter time.Duration) {
	if r == uncounted || r == accepted && a.watchUntil.Load() == 0 {
		return
	}
	ns := a.now().UnixNano()
	if r == accepted && ns >= a.watchUntil.Load() {
		return // a healthy area: nothing to count
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if r == accepted {
		if a.window(ns).refusalProbability() > 0 {
			// It reopens: the backend answers again. Healthy answers are
			// no longer counted, so the calls it now serves in full pay
			// nothing for it, until the next failure.
			a.buckets = [admissionBuckets]admissionBucket{}
			a.status, a.notBefore = 0, 0
			a.watchUntil.Store(0)
			return
		}
		b := a.bucket(ns)
		b.requests++
		b.accepts++
		return
	}
	b := a.bucket(ns)
	b.requests++
	b.failures++
	a.reason, a.status, a.notBefore = r, status, 0
	if retryAfter > 0 {
		a.notBefore = ns + int64(retryAfter)
	}
	a.watchUntil.Store(ns + int64(AdmissionWindow))
}

// ShedRatio returns the share of the area's attempts refused over the
// window, from 0 to 1: 0 while the area is healthy or quiet.
func (a *Admission) ShedRatio() float64 {
	until := a.watchUntil.Load()
	if until == 0 || a.now().UnixNano() >= until {
		return 0
	}
	a.mu.Lock()
	w := a.window(a.now().UnixNano())
	a.mu.Unlock()
	if w.requests == 0 {
		return 0
	}
	return float64(w.refused) / float64(w.requests)
}

// bucket returns the bucket of time ns, emptied if it held an older one.
// The caller holds a.mu.
func (a *Admission) bucket(ns int64) *admissionBucket {
	slot := ns / admissionBucketWidth
	b := &a.buckets[slot%admissionBuckets]
	if b.slot != slot {
		*b = admissionBucket{slot: slot}
	}
	return b
}

// window sums the buckets of the window ending at ns. The caller holds a.mu.
func (a *Admission) window(ns int64) admissionBucket {
	slot := ns / admissionBucketWidth
	var w admissionBucket
	for _, b := range a.buckets {
		if b.slot > slot-admissionBuckets && b.slot <= slot {
			w.requests += b.requests
			w.accepts += b.accepts
			w.failures += b.failures
			w.refused += b.refused
		}
	}
	return w
}

// refusalProbability is the SRE formula over the window w, 0 below
// AdmissionMinFailures failures.
func (w admissionBucket) refusalProbability() float64 {
	if w.failures < AdmissionMinFailures {
		return 0
	}
	return max(0, float64(w.requests-AdmissionK*w.accepts)/float64(w.requests+1))
}

// admissionRefusal is why an attempt was refused (the last failure's kind
// and, for a 5xx, status) and how long to wait: until the next probe, or
// the last 5xx's Retry-After if later.
type admissionRefusal struct {
	reason failureReason
	status int
	wait   time.Duration
}

// answerHealth classifies an attempt's answer for admission control: a 5xx
// says the backend failed, but 501 and the provider-not-configured problem
// (answers of a working backend) and the rate-limited problem (the
// pacer's); no answer is a failure unless the call's context ended.
func (state *callState) answerHealth(apiErr *apierrors.Error, err error) failureReason {
	switch {
	case err != nil && state.ctx.Err() != nil:
		return uncounted
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
			a.answeredWith(health, apiErr.StatusCode, apiErr.RetryAfter)
			return
		}
		a.answered(health)
	}
}

// admissionState is what a send keeps of admission control: the refusal
// of its retry, if any.
type admissionState struct {
	refusal admissionRefusal
}

// admitFirst asks the area's admission control for the send's first
// attempt; a refusal is the call's error, typed as the area's failures.
func (state *callState) admitFirst() error {
	a := state.scope.Admission
	if a == nil {
		return nil
	}
	r, refused := a.admit(true)
	if !refused {
		return nil
	}
	state.observeShed(r)
	cause := state.shedCause(r, nil)
	if r.reason == failedTransport {
		return &apierrors.TransportError{Operation: state.op.Name, Method: state.op.Method, Path: state.req.path, Attempts: state.prior, Err: cause}
	}
	return &apierrors.Error{Operation: state.op.Name, Method: state.op.Method, Path: state.req.path,
		StatusCode: cmp.Or(r.status, http.StatusServiceUnavailable), Attempts: state.prior, Err: cause}
}

// admitRetry asks the area's admission control for a retry the policy
// decided; refused, the call ends with the attempt's error.
func (state *callState) admitRetry() bool {
	a := state.scope.Admission
	if a == nil {
		return true
	}
	r, refused := a.admit(false)
	state.refusal = r
	return !refused
}

// shedCause is the cause of a call ended by a refusal, wrapping the last
// attempt's transport failure, if any.
func (state *callState) shedCause(r admissionRefusal, cause error) *loadShedError {
	return &loadShedError{Area: state.op.area(), Reason: r.errorType(), Wait: r.wait, Retry: state.attempts > 0, Err: cause}
}

// observeShed tells a ShedObserver of a refused attempt.
func (state *callState) observeShed(r admissionRefusal) {
	if obs, ok := state.s.Observer.(observe.ShedObserver); ok {
		obs.Shed(state.ctx, observe.Shed{Area: state.op.area(), Reason: r.errorType()})
	}
}

// errorType is the observe.ErrorType value of the failure r stands for:
// transport, or the last 5xx's (service_unavailable, internal, 5xx).
func (r admissionRefusal) errorType() string {
	if r.reason == failedTransport {
		return observe.ErrorTransport
	}
	return observe.ErrorType(&apierrors.Error{StatusCode: cmp.Or(r.status, http.StatusServiceUnavailable)})
}

// loadShedError is the cause of a call whose attempt admission control
// refused: it matches errors.ErrLoadShed, and errors.RetryAfterOf reads
// when the area's next probe goes out.
type loadShedError struct {
	Area   memberplatform.Area
	Reason string        // the ErrorType of the area's last failure: transport, service_unavailable, internal...
	Wait   time.Duration // until the area's next probe
	Retry  bool          // a retry was refused, not the call's first attempt
	Err    error         // the last attempt's transport failure, if any
}

func (e *loadShedError) Error() string {
	what := "5xx"
	if e.Reason == observe.ErrorTransport {
		what = "without an answer"
	}
	s := "refused locally by admission control"
	if e.Retry {
		s = "not retried: admission control refused the retry"
	}
	s += ": nearly all recent attempts of area " + string(e.Area) + " failed (" + what +
		"); retry after " + e.Wait.Round(time.Millisecond).String()
	if e.Err != nil {
		return e.Err.Error() + " (" + s + ")"
	}
	return s
}

// Is matches errors.ErrLoadShed.
func (e *loadShedError) Is(target error) bool { return target == apierrors.ErrLoadShed }

// RetryAfter is the wait until the area's next probe.
func (e *loadShedError) RetryAfter() time.Duration { return e.Wait }

// Unwrap returns the last attempt's failure, if any.
func (e *loadShedError) Unwrap() error { return e.Err }
