package pacer

import (
	"context"
	stderrors "errors"
	"testing"
	"time"

	"github.com/memberplatform/memberplatform-go/internal/fakeclock"
)

// Dormant, the pacer costs a healthy answer no lock and no allocation, and
// lets every attempt through.
func TestDormantPacerTakesNoLockAndAllocatesNothing(t *testing.T) {
	p := New()
	if n := testing.AllocsPerRun(1000, func() {
		p.Admitted()
		if _, err := p.Wait(context.Background(), time.Second); err != nil {
			t.Fatal(err)
		}
	}); n != 0 {
		t.Fatalf("%v allocations per dormant answer and wait, want 0", n)
	}
	p.mu.Lock() // a dormant pacer never needs it
	done := make(chan struct{})
	go func() {
		defer close(done)
		for range 100 {
			p.Admitted()
			_, _ = p.Wait(context.Background(), time.Second)
		}
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("a dormant pacer's Admitted or Wait waited for its lock")
	}
	p.mu.Unlock()
	if got := p.meter.rate(time.Now()); got < 1000 {
		t.Fatalf("meter counted %v answers, want the 1,100 just made", got)
	}
}

// The first throttle engages the pacer at the admitted rate, and at no less
// than one attempt per Retry-After (nor less than the floor; one a second
// when the throttle names no wait), with the next
// slot one interval away: a lone call's retry, which waits out its
// Retry-After first, then finds its slot free.
func TestFirstThrottleEngagesAtLeastAtOnePerRetryAfter(t *testing.T) {
	for _, tc := range []struct {
		name       string
		admitted   int
		retryAfter time.Duration
		want       float64
	}{
		{"Retry-After 1s, nothing admitted", 0, time.Second, 1},
		{"Retry-After 250ms", 0, 250 * time.Millisecond, 4},
		{"Retry-After 10s: the floor", 0, 10 * time.Second, MinRate},
		{"no Retry-After: one a second", 0, 0, firstRate},
		{"no Retry-After, the admitted rate when higher", 5, 0, 5},
		{"the admitted rate when higher", 20, time.Second, 20},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clock := fakeclock.New()
			p := &Pacer{now: clock.Now}
			for range tc.admitted {
				p.Admitted()
			}
			p.Throttled(0, tc.retryAfter)
			wantRate(t, p, tc.want, true)
			if got, want := p.next.Sub(clock.Now()), time.Duration(float64(time.Second)/tc.want); got != want {
				t.Fatalf("next slot in %v, want %v", got, want)
			}
		})
	}
}

// Later throttles cut as before: Retry-After sets only the first estimate.
func TestRetryAfterDoesNotHoldUpACut(t *testing.T) {
	clock := fakeclock.New()
	p := &Pacer{now: clock.Now}
	p.Throttled(0, time.Second) // 1/s
	p.Throttled(1, time.Second) // 0.7/s
	wantRate(t, p, 0.7, true)
}

// A wait for a slot never starts when it would last longer than maxWait,
// even without a deadline; the refusal says so and is not a deadline.
func TestWaitRefusesASlotFurtherThanMaxWait(t *testing.T) {
	p := engaged(0.5) // one slot every 2 s
	if _, err := p.Wait(context.Background(), time.Second); err != nil {
		t.Fatal(err) // the free slot
	}
	start := time.Now()
	_, err := p.Wait(context.Background(), time.Second)
	var r *Refusal
	if !stderrors.As(err, &r) || r.Deadline || r.MaxWait != time.Second || stderrors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Wait = %v; want a *Refusal for the max wait, not a deadline", err)
	}
	if time.Since(start) > 500*time.Millisecond || len(p.queue) != 0 {
		t.Fatalf("refused after %v with %d queued; want at once, nothing queued", time.Since(start), len(p.queue))
	}
	// Within maxWait it waits.
	if _, err := p.Wait(context.Background(), 3*time.Second); err != nil {
		t.Fatalf("Wait with room for the slot = %v", err)
	}
}

// A waiter queued behind others counts their slots: with a slot every 2 s,
// the third in line is 4 s or more away.
func TestWaitCountsTheQueueAgainstMaxWait(t *testing.T) {
	p := engaged(0.5)
	if _, err := p.Wait(context.Background(), NoMaxWait); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	for range 2 {
		go func() { _, _ = p.Wait(ctx, NoMaxWait) }()
	}
	waitQueued(p, 2)
	var r *Refusal
	if _, err := p.Wait(context.Background(), 5*time.Second); !stderrors.As(err, &r) || r.Wait < 5*time.Second {
		t.Fatalf("Wait behind 2 waiters = %v; want a refusal of a slot ≥ 5 s away", err)
	}
}

// maxWait 0 (WithMaxRetryAfter(0): never wait) refuses any wait, and takes
// a slot that is free now.
func TestZeroMaxWaitAllowsNoWait(t *testing.T) {
	p := engaged(0.5)
	if _, err := p.Wait(context.Background(), 0); err != nil {
		t.Fatalf("a free slot with maxWait 0: %v", err)
	}
	var r *Refusal
	if _, err := p.Wait(context.Background(), 0); !stderrors.As(err, &r) {
		t.Fatalf("Wait = %v, want a refusal of any wait", err)
	}
}
