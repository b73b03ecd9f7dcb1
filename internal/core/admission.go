package core

import (
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"
)

// Admission control (option.WithoutAdmissionControl turns it off): when
// nearly all of an operation's recent answers are failures, the client
// refuses a share of that operation's attempts locally, at once, without
// sending them, so a backend that is down is not sent the whole demand
// and callers are not held up by it. It follows Google SRE's client-side
// adaptive throttling (Envoy's admission-control filter is the same idea),
// judged per operation as Hystrix judges each command:
//
//   - Each operation of an area is judged by the last AdmissionWindow of
//     its own attempts: their requests (attempts its calls wanted to make,
//     refused ones included), accepts (attempts answered with anything but
//     a failure: a 2xx, any 4xx, a 429 or a rate-limited problem, which
//     the pacer owns) and failures (5xx but 501 and the
//     provider-not-configured problem, or no answer). A caller's own
//     cancellation counts as nothing. So one operation failing whole (a
//     poison input, a broken sub-service) is shed on its own while its
//     siblings in the area keep being sent.
//   - It refuses an attempt with probability
//     max(0, (requests − K·accepts) / (requests + 1)), K = 5: nothing
//     while at least a fifth of the answers are accepts (a backend failing
//     1 in 10, or 7 in 10, loses no attempt: it is failing, not down),
//     nearly all once accepts stop. SRE's K = 2 would start at half, and,
//     refused attempts counting as requests, drift to refusing nearly all
//     of an operation that still serves 30-40 %: stricter than the provider.
//   - The area is judged too, by all its operations' attempts together.
//     When that judgement refuses and no operation of the area has had an
//     answer accepted for admissionDownAfter, the area is down: its
//     operations are shed by the area's judgement as well as their own,
//     so one too rare to have failed on its own is shed with the rest;
//     but not one whose last answer was accepted, however long ago (a
//     rare sibling of an operation failing whole): it is judged on its
//     own. An operation that is served keeps the area up.
//   - A refused call matches what its operation's last failure matched
//     (the area's, for an operation that has none of its own): its status
//     (a 500 stays ErrInternal, a 503 ErrServiceUnavailable), no answer
//     (ErrTransport), or an attempt timeout (ErrTransport, Timeout() true);
//     and its Retry-After, when later than the next probe, is the refusal's.
//   - Nothing is refused while the window holds fewer than
//     AdmissionMinFailures failures: a quiet operation, a lone call's
//     retries, or failures older than the window.
//   - While it refuses, one call's first attempt per
//     AdmissionProbeInterval goes out anyway, per operation (a probe; its
//     retries do not), and an accepted answer while it refuses reopens the
//     operation (and the area, if it was down or refused with it): its
//     history is forgotten and every attempt is sent again. So a backend
//     that heals is seen within a probe interval and served at once.
//
// client.Execute calls are operations keyed by method and path shape
// (executeKey): at most AdmissionMaxOperations operations per area are
// judged on their own; beyond that, the others are judged together.
//
// A healthy area costs each attempt two atomic loads (and two clock reads
// once it has failed at some time): answers are counted, under the area's
// lock, only from a failure until AdmissionWindow after the last one.

// Admission control's settings.
const (
	AdmissionWindow        = 2 * time.Second        // how far back the answers count
	AdmissionK             = 5                      // accepts count K times against requests
	AdmissionMinFailures   = 10                     // fewer failures in the window refuse nothing
	AdmissionProbeInterval = 100 * time.Millisecond // one attempt this often goes out per operation while refusing
	// AdmissionMaxOperations bounds the operations of an area judged on
	// their own; client.Execute's arbitrary paths cannot grow it further.
	AdmissionMaxOperations = 64
	admissionDownAfter     = 250 * time.Millisecond // no answer accepted this long while refusing: the area is down
	admissionBuckets       = 20                     // the window's resolution: 100 ms
	admissionBucketWidth   = int64(AdmissionWindow) / admissionBuckets
)

// Admission is one area's admission control. It is safe for concurrent
// use; the zero value is not usable: use NewAdmission.
type Admission struct {
	now  func() time.Time // the clock; time.Now in NewAdmission
	rand func() float64   // a float in [0,1); rand.Float64 in NewAdmission
	// watchUntil is when the area's last failure leaves the window (unix
	// nanos): before it, answers are counted; after it, nothing is and
	// every attempt is admitted without taking the lock.
	watchUntil atomic.Int64

	mu         sync.Mutex
	area       judge             // all the area's attempts
	ops        map[string]*judge // each operation's, at most AdmissionMaxOperations
	overflow   judge             // the operations beyond AdmissionMaxOperations
	lastAccept int64             // unix nanos of the last accepted answer while watching (or of the first failure)
	firstProbe int64             // unix nanos before which a new operation sends no probe: 0 but in tests
}

// judge judges one operation, or the whole area, by its window.
type judge struct {
	buckets    [admissionBuckets]admissionBucket
	nextProbe  int64         // unix nanos from which a refused attempt goes out as a probe
	reason     failureReason // the last failure's; accepted while it has none
	status     int           // the last 5xx's status (reason failedUnavailable)
	notBefore  int64         // unix nanos the last failure's Retry-After asked to wait until, or 0
	watchUntil int64         // unix nanos when its last failure leaves the window, or 0
	servedLast bool          // its last answer counted was accepted
}

// admissionBucket counts one bucket of the window; slot is its start in
// bucket widths since the epoch, so a stale bucket is told apart.
type admissionBucket struct {
	slot                                 int64
	requests, accepts, failures, refused int
}

// failureReason is what an answer says of the operation's health.
type failureReason uint8

const (
	accepted          failureReason = iota // the backend answered (2xx, 4xx, 429...)
	failedUnavailable                      // a 5xx: the backend answered that it could not serve
	failedTransport                        // no answer: refused or reset connection
	failedTimeout                          // no answer within the attempt's timeout
	uncounted                              // nothing known: the caller gave up
)

// NewAdmission returns an area's admission control, admitting everything
// until the area fails.
func NewAdmission() *Admission { return &Admission{now: time.Now, rand: rand.Float64} }

// admitOp decides whether an attempt of the operation keyed op may be
// sent now: a call's first attempt, which may go out as a probe, or a
// retry, which never does (a probe's retry would hold its call in a
// backoff while the operation heals). A refusal says why and when the
// operation's next probe goes out.
func (a *Admission) admitOp(op string, first bool) (refusal admissionRefusal, refused bool) {
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
	j := a.judgeOf(op, ns, false)
	own := j != nil && j.watchUntil > ns
	p := 0.0
	if own {
		p = j.window(ns).refusalProbability()
	}
	down := a.down(ns)
	if down && (j == nil || !j.servedLast) {
		// An operation whose last answer was accepted is judged on its
		// own, however long ago that was (its own failures shed it
		// soon enough if the backend is down); any other is shed with
		// its area.
		p = max(p, a.area.window(ns).refusalProbability())
	}
	if p == 0 || a.rand() >= p {
		return admissionRefusal{}, false
	}
	if j == nil {
		j = a.judgeOf(op, ns, true)
	}
	if first && ns >= j.nextProbe {
		j.nextProbe = ns + int64(AdmissionProbeInterval)
		return admissionRefusal{}, false
	}
	for _, x := range [...]*judge{j, &a.area} {
		b := x.bucket(ns)
		b.requests++
		b.refused++
	}
	why := j
	if j.reason == accepted { // no failure of its own: the area's
		why = &a.area
	}
	wait := max(time.Duration(j.nextProbe-ns), time.Duration(why.notBefore-ns), time.Millisecond)
	return admissionRefusal{reason: why.reason, status: why.status, wait: wait, area: down}, true
}

// down reports whether the area is down: its judgement refuses, and no
// operation of it has had an answer accepted for admissionDownAfter. The
// caller holds a.mu.
func (a *Admission) down(ns int64) bool {
	return ns-a.lastAccept >= int64(admissionDownAfter) && a.area.window(ns).refusalProbability() > 0
}

// answeredOp counts the answer to an admitted attempt of the operation
// keyed op: r, and for a 5xx (failedUnavailable) its status and
// Retry-After, which refusals report until the next failure replaces them.
func (a *Admission) answeredOp(op string, r failureReason, status int, retryAfter time.Duration) {
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
		// The operation reopens if it refused, and the area if it was
		// down or refused with it: the backend answers again. Their
		// history is forgotten. An area whose other operations are
		// served keeps counting, so its shed ratio still shows an
		// operation shed on its own.
		down := a.down(ns)
		a.lastAccept = ns
		reopened := a.judgeOf(op, ns, true).accept(ns)
		if down || reopened && a.area.window(ns).refusalProbability() > 0 {
			a.area = judge{nextProbe: a.area.nextProbe}
			reopened = true
		} else {
			a.area.count(ns)
		}
		if reopened {
			a.rewatch(ns)
		}
		return
	}
	if a.watchUntil.Load() <= ns {
		a.lastAccept = ns // the area was healthy until this failure
	}
	a.judgeOf(op, ns, true).fail(ns, r, status, retryAfter)
	a.area.fail(ns, r, status, retryAfter)
	a.watchUntil.Store(ns + int64(AdmissionWindow))
}

// rewatch sets watchUntil to the latest watchUntil of the area's judges,
// or 0 when none watches any more: healthy answers are no longer counted,
// so the calls it now serves in full pay nothing for it, until the next
// failure. The caller holds a.mu.
func (a *Admission) rewatch(ns int64) {
	until := max(a.area.watchUntil, a.overflow.watchUntil)
	for _, j := range a.ops {
		until = max(until, j.watchUntil)
	}
	if until <= ns {
		until = 0
	}
	a.watchUntil.Store(until)
}

// judgeOf returns the judge of the operation keyed op, made if create is
// set (nil otherwise, when it has none). Beyond AdmissionMaxOperations
// operations, those idle for a window are forgotten; if none is, a new
// operation shares the overflow judge. The caller holds a.mu.
func (a *Admission) judgeOf(op string, ns int64, create bool) *judge {
	if j, ok := a.ops[op]; ok {
		return j
	}
	if !create {
		if len(a.ops) >= AdmissionMaxOperations {
			return &a.overflow
		}
		return nil
	}
	if a.ops == nil {
		a.ops = make(map[string]*judge)
	}
	if len(a.ops) >= AdmissionMaxOperations {
		for k, j := range a.ops {
			if j.watchUntil <= ns && j.window(ns).requests == 0 {
				delete(a.ops, k)
			}
		}
		if len(a.ops) >= AdmissionMaxOperations {
			return &a.overflow
		}
	}
	j := &judge{nextProbe: a.firstProbe}
	a.ops[op] = j
	return j
}

// ShedRatio returns the share of the area's attempts refused over the
// window, from 0 to 1: 0 while the area is healthy or quiet.
func (a *Admission) ShedRatio() float64 {
	until := a.watchUntil.Load()
	if until == 0 || a.now().UnixNano() >= until {
		return 0
	}
	a.mu.Lock()
	w := a.area.window(a.now().UnixNano())
	a.mu.Unlock()
	return w.refusedShare()
}

// accept counts an accepted answer, or, if the judge refused, reopens it:
// it forgets its history, and reports so.
func (j *judge) accept(ns int64) (reopened bool) {
	if j.window(ns).refusalProbability() > 0 {
		*j = judge{nextProbe: j.nextProbe, servedLast: true}
		return true
	}
	j.count(ns)
	return false
}

// count counts an accepted answer.
func (j *judge) count(ns int64) {
	b := j.bucket(ns)
	b.requests++
	b.accepts++
	j.servedLast = true
}

// fail counts a failure, which refusals report until the next one.
func (j *judge) fail(ns int64, r failureReason, status int, retryAfter time.Duration) {
	b := j.bucket(ns)
	b.requests++
	b.failures++
	j.reason, j.status, j.notBefore, j.servedLast = r, status, 0, false
	if retryAfter > 0 {
		j.notBefore = ns + int64(retryAfter)
	}
	j.watchUntil = ns + int64(AdmissionWindow)
}

// bucket returns the bucket of time ns, emptied if it held an older one.
func (j *judge) bucket(ns int64) *admissionBucket {
	slot := ns / admissionBucketWidth
	b := &j.buckets[slot%admissionBuckets]
	if b.slot != slot {
		*b = admissionBucket{slot: slot}
	}
	return b
}

// window sums the buckets of the window ending at ns.
func (j *judge) window(ns int64) admissionBucket {
	slot := ns / admissionBucketWidth
	var w admissionBucket
	for _, b := range j.buckets {
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

// refusedShare is the share of the window's requests that were refused.
func (w admissionBucket) refusedShare() float64 {
	if w.requests == 0 {
		return 0
	}
	return float64(w.refused) / float64(w.requests)
}
