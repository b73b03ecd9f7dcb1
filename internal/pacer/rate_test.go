package pacer

import (
	"context"
	"math"
	"sync"
	"testing"
	"time"

	"github.com/memberplatform/memberplatform-go/internal/fakeclock"
)

// newClockedPacer returns a Pacer on a fakeclock.Clock, at a whole second,
// whose client has been sending for a while: its meter counted the second
// before (none admitted), so that a throttle engages it at the rate over
// the last second, not over the time since the answers began.
func newClockedPacer() (*fakeclock.Clock, *Pacer) {
	clock, p := newFreshPacer()
	season(p, clock.Now())
	return clock, p
}

// season has p's meter count the second before now, none admitted.
func season(p *Pacer, now time.Time) {
	s := now.Unix() - 1
	p.meter.buckets[s&1].Store(uint64(uint32(s)) << 32)
}

// newFreshPacer returns a Pacer on a fakeclock.Clock, at a whole second, of
// a client that has just started.
func newFreshPacer() (*fakeclock.Clock, *Pacer) {
	clock := fakeclock.New()
	return clock, &Pacer{now: clock.Now, sleep: func(time.Duration) { panic("a clocked pacer's test slept") }}
}

// admit records an admitted answer to an attempt let through in the
// current epoch.
func admit(p *Pacer) { p.Admitted(p.epoch.Load()) }

func wantRate(t *testing.T, a *Pacer, want float64, wantEngaged bool) {
	t.Helper()
	got, engaged := a.Rate()
	if engaged != wantEngaged || math.Abs(got-want) > 1e-9 {
		t.Fatalf("Rate() = %.12g, %v; want %.12g, %v", got, engaged, want, wantEngaged)
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
		{"no Retry-After: the floor, one a second", 0, 0, MinRate},
		{"no Retry-After, the admitted rate when higher", 5, 0, 5},
		{"the admitted rate when higher", 20, time.Second, 20},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clock, p := newClockedPacer()
			for range tc.admitted {
				admit(p)
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
	p.Throttled(0, 250*time.Millisecond) // 4/s
	p.Throttled(1, 250*time.Millisecond) // 2.8/s
	wantRate(t, p, 2.8, true)
}

func TestPacerFirstEstimateIsRaisedByLateAnswers(t *testing.T) {
	clock := fakeclock.New() // at a whole second
	now := clock.Now
	a := &Pacer{now: now}
	season(a, now())
	// The throttle arrives before most of the burst's answers.
	admit(a)
	admit(a)
	a.Throttled(0, 0)
	wantRate(t, a, 2, true)
	for range 18 {
		admit(a)
	}
	// max(2 + 18 steps, 20 admitted), the first two a doubling (2 → 4 →
	// 8: at most one each while 4 answers cannot say the rate used) = 8 +
	// 16 steps
	wantRate(t, a, 8+16*math.Ln2/0.150, true)

	b := &Pacer{now: now}
	season(b, now())
	admit(b)
	b.Throttled(0, 0)
	wantRate(t, b, 1, true)
	clock.Add(500 * time.Millisecond)
	for range 40 { // a late burst of answers: the meter wins over the steps
		b.meter.add(clock.Now())
	}
	admit(b)
	wantRate(t, b, 42, true)
}

func TestPacerMinimumRate(t *testing.T) {
	_, a := newClockedPacer()
	a.Throttled(0, 10*time.Second) // nothing admitted yet, a long Retry-After
	wantRate(t, a, 1, true)
	a.Throttled(1, 0)
	wantRate(t, a, 1, true) // 0.7 × 1 is below the floor
}

// A lone throttle of an idle client engages the pacer at one attempt a
// second, refusing; a burst of callers then queues for the first slot
// rather than being refused for the queue's length at that rate: the
// first admitted answer lets them all through.
func TestPacerAfterALoneThrottleQueuesABurst(t *testing.T) {
	p := New()
	p.Throttled(0, time.Second)
	var wg sync.WaitGroup
	errs := make(chan error, 30)
	for range 30 {
		wg.Go(func() {
			_, err := p.Wait(context.Background(), 5*time.Second)
			errs <- err
		})
	}
	for start := time.Now(); time.Since(start) < 500*time.Millisecond; time.Sleep(time.Millisecond) {
		p.mu.Lock()
		queued := len(p.queue)
		p.mu.Unlock()
		if queued == 30 {
			break
		}
	}
	admit(p) // the provider admits the lone call's retry
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatalf("a caller of the burst was refused: %v", err)
		}
	}
}

// A throttle of an attempt let through before the last cut does not cut,
// but it is a throttle: it keeps the pacer from releasing.
func TestStaleThrottleDelaysTheRelease(t *testing.T) {
	clock, a := newClockedPacer()
	a.Throttled(0, 0)
	clock.Add(2 * time.Second)
	a.Throttled(0, 0) // epoch 0: before the cut
	clock.Add(2 * time.Second)
	if !a.Engaged() {
		t.Fatal("released 2 s after a stale throttle")
	}
	wantRate(t, a, MinRate, true)
}

func TestAdmittedMeter(t *testing.T) {
	base := time.Date(2026, 1, 1, 0, 0, 10, 0, time.UTC)
	var m meter
	for range 10 {
		m.add(base.Add(100 * time.Millisecond))
	}
	if got := m.Rate(base.Add(500 * time.Millisecond)); got != 10 {
		t.Fatalf("rate within the second = %v, want 10", got)
	}
	for range 4 {
		m.add(base.Add(1200 * time.Millisecond))
	}
	// 4 this second and the last 75% of the previous second's 10.
	if got := m.Rate(base.Add(1250 * time.Millisecond)); got != 4+7.5 {
		t.Fatalf("rate across seconds = %v, want 11.5", got)
	}
	if got := m.Rate(base.Add(2500 * time.Millisecond)); got != 2 {
		t.Fatalf("rate a second later = %v, want half of 4", got)
	}
	if got := m.Rate(base.Add(5 * time.Second)); got != 0 {
		t.Fatalf("rate after idling = %v, want 0", got)
	}
	m.add(base.Add(9 * time.Second))
	if got := m.Rate(base.Add(9 * time.Second)); got != 1 {
		t.Fatalf("rate after a gap = %v, want 1 (old buckets dropped)", got)
	}
}
