package pacer

import (
	"context"
	"math"
	"testing"
	"time"
)

// throttle records a throttle of an attempt let through in the current
// epoch.
func throttle(p *Pacer) { p.Throttled(p.epoch.Load(), 0) }

// A dormant pacer tolerates throttles of up to 2% of the answers admitted
// over the last second: a hot partition answering 1 in 100 with a 429 does
// not engage it. More than that does.
func TestDormantPacerToleratesSporadicThrottles(t *testing.T) {
	_, p := newClockedPacer()
	for range 100 {
		admit(p)
	}
	throttle(p)
	throttle(p) // 2 of 102 answers
	wantRate(t, p, 0, false)
	throttle(p) // 3 of 103
	wantRate(t, p, 100, true)
	if !p.slowStart {
		t.Fatal("engaged without slow start")
	}
}

// One cut per event: a throttle of an attempt let through before the last
// cut (an earlier epoch) does not cut again, but it keeps the pacer engaged.
func TestOneCutPerEvent(t *testing.T) {
	clock, p := newClockedPacer()
	p.Engage(10)
	before := p.epoch.Load()
	throttle(p) // nothing admitted: the deepest cut, to 7
	wantRate(t, p, 7, true)
	if p.epoch.Load() != before+1 {
		t.Fatalf("epoch %d after a cut, want %d", p.epoch.Load(), before+1)
	}
	for range 10 { // the rest of the attempts in flight when it cut
		clock.Add(100 * time.Millisecond)
		p.Throttled(before, 0)
	}
	wantRate(t, p, 7, true)
	if p.epoch.Load() != before+1 {
		t.Fatalf("epoch %d after throttles of the earlier epoch, want %d: they are the same event", p.epoch.Load(), before+1)
	}
	clock.Add(ReleaseAfter - 100*time.Millisecond)
	if r, _ := p.Rate(); r != 7 {
		t.Fatalf("rate %v %v after the last (stale) throttle, want 7: it delays the release", r, ReleaseAfter-100*time.Millisecond)
	}
}

// A cut is scaled to what was admitted: it takes away the share of answers
// refused beyond the 2% tolerance, over the last second and since the last
// cut (whichever is less), at least 5% and at most 30%. A throttle after
// 49 admitted answers is within the tolerance: no cut, no new epoch.
func TestCutIsScaledToWhatWasAdmitted(t *testing.T) {
	for _, tc := range []struct {
		admitted int
		want     float64 // the rate after the throttle, from 10/s
	}{
		{0, 7},                          // refused everything: the deepest cut
		{3, 10 * (1 - (1.0/4 - 0.02))},  // 25% refused, less the tolerance
		{9, 10 * (1 - (1.0/10 - 0.02))}, // 10% refused
		{24, 10 * (1 - 0.05)},           // 4% refused: the least cut
		{49, 10},                        // 2%: within the tolerance
		{200, 10},
	} {
		_, p := newClockedPacer()
		p.Engage(10)
		for range tc.admitted {
			admit(p)
		}
		epoch := p.epoch.Load()
		throttle(p)
		if r, _ := p.Rate(); math.Abs(r-tc.want) > 1e-9 {
			t.Errorf("after %d admitted answers a throttle leaves the rate at %v, want %v", tc.admitted, r, tc.want)
		}
		if cut := p.epoch.Load() != epoch; cut != (tc.want < 10) {
			t.Errorf("after %d admitted answers: new epoch %v, want %v", tc.admitted, cut, tc.want < 10)
		}
	}
}

// The share since the last cut counts half the answers admitted before it,
// so a second throttle right after a small cut does not fall to 70%; and
// the answers it counts are at most 1/tolerance, so that a long healthy
// spell does not hide a storm for more than a few throttles.
func TestCutWeighsTheAnswersBeforeTheLastCut(t *testing.T) {
	_, p := newClockedPacer()
	p.Engage(30) // (above the 25/s admitted: no trial, judge.go)
	for range 24 {
		admit(p)
	}
	throttle(p) // 1 in 25: the least cut, 5%
	throttle(p) // 1 in 12+1 since the cut, but over the last second 2 in 26
	wantRate(t, p, 28.5*(1-(2.0/26-0.02)), true)

	clock, q := newClockedPacer()
	q.Engage(100)
	for range 100_000 { // a long healthy spell...
		admit(q)
	}
	clock.Add(2 * time.Second) // ...then a storm
	for range 8 {
		throttle(q)
	}
	if r, _ := q.Rate(); r > 50 {
		t.Fatalf("rate %v after 8 throttles of a storm, want it halved at least", r)
	}
}

// A cut after admitted answers may take the rate under MinRate, to half of
// it, so that a provider admitting 1 request/s is paced just under it; one
// while the provider admits nothing stops at MinRate, the probe.
func TestCutFloors(t *testing.T) {
	_, p := newClockedPacer()
	p.Engage(1)
	throttle(p)
	wantRate(t, p, MinRate, true)
	admit(p)
	admit(p)
	throttle(p)
	if r, _ := p.Rate(); r >= MinRate || r < minAdmittedRate {
		t.Fatalf("rate %v after a throttle among admitted answers at 1/s, want in [%v, %v)", r, minAdmittedRate, MinRate)
	}
}

// The curve flattens at the rate admitted over the last second when the
// provider refused some (its rate), never below the rate after the cut nor
// above the throttled one; then it climbs above it gently, by a tenth of it
// in the 2 s of sending after it got there.
func TestCurveAfterACut(t *testing.T) {
	for _, tc := range []struct {
		name     string
		admitted int
		plateau  float64
	}{
		{"the admitted rate", 9, 10 * (1 - 0.08) / 0.92 * 0.9}, // 9/s admitted, cut to 9.2: plateau 9.2
		{"no lower than the new rate", 4, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, p := newClockedPacer()
			p.Engage(10)
			for range tc.admitted {
				admit(p)
			}
			throttle(p)
			r, _ := p.Rate()
			want := max(r, min(10, float64(tc.admitted)))
			if p.plateau != want {
				t.Fatalf("plateau %v, want %v", p.plateau, want)
			}
			// The curve passes through the rate now and reaches the
			// plateau 2 s after it started.
			x := (p.clock - regain) / regain
			if got := p.plateau + p.depth*x*x*x; math.Abs(got-r) > 1e-9 {
				t.Fatalf("the curve is at %v at the cut, want the rate %v", got, r)
			}
			if p.depth < minDepth*p.plateau-1e-9 {
				t.Fatalf("depth %v, want at least %v: the curve climbs above the plateau", p.depth, minDepth*p.plateau)
			}
		})
	}
}

// A storm of refusals (nothing admitted over the last second) cuts to 70%
// an event and keeps the plateau, the rate admitted before it; once nothing
// was admitted for 1.5 s, with 3 throttles in a row or more, the first
// admitted answer makes it dormant at once, whichever epoch its attempt
// was let through in. With fewer throttles in a row it is a low limit, not
// a storm: the pacer stays engaged.
func TestStormKeepsThePlateauAndEndsAtTheFirstAdmittedAnswer(t *testing.T) {
	for _, stale := range []bool{false, true} {
		clock, p := newClockedPacer()
		for range 1000 {
			admit(p)
		}
		for range 21 {
			throttle(p) // more than 2%: engaged at 1,000/s
		}
		wantRate(t, p, 1000, true)
		clock.Add(2 * time.Second)
		for range 5 { // then only refusals
			clock.Add(50 * time.Millisecond)
			throttle(p)
		}
		wantRate(t, p, 1000*math.Pow(0.7, 5), true)
		if p.plateau != 1000 || !p.refusing {
			t.Fatalf("plateau %v, refusing %v after 2 s of refusals; want the 1,000/s admitted before, refusing", p.plateau, p.refusing)
		}
		epoch := p.epoch.Load()
		if stale {
			p.Admitted(epoch - 1)
		} else {
			admit(p)
		}
		wantRate(t, p, 0, false)
		if e, err := p.Wait(context.Background(), 0); err != nil || e != epoch+1 {
			t.Fatalf("wait after the release = %d, %v; want epoch %d at once", e, err, epoch+1)
		}
	}

	clock, p := newClockedPacer()
	p.Engage(1)
	admit(p)
	clock.Add(time.Second)
	throttle(p)
	throttle(p)
	clock.Add(time.Second)
	admit(p) // 2 s after the last, 2 throttles in between
	if !p.Engaged() {
		t.Fatal("released after 2 throttles between admitted answers 2 s apart: a low limit, not a storm")
	}
}

// Released by time, the rate rises fast but does not jump: ReleaseAfter
// after the last throttle it doubles every 250 ms, and the pacer is dormant
// only once it is 16 times the admitted rate. A throttle on the way up
// takes it back to where it started, and it climbs from there.
func TestReleaseRampsUp(t *testing.T) {
	clock, p := newClockedPacer()
	p.Engage(10)
	tick := func(d time.Duration) { // 20 answers a second admitted meanwhile
		for end := clock.Now().Add(d); clock.Now().Before(end); {
			clock.Add(50 * time.Millisecond)
			admit(p)
		}
	}
	tick(ReleaseAfter - 50*time.Millisecond)
	wantRate(t, p, 10, true)
	tick(50 * time.Millisecond)
	for _, want := range []float64{10, 20, 40, 80, 160} {
		if r, engaged := p.Rate(); !engaged || math.Abs(r-want) > 1e-6 {
			t.Fatalf("%v after the last throttle: rate %v, engaged %v; want %v", clock.Now().Sub(p.lastThrottle), r, engaged, want)
		}
		tick(rampDoubling)
	}
	// Dormant at 16 times the 20/s admitted and the 10/s it started from.
	if r, engaged := p.Rate(); engaged && r < 320 || !engaged && r != 0 {
		t.Fatalf("rate %v, engaged %v at 320/s", r, engaged)
	}
	tick(rampDoubling)
	wantRate(t, p, 0, false)

	p.Engage(10)
	tick(ReleaseAfter + 2*rampDoubling) // 40/s
	throttle(p)                         // 1 in 21 over the last second
	wantRate(t, p, 10, true)
	if p.plateau != 10 || p.rampFrom != 0 {
		t.Fatalf("after a throttle on the way up: plateau %v, releasing from %v; want 10, not releasing", p.plateau, p.rampFrom)
	}
	admit(p)
	if r, _ := p.Rate(); r <= 10 {
		t.Fatalf("rate %v after an admitted answer, want above 10: the curve probes above where the release started", r)
	}
}

// Without traffic, nothing is admitted: ReleaseAfter after the last
// throttle the pacer is dormant at once, Wait lets everything through (even
// a waiter whose deadline has passed) and the next throttle engages it
// afresh, in slow start.
func TestQuietPacerIsDormantAfterReleaseAfter(t *testing.T) {
	clock, p := newClockedPacer()
	throttle(p)
	throttle(p)
	clock.Add(ReleaseAfter - time.Millisecond)
	wantRate(t, p, MinRate, true)
	clock.Add(time.Millisecond)
	wantRate(t, p, 0, false)
	epoch := p.epoch.Load()
	for range 100 {
		if e, err := p.Wait(context.Background(), 0); err != nil || e != epoch {
			t.Fatalf("wait after release = %d, %v; want epoch %d at once", e, err, epoch)
		}
	}
	throttle(p)
	if r, engaged := p.Rate(); !engaged || !p.slowStart || r != MinRate {
		t.Fatalf("after release, a throttle gives %v, %v (slow start %v); want slow start from %v/s", r, engaged, p.slowStart, MinRate)
	}
}

// A provider admitting 1, 2, 5 or 50 requests/s with a burst of 1, behind
// a client that always has a call waiting: after the opening the pacer
// settles under the limit instead of swinging (at most 12% of the attempts
// refused, 5% at 50/s) and never lets the queue go at once. Simulated on
// the fake clock, each attempt answered at once. (At 1/s, 0.8 × the limit:
// a cut well over the limit starts from the spacing of the admitted
// answers, which keeps a real client, whose throttled calls wait out a
// Retry-After, to 14% of 429s rather than 21–50%; here it costs 0.88 →
// 0.81 ×.)
func TestLowLimitSettlesUnderIt(t *testing.T) {
	for _, tc := range []struct{ limit, minShare, maxRefused float64 }{{1, 0.8, 12}, {2, 0.85, 12}, {5, 0.85, 12}, {50, 0.9, 5}} {
		limit := tc.limit
		clock, p := newClockedPacer()
		var lastAdmitted time.Time
		var admitted, refused int
		const settle, run = 20 * time.Second, 120 * time.Second
		start := clock.Now()
		for clock.Now().Sub(start) < run {
			p.mu.Lock()
			p.update(clock.Now())
			next := p.next
			engaged := p.engaged.Load()
			p.mu.Unlock()
			if engaged && next.After(clock.Now()) { // the head sleeps, at most rampDoubling
				clock.Add(min(next.Sub(clock.Now()), rampDoubling))
				continue
			}
			epoch, err := p.Wait(context.Background(), NoMaxWait)
			if err != nil {
				t.Fatal(err)
			}
			now := clock.Now()
			counted := now.Sub(start) >= settle
			if now.Sub(lastAdmitted) >= time.Duration(float64(time.Second)/limit) {
				lastAdmitted = now
				p.Admitted(epoch)
				if counted {
					admitted++
				}
			} else {
				p.Throttled(epoch, 0)
				if counted {
					refused++
				}
			}
			if !engaged {
				clock.Add(time.Millisecond) // a dormant client sends flat out
			}
			if counted && !p.Engaged() {
				t.Fatalf("limit %v/s: dormant at %v: the whole queue would go at once", limit, now.Sub(start))
			}
		}
		share := float64(admitted) / (run - settle).Seconds() / limit
		pct := 100 * float64(refused) / float64(admitted+refused)
		t.Logf("limit %v/s: admitted %.2f × the limit, %.1f%% refused", limit, share, pct)
		if share < tc.minShare || pct > tc.maxRefused {
			t.Errorf("limit %v/s: admitted %.2f × the limit (want ≥ %v), %.1f%% of attempts refused (want ≤ %v%%)", limit, share, tc.minShare, pct, tc.maxRefused)
		}
	}
}

// A rate built up while the client sent little is not cut from itself: a
// cut starts from at most cutCap times the rate admitted over the last
// second.
func TestCutStartsFromAtMostCutCapTimesTheAdmittedRate(t *testing.T) {
	_, p := newClockedPacer()
	p.Engage(1000)
	for range 5 { // 5 admitted answers in the last second
		admit(p)
	}
	throttle(p) // 1 of 6 refused: a cut
	r, engaged := p.Rate()
	if !engaged || r > 20 {
		t.Fatalf("rate %v (engaged %v) after a throttle at 1,000/s with 5 admitted answers, want at most 4 × 5 = 20", r, engaged)
	}

	// Nor does a provider's burst of answers lift the cap, long after slow
	// start: 8 answers in a millisecond are not 10,000 a second.
	clock, q := newClockedPacer()
	q.Engage(100)
	for range 8 {
		clock.Add(100 * time.Microsecond)
		admit(q)
	}
	throttle(q)
	if r, _ := q.Rate(); r > 32 {
		t.Fatalf("rate %v after a throttle at 100/s right after a burst of 8 answers, want at most 4 × 8 = 32", r)
	}
}

// A cut that found nothing admitted for refusingAfter marks the provider
// as refusing everything; the first answer it admits to an attempt sent
// after that cut lets the pacer go at once, as after a quiet spell, even
// before a storm's run of throttles.
func TestAdmittedAfterRefusingEverythingReleases(t *testing.T) {
	clock, p := newClockedPacer()
	p.Engage(10)
	p.inARow = 0
	clock.Add(refusingAfter + 100*time.Millisecond) // (short of ReleaseAfter, which would let go)
	throttle(p)                                     // one throttle, nothing admitted for 1.6 s: refusing
	if !p.refusing {
		t.Fatal("a cut after 1.6 s without an admitted answer did not mark the provider refusing")
	}
	admit(p)
	wantRate(t, p, 0, false)
}

// A rising rate brings the next slot closer: the waiter behind the first
// admitted answer of slow start waits the new interval, not the old one (at
// 1 attempt/s, a second).
func TestRisingRateBringsTheNextSlotCloser(t *testing.T) {
	clock, p := newClockedPacer()
	for range 10 {
		admit(p)
	}
	throttle(p) // engages at 10/s, in slow start, its slot 100 ms away
	wantRate(t, p, 10, true)
	engagedAt := clock.Now()
	admit(p) // an attempt sent before: its slot comes sooner, but not at once
	p.mu.Lock()
	if want := engagedAt.Add(p.interval()); !p.next.Equal(want) || p.rate <= 10 {
		t.Errorf("rate %v, next slot %v after engaging, want a rise and %v: the epoch's first slot an interval after its start", p.rate, p.next.Sub(engagedAt), want.Sub(engagedAt))
	}
	p.mu.Unlock()
	clock.Add(100 * time.Millisecond)
	if _, err := p.Wait(context.Background(), NoMaxWait); err != nil {
		t.Fatal(err)
	}
	taken := clock.Now()
	admit(p) // slow start: the rate rises
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.rate <= 15 {
		t.Fatalf("rate %v after the second admitted answer of slow start, want it to rise", p.rate)
	}
	if want := taken.Add(p.interval()); !p.next.Equal(want) {
		t.Fatalf("next slot %v after the slot taken, want %v (the new rate's interval)", p.next.Sub(taken), want.Sub(taken))
	}
}

// A cut after a fast rise starts from the rate the client sent at: the last
// recentAnswers admitted answers measure the rate admitted lately, which
// the meter of the last second still holds lower, whether the rise was
// long (100 answers) or slow start's first few answers (20).
func TestCutAfterAFastRiseStartsFromTheRate(t *testing.T) {
	for _, tc := range []struct {
		before, answers, throttles int // admitted before engaging, answers since, throttles that cut
		gap                        time.Duration
	}{
		{10, 100, 2, 2 * time.Millisecond}, // 3 of 113 answers refused: the least cut
		{2, 20, 1, 5 * time.Millisecond},   // 2 of 24, 1 of the 21 since engaging: the least cut
	} {
		clock, p := newClockedPacer()
		for range tc.before {
			admit(p)
		}
		throttle(p) // engages in slow start
		for range tc.answers {
			clock.Add(tc.gap)
			admit(p)
		}
		p.mu.Lock()
		rate, metered := p.rate, p.meter.Rate(clock.Now())
		p.mu.Unlock()
		if rate <= cutCap*metered {
			t.Fatalf("%d answers: rate %v, metered %v: the test needs a rate above cutCap times the meter", tc.answers, rate, metered)
		}
		for range tc.throttles {
			throttle(p)
		}
		if r, _ := p.Rate(); math.Abs(r-(1-minCut)*rate) > 1e-6 {
			t.Errorf("%d answers %v apart: rate %v after a throttle at %v, want %v: the least cut from the rate sent at, not from %v × the last second's %v",
				tc.answers, tc.gap, r, rate, (1-minCut)*rate, cutCap, metered)
		}
	}
}

// cutOnce throttles p until it cuts. It returns the rate it cut from and the
// rate admitted over the last second then, and the rate and the plateau after.
func cutOnce(p *Pacer) (from, metered, rate, plateau float64) {
	p.mu.Lock()
	from, metered = p.rate, p.meter.Rate(p.now())
	p.mu.Unlock()
	for before := p.epoch.Load(); p.epoch.Load() == before; {
		throttle(p)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return from, metered, p.rate, p.plateau
}

// Within a second of slow start's end, whose rates the last second still
// holds, a cut's curve flattens at the rate admitted lately (the last
// answers), not the meter's lower one: it climbs back rather than staying
// flat at the new rate. Later it flattens at the last second's rate again,
// which a provider's burst of answers (8 in a millisecond, here) does not
// raise.
func TestPlateauAfterSlowStartFollowsTheLastAnswers(t *testing.T) {
	for _, late := range []bool{false, true} {
		clock, p := newClockedPacer()
		admit(p)
		admit(p)
		throttle(p)     // engages in slow start
		for range 100 { // the rate rises to about 460/s
			clock.Add(2 * time.Millisecond)
			admit(p)
		}
		throttle(p)
		throttle(p) // the cut that ends slow start
		if p.slowStart {
			t.Fatal("still in slow start after its cut")
		}
		if late { // a second and a half at 100 answers/s, then a burst
			for range 150 {
				clock.Add(10 * time.Millisecond)
				admit(p)
			}
			for range 8 {
				clock.Add(100 * time.Microsecond)
				admit(p)
			}
		} else {
			for range 20 {
				clock.Add(2 * time.Millisecond)
				admit(p)
			}
		}
		throttledAt, metered, rate, plateau := cutOnce(p)
		if late {
			if want := max(rate, min(throttledAt, metered)); math.Abs(plateau-want) > 1e-9 {
				t.Errorf("1.5 s after slow start, after a burst: plateau %v, want %v: the last second's %v, not the burst's", plateau, want, metered)
			}
			continue
		}
		if metered >= rate {
			t.Fatalf("metered %v, rate %v: the test needs a meter under the rate", metered, rate)
		}
		if plateau < throttledAt-1e-9 {
			t.Errorf("right after slow start: plateau %v, want the rate throttled, %v (the last answers came at 500/s; the meter says %v)", plateau, throttledAt, metered)
		}
	}
}

// Cuts in a row as slow start ends at a low rate flatten the curve no
// lower than halfway to the rate throttled: the handful of answers admitted
// in the last second say little of the provider's rate. A second after
// slow start's end, that floor is gone. (A slow start that ends on a
// doubling halves the rate instead: lowrate_test.go.)
func TestLowRateCutsAsSlowStartEndsKeepThePlateau(t *testing.T) {
	for _, after := range []time.Duration{500 * time.Millisecond, 1500 * time.Millisecond} {
		clock, p := newClockedPacer()
		for range 5 {
			admit(p)
		}
		throttle(p) // engages at 5/s, in slow start
		clock.Add(300 * time.Millisecond)
		admit(p)    // 9.6/s: a step of 4.6/s, no doubling
		throttle(p) // ends slow start
		if p.slowStart || p.doubled {
			t.Fatalf("in slow start %v, ended on a doubling %v, after its cut; want neither", p.slowStart, p.doubled)
		}
		for elapsed := time.Duration(0); elapsed < after; elapsed += 250 * time.Millisecond {
			clock.Add(250 * time.Millisecond)
			admit(p)
		}
		throttledAt, metered, _, plateau := cutOnce(p)
		floor := (1 + beta) / 2 * throttledAt
		if after < time.Second && plateau < floor-1e-9 {
			t.Errorf("a cut %v after slow start's, at %v/s with %v admitted over the last second: plateau %v, want at least %v", after, throttledAt, metered, plateau, floor)
		}
		if after > time.Second && plateau >= floor {
			t.Errorf("a cut %v after slow start's, at %v/s with %v admitted over the last second: plateau %v, want under the halfway floor %v", after, throttledAt, metered, plateau, floor)
		}
	}
}
