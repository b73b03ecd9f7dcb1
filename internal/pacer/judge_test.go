package pacer

import (
	"context"
	"testing"
	"time"
)

// unsteady drives p as a client sending flat out at capacity attempts/s
// (paced when p is engaged) for d, the provider throttling the attempts
// throttles says and admitting the rest, on the fake clock. It returns the
// attempts sent.
func unsteady(t *testing.T, clock interface {
	Now() time.Time
	Add(time.Duration)
}, p *Pacer, capacity float64, d time.Duration, throttles func(n int) bool) int {
	t.Helper()
	start, sent := clock.Now(), 0
	for clock.Now().Sub(start) < d {
		p.mu.Lock()
		p.update(clock.Now())
		next, engaged := p.next, p.engaged.Load()
		p.mu.Unlock()
		if engaged && next.After(clock.Now()) { // the head sleeps
			clock.Add(min(next.Sub(clock.Now()), rampDoubling))
			continue
		}
		epoch, err := p.Wait(context.Background(), NoMaxWait)
		if err != nil {
			t.Fatal(err)
		}
		sent++
		if throttles(sent) {
			p.Throttled(epoch, 0)
		} else {
			p.Admitted(epoch)
		}
		clock.Add(time.Duration(float64(time.Second) / capacity))
	}
	return sent
}

// Every 50th, 20th or 10th answer a throttle, whatever the rate (a hot key,
// a lock): the cuts engaging the pacer do not lower the share, so they are
// undone within a few hundred answers (the pacer is dormant again), the
// share becomes the baseline, and the client sends about as much as it
// would without a pacer.
func TestCutIsUndoneWhenTheShareDoesNotFollow(t *testing.T) {
	for _, every := range []int{50, 20, 10} {
		clock, p := newFreshPacer()
		const capacity, d = 1500.0, 4 * time.Second
		engaged := false
		sent := unsteady(t, clock, p, capacity, d, func(n int) bool {
			engaged = engaged || p.Engaged()
			return n%every == 0
		})
		share, undone := p.Unfollowed()
		if !engaged || undone == 0 || p.Engaged() {
			t.Errorf("every %dth throttled: engaged once %v, undone %d times, engaged now %v; want it engaged, then undone and dormant", every, engaged, undone, p.Engaged())
		}
		if want := 1.0 / float64(every); share < want*0.7 || share > want*1.3 {
			t.Errorf("every %dth throttled: baseline %.3f, want about %.3f", every, share, want)
		}
		if ratio := float64(sent) / (capacity * d.Seconds()); ratio < 0.9 {
			t.Errorf("every %dth throttled: sent %.2f × what the client sends unpaced, want ≥ 0.9", every, ratio)
		}
	}
}

// Engaged on the first throttle of a share of 1 in 20 whatever the rate, 1
// in 49 answers, slow start's rise does not read the true share as a rise
// with the rate: the engaging's trial releases the pacer, rather than a cut
// ending it and the curve holding the client under what it sends.
func TestSlowStartDoesNotCutForTheShareItEngagedOnSeenLow(t *testing.T) {
	clock, p := newFreshPacer()
	const capacity, d = 1500.0, 4 * time.Second
	engaged := false
	sent := unsteady(t, clock, p, capacity, d, func(n int) bool {
		engaged = engaged || p.Engaged()
		return n == 49 || n > 49 && n%20 == 9
	})
	if share, undone := p.Unfollowed(); !engaged || undone == 0 || p.Engaged() || share < 0.035 {
		t.Errorf("engaged once %v, undone %d times, engaged now %v, baseline %.3f; want it engaged, then undone and dormant, about 0.05 learnt", engaged, undone, p.Engaged(), share)
	}
	if ratio := float64(sent) / (capacity * d.Seconds()); ratio < 0.9 {
		t.Errorf("sent %.2f × what the client sends unpaced, want ≥ 0.9", ratio)
	}
}

// A throttle that does follow the rate (a provider admitting 1,000/s behind
// a client sending 1,500/s) is not undone: the pacer stays engaged near the
// provider's rate and learns no baseline.
func TestCutStaysWhenTheShareFollows(t *testing.T) {
	clock, p := newFreshPacer()
	const limit = 1000.0
	var last time.Time
	sent := unsteady(t, clock, p, 1500, 6*time.Second, func(int) bool {
		if clock.Now().Sub(last) >= time.Duration(float64(time.Second)/limit) {
			last = clock.Now()
			return false
		}
		return true
	})
	if share, _ := p.Unfollowed(); share != 0 || !p.Engaged() {
		t.Fatalf("baseline %v, engaged %v under a limit; want no baseline, engaged", share, p.Engaged())
	}
	if r, _ := p.Rate(); r > 1.2*limit || r < 0.7*limit {
		t.Fatalf("rate %v under a limit of %v/s after %d attempts", r, limit, sent)
	}
}

// Undone, a cut restores the rate and the curve it changed; later
// throttles of the baseline's share cut no more, a share well above it
// cuts again, and a throttle of most answers forgets the baseline.
func TestUndoRestoresTheRateAndTheBaselineHolds(t *testing.T) {
	clock, p := newClockedPacer()
	for range 200 { // a second at 200/s
		clock.Add(5 * time.Millisecond)
		admit(p)
	}
	p.Engage(200) // flat at 200/s, which the client would exceed
	cut := false
	every := func(k int) func(int) bool {
		return func(n int) bool {
			r, _ := p.Rate()
			cut = cut || r < 200
			return n%k == 0
		}
	}
	unsteady(t, clock, p, 250, 3*time.Second, every(20))
	share, undone := p.Unfollowed()
	if r, _ := p.Rate(); !cut || undone == 0 || r != 200 {
		t.Fatalf("rate %v, undone %d (a cut before: %v) with 1 in 20 answers throttled; want the 200 before the cut, restored", r, undone, cut)
	}
	if share < 0.04 || share > 0.06 {
		t.Fatalf("baseline %v, want about 0.05", share)
	}
	cut = false
	unsteady(t, clock, p, 250, 3*time.Second, every(20)) // the same share: no cut
	if cut {
		t.Fatal("a cut for throttles of the baseline's share")
	}
	unsteady(t, clock, p, 250, time.Second, every(5)) // well above it
	if !cut {
		t.Fatal("no cut once the share rose well above the baseline")
	}
	clock.Add(2 * time.Second)
	for range 5 { // most answers throttled
		throttle(p)
	}
	if share, _ := p.Unfollowed(); share != 0 {
		t.Fatalf("baseline %v once throttles covered most answers, want it forgotten", share)
	}
}

// The baseline lapses baselineMemory after the last throttles of its share.
func TestBaselineLapses(t *testing.T) {
	clock, p := newClockedPacer()
	p.mu.Lock()
	p.baseline, p.baselineUntil = 0.05, clock.Now().Add(baselineMemory)
	p.mu.Unlock()
	if share, _ := p.Unfollowed(); share != 0.05 {
		t.Fatalf("baseline %v, want 0.05", share)
	}
	clock.Add(baselineMemory + time.Millisecond)
	if share, _ := p.Unfollowed(); share != 0 {
		t.Fatalf("baseline %v %v later, want it lapsed", share, baselineMemory)
	}
}

// In the first second of answers a handful of them do not engage the
// pacer (1 in 4 says little), unless most are throttled; and it engages at
// the rate since they began, not the few counted of a whole second.
func TestFirstAnswersEngageOnEnoughOfThem(t *testing.T) {
	clock, p := newFreshPacer()
	for range 3 {
		clock.Add(time.Millisecond)
		admit(p)
	}
	throttle(p)
	if p.Engaged() {
		t.Fatal("engaged by 1 throttle in the first 4 answers")
	}
	for range 96 {
		clock.Add(time.Millisecond)
		admit(p)
	}
	for !p.Engaged() {
		throttle(p)
	}
	r, engaged := p.Rate()
	if !engaged || r < 900 {
		t.Fatalf("Rate() = %v, %v after 99 answers in 100 ms and the throttles that engaged it; want engaged at about 1,000/s", r, engaged)
	}
	_, q := newFreshPacer()
	q.Throttled(0, time.Second)
	if !q.Engaged() {
		t.Fatal("a first answer throttled did not engage: most were")
	}
}

// A new client's first attempts leave together and are answered in any
// order. One throttled of 16, answered before the rest, engages the pacer
// (most of one answer), but the burst's admitted answers undo that: the
// engaging was hasty. (Kept, at MinRate with nothing admitted to judge it
// by, every 10th answer throttled whatever the rate held the client to a
// few percent of its rate.) Enough answers later, a share that does not
// follow the rate engages the pacer at the rate since they began, and the
// trial of the engaging releases it.
func TestAThrottleAnsweredAheadOfItsBurstIsOverruled(t *testing.T) {
	clock, p := newFreshPacer()
	throttle(p) // the 10th of a burst's 16 attempts, answered first
	if !p.Engaged() {
		t.Fatal("a throttle answered first did not engage: most were")
	}
	for i := range 3 { // the burst's next answers, admitted
		if !p.Engaged() {
			t.Fatalf("released after %d admitted answers, with 1 throttled in %d", i, i+1)
		}
		p.Admitted(0)
	}
	if p.Engaged() {
		t.Fatalf("engaged after 1 throttle in %d answers, the rest admitted", overruleAnswers)
	}
	n := 4
	for range 2000 { // 2 s at 1,000/s, every 10th answer throttled
		clock.Add(time.Millisecond)
		if n++; n%10 == 0 {
			throttle(p)
		} else {
			admit(p)
		}
		if r, engaged := p.Rate(); engaged && r < 100 {
			t.Fatalf("engaged at %v/s by every 10th answer throttled at 1,000/s", r)
		}
	}
	if share, undone := p.Unfollowed(); p.Engaged() || undone == 0 || share < 0.05 {
		t.Fatalf("after 2 s of every 10th answer throttled: engaged %v, baseline %v, %d cuts undone; want dormant, the share learnt not to follow the rate", p.Engaged(), share, undone)
	}
}

// A lone throttle is overruled beside a trickle of calls too (one every
// 700 ms, 3 answers counted lately).
func TestALoneThrottleBesideATrickleIsOverruled(t *testing.T) {
	clock, p := newFreshPacer()
	for range 5 {
		clock.Add(700 * time.Millisecond)
		admit(p)
	}
	throttle(p)
	if !p.Engaged() {
		t.Fatal("a throttle in 4 answers did not engage")
	}
	for range 3 {
		p.Admitted(0)
	}
	if p.Engaged() {
		t.Fatal("engaged after a lone throttle answered ahead of its burst, the rest admitted")
	}
}

// Answers that do not make overruleAnswers with at most 1 in 4 throttled
// do not overrule an engaging on a first answer throttled: a strict
// limiter's burst (2 of 4 throttled); nor answers to attempts let through
// before an engaging on enough answers (3 throttles in 103), whose window
// holds 1 in 4 or fewer throttled.
func TestAHastyEngagingStandsUnlessTheBurstOverrulesIt(t *testing.T) {
	_, q := newFreshPacer()
	q.Throttled(0, time.Second) // most of one answer: engaged
	q.Throttled(0, time.Second)
	q.Admitted(0)
	q.Admitted(0)
	if !q.Engaged() {
		t.Fatal("released by a strict limiter's burst, 2 of 4 throttled")
	}
	clock, p := newFreshPacer()
	for range 100 { // 0.5 s at 200/s
		clock.Add(5 * time.Millisecond)
		admit(p)
	}
	before := p.epoch.Load()
	for !p.Engaged() {
		p.Throttled(before, 0)
	}
	for range 10 {
		p.Admitted(before)
	}
	if !p.Engaged() {
		t.Fatal("released by answers to attempts let through before an engaging on 103 answers")
	}
}

// Under curveAnswers attempts/s, a throttle weighs the answers before the
// last cut in full (up to curveAnswers): at 2 requests/s one throttle a
// few answers after a cut is a small cut, not β.
func TestLowRateThrottleWeighsTheAnswersBeforeTheLastCut(t *testing.T) {
	clock, p := newClockedPacer()
	p.Engage(2)
	for range 10 { // 5 s at 2/s
		clock.Add(500 * time.Millisecond)
		admit(p)
	}
	throttle(p)
	first, _ := p.Rate()
	for range 3 {
		clock.Add(500 * time.Millisecond)
		admit(p)
	}
	throttle(p) // 1 throttle in 10 + 3 + 1 answers since and before the cut
	second, _ := p.Rate()
	if second < first*(1-(1.0/14-tolerance))-1e-9 || second >= first {
		t.Fatalf("rate %v after a throttle 3 answers after a cut to %v, want a cut of about 1/14 less the tolerance, not the %v of 1 in 4", second, first, first*beta)
	}
}

// At a low rate well over the spacing of the last admitted answers (a
// strict limiter of 1 request/s behind a rate of 2), a cut starts from that
// spacing, not from the rate: one cut lands under the limit.
func TestLowRateCutStartsFromTheAdmittedSpacing(t *testing.T) {
	clock, p := newClockedPacer()
	p.Engage(2)
	for range 8 { // admitted a second apart: the limit
		clock.Add(time.Second)
		admit(p)
	}
	clock.Add(500 * time.Millisecond)
	throttle(p)
	if r, _ := p.Rate(); r > 1 {
		t.Fatalf("rate %v after a throttle at 2/s with answers admitted 1 s apart, want at most 1", r)
	}
}

// A trial that finds the share followed the cut forgets a baseline learnt
// before: the throttles are the rate's now (an opening burst may have
// passed for a hot key).
func TestFollowedTrialForgetsTheBaseline(t *testing.T) {
	clock, p := newClockedPacer()
	for range 1000 { // a second at 1,000/s
		clock.Add(time.Millisecond)
		admit(p)
	}
	p.Engage(1150) // flat, over the limit by about 13%: over the baseline's 8.25%
	p.mu.Lock()
	p.baseline, p.baselineUntil = 0.05, clock.Now().Add(time.Hour) // (not to lapse meanwhile)
	p.mu.Unlock()
	const limit = 1000.0
	var last time.Time
	unsteady(t, clock, p, 1500, 3*time.Second, func(int) bool {
		if clock.Now().Sub(last) >= time.Duration(float64(time.Second)/limit) {
			last = clock.Now()
			return false
		}
		return true
	})
	if share, _ := p.Unfollowed(); share != 0 {
		t.Fatalf("baseline %v after throttles that follow the rate, want it forgotten", share)
	}
}
