package core

import (
	"net/http"
	"testing"
	"time"
)

// Attempts held for a hot resource's next admission (resourcehold.go), on
// a fake clock.

// admitHot records an admitted retry of the hot resource, after a
// throttle of it unless bare.
func admitHot(r *ResourceThrottles, clk interface{ Add(time.Duration) }, after time.Duration, bare bool) {
	if !bare {
		clk.Add(after / 5)
		r.Answered(http.MethodPut, "/users/hot", false, Throttled, time.Second)
		after -= after / 5
	}
	clk.Add(after)
	r.Answered(http.MethodPut, "/users/hot", false, Admitted, 0)
}

// A provider admitting the hot user every 500 ms: the first attempt made
// before the next admission is due waits for it, the others do not; none
// waits past its deadline, for an admission already due, before 2
// intervals are known, or for another resource.
func TestTheFirstAttemptBeforeAHotResourcesAdmissionWaitsForIt(t *testing.T) {
	r, clk := hotTracker(t)
	const hot = "/users/hot"
	admitHot(r, clk, 0, true)
	admitHot(r, clk, 500*time.Millisecond, false)
	clk.Add(100 * time.Millisecond)
	if hold := r.Hold(http.MethodPut, hot, time.Time{}); hold != 0 {
		t.Fatalf("held %v with one interval known, want 0", hold)
	}
	admitHot(r, clk, 400*time.Millisecond, false) // 500 ms after the last
	clk.Add(100 * time.Millisecond)
	if hold := r.Hold(http.MethodPut, hot, clk.Now().Add(300*time.Millisecond)); hold != 0 {
		t.Fatalf("held %v past the deadline, want 0", hold)
	}
	if hold := r.Hold(http.MethodPut, hot, time.Time{}); hold != 400*time.Millisecond {
		t.Fatalf("the first attempt 100 ms after an admission held %v, want 400ms", hold)
	}
	if hold := r.Hold(http.MethodPut, hot, time.Time{}); hold != 0 {
		t.Fatalf("a second attempt held %v for the same admission, want 0", hold)
	}
	if hold := r.Hold(http.MethodPut, "/users/u7", time.Time{}); hold != 0 {
		t.Fatalf("another user's attempt held %v, want 0", hold)
	}
	clk.Add(450 * time.Millisecond)
	if hold := r.Hold(http.MethodPut, hot, time.Time{}); hold != 0 {
		t.Fatalf("an attempt after the admission was due held %v, want 0", hold)
	}
	// Admitted twice, 50 ms apart, without a throttle between: the
	// resource asked for no more, the interval is not the provider's.
	admitHot(r, clk, 0, true)
	admitHot(r, clk, 50*time.Millisecond, true)
	clk.Add(10 * time.Millisecond)
	if hold := r.Hold(http.MethodPut, hot, time.Time{}); hold != 490*time.Millisecond {
		t.Fatalf("held %v, want 490ms: admissions with no throttle between say nothing of the spacing", hold)
	}
}

// The provider admits more often again: an attempt not held is admitted
// sooner than the spacing, and the holds shorten at once.
func TestAHotResourcesHoldsFollowAProviderAdmittingMore(t *testing.T) {
	r, clk := hotTracker(t)
	admitHot(r, clk, 0, true)
	for range admissionIntervals {
		admitHot(r, clk, 500*time.Millisecond, false)
	}
	admitHot(r, clk, 200*time.Millisecond, false)
	if hold := r.Hold(http.MethodPut, "/users/hot", time.Time{}); hold != 200*time.Millisecond {
		t.Fatalf("held %v, want 200ms, the interval the provider admitted last", hold)
	}
}

// A resource whose throttles are no longer its own (the area's limit
// throttles every user now) holds no attempt.
func TestAnAttemptIsHeldOnlyWhileTheThrottlesAreTheResources(t *testing.T) {
	r, clk := hotTracker(t)
	admitHot(r, clk, 0, true)
	admitHot(r, clk, 500*time.Millisecond, false)
	admitHot(r, clk, 500*time.Millisecond, false)
	for i := range 100 { // every other user throttled too
		clk.Add(time.Millisecond)
		answerCall(r, map[bool]string{true: "u1", false: "u2"}[i%2 == 0], true)
	}
	if hold := r.Hold(http.MethodPut, "/users/hot", time.Time{}); hold != 0 {
		t.Fatalf("held %v while the area is throttled, want 0", hold)
	}
}
