package core

import (
	"context"
	"fmt"
	"slices"
	"time"
)

// An attempt of a hot resource is held for the resource's next admission.
//
// A provider that limits a resource with a burst of 1 (a token bucket per
// user, per object) admits one attempt per interval, the first that comes
// after it. An attempt sent before the next admission is due is throttled
// and its call waits a Retry-After (a second) for its next try, while the
// admission due meanwhile is lost unless another attempt comes soon after
// it: a hot user with a few calls waiting, each tried once a second, got
// 1.0–1.6 of its 2 requests/s, each admission half a token late on average.
//
// So the tracker keeps, per resource, its last admitted answer and, for the
// last admissionIntervals admitted attempts after a throttle of it (the
// resource was asking for more), how long after the admitted answer before
// them they went: the provider admitted that soon after, so it will again
// (its spacing is at most that and a round trip). Offsets from the sending,
// not intervals between answers: a held attempt goes after the answer, a
// round trip after the admission, and the least interval between answers
// would grow by one at every admission. (A held attempt's sending is the
// admission it was held for, though the pacer or a limiter then makes it
// wait: counted from after those waits, each offset would include them, the
// next hold would add them again, and the holds would grow.) While the
// resource's throttles are its own, the first attempt made before the least
// offset has passed since its last admitted answer waits for it (Hold),
// unsent, and is the one admitted; the others go as they would, so a
// provider that admits sooner again is seen (their admissions give shorter
// offsets). A held attempt throttled with nothing admitted since it was
// held says the spacing is longer: the offsets are forgotten. A hold never
// reaches past the call's deadline, nor further than the resource's
// Retry-After (at least 1 s) or WithMaxRetryAfter from now, and one given
// up (its context ended) frees its admission for the next attempt; with
// fewer than 2 offsets known there is none. A provider with a larger burst
// admits attempts close together: its least offset is short, and so are the
// holds.

// admissionIntervals is how many offsets Hold's wait is the least of: how
// long after an admitted answer the resource's next admitted attempt went.
const admissionIntervals = 4

// Sent is when an attempt went, and whether it waited for its resource's
// next admission (Hold); zero when its resource was not tracked.
type Sent struct {
	At   time.Time
	Held bool
}

// admissions is what Hold keeps of one resource's admitted answers.
type admissions struct {
	admitAt   time.Time                         // its last admitted answer
	offsets   [admissionIntervals]time.Duration // how long after the admitted answer before them admitted attempts went, a ring
	n         int                               // offsets noted
	heldFor   time.Time                         // the admission an attempt is held for
	heldAfter time.Time                         // the admitted answer it was held after
}

// admitted notes an admitted answer of r at now to an attempt sent. The
// caller holds the tracker's lock.
func (r *resourceCounts) admitted(now time.Time, sent Sent) {
	if !r.admitAt.IsZero() && r.last.After(r.admitAt) && sent.At.After(r.admitAt) {
		r.offsets[r.n%admissionIntervals] = sent.At.Sub(r.admitAt)
		r.n++
	}
	r.admitAt = now
}

// Hold returns how long an attempt of method and path waits, unsent, for
// its resource's next admission, and when it goes (zero when the resource
// is not tracked): the first attempt made before the admission is due
// waits, while the resource's throttles are its own; any other goes at
// once, as does one whose admission is due after deadline (zero: none),
// further than the resource's Retry-After (at least 1 s) from now, or
// longer than maxWait away (WithMaxRetryAfter: 0 allows none; negative:
// no cap).
func (t *ResourceThrottles) Hold(method, path string, deadline time.Time, maxWait time.Duration) (time.Duration, Sent) {
	if !t.tracked.Load() {
		return 0, Sent{}
	}
	k := t.key(method, path)
	now := t.now()
	t.mu.Lock()
	defer t.mu.Unlock()
	r := t.resources[k]
	if r == nil {
		return 0, Sent{}
	}
	if r.n < 2 {
		return 0, Sent{At: now}
	}
	next := r.admitAt.Add(slices.Min(r.offsets[:min(r.n, admissionIntervals)]))
	hold := next.Sub(now)
	if hold <= 0 || next.Equal(r.heldFor) || hold > max(r.retryAfter, time.Second) || maxWait >= 0 && hold > maxWait ||
		!deadline.IsZero() && next.After(deadline) || !t.rejudge(r, now) {
		return 0, Sent{At: now}
	}
	r.heldFor, r.heldAfter = next, r.admitAt
	return hold, Sent{At: next, Held: true}
}

// holdForAdmission waits, before an attempt, for its resource's next
// admission (ResourceThrottles.Hold), or until ctx ends; it returns how
// long it waited.
func (state *callState) holdForAdmission(ctx context.Context) (time.Duration, error) {
	dl, _ := ctx.Deadline()
	hold, sent := state.scope.Resources.Hold(state.op.Method, state.req.path, dl, state.s.Retry.MaxRetryAfter)
	state.went = sent
	slept, err := sleepCtx(ctx, hold)
	if err != nil {
		// Not sent: another attempt may be held for that admission.
		state.scope.Resources.unhold(state.op.Method, state.req.path, sent.At)
		return slept, fmt.Errorf("waiting for the resource's next admission: %w", err)
	}
	return slept, nil
}

// unhold lets another attempt be held for the admission due at next: the
// one held for it was not sent.
func (t *ResourceThrottles) unhold(method, path string, next time.Time) {
	k := t.key(method, path)
	t.mu.Lock()
	defer t.mu.Unlock()
	if r := t.resources[k]; r != nil && r.heldFor.Equal(next) {
		r.heldFor = time.Time{}
	}
}
