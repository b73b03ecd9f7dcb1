package pacer

import (
	"testing"
	"time"
)

// Slow start raises the rate only as far as the client uses it: at most
// 4 times the rate of the last admitted answers. Clients throttled as the
// pacer engages wait out their Retry-After meanwhile; a rate risen while
// they wait would let them all through at once, a storm of throttles. A
// client that does use the rate still has it doubled quickly.
func TestSlowStartRaisesOnlyARateInUse(t *testing.T) {
	clock, p := newClockedPacer()
	for range 200 { // a second at 200/s
		clock.Add(5 * time.Millisecond)
		admit(p)
	}
	for !p.Engaged() { // then clients throttled: engaged at about 200/s
		throttle(p)
	}
	engagedAt, engaged := p.Rate()
	if !engaged || !p.slowStart {
		t.Fatalf("rate %v, engaged %v, slow start %v; want engaged in slow start", engagedAt, engaged, p.slowStart)
	}
	for range 20 { // the few clients not throttled: 20 answers/s
		clock.Add(50 * time.Millisecond)
		admit(p)
	}
	// (The first 3 answers raise it a step each: 4 measure a rate.)
	if r, _ := p.Rate(); r > 1.1*engagedAt || !p.slowStart {
		t.Fatalf("rate %v (slow start %v) after a second of 20 answers/s; want about the %v it engaged at, not raised", r, p.slowStart, engagedAt)
	}
	// The clients back, sending at the rate: it doubles within 300 ms.
	start := clock.Now()
	for clock.Now().Sub(start) < 300*time.Millisecond {
		r, _ := p.Rate()
		clock.Add(time.Duration(float64(time.Second) / r))
		admit(p)
	}
	if r, _ := p.Rate(); r < 2*engagedAt {
		t.Fatalf("rate %v after 300 ms of sending at the rate in slow start, want ≥ %v", r, 2*engagedAt)
	}
}
