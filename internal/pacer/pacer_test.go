package pacer

import (
	"context"
	stderrors "errors"
	"math"
	"strings"
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

// waitQueued returns once n callers wait in p's queue.
func waitQueued(p *Pacer, n int) {
	for {
		p.mu.Lock()
		queued := len(p.queue)
		p.mu.Unlock()
		if queued == n {
			return
		}
		time.Sleep(time.Millisecond)
	}
}

func wantRate(t *testing.T, a *Pacer, want float64, wantEngaged bool) {
	t.Helper()
	got, engaged := a.Rate()
	if engaged != wantEngaged || math.Abs(got-want) > 1e-9 {
		t.Fatalf("Rate() = %.12g, %v; want %.12g, %v", got, engaged, want, wantEngaged)
	}
}

func TestPacerUnengagedLetsEverythingThrough(t *testing.T) {
	_, a := newClockedPacer()
	for range 1000 {
		a.Admitted()
	}
	wantRate(t, a, 0, false)
	epoch, err := a.Wait(context.Background(), NoMaxWait)
	if err != nil || epoch != 0 {
		t.Fatalf("wait = %d, %v; want epoch 0 at once", epoch, err)
	}
}

// The rates after a sequence of outcomes, with the arithmetic spelled out.
func TestPacerRatesAfterASequence(t *testing.T) {
	clock, a := newClockedPacer()

	// A burst of 20 admitted answers, then the first throttle: engaged at
	// the admitted rate of the last second, 20/s, in slow start.
	for range 20 {
		a.Admitted()
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
	a.Admitted()
	wantRate(t, a, 20+step, true)
	a.Admitted()
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
		a.Admitted()
		wantRate(t, a, r, true)
	}
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
			a.rate = 200
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
	a.Admitted()
	a.Admitted()
	a.Throttled(0, 0)
	wantRate(t, a, 2, true)
	for range 18 {
		a.Admitted()
	}
	// max(2 + 18 steps, 20 admitted) = 2 + 18 steps
	wantRate(t, a, 2+18*math.Ln2/0.150, true)

	b := &Pacer{now: now}
	b.Admitted()
	b.Throttled(0, 0)
	wantRate(t, b, 1, true)
	clock.Add(500 * time.Millisecond)
	for range 40 { // a late burst of answers: the meter wins over the steps
		b.meter.add(clock.Now())
	}
	b.Admitted()
	wantRate(t, b, 42, true)
}

func TestPacerMinimumRate(t *testing.T) {
	_, a := newClockedPacer()
	a.Throttled(0, 10*time.Second) // nothing admitted yet, a long Retry-After
	wantRate(t, a, 0.5, true)
	a.Throttled(1, 0)
	wantRate(t, a, 0.5, true) // 0.7 × 0.5 is below the floor
}

// A rate built up while the client sent little is cut from four times the
// admitted rate, not from itself.
func TestPacerCutCap(t *testing.T) {
	clock := fakeclock.New() // at a whole second
	now := clock.Now
	a := &Pacer{now: now}
	a.Throttled(0, 0)
	a.mu.Lock()
	a.rate = 1000 // grown in slow start
	a.mu.Unlock()
	clock.Add(3 * time.Second)
	for range 10 {
		a.Admitted() // now 10 admitted in the last second
	}
	a.Throttled(1, 0)
	wantRate(t, a, 0.7*4*10, true)
}

// Growth stops at twice the admitted rate, but the cap never lowers the rate.
func TestPacerGrowthCap(t *testing.T) {
	clock, a := newClockedPacer()
	a.Throttled(0, 0)
	a.Throttled(1, 0) // into CUBIC at the floor, 0.5/s
	a.mu.Lock()
	a.plateau, a.depth, a.rate, a.clock = 100, 30, 70, 2 // at the plateau, 100
	a.mu.Unlock()
	clock.Add(5 * time.Second)
	a.Admitted() // 1 admitted in the last second: cap max(70, 2)
	wantRate(t, a, 70, true)
	for range 59 {
		a.Admitted() // 60 admitted: cap 120, above the curve
	}
	got, _ := a.Rate()
	if got <= 100 || got >= 120 {
		t.Fatalf("rate %v, want the curve just above its plateau 100, under the cap 120", got)
	}
}

// Once the curve reaches four times its plateau without a throttle, the
// limiter lets go, and the next throttle engages it afresh.
func TestPacerReleases(t *testing.T) {
	clock, a := newClockedPacer()
	a.Throttled(0, 0)
	a.Throttled(1, 0) // CUBIC
	a.mu.Lock()
	a.plateau, a.depth, a.rate = 10, 3, 7
	a.mu.Unlock()
	// The curve reaches 4 × its plateau at clock 2 + 2·∛10 ≈ 6.31 s; at
	// about 20 admitted answers a second (cap 40/s), that takes a few
	// hundred answers.
	n := 0
	for ; n < 10000; n++ {
		if n%20 == 0 {
			clock.Add(time.Second)
		}
		a.Admitted()
		if _, engaged := a.Rate(); !engaged {
			break
		}
	}
	if n == 10000 {
		t.Fatal("the limiter never let go")
	}
	epoch := a.epoch.Load()
	if e, err := a.Wait(context.Background(), NoMaxWait); err != nil || e != epoch || epoch != 3 {
		t.Fatalf("wait after release = %d, %v; want epoch 3 at once", e, err)
	}
	measured := a.meter.rate(clock.Now())
	a.Throttled(epoch, 0)
	if r, engaged := a.Rate(); !engaged || !a.slowStart || r != measured {
		t.Fatalf("after release, a throttle gives %v, %v (slow start %v); want slow start from the admitted %v/s", r, engaged, a.slowStart, measured)
	}
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

// engaged returns a real-clock pacer engaged at r attempts per second,
// whose next slot is free now.
func engaged(r float64) *Pacer {
	p := New()
	p.Engage(r)
	return p
}

func TestPacerPaces(t *testing.T) {
	clock, a := newClockedPacer()
	a.Throttled(0, 0)
	a.mu.Lock()
	a.rate = 20
	a.next = clock.Now()
	first := a.take(clock.Now())
	next1 := a.next
	a.take(clock.Now())
	next2 := a.next
	a.mu.Unlock()
	if first != 1 || next1.Sub(clock.Now()) != 50*time.Millisecond || next2.Sub(clock.Now()) != 100*time.Millisecond {
		t.Fatalf("slots: epoch %d, next %v then %v; want 50ms apart", first, next1.Sub(clock.Now()), next2.Sub(clock.Now()))
	}
	// A slot taken 30ms late: the next is timed from the slot, not from
	// the late taker, so the lateness is not lost...
	clock.Add(130 * time.Millisecond)
	a.mu.Lock()
	a.take(clock.Now())
	late := a.next.Sub(clock.Now())
	// ...but after an idle spell at most one interval is made up.
	clock.Add(time.Second)
	a.take(clock.Now())
	idle := a.next.Sub(clock.Now())
	a.mu.Unlock()
	if late != 20*time.Millisecond || idle != 0 {
		t.Fatalf("next slot %v after a late take, %v after an idle second; want 20ms and 0", late, idle)
	}

	b := engaged(50) // 20ms apart, in real time
	start := time.Now()
	for range 6 {
		if _, err := b.Wait(context.Background(), NoMaxWait); err != nil {
			t.Fatal(err)
		}
	}
	if el := time.Since(start); el < 100*time.Millisecond {
		t.Fatalf("6 slots at 50/s took %v, want at least 100ms", el)
	}
}

// The deadline rule: a wait that would end after the deadline is refused at
// once, with an error that wraps context.DeadlineExceeded.
func TestPacerRefusesAWaitPastTheDeadline(t *testing.T) {
	a := engaged(0.5) // one slot every 2s
	if _, err := a.Wait(context.Background(), NoMaxWait); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := a.Wait(ctx, NoMaxWait)
	if !stderrors.Is(err, context.DeadlineExceeded) || time.Since(start) > 100*time.Millisecond {
		t.Fatalf("wait = %v after %v; want DeadlineExceeded at once", err, time.Since(start))
	}
	if !strings.Contains(err.Error(), "after the deadline") {
		t.Fatalf("err = %q, want it to say why", err)
	}
	if len(a.queue) != 0 {
		t.Fatalf("%d waiters left queued", len(a.queue))
	}
}

func TestPacerCancelLeavesTheQueue(t *testing.T) {
	a := engaged(0.5)
	if _, err := a.Wait(context.Background(), NoMaxWait); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	errs := make(chan error, 3)
	for range 3 {
		go func() { _, err := a.Wait(ctx, NoMaxWait); errs <- err }()
	}
	waitQueued(a, 3)
	cancel()
	for range 3 {
		if err := <-errs; !stderrors.Is(err, context.Canceled) {
			t.Fatalf("wait = %v, want context.Canceled", err)
		}
	}
	if len(a.queue) != 0 {
		t.Fatalf("%d waiters left queued", len(a.queue))
	}
}

// Waiters queued at a low rate go as fast as the rate allows once it grows:
// each slot is timed when it comes, not when it was asked for.
func TestPacerQueuedWaitersFollowTheRate(t *testing.T) {
	a := engaged(2) // 500ms apart
	if _, err := a.Wait(context.Background(), NoMaxWait); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	var wg sync.WaitGroup
	for range 5 {
		wg.Go(func() {
			if _, err := a.Wait(context.Background(), NoMaxWait); err != nil {
				t.Error(err)
			}
		})
	}
	time.Sleep(20 * time.Millisecond)
	a.mu.Lock()
	a.rate = 1000
	a.mu.Unlock()
	wg.Wait()
	// The head waits out the slot it saw (≤ 500ms); the other four follow
	// 1ms apart instead of 500ms.
	if el := time.Since(start); el > 1500*time.Millisecond {
		t.Fatalf("5 waiters took %v, want the new rate to apply to them", el)
	}
}

// An attempt let through after a cut carries the new epoch.
func TestPacerSlotAfterACutCarriesTheNewEpoch(t *testing.T) {
	a := engaged(20)
	a.epoch.Store(7)
	if e, err := a.Wait(context.Background(), NoMaxWait); err != nil || e != 7 {
		t.Fatalf("wait = %d, %v; want epoch 7", e, err)
	}
	done := make(chan uint64)
	go func() { e, _ := a.Wait(context.Background(), NoMaxWait); done <- e }()
	time.Sleep(5 * time.Millisecond)
	a.Throttled(7, 0) // cut while the second waiter waits
	if e := <-done; e != 8 {
		t.Fatalf("slot after the cut carries epoch %d, want 8", e)
	}
}

// --- Through the pipeline ----------------------------------------------------

// countingLimiter counts waits.
