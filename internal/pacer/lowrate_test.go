package pacer

import (
	"math"
	"testing"
	"time"
)

// The rules for a provider admitting a few requests/s (issue 40's figure
// 4: strict limiters of 1 and 2 requests/s), where a second holds an
// answer or two.

// Slow start at a low rate doubles at most per admitted answer until 4
// answers say the rate the client uses: a step of 4.6/s would take a pacer
// engaged at 1 attempt/s to 5.6 on its first answer.
func TestLowRateSlowStartDoublesAtMostPerAnswer(t *testing.T) {
	clock, p := newClockedPacer()
	admit(p)
	p.Throttled(0, time.Second) // engaged at the 1/s admitted, in slow start
	want := 1.0
	for range 3 {
		wantRate(t, p, want, true)
		clock.Add(100 * time.Millisecond)
		admit(p)
		want *= 2
	}
	wantRate(t, p, want, true) // 8: three answers, a doubling each
	clock.Add(100 * time.Millisecond)
	admit(p) // a fourth: 4 answers 100 ms apart say 10/s, and slow start steps again
	wantRate(t, p, want+slowStartStep, true)
}

// A cut at a low rate that rose from under the spacing of the last admitted
// answers since the last cut starts from the rate throttled, not from that
// spacing: the answers were the rate's before the rise, not the provider's.
func TestLowRateCutAfterARiseIgnoresTheSpacingBeforeIt(t *testing.T) {
	clock, p := newClockedPacer()
	p.Engage(1.5)
	gap := 2 * time.Second / 3
	for range recentAnswers { // admitted at the rate: the provider's may be higher
		clock.Add(gap)
		admit(p)
	}
	p.mu.Lock()
	p.rate = 2 // the curve rose
	p.mu.Unlock()
	clock.Add(500 * time.Millisecond)
	throttle(p)
	// One throttle after 8 answers: a cut of 1/9 less the tolerance, from
	// 2, not a least cut from the spacing's 1.5.
	want := 2 * (1 - (1.0/(recentAnswers+1) - tolerance))
	if r, _ := p.Rate(); math.Abs(r-want) > 1e-9 {
		t.Fatalf("rate %v after a throttle at 2/s that rose from the spacing's 1.5/s, want %v", r, want)
	}
}

// A cut at a low rate well over the spacing since the last cut (a strict
// limiter of 2/s admitting every other attempt of 3.5/s) is a least cut
// under that spacing, which is what was admitted, and the curve climbs back
// halfway to the rate throttled: the spacing says up to half too little of
// a strict limit.
func TestLowRateCutFromTheSpacingClimbsBackHalfway(t *testing.T) {
	clock, p := newClockedPacer()
	p.Engage(3.5)
	for range recentAnswers {
		clock.Add(4 * time.Second / 7) // 1.75/s
		admit(p)
	}
	clock.Add(100 * time.Millisecond)
	throttle(p)
	p.mu.Lock()
	rate, plateau := p.rate, p.plateau
	p.mu.Unlock()
	if want := (1 - minCut) * 1.75; math.Abs(rate-want) > 1e-6 {
		t.Errorf("rate %v after a throttle at 3.5/s with answers admitted at 1.75/s, want %v: a least cut under the spacing", rate, want)
	}
	if want := (1 - minCut) * (3.5 + 1.75) / 2; math.Abs(plateau-want) > 1e-6 {
		t.Errorf("plateau %v, want %v: a least cut under halfway between the spacing and the rate throttled", plateau, want)
	}
}

// The release waits for rampAfter admitted answers since the last throttle
// besides ReleaseAfter: at 2 requests/s a probe every 10 answers was 1
// attempt in 11 refused by a strict limiter the pacer had settled under.
func TestLowRateReleaseWaitsForTwentyAnswers(t *testing.T) {
	clock, p := newClockedPacer()
	p.Engage(2)
	for range 19 { // 9.5 s, well past ReleaseAfter
		clock.Add(500 * time.Millisecond)
		admit(p)
	}
	clock.Add(2 * rampDoubling)
	if r, engaged := p.Rate(); !engaged || r > 2.5 {
		t.Fatalf("rate %v (engaged %v) after 19 answers at 2/s and no throttle, want no release before 20", r, engaged)
	}
	admit(p)
	p.Rate() // (the release starts at the next look at the clock)
	clock.Add(2 * rampDoubling)
	if r, _ := p.Rate(); r < 7 {
		t.Fatalf("rate %v %v after the 20th answer, want the release's doubling every %v", r, 2*rampDoubling, rampDoubling)
	}
}

// A slow start that ends on a doubling (a strict limit of 1 request/s,
// engaged at 1/s and doubled to 2 by its first admitted answer) halves the
// rate, a least cut under the half, flat there: the provider admitted the
// half. The curve that climbed back to the rate throttled, as at higher
// rates, took a cut or two more within seconds. Its next admitted answer,
// a second later and 1.5 s after the last, ends no storm: the burst's
// throttles before the engaging are not a provider refusing everything.
func TestLowRateSlowStartEndingOnADoublingHalves(t *testing.T) {
	clock, p := newFreshPacer()
	before := p.epoch.Load()
	// A burst of 4 at a strict limiter: 1 admitted among 3 throttled.
	p.Throttled(before, time.Second)
	p.Admitted(before)
	wantRate(t, p, 2, true) // engaged at 1/s, doubled
	p.Throttled(before, time.Second)
	p.Throttled(before, time.Second)
	clock.Add(500 * time.Millisecond)
	throttle(p) // a slot at 2/s: refused
	p.mu.Lock()
	rate, plateau := p.rate, p.plateau
	p.mu.Unlock()
	if want := (1 - minCut) * 1; math.Abs(rate-want) > 1e-9 || math.Abs(plateau-want) > 1e-9 {
		t.Fatalf("rate %v, plateau %v after slow start doubled to 2/s was throttled; want both %v", rate, plateau, want)
	}
	clock.Add(1100 * time.Millisecond) // the next slot at 0.95/s
	admit(p)
	if r, engaged := p.Rate(); !engaged || math.Abs(r-rate) > 0.05 {
		t.Fatalf("rate %v (engaged %v) at the first admitted answer after the halving, want about %v, engaged", r, engaged, rate)
	}
}

// A slow start that ends on a step short of a doubling (1, 2, 4, 8, then
// 12 once 4 answers say the rate, at a strict limiter of 5 requests/s) is
// cut by the share throttled from then on: the answers admitted during the
// climb were at lower rates and say nothing for the rate throttled. Counted
// as if at it, they held each cut to a seventh or so, and the cuts took
// 1.3 s to reach the provider's rate, 40% of the attempts refused meanwhile
// (figure 13 at 5 requests/s: 15.7% of attempts 429s in a third of the
// runs, rather than 4–7%).
func TestLowRateSlowStartPastADoublingCutsByTheShare(t *testing.T) {
	clock, p := newClockedPacer()
	const limit = 5.0
	admit(p)
	p.Throttled(0, 0) // engaged at 1/s
	for range 4 {     // 2, 4, 8, then 12: 4 times the 3/s the answers say
		clock.Add(time.Second / 3)
		admit(p)
	}
	if r, _ := p.Rate(); !p.slowStart || p.doubled || r <= 8 {
		t.Fatalf("rate %v, slow start %v, doubled %v; want over 8 in slow start, not on a doubling", r, p.slowStart, p.doubled)
	}
	// Attempts at the rate, to a strict limiter of 5/s.
	start := clock.Now()
	lastAdmitted := start
	var ended time.Time // when slow start ended
	for ended.IsZero() || clock.Now().Sub(ended) < time.Second {
		if clock.Now().Sub(start) > 10*time.Second {
			t.Fatal("slow start did not end in 10 s at a strict limiter of 5/s at over twice its rate")
		}
		r, _ := p.Rate()
		clock.Add(time.Duration(float64(time.Second) / r))
		if now := clock.Now(); now.Sub(lastAdmitted) >= time.Second/limit {
			lastAdmitted = now
			admit(p)
			continue
		}
		throttle(p)
		if ended.IsZero() && !p.slowStart {
			ended = clock.Now()
		}
	}
	if r, _ := p.Rate(); r > 1.1*limit {
		t.Fatalf("rate %.2f a second after slow start ended at a strict limiter of %g/s, want at most %.2f", r, limit, 1.1*limit)
	}
}
