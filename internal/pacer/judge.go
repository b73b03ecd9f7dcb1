package pacer

import "time"

// Cut only what a cut cures. A throttle whose share does not follow the rate
// sent (a hot partition, a per-object lock, one bad replica behind a
// balancer, arrival jitter at a strict limiter) is not cured by a cut: cut
// after cut would take the rate down to almost nothing. So the first cut
// that slows what the client sends starts a trial: the answers to the
// attempts let through after it (its epoch and later ones, a few hundred or
// a second or two's) are compared with the share throttled before it. When
// the share fell less than halfway to what it would have for a throttle
// that follows the rate (TCP Westwood and Veno tell random loss from
// congestion so, and do not cut for it), the cuts are undone, and throttles
// of that share stop cutting: it is the baseline, tolerated on top of the
// 2% (throttled calls are retried on their own backoff and Retry-After).
// A share above it cuts again, as does a throttle of most answers (the
// baseline is then forgotten), and the baseline lapses when throttles of
// its share stop.
const (
	// judgeAnswers is the fewest answers after a cut that judge it, and
	// judgeThrottles how many throttles they hold at the share before it,
	// so that a small share is judged on enough of them (500 answers for
	// 2%, 100 for 10%).
	judgeAnswers   = 50
	judgeThrottles = 10
	// engageAnswers is the fewest answers in the first second of answers
	// whose share of throttles engages a dormant pacer, unless most were
	// throttled (fewAnswers); overruleAnswers the fewest that overrule an
	// engaging on a lone throttle (overruled).
	engageAnswers   = 20
	overruleAnswers = 4
	// judgeWithin is how long a trial waits for them: then it judges on
	// what came, if at least judgeFewest answers; under that (a provider
	// of a few requests/s) the cut stays, as it would without a trial.
	judgeWithin = 2 * time.Second
	judgeFewest = 30
	// mostAnswers is the share of throttles that always cuts: a provider
	// refusing most attempts is not a hot key. Over trialShare, a cut is
	// not judged: the share of a hot key, a lock or jitter is smaller, and
	// the trial would hold back the cuts a provider far over its limit needs.
	mostAnswers = 0.5
	trialShare  = 0.15
	// binding is how far above the rate sent over the last second (which
	// lags a rise) a rate still holds the client back.
	binding = 1.1
	// baselineMargin is how much above the baseline the share must be to
	// cut, besides the tolerance: the share over a second is noisy.
	baselineMargin = 1.25
	// trialMargin is how much above the share before a trial's cut the
	// share must rise, with the rate, to cut again during the trial.
	trialMargin = 2.0
	// baselineMemory is how long the baseline lasts without throttles of
	// its share.
	baselineMemory = 10 * time.Second
)

// curve is the state a cut changes, which a trial restores.
type curve struct {
	rate, plateau, depth, clock float64
	slowStart                   bool
	slowStartEnded              time.Time
}

// trial judges the cuts since at: whether the throttled share followed.
type trial struct {
	epoch               uint64    // the first epoch after the cut (0: no trial)
	at                  time.Time // when it cut
	before              float64   // the share throttled over the second before
	answers             float64   // the answers over that second (Meter.Rate) the share is of
	sent                float64   // the attempts/s sent over the second before
	lowest              float64   // the rate the cut set
	admitted, throttled float64   // answers to attempts of its epochs
	undo                curve     // the state before the cut
	dormant             bool      // the pacer was dormant before: undone, it is again
}

// state returns the curve a cut is about to change. The caller holds p.mu.
func (p *Pacer) state() curve {
	return curve{p.rate, p.plateau, p.depth, p.clock, p.slowStart, p.slowStartEnded}
}

// tolerated returns the share of throttles that costs no cut: the
// tolerance, and the baseline learnt not to follow the rate or, while a
// trial judges whether the share before it does, up to twice that share:
// cuts in a row for a share that may not follow would be undone with the
// first. The caller holds p.mu.
func (p *Pacer) tolerated() float64 {
	b := baselineMargin * p.baseline
	switch {
	case p.trial.epoch == 0:
	case p.slowStart:
		// The engaging's trial: a rise in the share with the rate says it
		// at once. A share before of one throttle counts as two, so that
		// a share of 1 in 20 engaged on 1 in 49 is no rise (slow start's
		// cut then ended the trial that would have released the pacer, and
		// the curve held the client at 0.7 × its rate for 3 s).
		b = max(b, baselineMargin*max(p.trial.before, 2/max(p.trial.answers, 1)))
	default:
		// (Twice the share before: the cut came as the share crossed
		// the tolerance, which may be short of where it settles.)
		b = max(b, trialMargin*p.trial.before)
	}
	return tolerance + b
}

// keepBaseline forgets the baseline when it lapsed or throttles cover most
// answers, and keeps it while throttles of its share go on. The caller
// holds p.mu.
func (p *Pacer) keepBaseline(now time.Time, share float64) {
	switch {
	case p.baseline == 0:
	case share > mostAnswers || now.After(p.baselineUntil):
		p.baseline = 0
	case share >= p.baseline/2 && share <= p.tolerated():
		p.baselineUntil = now.Add(baselineMemory)
	}
}

// fewAnswers reports whether the share throttled is of too few answers to
// engage a dormant pacer: in the first second of answers, fewer than
// engageAnswers, unless most were throttled (1 in 4 answers throttled
// says little; 2 in 20 more). The caller holds p.mu.
func (p *Pacer) fewAnswers(now time.Time, share float64) bool {
	fresh, admitted := p.meter.fresh(now)
	refused := p.refused.lately(now)
	return fresh && share <= mostAnswers && admitted+refused < engageAnswers
}

// A new client's first attempts (or an idle one's) leave together and are
// answered in any order. A throttle answered first is most of one answer,
// and engages the pacer at MinRate, or one attempt per Retry-After: a lone
// call's retry then finds its slot free, and the calls after it are paced.
// But when the rest of the burst comes back admitted, that was one throttle
// in many: the engaging was hasty, and it is undone, leaving the share of
// enough answers to engage the pacer, with a trial, or not. (Kept, every
// 10th answer throttled whatever the rate held a client at 60 calls/s,
// 0.07 × its rate without the pacer, in about 1 run in 10 with another
// process busy: nothing admitted to judge the engaging by, slow start
// ended at the next throttle and the curve climbed for seconds.)

// lone reports whether the throttle that engages the pacer is the only one
// counted lately (the meter's one to two seconds): of a new or idle
// client's first burst, or of one beside a trickle of calls. (Fewer than 4
// answers counted lately as the test missed a poll every 700 ms, 3 answers
// in that window.) The caller holds p.mu.
func (p *Pacer) lone(now time.Time) bool {
	return p.refused.lately(now) <= 1
}

// overruled reports whether an admitted answer overrules a hasty engaging:
// to an attempt let through before it (epoch), within a second of it, it
// makes at least overruleAnswers answers counted lately, at most 1 in
// overruleAnswers of them throttled. The haste ends at an admitted answer
// to an attempt let through since the engaging, or a second after it. The
// caller holds p.mu.
func (p *Pacer) overruled(now time.Time, epoch uint64) bool {
	if epoch >= p.hasty || now.Sub(p.engagedAt) >= time.Second {
		p.hasty = 0
		return false
	}
	admitted, refused := p.meter.lately(now), p.refused.lately(now)
	if n := admitted + refused; n < overruleAnswers || refused > n/overruleAnswers {
		return false
	}
	p.hasty = 0
	return true
}

// startTrial starts judging the cut just made from was, when the cut slows
// what the client sends (one that does not is free, and says nothing). share is the share throttled before it, sent
// the attempts/s. The caller holds p.mu, after newEpoch.
func (p *Pacer) startTrial(now time.Time, was curve, share, sent float64) {
	if share > trialShare || p.rate >= binding*sent || sent*judgeWithin.Seconds() < judgeFewest {
		return // (nor at a rate too low to judge: a trial holds cuts back)
	}
	if was.rate > 0 {
		sent = min(sent*binding, was.rate) // what the client was let send
	}
	answers := p.meter.Rate(now) + p.refused.Rate(now)
	p.trial = trial{epoch: p.epoch.Load(), at: now, before: share, answers: answers, sent: sent, lowest: p.rate, undo: was}
}

// judge counts an answer to an attempt let through in epoch and, once the
// trial has enough, judges it; it reports whether it undid the cuts. The
// caller holds p.mu.
func (p *Pacer) judge(now time.Time, epoch uint64, throttled bool) bool {
	t := &p.trial
	if t.epoch == 0 || epoch < t.epoch {
		return false
	}
	if throttled {
		t.throttled++
	} else {
		t.admitted++
	}
	n := t.admitted + t.throttled
	if n < max(judgeAnswers, judgeThrottles/t.before) && now.Sub(t.at) < judgeWithin {
		return false
	}
	defer func() { p.trial = trial{} }()
	cut := 1 - t.lowest/t.sent // how much less the cuts let the client send
	if n < judgeFewest || cut < t.before/2 {
		return false // too few answers, or too small a cut, to say
	}
	// A throttle that follows the rate would leave the share refused
	// beyond what is now sent: sending s·(1−cut) to a provider admitting
	// s·(1−before).
	followed := max(0, 1-(1-t.before)/(1-cut))
	share := t.throttled / n
	if share <= (t.before+followed)/2 {
		p.baseline = 0 // it followed: the cut stays, and the throttles are the rate's
		return false
	}
	// It did not: undo the cuts, and tolerate that share from now on.
	p.baseline, p.baselineUntil = share, now.Add(baselineMemory)
	p.undone++
	if t.dormant {
		p.release()
		return true
	}
	c := t.undo
	p.rate, p.plateau, p.depth, p.clock = c.rate, c.plateau, c.depth, c.clock
	p.slowStart, p.slowStartEnded = c.slowStart, c.slowStartEnded
	p.newEpoch(now, p.meter.Rate(now))
	return true
}

// Unfollowed returns the share of answers throttled that the pacer learnt
// does not follow the rate it sends, and so does not cut for (0: none), and
// how many times it undid cuts for that reason.
func (p *Pacer) Unfollowed() (share float64, undone uint64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.now().After(p.baselineUntil) {
		p.baseline = 0
	}
	return p.baseline, p.undone
}
