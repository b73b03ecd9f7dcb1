package core

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/memberplatform/memberplatform-go/internal/fakeclock"
	"github.com/memberplatform/memberplatform-go/internal/pacer"
	"github.com/memberplatform/memberplatform-go/observe"
)

// Attempts held for a hot resource's next admission (resourcehold.go), on
// a fake clock.

const hotPath = "/users/hot"

// admitHot records, after a throttle of the hot resource unless bare, an
// admitted answer of it, after, to an attempt sent 5 ms before.
func admitHot(r *ResourceThrottles, clk interface {
	Add(time.Duration)
	Now() time.Time
}, after time.Duration, bare bool) {
	if !bare {
		clk.Add(after / 5)
		r.Answered(http.MethodPut, hotPath, false, Sent{At: clk.Now()}, Throttled, time.Second)
		after -= after / 5
	}
	clk.Add(after)
	r.Answered(http.MethodPut, hotPath, false, Sent{At: clk.Now().Add(-5 * time.Millisecond)}, Admitted, 0)
}

// A provider admitting the hot user every 500 ms, each admitted attempt
// sent 495 ms after the answer before it: the first attempt made before
// the next is due waits for it, the others do not; none waits past its
// deadline, for an admission already due, before 2 offsets are known, or
// for another resource.
func TestTheFirstAttemptBeforeAHotResourcesAdmissionWaitsForIt(t *testing.T) {
	r, clk := hotTracker(t)
	admitHot(r, clk, 0, true)
	admitHot(r, clk, 500*time.Millisecond, false)
	clk.Add(100 * time.Millisecond)
	if hold, _ := r.Hold(http.MethodPut, hotPath, time.Time{}, -1); hold != 0 {
		t.Fatalf("held %v with one offset known, want 0", hold)
	}
	admitHot(r, clk, 400*time.Millisecond, false) // 500 ms after the last
	clk.Add(100 * time.Millisecond)
	if hold, _ := r.Hold(http.MethodPut, hotPath, clk.Now().Add(300*time.Millisecond), -1); hold != 0 {
		t.Fatalf("held %v past the deadline, want 0", hold)
	}
	if hold, _ := r.Hold(http.MethodPut, hotPath, time.Time{}, 300*time.Millisecond); hold != 0 {
		t.Fatalf("held %v past WithMaxRetryAfter's 300ms, want 0", hold)
	}
	if hold, _ := r.Hold(http.MethodPut, hotPath, time.Time{}, 0); hold != 0 {
		t.Fatalf("held %v with WithMaxRetryAfter(0), which allows no wait, want 0", hold)
	}
	hold, sent := r.Hold(http.MethodPut, hotPath, time.Time{}, -1)
	if hold != 395*time.Millisecond || !sent.Held || !sent.At.Equal(clk.Now().Add(hold)) {
		t.Fatalf("the first attempt 100 ms after an admission: Hold = %v, %+v; want 395ms, held, going then", hold, sent)
	}
	if hold, sent := r.Hold(http.MethodPut, hotPath, time.Time{}, -1); hold != 0 || sent.Held || !sent.At.Equal(clk.Now()) {
		t.Fatalf("a second attempt: Hold = %v, %+v; want 0, going now", hold, sent)
	}
	r.unhold(http.MethodPut, hotPath, sent.At) // the held one's context ended: never sent
	if again, _ := r.Hold(http.MethodPut, hotPath, time.Time{}, -1); again != hold {
		t.Fatalf("an attempt after the held one gave up: held %v, want %v: the admission is free again", again, hold)
	}
	if hold, sent := r.Hold(http.MethodPut, "/users/u7", time.Time{}, -1); hold != 0 || !sent.At.IsZero() {
		t.Fatalf("another user's attempt: Hold = %v, %+v; want 0, untracked", hold, sent)
	}
	clk.Add(450 * time.Millisecond)
	if hold, _ := r.Hold(http.MethodPut, hotPath, time.Time{}, -1); hold != 0 {
		t.Fatalf("an attempt after the admission was due held %v, want 0", hold)
	}
	// Admitted twice, 50 ms apart, without a throttle between: the
	// resource asked for no more, the offset is not the provider's.
	admitHot(r, clk, 0, true)
	admitHot(r, clk, 50*time.Millisecond, true)
	clk.Add(10 * time.Millisecond)
	if hold, _ := r.Hold(http.MethodPut, hotPath, time.Time{}, -1); hold != 485*time.Millisecond {
		t.Fatalf("held %v, want 485ms: admissions with no throttle between say nothing of the spacing", hold)
	}
}

// The provider admits sooner again: an attempt not held is admitted
// sooner after the last admission, and the holds shorten at once.
func TestAHotResourcesHoldsFollowAProviderAdmittingMore(t *testing.T) {
	r, clk := hotTracker(t)
	admitHot(r, clk, 0, true)
	for range admissionIntervals {
		admitHot(r, clk, 500*time.Millisecond, false)
	}
	admitHot(r, clk, 200*time.Millisecond, false)
	if hold, _ := r.Hold(http.MethodPut, hotPath, time.Time{}, -1); hold != 195*time.Millisecond {
		t.Fatalf("held %v, want 195ms, the offset the provider admitted last", hold)
	}
}

// A held attempt throttled with nothing admitted since it went: the
// provider's spacing is longer, the offsets are forgotten and no attempt
// is held until 2 are known again. Throttled after another attempt was
// admitted (it took the admission), the offsets stay.
func TestAHeldAttemptThrottledForgetsTheOffsets(t *testing.T) {
	for _, admittedSince := range []bool{false, true} {
		r, clk := hotTracker(t)
		admitHot(r, clk, 0, true)
		admitHot(r, clk, 500*time.Millisecond, false)
		admitHot(r, clk, 500*time.Millisecond, false)
		clk.Add(100 * time.Millisecond)
		hold, sent := r.Hold(http.MethodPut, hotPath, time.Time{}, -1)
		if hold == 0 {
			t.Fatal("not held")
		}
		clk.Add(hold - time.Millisecond)
		if admittedSince {
			r.Answered(http.MethodPut, hotPath, false, Sent{At: clk.Now().Add(-5 * time.Millisecond)}, Admitted, 0)
		}
		clk.Add(6 * time.Millisecond)
		r.Answered(http.MethodPut, hotPath, false, sent, Throttled, time.Second)
		clk.Add(50 * time.Millisecond)
		if hold, _ := r.Hold(http.MethodPut, hotPath, time.Time{}, -1); (hold > 0) != admittedSince {
			t.Fatalf("admitted since %v: the next attempt held %v", admittedSince, hold)
		}
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
	if hold, _ := r.Hold(http.MethodPut, hotPath, time.Time{}, -1); hold != 0 {
		t.Fatalf("held %v while the area is throttled, want 0", hold)
	}
}

// holdingState returns a hot resource's tracker, admitted after a throttle
// twice, every apart, and a call of it (its area's pacer dormant, its
// observer obs) a fifth of every after the last admission: its next
// attempt is held.
func holdingState(t *testing.T, every time.Duration, obs observe.Observer) (*ResourceThrottles, *fakeclock.Clock, *callState) {
	r, clk := hotTracker(t)
	admitHot(r, clk, 0, true)
	admitHot(r, clk, every, false)
	admitHot(r, clk, every, false)
	clk.Add(every / 5)
	return r, clk, &callState{
		ctx:   context.Background(),
		s:     &Settings{Observer: obs, Retry: RetryPolicy{MaxRetryAfter: -1}},
		op:    &Operation{Method: http.MethodPut},
		scope: &Scope{Pacer: pacer.New(), Resources: r},
		req:   request{path: hotPath},
	}
}

// A call whose context ends while its attempt is held is not sent: the
// error says what it waited for and matches the context's, and the
// admission it was held for is free for the next attempt.
func TestAHoldGivenUpFreesItsAdmission(t *testing.T) {
	r, _, state := holdingState(t, 500*time.Millisecond, nil)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := state.holdForAdmission(ctx)
	if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "next admission") || !state.went.Held {
		t.Fatalf("holdForAdmission with its context ended = %v (held %v); want context.Canceled, saying it waited for the next admission, held", err, state.went.Held)
	}
	if hold, sent := r.Hold(http.MethodPut, hotPath, time.Time{}, -1); hold <= 0 || !sent.Held {
		t.Fatalf("the next attempt: Hold = %v, %+v; want it held for the admission the first gave up", hold, sent)
	}
}

// recordingLimiter is a RateLimiter that waits wait, noting first when
// the attempt was to go.
type recordingLimiter struct {
	state *callState
	at    *time.Time
	wait  time.Duration
}

func (l recordingLimiter) Wait(context.Context) error {
	*l.at = l.state.went.At
	time.Sleep(l.wait)
	return nil
}

// An attempt held for its resource's next admission while the area's
// pacer is dormant (the hot user's throttles are kept from it) waited for
// its turn: the observer hears of it. Its send time stays the admission it
// was held for, though a limiter then made it wait: counted from after
// the waits that follow the hold, each offset would include them, the
// next hold would add them again, and the holds would grow (figure 40.6's
// replicas, every call to one user, fell from 0.81–0.88 × to 0.52–0.68 ×).
func TestAHeldAttemptsWaitIsObservedAndItsSendTimeIsItsAdmission(t *testing.T) {
	rec := &recorder{}
	r, clk, state := holdingState(t, 50*time.Millisecond, rec)
	if err := state.waitTurn(context.Background()); err != nil || !state.went.Held {
		t.Fatalf("waitTurn = %v (held %v); want a held attempt", err, state.went.Held)
	}
	if got := rec.lines(); !slices.Equal(got, []string{"wait"}) {
		t.Fatalf("the observer heard %q of a held attempt in a dormant pacer's area; want its wait", got)
	}

	// The next admission, then an attempt held for the one after it, which
	// then waits 20 ms on the limiter.
	admitHot(r, clk, 50*time.Millisecond, true)
	clk.Add(10 * time.Millisecond)
	var heldFor time.Time
	state.scope.Limiter = recordingLimiter{state, &heldFor, 20 * time.Millisecond}
	if err := state.waitTurn(context.Background()); err != nil || !state.went.Held {
		t.Fatalf("waitTurn = %v (held %v); want a held attempt", err, state.went.Held)
	}
	if !state.went.At.Equal(heldFor) {
		t.Fatalf("the held attempt's send time moved %v with the limiter's wait; want the admission it was held for", state.went.At.Sub(heldFor))
	}
}
