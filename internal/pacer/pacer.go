package pacer

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// Rates are in attempts per second.
const (
	beta          = 0.7              // the deepest cut (CUBIC's β)
	regain        = 2.0              // CUBIC's K: seconds of sending back to the plateau
	slowStartStep = math.Ln2 / 0.150 // per admitted answer: doubles every 150 ms while paced
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
	// rampDoubling is how fast the rate rises once released.
	rampDoubling = 250 * time.Millisecond
	// rampAfter is how many admitted answers since the last throttle the
	// release waits for besides ReleaseAfter: at 1 request/s, a probe
	// every 3 s would be a quarter of the attempts.
	rampAfter = 10
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
	slowStartEnded time.Time       // when the first cut ended it
	plateau        float64         // where the curve flattens (CUBIC's W_max)
	depth          float64         // how far the curve is below the plateau at clock 0
	clock          float64         // seconds of sending on the curve (CUBIC's t)
	rampFrom       float64         // the rate the release started from (0: not releasing)
	rampStart      time.Time       // when it started

	// The event a throttle of the current epoch belongs to.
	lastThrottle     time.Time // the last throttled answer
	lastAdmitted     time.Time // the last admitted answer seen engaged
	sinceThrottle    int       // answers admitted since the last throttle
	inARow           int       // throttles since the last admitted answer
	admittedSinceCut bool
	recent           [recentAnswers]time.Time // when the last admitted answers came, seen engaged, a ring
	recentNext       int                      // the ring's oldest entry, next to be overwritten
	weight           float64                  // admitted answers since the last cut, plus half those before, at most 1/tolerance
	throttled        float64                  // throttles of the current epoch
	refusing         bool                     // the last cut found nothing admitted for refusingAfter
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
	p.weight, p.throttled, p.refusing, p.inARow = 0, 0, false, 0
	p.lastThrottle, p.lastAdmitted = now, now
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
	if p.rate >= dormantRatio*max(p.rampFrom, p.meter.rate(now)) {
		p.release()
	}
}

// release makes p dormant. The caller holds p.mu.
func (p *Pacer) release() {
	p.engaged.Store(false)
	p.rampFrom = 0
	p.epoch.Add(1)
}

// Refusal is Wait's error for a wait it would not start: the next slot is
// after the context's deadline, or further away than MaxWait.
type Refusal struct {
	Wait     time.Duration // how far away the slot was
	Deadline bool          // the context's deadline was the reason
	MaxWait  time.Duration // the longest wait allowed, when it was the reason
}

func (r *Refusal) Error() string {
	if r.Deadline {
		return fmt.Sprintf("adaptive rate limit: the next send slot is %v away, after the deadline", r.Wait.Round(time.Millisecond))
	}
	return fmt.Sprintf("adaptive rate limit: the next send slot is %v away, longer than the %v a wait may last", r.Wait.Round(time.Millisecond), r.MaxWait)
}

// RetryAfter returns how far away the slot was: when to try again.
func (r *Refusal) RetryAfter() time.Duration { return r.Wait }

// Unwrap returns context.DeadlineExceeded when the deadline was the reason.
func (r *Refusal) Unwrap() error {
	if r.Deadline {
		return context.DeadlineExceeded
	}
	return nil
}

// NoMaxWait is Wait's maxWait for a wait bounded by the context alone.
const NoMaxWait time.Duration = -1

// Wait waits for the next send slot and returns the epoch it was granted
// in, for Throttled. A wait that would end after ctx's deadline or last
// longer than maxWait (0 allows none) is not started: Wait returns a
// *Refusal at once. When ctx ends during the wait, the error wraps ctx.Err().
func (p *Pacer) Wait(ctx context.Context, maxWait time.Duration) (uint64, error) {
	// epoch first: if a cut engages the pacer in between, the attempt
	// leaves unpaced with the epoch before the cut, which cannot cut again.
	epoch := p.epoch.Load()
	if !p.engaged.Load() {
		return epoch, nil
	}
	return p.waitEngaged(ctx, maxWait)
}

// waitEngaged is apart from Wait so that the dormant path has no defer.
func (p *Pacer) waitEngaged(ctx context.Context, maxWait time.Duration) (uint64, error) {
	p.mu.Lock()
	start := p.now()
	p.update(start)
	if !p.engaged.Load() || (len(p.queue) == 0 && !start.Before(p.next)) {
		epoch := p.take(start)
		p.mu.Unlock()
		return epoch, nil
	}
	if err := ctx.Err(); err != nil {
		p.mu.Unlock()
		return 0, fmt.Errorf("waiting on the adaptive rate limit: %w", err)
	}
	// The queue ahead counts at the rate of the moment, except while the
	// rate is about to rise (slow start) or the pacer to let go (the
	// provider refusing everything): the head re-checks its own slot.
	ahead := len(p.queue)
	if p.slowStart || p.refusing {
		ahead = 0
	}
	if err := p.refuse(ctx, start, start, ahead, maxWait); err != nil {
		p.mu.Unlock()
		return 0, err
	}
	// Only the head of the queue sleeps, until the next slot at the rate of
	// the moment: the waiters behind it go faster as soon as the rate grows.
	w := make(chan struct{})
	p.queue = append(p.queue, w)
	if len(p.queue) == 1 {
		close(w)
	}
	p.mu.Unlock()
	select {
	case <-w:
	case <-ctx.Done():
		return 0, p.leave(ctx, w)
	}
	var timer *time.Timer
	var target, woke time.Time // of the last precise sleep
	var early time.Duration    // how early the head may take its slot after one
	for {
		p.mu.Lock()
		now := p.now()
		p.update(now)
		if !target.IsZero() {
			p.sleptLate(woke.Sub(target))
			target = time.Time{}
		}
		if !p.engaged.Load() || !now.Before(p.next.Add(-early)) {
			epoch := p.take(now)
			p.remove(w)
			p.mu.Unlock()
			return epoch, nil
		}
		// A cut while it queued may have moved the slot out of reach.
		if err := p.refuse(ctx, start, now, 0, maxWait); err != nil {
			p.remove(w)
			p.mu.Unlock()
			return 0, err
		}
		// At most rampDoubling: a release may bring the slot closer.
		delay := min(p.next.Sub(now), rampDoubling)
		lead := p.lead()
		p.mu.Unlock()
		if delay <= precise {
			// It wakes about lead late: sleeping that much less keeps
			// the gaps at the interval on average.
			d := max(delay-lead, 0)
			p.sleep(d)
			target, woke, early = now.Add(d), p.now(), lead
			if d > 0 && !woke.After(now) {
				// The clock did not move while the thread slept: a
				// testing/synctest bubble's, which moves only while
				// every goroutine waits on it. A timer lets it move
				// (else the head would spin at the same instant).
				time.Sleep(d)
				woke = p.now()
			}
			if ctx.Err() != nil { // it ended during the sleep, which does not watch it
				return 0, p.leave(ctx, w)
			}
			continue
		}
		early = 0
		// A timer may wake a millisecond late (sleep_linux.go): it wakes
		// the head short of its slot, and the last stretch is slept
		// precisely.
		delay -= precise
		if timer == nil {
			timer = time.NewTimer(delay)
			defer timer.Stop()
		} else {
			timer.Reset(delay)
		}
		select {
		case <-timer.C:
		case <-ctx.Done():
			return 0, p.leave(ctx, w)
		}
	}
}

// sleptLate records how late a precise sleep woke the head: about 0.1 ms
// on Linux, whatever it slept, which at 500 attempts/s is 5% of the rate.
// Each sample counts for an eighth, at most precise/4. The caller holds p.mu.
func (p *Pacer) sleptLate(late time.Duration) {
	p.late += (min(max(late, 0), precise/4) - p.late) / 8
}

// lead is how much less than the wait for its slot the head sleeps
// precisely, and how early it may take the slot: how late such a sleep
// wakes on average, at most an eighth of the interval (at the rate of the
// moment, which may have risen since it was learnt). The caller holds p.mu.
func (p *Pacer) lead() time.Duration { return min(p.late, p.interval()/8) }

// leave takes w out of the queue when ctx ended.
func (p *Pacer) leave(ctx context.Context, w chan struct{}) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.remove(w)
	return fmt.Errorf("waiting on the adaptive rate limit: %w", ctx.Err())
}

// take hands out the slot at now and returns the epoch. The caller holds p.mu.
func (p *Pacer) take(now time.Time) uint64 {
	if p.engaged.Load() {
		// Timed from when the slot is taken: a slot taken late is lost,
		// not made up by a shorter gap that a provider with a burst of 1
		// would refuse; one taken early, by the head's lead at most, moves
		// the next as early, so that the gaps keep the interval on average.
		p.lastSlot = later(p.next.Add(-p.lead()), now)
		p.next = p.lastSlot.Add(p.interval())
	}
	return p.epoch.Load()
}

// refuse returns a *Refusal when a waiter that started at start, behind
// ahead others, would be let through too late. The caller holds p.mu.
func (p *Pacer) refuse(ctx context.Context, start, now time.Time, ahead int, maxWait time.Duration) error {
	slot := later(p.next, now).Add(time.Duration(ahead) * p.interval())
	if dl, ok := ctx.Deadline(); ok && slot.After(dl) {
		return &Refusal{Wait: slot.Sub(now), Deadline: true}
	}
	if maxWait >= 0 && slot.Sub(start) > maxWait {
		return &Refusal{Wait: slot.Sub(now), MaxWait: maxWait}
	}
	return nil
}

// remove takes w out of the queue, waking the next head. The caller holds p.mu.
func (p *Pacer) remove(w chan struct{}) {
	if i := slices.Index(p.queue, w); i >= 0 {
		p.queue = slices.Delete(p.queue, i, i+1)
		if i == 0 && len(p.queue) > 0 {
			close(p.queue[0])
		}
	}
}

func (p *Pacer) interval() time.Duration { return time.Duration(float64(time.Second) / p.rate) }

func later(t, u time.Time) time.Time {
	if t.After(u) {
		return t
	}
	return u
}

// Admitted records an answer the provider's limit let through (a 2xx, or a
// 4xx other than a rate-limited one) to an attempt let through in epoch
// (Wait's result).
func (p *Pacer) Admitted(epoch uint64) {
	now := p.now()
	p.meter.add(now)
	if !p.engaged.Load() {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.update(now)
	if !p.engaged.Load() {
		return
	}
	// Nothing admitted for refusingAfter, and a few throttles in a row:
	// the provider refused everything, as in a storm, and admits again.
	// Back to how it was before, as after a quiet spell, whichever epoch
	// the attempt was let through in (the cuts may not have seen it yet).
	storm := now.Sub(p.lastAdmitted) >= refusingAfter && p.inARow >= stormThrottles
	p.lastAdmitted, p.inARow = now, 0
	p.sinceThrottle++
	if storm {
		p.release()
		return
	}
	if p.refusing {
		if epoch == p.epoch.Load() {
			// The provider refused everything for a while and now admits
			// again: back to how it was before, as after a quiet spell.
			p.release()
			return
		}
		// Answered after the cut, but sent before it: the provider was
		// admitting attempts then, so it was not refusing everything.
		p.refusing = false
	}
	p.admittedSinceCut = true
	p.recent[p.recentNext] = now
	p.recentNext = (p.recentNext + 1) % recentAnswers
	p.weight = min(p.weight+1, 1/tolerance)
	if p.rampFrom > 0 {
		return // the release sets the rate
	}
	if p.slowStart {
		// The first throttle may come before the rest of its burst's answers.
		p.rise(max(p.rate+slowStartStep, p.meter.rate(now)))
		return
	}
	// The clock runs in seconds of sending; above the plateau, at least
	// curveAnswers to a second: at a low rate a probe every few answers
	// would be a large share of them.
	if p.clock < regain {
		p.clock += 1 / p.rate
	} else {
		p.clock += 1 / max(p.rate, curveAnswers)
	}
	x := (p.clock - regain) / regain
	p.rise(max(minAdmittedRate, p.plateau+p.depth*x*x*x))
}

// rise raises the rate to rate, if higher. The slot after the last one
// then comes at the new rate, not the old: at 1 attempt/s, the waiter
// behind would otherwise wait the old second. The caller holds p.mu.
func (p *Pacer) rise(rate float64) {
	if rate <= p.rate {
		return
	}
	p.rate = rate
	if next := p.lastSlot.Add(p.interval()); next.Before(p.next) {
		p.next = next
	}
}

// Throttled records a rate-limited answer to an attempt let through in
// epoch (Wait's result); retryAfter is the wait it asked for, or 0.
func (p *Pacer) Throttled(epoch uint64, retryAfter time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := p.now()
	p.update(now)
	p.refused.add(now)
	admitted, refused := p.meter.rate(now), p.refused.rate(now)
	// The share of the last second's answers the provider refused, beyond
	// what the pacer tolerates: sporadic refusals (a hot partition, one
	// replica) say nothing about the rate.
	excess := refused/(admitted+refused) - tolerance
	if !p.engaged.Load() {
		if excess > 0 {
			p.engage(now, admitted, retryAfter)
		}
		return
	}
	p.lastThrottle, p.sinceThrottle = now, 0
	p.inARow++
	if epoch != p.epoch.Load() {
		return // let through before the last cut, which already answered it
	}
	// The share refused since the last cut, too: a throttle after many
	// admitted answers at the current rate cuts little or nothing. (Not
	// while the rate rises on release: a throttle then is news.)
	p.throttled++
	if p.rampFrom == 0 {
		excess = min(excess, p.throttled/(p.weight+p.throttled)-tolerance)
	}
	if excess <= 0 {
		return // within the tolerance: no cut, but it keeps the pacer engaged
	}
	if p.rampFrom > 0 {
		// The release found the limit: back to the rate the provider
		// admitted without a throttle for ReleaseAfter, probing above it.
		// The curve goes on where it was, if it had passed the plateau.
		p.rate, p.rampFrom = p.rampFrom, 0
		if p.clock < regain || p.depth == 0 {
			p.setCurve(p.rate)
		}
		p.newEpoch(now, admitted)
		return
	}
	// The rate admitted lately is the last second's, except in slow start
	// and for a second after its end, which that second lags behind: then
	// the last answers' when they say more. (Not always: right after a
	// provider's burst, its last answers say nothing of its rate.)
	lately := admitted
	if p.slowStart || now.Sub(p.slowStartEnded) < time.Second {
		lately = p.admittedLately(now, admitted)
	}
	// (Not under a meter of whole seconds, which says little under MinRate.)
	throttledAt := p.rate
	if admitted > 0 {
		throttledAt = min(throttledAt, cutCap*max(lately, MinRate))
	}
	// One cut per event, taking away the share refused beyond the
	// tolerance, at most to β: sending at r to a provider that admits c,
	// the next rate is about c.
	floor := MinRate
	if p.admittedSinceCut {
		floor = minAdmittedRate
	}
	p.rate = max(min(floor, throttledAt), max(beta, 1-max(excess, minCut))*throttledAt)
	// The curve flattens at the rate admitted lately (the provider's rate,
	// when it refused some), never below the new rate. A provider that
	// admitted nothing since the last cut is refusing everything, as in an
	// outage: the plateau stays at what it admitted before, where the
	// first admitted probe takes the rate back.
	plateau := p.plateau
	switch {
	case p.slowStart: // the rate overshot, by at most a doubling: back to where it did
		plateau = throttledAt
		p.slowStartEnded = now
	case p.admittedSinceCut:
		plateau = max(p.rate, min(throttledAt, lately))
	}
	if p.admittedSinceCut && now.Sub(p.slowStartEnded) < time.Second && admitted < curveAnswers {
		// Cuts in a row as slow start ends, with a handful of answers that
		// say little of the provider's rate: no lower than halfway to the
		// rate throttled (CUBIC's fast convergence), so that a provider at
		// 5 requests/s is not paced at 3.5 for seconds.
		plateau = max(plateau, (1+beta)/2*throttledAt)
	}
	p.slowStart = false
	p.setCurve(plateau)
	p.newEpoch(now, admitted)
}

// admittedLately returns the rate admitted lately: over the last second
// (admitted), or over the last recentAnswers admitted answers (at least 4
// since the pacer engaged) when that says
// more, as it does while the rate rises fast: the second then still holds
// the lower rate before. The caller holds p.mu.
func (p *Pacer) admittedLately(now time.Time, admitted float64) float64 {
	for i := range recentAnswers - 3 { // the oldest answer the ring holds
		oldest := p.recent[(p.recentNext+i)%recentAnswers]
		if oldest.IsZero() {
			continue
		}
		if !now.After(oldest) {
			return admitted
		}
		// The answers from the oldest on, over the time since it: the
		// rate they would make if the next came now, which leans high by
		// one answer in recentAnswers-i for a steady rate.
		return max(admitted, float64(recentAnswers-i)/now.Sub(oldest).Seconds())
	}
	return admitted
}

// setCurve starts CUBIC's curve from the current rate towards plateau,
// climbing at least minDepth·plateau above it in the 2 s of sending after
// it reaches it. The caller holds p.mu.
func (p *Pacer) setCurve(plateau float64) {
	p.plateau = max(plateau, p.rate)
	p.depth = max(p.plateau-p.rate, minDepth*p.plateau)
	// The clock where plateau + depth·((clock−K)/K)³ is the rate.
	p.clock = regain * (1 - math.Cbrt((p.plateau-p.rate)/p.depth))
}

// engage engages a dormant p at the rate admitted over the last second, at
// least one attempt per Retry-After, in slow start. The caller holds p.mu.
func (p *Pacer) engage(now time.Time, measured float64, retryAfter time.Duration) {
	// A slot every Retry-After at least, so a lone call's retry finds its slot free.
	floor := 0.0
	if retryAfter > 0 {
		floor = float64(time.Second) / float64(retryAfter)
	}
	p.rate, p.slowStart = max(MinRate, measured, floor), true
	p.plateau, p.depth, p.clock, p.weight = p.rate, 0, 0, 0
	p.lastThrottle, p.lastAdmitted, p.inARow = now, time.Time{}, 1
	if measured > 0 {
		p.lastAdmitted = now
	}
	p.recent = [recentAnswers]time.Time{}
	// Engaged before the new epoch: an attempt that reads the new epoch
	// (Wait reads it first) then finds the pacer engaged and waits for
	// its slot, rather than leaving unpaced with an epoch whose throttle
	// would cut.
	p.engaged.Store(true)
	p.newEpoch(now, measured)
}

// newEpoch starts an event: attempts let through from now on carry a new
// epoch, and the next slot is one interval away. The caller holds p.mu.
func (p *Pacer) newEpoch(now time.Time, measured float64) {
	p.admittedSinceCut, p.weight, p.throttled = false, p.weight/2, 0
	p.refusing = now.Sub(p.lastAdmitted) >= refusingAfter && measured == 0
	p.lastSlot = now
	p.next = now.Add(p.interval())
	p.epoch.Add(1)
}

// meter counts admitted answers lock-free in one-second buckets: bucket s%2
// holds second s's low 32 bits above its count.
type meter struct{ buckets [2]atomic.Uint64 }

func (m *meter) add(now time.Time) {
	s := now.Unix()
	b := &m.buckets[s&1]
	tag := uint64(uint32(s)) << 32
	for {
		v := b.Load()
		if v&^(1<<32-1) == tag { // (off by one if second s+2 took it over since)
			b.Add(1)
			return
		}
		if b.CompareAndSwap(v, tag|1) {
			return
		}
	}
}

// count returns the answers counted in second s.
func (m *meter) count(s int64) float64 {
	if v := m.buckets[s&1].Load(); v>>32 == uint64(uint32(s)) {
		return float64(uint32(v))
	}
	return 0
}

// rate estimates the answers admitted in the second before now.
func (m *meter) rate(now time.Time) float64 {
	return m.count(now.Unix()) + m.count(now.Unix()-1)*(1-float64(now.Nanosecond())/1e9)
}
