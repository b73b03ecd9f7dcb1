package pacer

import (
	"math"
	"sync"
	"sync/atomic"
	"time"
)

// Rates are in attempts per second.
const (
	beta          = 0.7              // the deepest cut (CUBIC's β)
	regain        = 2.0              // CUBIC's K: seconds of sending back to the plateau
	slowStartStep = math.Ln2 / 0.150 // per admitted answer: doubles every 150 ms while paced
	// slowStartUse is how far above the rate of the last admitted answers
	// slow start raises the rate: not far beyond what the client uses.
	// (Twice held a provider admitting 500/s at 0.86–0.89 × its rate
	// rather than 0.90–0.93.)
	slowStartUse = 4.0
	// MinRate is the floor of the rate while the provider admits nothing:
	// one attempt a second probes whether it admits again.
	MinRate = 1.0
	// minAdmittedRate is the floor of a cut that follows admitted answers,
	// so that a provider admitting 1 request/s is paced just under it.
	minAdmittedRate = MinRate / 2
	// cutCap bounds the rate a cut starts from to a multiple of the
	// admitted rate, so a rate built up while the client sent little is not
	// cut from itself.
	cutCap = 4.0
	// tolerance is the share of throttled answers that costs no cut (BBR
	// tolerates ~2% loss): sporadic throttles say nothing about the rate.
	tolerance = 0.02
	// minCut is the least a cut takes away, so that a cut lands under the
	// limit rather than on it.
	minCut = 0.05
	// curveAnswers is the fewest answers a second of the curve above the
	// plateau takes.
	curveAnswers = 10.0
	// minDepth is how far above the plateau the curve climbs in the 2 s of
	// sending after it reached it: probing goes on, gently.
	minDepth = 0.1
	// refusingAfter is how long without an admitted answer makes a cut a
	// sign that the provider refuses everything.
	refusingAfter = 1500 * time.Millisecond
	// stormThrottles is how many throttles in a row, over refusingAfter,
	// are a storm that the first admitted answer ends: a pacer just under
	// a limit of 1 request/s sees at most one between admitted answers.
	stormThrottles = 3
	// overshot is how far over the spacing of the last admitted answers a
	// low rate is sure to be over the provider's.
	overshot = 1.25
	// rampDoubling is how fast the rate rises once released.
	rampDoubling = 250 * time.Millisecond
	// rampAfter is how many admitted answers since the last throttle the
	// release waits for besides ReleaseAfter: at 1 request/s, a probe
	// every 3 s would be a quarter of the attempts. (With 10, the probes
	// of a pacer settled under a strict limit of 1–2 requests/s were 1 in
	// 11 attempts, most of the 429s it saw.)
	rampAfter = 20
	// recentAnswers is how many of the last admitted answers measure the
	// rate admitted lately, besides the last second.
	recentAnswers = 8
	// dormantRatio is how far above the admitted rate a rising rate holds
	// nothing back any more: the pacer is dormant again.
	dormantRatio = 16.0
)

// ReleaseAfter is how long after its last throttle an engaged pacer starts
// letting go: its rate then doubles every 250 ms until it is dormantRatio
// times the admitted rate, when the pacer is dormant. It exceeds the
// interval at MinRate, so a provider that throttles every probe keeps it
// engaged.
const ReleaseAfter = 3 * time.Second

// Pacer paces a client's attempts at a rate it learns from the provider's
// answers. It is safe for concurrent use.
type Pacer struct {
	now   func() time.Time
	sleep func(time.Duration) // sleepPrecisely, or a test's

	// engaged and epoch are read without the lock. epoch grows at every
	// cut and release, matching an answer with the rate of its attempt.
	engaged atomic.Bool
	epoch   atomic.Uint64
	meter   meter // admitted answers

	mu             sync.Mutex
	refused        meter           // throttled answers
	rate           float64         // while engaged
	next           time.Time       // when the next attempt may leave (GCRA's theoretical arrival time)
	lastSlot       time.Time       // when the last attempt left, or the epoch began if later: the next slot comes an interval after it
	late           time.Duration   // how late a precise sleep wakes the head, on average (sleptLate)
	queue          []chan struct{} // the waiters in arrival order, each closed when it becomes the head
	slowStart      bool            // between engaging and the first cut
	doubled        bool            // slow start's last rise was a doubling
	slowStartEnded time.Time       // when the first cut ended it
	plateau        float64         // where the curve flattens (CUBIC's W_max)
	depth          float64         // how far the curve is below the plateau at clock 0
	clock          float64         // seconds of sending on the curve (CUBIC's t)
	rampFrom       float64         // the rate the release started from (0: not releasing)
	rampStart      time.Time       // when it started

	// The event a throttle of the current epoch belongs to.
	lastThrottle     time.Time // the last throttled answer
	lastAdmitted     time.Time // the last admitted answer seen engaged
	engagedAt        time.Time // when it last engaged: a storm is nothing admitted for refusingAfter since then
	hasty            uint64    // the epoch of an engaging on a lone throttle (judge.go; 0: none)
	sinceThrottle    int       // answers admitted since the last throttle
	inARow           int       // throttles since the last admitted answer
	admittedSinceCut bool
	recent           [recentAnswers]time.Time // when the last admitted answers came, seen engaged, a ring
	recentNext       int                      // the ring's oldest entry, next to be overwritten
	weight           float64                  // admitted answers since the last cut, plus half those before, at most 1/tolerance
	throttled        float64                  // throttles of the current epoch
	epochRate        float64                  // the rate the current epoch began at
	refusing         bool                     // the last cut found nothing admitted for refusingAfter

	// Whether the throttled share follows the rate (judge.go).
	trial         trial     // the cuts being judged
	baseline      float64   // the share learnt not to follow the rate, tolerated
	baselineUntil time.Time // when it lapses
	undone        uint64    // how many trials undid their cuts
}

// New returns a dormant pacer: unpaced until the provider throttles more
// than it tolerates.
func New() *Pacer { return &Pacer{now: time.Now, sleep: sleepPrecisely} }

// Engage engages p at rate, next slot free, flat until the next throttle
// or ReleaseAfter from now. For tests of code that waits on a pacer.
func (p *Pacer) Engage(rate float64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := p.now()
	p.rate, p.next = max(MinRate, rate), now
	p.plateau, p.depth, p.clock, p.slowStart, p.rampFrom = p.rate, 0, 0, false, 0
	p.weight, p.throttled, p.refusing, p.inARow, p.hasty = 0, 0, false, 0, 0
	p.trial = trial{}
	p.lastThrottle, p.lastAdmitted, p.epochRate = now, now, p.rate
	p.engaged.Store(true)
}

// Rate returns the current rate and whether the pacer is engaged (else 0).
func (p *Pacer) Rate() (rate float64, engaged bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.update(p.now())
	if !p.engaged.Load() {
		return 0, false
	}
	return p.rate, true
}

// Engaged reports, without the lock, whether an attempt may have to wait.
func (p *Pacer) Engaged() bool { return p.engaged.Load() }

// update releases p by time. ReleaseAfter after the last throttle, once
// rampAfter answers were admitted since, the rate starts doubling every
// rampDoubling; p is dormant once it is dormantRatio times both where it
// started and the admitted rate, or at once when nothing was admitted for
// ReleaseAfter either (the client is idle). The caller holds p.mu.
func (p *Pacer) update(now time.Time) {
	if !p.engaged.Load() || now.Sub(p.lastThrottle) < ReleaseAfter {
		return
	}
	if now.Sub(p.lastAdmitted) >= ReleaseAfter {
		p.release()
		return
	}
	if p.rampFrom == 0 {
		if p.sinceThrottle < rampAfter {
			return
		}
		p.rampFrom, p.rampStart, p.slowStart = p.rate, now, false
	}
	p.rise(p.rampFrom * math.Exp2(float64(now.Sub(p.rampStart))/float64(rampDoubling)))
	if p.rate >= dormantRatio*max(p.rampFrom, p.meter.Rate(now)) {
		p.release()
	}
}

// release makes p dormant. The caller holds p.mu.
func (p *Pacer) release() {
	p.trial = trial{}
	p.engaged.Store(false)
	p.rampFrom = 0
	p.epoch.Add(1)
}
