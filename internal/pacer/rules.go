package pacer

import (
	"math"
	"time"
)

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
	if p.hasty != 0 && p.overruled(now, epoch) {
		p.release()
		return
	}
	// Nothing admitted for refusingAfter, and a few throttles in a row:
	// the provider refused everything, as in a storm, and admits again.
	// Back to how it was before, as after a quiet spell, whichever epoch
	// the attempt was let through in (the cuts may not have seen it yet).
	// (Seen engaged: a new client's first attempts, throttled together
	// at a strict limiter, are no storm that its one admitted answer
	// ends; released then, it let their retries through unpaced. Nor
	// since slow start's cut when it halved the rate: at 1 attempt/s or
	// under, the next slot is a second away.)
	since := later(p.lastAdmitted, p.engagedAt)
	if p.doubled {
		since = later(since, p.slowStartEnded)
	}
	storm := now.Sub(since) >= refusingAfter && p.inARow >= stormThrottles
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
	if p.judge(now, epoch, false) {
		return // the cuts before were undone
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
		// A rate the client does not use is not raised (TCP's window
		// validation, RFC 7661): at most 4 times the rate of the last admitted
		// answers. Clients throttled as the pacer engaged wait out their
		// Retry-After; a rate risen meanwhile would let them all through at once.
		// Before 4 answers can say that rate, a step is at most a doubling:
		// at 1 attempt/s a step of 4.6 would take a provider admitting 1 to
		// 5.6, and the cuts back would throttle for seconds.
		used, ok := p.recentSpacing()
		step := p.rate + slowStartStep
		if !ok {
			step = min(step, 2*p.rate)
		}
		r := max(step, p.meter.Rate(now))
		if ok {
			r = min(r, slowStartUse*used)
		}
		p.doubled = r == 2*p.rate
		p.rise(r)
		return
	}
	if p.trial.epoch != 0 {
		return // the rate holds while a trial judges the cut to it
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
	admitted, refused := p.meter.Rate(now), p.refused.Rate(now)
	// The share of the last second's answers the provider refused, beyond
	// what the pacer tolerates: sporadic refusals (a hot partition, one
	// replica) say nothing about the rate, nor does a share learnt not to
	// follow it (judge.go).
	share := refused / (admitted + refused)
	p.keepBaseline(now, share)
	excess := share - p.tolerated()
	if !p.engaged.Load() {
		if excess > 0 && !p.fewAnswers(now, share) {
			// (In the first second of answers, over the time since.)
			measured := p.meter.rateSince(now)
			p.engage(now, measured, retryAfter)
			// Engaging paces at the rate admitted: a cut, as far as the
			// throttled share can tell, undone by releasing.
			p.startTrial(now, curve{}, share, measured/(1-min(share, 0.99)))
			p.trial.dormant = true
		}
		return
	}
	if p.baseline == 0 || excess > 0 {
		// (Throttles of the baseline's share do not hold up the release.)
		p.lastThrottle, p.sinceThrottle = now, 0
	}
	p.inARow++
	if p.judge(now, epoch, true) {
		return // the cuts before were undone
	}
	if epoch != p.epoch.Load() {
		return // let through before the last cut, which already answered it
	}
	// The share refused since the last cut, too: a throttle after many
	// admitted answers at the current rate cuts little or nothing. (Not
	// while the rate rises on release: a throttle then is news.)
	p.throttled++
	if p.rampFrom == 0 {
		excess = min(excess, p.throttled/(p.weight+p.throttled)-p.tolerated())
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
	// A cut while a trial judges the last one: the share rose above the
	// one before it, with the rate; it followed.
	p.trial = trial{}
	// What was admitted and sent: in the first second of answers, over the
	// time since they began (that second's count is no rate yet, and a cut
	// judged against it looked like one that did not slow the client: no
	// trial, and cut after cut of a share that does not follow). With
	// nothing admitted, sent is 0: a share over trialShare has no trial.
	admitted = p.meter.rateSince(now)
	was, sent := p.state(), admitted/(1-min(share, 0.99))
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
	spaced := 0.0 // where the provider's rate may be, from the spacing
	if r, ok := p.recentSpacing(); ok && throttledAt < curveAnswers && min(throttledAt, p.epochRate) > overshot*r && !p.slowStart && now.Sub(p.slowStartEnded) >= time.Second {
		// At a low rate the last second holds an answer or two: the
		// spacing of the last admitted answers says the provider's rate
		// when the rate was well over it since the last cut (not around
		// slow start, nor after a rise from under it: they say the rate
		// it rose from). It says up to half too little: a strict limiter
		// admits every other attempt of a rate up to twice its own. So the
		// cut starts from it, and the curve flattens halfway to the rate
		// throttled. (At most at the last second's rate took a strict
		// limiter of 5 requests/s to 0.78 × rather than 0.88–0.90 ×.)
		spaced = (throttledAt + r) / 2
		throttledAt = max(r, minAdmittedRate)
	}
	if p.baseline > 0 {
		// Over a baseline, the share rose with the rate: a cut starts
		// from what was sent, so that the first one slows the client.
		throttledAt = min(throttledAt, max(sent, lately))
	}
	// One cut per event, taking away the share refused beyond the
	// tolerance, at most to β: sending at r to a provider that admits c,
	// the next rate is about c.
	floor := MinRate
	if p.admittedSinceCut {
		floor = minAdmittedRate
	}
	p.rate = max(min(floor, throttledAt), max(beta, 1-max(excess, minCut))*throttledAt)
	halving := p.slowStart && p.doubled
	if halving {
		// Slow start doubled the rate on the last answer: the provider
		// admitted half of it, and refuses the double (TCP Reno's halving).
		// At a few requests/s the curve would climb back over its rate in
		// an answer or two, and cut after cut would follow.
		p.rate = max(min(floor, throttledAt), (1-minCut)*throttledAt/2)
	}
	if spaced > 0 {
		p.rate = max(p.rate, (1-minCut)*throttledAt) // (the spacing is what was admitted)
	}
	// The curve flattens at the rate admitted lately (the provider's rate,
	// when it refused some), never below the new rate. A provider that
	// admitted nothing since the last cut is refusing everything, as in an
	// outage: the plateau stays at what it admitted before, where the
	// first admitted probe takes the rate back.
	plateau := p.plateau
	switch {
	case p.slowStart: // the rate overshot, by at most a doubling: back to where it did
		plateau = throttledAt
		if halving {
			plateau = p.rate // flat at the half, as above
		}
		p.slowStartEnded = now
		if !halving && lately < curveAnswers {
			// The answers admitted during the climb were at lower rates:
			// they say nothing for the rate throttled, and the cuts that
			// follow go by the share throttled. (Counted in full, as at a
			// low rate, they held each cut to a seventh or so: 1.3 s at
			// 40% refused under a strict limiter of 5 requests/s. Above
			// curveAnswers the weight halves at each cut anyway.)
			p.weight = 0
		}
	case spaced > 0: // a least cut under it, as below
		plateau = max(p.rate, (1-minCut)*spaced)
	case p.admittedSinceCut && throttledAt < curveAnswers:
		// At a low rate, a strict limiter refuses the jitter of a rate on
		// its limit: the curve flattens a least cut under it.
		plateau = max(p.rate, (1-minCut)*min(throttledAt, lately))
	case p.admittedSinceCut:
		plateau = max(p.rate, min(throttledAt, lately))
	}
	if p.admittedSinceCut && now.Sub(p.slowStartEnded) < time.Second && admitted < curveAnswers && !p.doubled {
		// Cuts in a row as slow start ends, with a handful of answers that
		// say little of the provider's rate: no lower than halfway to the
		// rate throttled (CUBIC's fast convergence), so that a provider at
		// 5 requests/s is not paced at 3.5 for seconds. (Not after a
		// halving, which is under the provider's rate or close to it.)
		plateau = max(plateau, (1+beta)/2*throttledAt)
	}
	p.slowStart = false
	p.setCurve(plateau)
	p.newEpoch(now, admitted)
	p.startTrial(now, was, share, sent)
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

// recentSpacing returns the rate of the last admitted answers from their
// spacing (at least 4 since the pacer engaged). The caller holds p.mu.
func (p *Pacer) recentSpacing() (float64, bool) {
	var n int
	var oldest, newest time.Time
	for _, t := range p.recent {
		if t.IsZero() {
			continue
		}
		n++
		if oldest.IsZero() || t.Before(oldest) {
			oldest = t
		}
		newest = later(newest, t)
	}
	if n < 4 || !newest.After(oldest) {
		return 0, false
	}
	return float64(n-1) / newest.Sub(oldest).Seconds(), true
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
// least one attempt per Retry-After, in slow start; hasty when on a lone
// throttle (judge.go). The caller holds p.mu.
func (p *Pacer) engage(now time.Time, measured float64, retryAfter time.Duration) {
	// A slot every Retry-After at least, so a lone call's retry finds its slot free.
	floor := 0.0
	if retryAfter > 0 {
		floor = float64(time.Second) / float64(retryAfter)
	}
	p.rate, p.slowStart, p.doubled = max(MinRate, measured, floor), true, false
	p.plateau, p.depth, p.clock, p.weight = p.rate, 0, 0, 0
	p.lastThrottle, p.lastAdmitted, p.inARow, p.engagedAt = now, time.Time{}, 1, now
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
	p.hasty = 0
	if p.lone(now) {
		p.hasty = p.epoch.Load()
	}
}

// newEpoch starts an event: attempts let through from now on carry a new
// epoch, and the next slot is one interval away. The caller holds p.mu.
func (p *Pacer) newEpoch(now time.Time, measured float64) {
	w := p.weight / 2
	if p.rate < curveAnswers {
		// At a low rate a throttle is a large share of the few answers
		// since the last cut: those before count in full, up to
		// curveAnswers, so that one throttle at 1 request/s is not a 30% cut.
		w = max(w, min(p.weight, curveAnswers))
	}
	p.admittedSinceCut, p.weight, p.throttled = false, w, 0
	p.refusing = now.Sub(p.lastAdmitted) >= refusingAfter && measured == 0
	p.lastSlot, p.epochRate = now, p.rate
	p.next = now.Add(p.interval())
	p.epoch.Add(1)
}
