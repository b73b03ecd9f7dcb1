package pacer

import (
	"context"
	"math"
	"sync"
	"testing"
	"time"

	"github.com/memberplatform/memberplatform-go/internal/fakeclock"
)

// newClockedPacer returns a Pacer on a fakeclock.Clock, at a whole second.
func newClockedPacer() (*fakeclock.Clock, *Pacer) {
	clock := fakeclock.New()
	return clock, &Pacer{now: clock.Now}
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

// The rates after a sequence of outcomes, with the arithmetic spelled out.
func TestPacerRatesAfterASequence(t *testing.T) {
	clock, a := newClockedPacer()

	// A burst of 20 admitted answers, then the first throttle: engaged at
	// the admitted rate of the last second, 20/s, in slow start.
	for range 20 {
		admit(a)
	}
	clock.Add(10 * time.Millisecond)
	a.Throttled(0, 0)
	wantRate(t, a, 20, true)
	if a.epoch.Load() != 1 {
		t.Fatalf("epoch %d after the first cut, want 1", a.epoch.Load())
	}
	// More throttled answers to attempts let through before the cut
	// (epoch 0) are the same congestion event: no change.
	a.Throttled(0, 0)
	a.Throttled(0, 0)
	wantRate(t, a, 20, true)

	// Slow start: each admitted answer adds ln 2 / 0.15 s.
	step := math.Ln2 / 0.150
	admit(a)
	wantRate(t, a, 20+step, true)
	admit(a)
	wantRate(t, a, 20+2*step, true)

	// The second throttle (an attempt of epoch 1) ends slow start: the new
	// rate is 70% of the throttled one, where the curve flattens (the last
	// cut was under a second ago: the admitted rate is not used).
	w := 20 + 2*step
	a.Throttled(1, 0)
	wantRate(t, a, 0.7*w, true)

	// Then CUBIC: the clock advances 1/rate per admitted answer, and the
	// rate follows w + 0.3w·((clock−2)/2)³.
	r := 0.7 * w
	clk := 0.0
	for range 3 {
		clk += 1 / r
		x := (clk - 2) / 2
		r = w * (1 + 0.3*x*x*x)
		admit(a)
		wantRate(t, a, r, true)
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
			clock := fakeclock.New()
			p := &Pacer{now: clock.Now}
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

// A cut a second or more after the previous one flattens the curve at the
// rate the provider admitted over that second, kept between halfway and
// the throttled rate.
func TestPacerPlateauFromTheAdmittedRate(t *testing.T) {
	for _, tc := range []struct {
		name     string
		after    time.Duration
		admitted int
		plateau  float64
	}{
		{"admitted rate", 1500 * time.Millisecond, 180, 180},
		{"no lower than halfway", 1500 * time.Millisecond, 100, (140 + 200) / 2.0},
		{"no higher than the throttled rate", 1500 * time.Millisecond, 300, 200},
		{"under a second since the last cut", 500 * time.Millisecond, 180, 200},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clock := fakeclock.New()
			a := &Pacer{now: clock.Now}
			a.Throttled(0, 0)
			a.Throttled(1, 0) // into CUBIC
			a.mu.Lock()
			a.rate, a.admitted = 200, true
			a.mu.Unlock()
			clock.Add(tc.after)
			for range tc.admitted {
				a.meter.add(clock.Now())
			}
			a.Throttled(2, 0)
			wantRate(t, a, 140, true)
			if a.plateau != tc.plateau || a.depth != tc.plateau-140 {
				t.Fatalf("plateau %v, depth %v; want %v, %v", a.plateau, a.depth, tc.plateau, tc.plateau-140)
			}
		})
	}
}

func TestPacerFirstEstimateIsRaisedByLateAnswers(t *testing.T) {
	clock := fakeclock.New() // at a whole second
	now := clock.Now
	a := &Pacer{now: now}
	// The throttle arrives before most of the burst's answers.
	admit(a)
	admit(a)
	a.Throttled(0, 0)
	wantRate(t, a, 2, true)
	for range 18 {
		admit(a)
	}
	// max(2 + 18 steps, 20 admitted) = 2 + 18 steps
	wantRate(t, a, 2+18*math.Ln2/0.150, true)

	b := &Pacer{now: now}
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

// A rate built up while the client sent little is cut from four times the
// admitted rate, not from itself.
func TestPacerCutCap(t *testing.T) {
	clock := fakeclock.New() // at a whole second
	now := clock.Now
	a := &Pacer{now: now}
	admit(a)
	admit(a)
	a.Throttled(0, 0)
	a.mu.Lock()
	a.rate = 1000 // grown in slow start
	a.mu.Unlock()
	clock.Add(2 * time.Second)
	for range 10 {
		admit(a) // now 10 admitted in the last second
	}
	a.Throttled(1, 0)
	wantRate(t, a, 0.7*4*10, true)
}

// Cuts while the provider admits nothing keep the plateau, the rate it
// admitted before: when it admits again the curve climbs back to it.
func TestPacerShortStormKeepsThePlateau(t *testing.T) {
	clock, a := newClockedPacer()
	for range 1000 {
		admit(a) // 1,000/s before the storm
	}
	clock.Add(10 * time.Millisecond)
	a.Throttled(0, time.Second)
	wantRate(t, a, 1000, true)
	for e := uint64(1); e <= 5; e++ { // five cuts in the storm's first half second
		clock.Add(100 * time.Millisecond)
		a.Throttled(e, time.Second)
	}
	low := 1000 * math.Pow(0.7, 5)
	wantRate(t, a, low, true)
	if a.plateau != 1000 || a.refusing {
		t.Fatalf("plateau %v (refusing %v) after a short storm, want the 1,000/s admitted before it", a.plateau, a.refusing)
	}
	admit(a) // the provider admits again: CUBIC towards 1,000
	x := (1/low - 2) / 2
	wantRate(t, a, 1000+(1000-low)*x*x*x, true)

	// A throttle after admitted answers flattens the curve where it was
	// throttled, as usual.
	for range 300 {
		a.meter.add(clock.Now())
	}
	r, _ := a.Rate()
	a.Throttled(a.epoch.Load(), time.Second)
	if a.plateau != r {
		t.Fatalf("plateau %v after a throttle of admitted traffic, want %v", a.plateau, r)
	}
}

// A throttle that finds nothing admitted for a second (a storm of
// refusals, or a lone call) makes the next admitted answer release the
// pacer: the provider admits again, and the pacer is as before.
func TestPacerReleasesWhenAdmittedAfterRefusingEverything(t *testing.T) {
	clock, a := newClockedPacer()
	for range 1000 {
		admit(a)
	}
	clock.Add(10 * time.Millisecond)
	a.Throttled(0, time.Second)
	for e := uint64(1); e <= 3; e++ { // a second apart: the admitted rate falls to nothing
		clock.Add(time.Second)
		a.Throttled(e, time.Second)
	}
	if !a.refusing || !a.Engaged() {
		t.Fatalf("after 3 s of refusals: refusing %v, engaged %v; want both", a.refusing, a.Engaged())
	}
	epoch := a.epoch.Load()
	a.Admitted(epoch - 1) // an answer to an attempt sent before the last cut...
	if !a.Engaged() || a.refusing {
		t.Fatalf("an answer sent before the cut: engaged %v, refusing %v; want engaged, not refusing (answers were in flight)", a.Engaged(), a.refusing)
	}
	a.refusing = true
	admit(a) // ...and one let through after it
	wantRate(t, a, 0, false)
	if e, err := a.Wait(context.Background(), 0); err != nil || e != epoch+1 {
		t.Fatalf("wait after the release = %d, %v; want epoch %d at once", e, err, epoch+1)
	}
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

// ReleaseAfter after its last throttle the pacer is dormant, with or
// without traffic in between: Rate says 0, Wait lets everything through at
// once (even a waiter whose deadline has passed, as a dormant pacer does),
// and the next throttle engages it afresh.
func TestPacerReleasesByTime(t *testing.T) {
	for _, traffic := range []bool{false, true} {
		clock, a := newClockedPacer()
		admit(a)
		admit(a)
		a.Throttled(0, 0)
		a.Throttled(1, 0) // CUBIC
		for range 29 {
			clock.Add(100 * time.Millisecond)
			if traffic {
				admit(a)
			}
		}
		if !a.Engaged() {
			t.Fatalf("traffic %v: released %v after the last throttle, want engaged until %v", traffic, 2900*time.Millisecond, ReleaseAfter)
		}
		clock.Add(100 * time.Millisecond)
		if a.Engaged() {
			t.Fatalf("traffic %v: Engaged after %v without a throttle", traffic, ReleaseAfter)
		}
		wantRate(t, a, 0, false)
		epoch := a.epoch.Load()
		for range 100 {
			if e, err := a.Wait(context.Background(), 0); err != nil || e != epoch {
				t.Fatalf("traffic %v: wait after release = %d, %v; want epoch %d at once", traffic, e, err, epoch)
			}
		}
		measured := a.meter.rate(clock.Now())
		a.Throttled(epoch, 0)
		if r, engaged := a.Rate(); !engaged || !a.slowStart || r != max(MinRate, measured) {
			t.Fatalf("traffic %v: after release, a throttle gives %v, %v (slow start %v); want slow start from %v/s", traffic, r, engaged, a.slowStart, max(MinRate, measured))
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
	if got := m.rate(base.Add(500 * time.Millisecond)); got != 10 {
		t.Fatalf("rate within the second = %v, want 10", got)
	}
	for range 4 {
		m.add(base.Add(1200 * time.Millisecond))
	}
	// 4 this second and the last 75% of the previous second's 10.
	if got := m.rate(base.Add(1250 * time.Millisecond)); got != 4+7.5 {
		t.Fatalf("rate across seconds = %v, want 11.5", got)
	}
	if got := m.rate(base.Add(2500 * time.Millisecond)); got != 2 {
		t.Fatalf("rate a second later = %v, want half of 4", got)
	}
	if got := m.rate(base.Add(5 * time.Second)); got != 0 {
		t.Fatalf("rate after idling = %v, want 0", got)
	}
	m.add(base.Add(9 * time.Second))
	if got := m.rate(base.Add(9 * time.Second)); got != 1 {
		t.Fatalf("rate after a gap = %v, want 1 (old buckets dropped)", got)
	}
}
