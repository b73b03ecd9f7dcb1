package pacer

import (
	"testing"
	"time"
)

// Throttles that come together after a cut are one event: once the cut
// admitted answers again, the share refused since it is over at least the
// answers of cutEvent at the rate (100 at 500/s), so two throttles bunched
// by a busy machine's timers a few answers after a cut do not cut again;
// a third does, as does a throttle while nothing was admitted since the cut
// (a provider refusing everything).
func TestThrottlesTogetherAfterACutAreOneEvent(t *testing.T) {
	clock, p := newClockedPacer()
	p.Engage(500)
	for range 500 { // a second at 500/s, flat
		clock.Add(2 * time.Millisecond)
		admit(p)
	}
	_, _, rate, _ := cutOnce(p) // enough throttles over the second to cut
	noTrial(p)
	epoch := p.epoch.Load()
	for range 10 { // answers at the new rate
		clock.Add(2 * time.Millisecond)
		admit(p)
	}
	throttle(p)
	throttle(p) // 2 of 37 answers since the cut (half those before counting): 5%, but 2 of the 100 of 250 ms at 500/s
	if r, _ := p.Rate(); p.epoch.Load() != epoch || r < rate {
		t.Fatalf("rate %v, epoch %d after 2 throttles 10 answers after a cut to %v (epoch %d); want no cut: one event", r, p.epoch.Load(), rate, epoch)
	}
	throttle(p) // 3 of 100: over the 2%
	if p.epoch.Load() == epoch {
		t.Fatal("no cut after 3 throttles within 250 ms at 500/s, a share of 3% of its answers")
	}

	// Nothing admitted since the last cut: the first throttle cuts again.
	noTrial(p)
	epoch = p.epoch.Load()
	throttle(p)
	if p.epoch.Load() == epoch {
		t.Fatal("no cut for a throttle while nothing was admitted since the last cut")
	}
}

// At a low rate the answers of cutEvent are few: a throttle after a
// handful of admitted answers cuts as before (at 10/s, 2.5 answers).
func TestLowRateThrottleAfterACutStillCuts(t *testing.T) {
	clock, p := newClockedPacer()
	p.Engage(10)
	throttle(p) // nothing admitted: the deepest cut
	epoch := p.epoch.Load()
	for range 3 {
		clock.Add(100 * time.Millisecond)
		admit(p)
	}
	throttle(p)
	if p.epoch.Load() == epoch {
		t.Fatal("no cut for 1 throttle in 4 answers at 10/s")
	}
}

// noTrial makes p's last cut one no trial judges, as one that did not slow
// what the client sent (slow start's) or of a share over trialShare: the
// share since it is all that holds the next cut back.
func noTrial(p *Pacer) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.trial = trial{}
}

// A new client's first attempts throttled together (a strict limiter with
// a burst of 1 admits one of them) are no storm: the one admitted answer,
// right after the throttles engaged the pacer, does not release it, or the
// retries of the rest would come back unpaced.
func TestFirstBurstThrottledIsNoStorm(t *testing.T) {
	clock, p := newFreshPacer()
	before := p.epoch.Load()
	for range 20 {
		p.Throttled(before, time.Second)
	}
	if !p.Engaged() {
		t.Fatal("20 throttles of a new client's first attempts did not engage the pacer")
	}
	clock.Add(5 * time.Millisecond)
	p.Admitted(before)
	if !p.Engaged() {
		t.Fatal("released by the first burst's one admitted answer: no storm, nothing was admitted for less than refusingAfter")
	}
}

// In a client's first second of answers, a cut is judged against what it
// sent over the time since they began, not the second's count so far: a
// client starting at 1,000 requests/s cut to 950 is slowed, and a trial
// judges the cut (a cut thought not to slow the client has none, and
// every 20th answer throttled whatever the rate cut it again and again).
func TestCutInTheFirstSecondIsJudged(t *testing.T) {
	clock, p := newFreshPacer()
	for range 300 { // 0.3 s at 1,000/s, dormant
		clock.Add(time.Millisecond)
		admit(p)
	}
	p.Engage(1000)
	cutOnce(p)
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.trial.epoch == 0 {
		t.Fatalf("no trial of a cut to %v in the first second of answers at 1,000/s", p.rate)
	}
}
