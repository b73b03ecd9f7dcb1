package core

import (
	"context"
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
// So the tracker keeps, per resource, its last admitted answer and the
// last admissionIntervals intervals between its admitted answers with a
// throttle between them (the resource was asking for more: the interval
// is the provider's spacing, or more). While the resource's throttles are
// its own, the first attempt made before its next admission is due (the
// last admitted answer and the least of those intervals) waits for it
// (Hold), unsent, and is the one admitted; the others go as they would, so
// a provider that admits more often again is seen (their admissions
// shorten the intervals). A hold never reaches past the call's deadline,
// nor further than the resource's Retry-After (at least 1 s) from now;
// with fewer than 2 intervals known there is none. A provider with a
// larger burst admits attempts close together: its least interval is
// short, and so are the holds.

// admissionIntervals is how many intervals between a resource's admitted
// answers Hold's spacing is the least of.
const admissionIntervals = 4

// admissions is what Hold keeps of one resource's admitted answers.
type admissions struct {
	admitAt   time.Time                         // its last admitted answer
	intervals [admissionIntervals]time.Duration // the last intervals between admitted answers with a throttle between, a ring
	n         int                               // intervals noted
	heldFor   time.Time                         // the admission an attempt is held for
}

// admitted notes an admitted answer of r at now. The caller holds the
// tracker's lock.
func (r *resourceCounts) admitted(now time.Time) {
	if !r.admitAt.IsZero() && r.last.After(r.admitAt) {
		r.intervals[r.n%admissionIntervals] = now.Sub(r.admitAt)
		r.n++
	}
	r.admitAt = now
}

// Hold returns how long an attempt of method and path waits, unsent, for
// its resource's next admission: the first attempt made before it is due,
// while the resource's throttles are its own; 0 for any other, and when
// the admission is due after deadline (zero: none) or further than the
// resource's Retry-After (at least 1 s) from now.
func (t *ResourceThrottles) Hold(method, path string, deadline time.Time) time.Duration {
	if !t.tracked.Load() {
		return 0
	}
	k := t.key(method, path)
	now := t.now()
	t.mu.Lock()
	defer t.mu.Unlock()
	r := t.resources[k]
	if r == nil || r.n < 2 {
		return 0
	}
	next := r.admitAt.Add(slices.Min(r.intervals[:min(r.n, admissionIntervals)]))
	hold := next.Sub(now)
	if hold <= 0 || next.Equal(r.heldFor) || hold > max(r.retryAfter, time.Second) ||
		!deadline.IsZero() && next.After(deadline) || !t.rejudge(r, now) {
		return 0
	}
	r.heldFor = next
	return hold
}

// holdForAdmission waits, before an attempt, for its resource's next
// admission (ResourceThrottles.Hold), or until ctx ends.
func (state *callState) holdForAdmission(ctx context.Context) error {
	dl, _ := ctx.Deadline()
	hold := state.scope.Resources.Hold(state.op.Method, state.req.path, dl)
	if hold <= 0 {
		return nil
	}
	timer := time.NewTimer(hold)
	defer timer.Stop()
	select {
	case <-timer.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
