package pacer

import (
	"testing"
	"time"
)

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
