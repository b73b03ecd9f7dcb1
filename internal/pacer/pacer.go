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
	beta          = 0.7              // the multiplicative cut (CUBIC's β)
	regain        = 2.0              // CUBIC's K: seconds of sending back to the plateau
	slowStartStep = math.Ln2 / 0.150 // per admitted answer: doubles every 150 ms while paced
	// MinRate is the floor of the rate: while every answer is a throttle,
	// one attempt a second probes whether the provider admits again.
	MinRate = 1.0
	// cutCap bounds the rate a cut starts from to a multiple of the
	// admitted rate, so a rate built up while the client sent little is not
	// cut from itself.
	cutCap = 4.0
)

// ReleaseAfter is how long after its last throttle an engaged pacer goes
// dormant again, whether or not attempts flowed meanwhile. It exceeds the
// interval at MinRate, so a provider that throttles every probe keeps it
// engaged.
const ReleaseAfter = 3 * time.Second

// Pacer paces a client's attempts at a rate it learns from the provider's
// answers; pacing allows a burst of at most 2. It is safe for concurrent use.
type Pacer struct {
	now func() time.Time

	// engaged, epoch and lastThrottle are read without the lock. epoch
	// grows at every cut and release, matching an answer with the rate of
	// its attempt.
	engaged      atomic.Bool
	epoch        atomic.Uint64
	lastThrottle atomic.Int64 // unix nanos of the last throttled answer
	meter        meter

	mu        sync.Mutex
	rate      float64         // while engaged
	next      time.Time       // when the next attempt may leave (GCRA's theoretical arrival time)
	queue     []chan struct{} // the waiters in arrival order, each closed when it becomes the head
	slowStart bool            // between the first and the second throttle
	plateau   float64         // where the curve flattens (CUBIC's W_max)
	depth     float64         // plateau minus the rate right after the last cut
	clock     float64         // seconds of sending since the last cut (CUBIC's t)
	lastCut   time.Time
	admitted  bool // an answer was admitted since the last cut
	refusing  bool // the last throttle found nothing admitted for a second
}

// New returns a dormant pacer: unpaced until the first rate-limited answer.
func New() *Pacer { return &Pacer{now: time.Now} }

// Engage engages p at rate, next slot free, flat until the next throttle
// or ReleaseAfter from now. For tests of code that waits on a pacer.
func (p *Pacer) Engage(rate float64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := p.now()
	p.rate, p.next = max(MinRate, rate), now
	p.plateau, p.depth, p.slowStart = p.rate, 0, false
	p.lastThrottle.Store(now.UnixNano())
	p.engaged.Store(true)
}

// Rate returns the current rate and whether the pacer is engaged (else 0).
func (p *Pacer) Rate() (rate float64, engaged bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.releaseIfQuiet(p.now())
	if !p.engaged.Load() {
		return 0, false
	}
	return p.rate, true
}

// Engaged reports, without the lock, whether an attempt may have to wait.
func (p *Pacer) Engaged() bool {
	return p.engaged.Load() && !p.quiet(p.now())
}

// quiet reports whether ReleaseAfter has passed since the last throttle.
func (p *Pacer) quiet(now time.Time) bool {
	return now.UnixNano()-p.lastThrottle.Load() >= int64(ReleaseAfter)
}

// releaseIfQuiet makes p dormant once it is quiet. The caller holds p.mu.
// A waiter asleep at the head of the queue finds it so at its next slot,
// at most 1/MinRate away, and lets the rest through.
func (p *Pacer) releaseIfQuiet(now time.Time) {
	if p.engaged.Load() && p.quiet(now) {
		p.release()
	}
}

// release makes p dormant. The caller holds p.mu.
func (p *Pacer) release() {
	p.engaged.Store(false)
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
	p.releaseIfQuiet(start)
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
	for {
		p.mu.Lock()
		now := p.now()
		p.releaseIfQuiet(now)
		if !p.engaged.Load() || !now.Before(p.next) {
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
		delay := p.next.Sub(now)
		p.mu.Unlock()
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
		// Timed from the slot (up to one interval back), not from now.
		iv := p.interval()
		p.next = later(p.next, now.Add(-iv)).Add(iv)
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
	p.releaseIfQuiet(now)
	if !p.engaged.Load() {
		return
	}
	if p.refusing {
		if epoch == p.epoch.Load() {
			// The provider refused everything for a second or more and
			// now admits again: back to how it was before, as after a
			// quiet spell.
			p.release()
			return
		}
		// Answered after the cut, but sent before it: the provider was
		// admitting attempts then, so it was not refusing everything.
		p.refusing = false
	}
	p.admitted = true
	if p.slowStart {
		// The first throttle may come before the rest of its burst's answers.
		p.rate = max(p.rate+slowStartStep, p.meter.rate(now))
		return
	}
	p.clock += 1 / p.rate
	x := (p.clock - regain) / regain
	p.rate = max(MinRate, p.plateau+p.depth*x*x*x)
}

// Throttled records a rate-limited answer to an attempt let through in
// epoch (Wait's result); retryAfter is the wait it asked for, or 0.
func (p *Pacer) Throttled(epoch uint64, retryAfter time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := p.now()
	p.lastThrottle.Store(now.UnixNano())
	if epoch != p.epoch.Load() {
		return // let through before the last cut: that cut already answered it
	}
	measured := p.meter.rate(now)
	if !p.engaged.Load() {
		// A slot every Retry-After at least, so a lone call's retry finds its slot free.
		floor := 0.0
		if retryAfter > 0 {
			floor = float64(time.Second) / float64(retryAfter)
		}
		p.rate, p.slowStart = max(MinRate, measured, floor), true
		p.plateau = p.rate
	} else {
		throttledAt := p.rate
		if measured > 0 {
			throttledAt = min(throttledAt, cutCap*measured)
		}
		p.rate = max(MinRate, beta*throttledAt)
		// The throttled rate overshoots by the provider's burst; after a
		// second of pacing the admitted rate is closer (but an idle second
		// must not sink the curve below halfway). A provider that admitted
		// nothing since the last cut is refusing everything, as in an
		// outage: the plateau stays at what it admitted before, where the
		// first admitted probe takes the rate back.
		if p.admitted {
			p.plateau = throttledAt
			if now.Sub(p.lastCut) >= time.Second && measured > 0 && measured < throttledAt {
				p.plateau = max(measured, (p.rate+throttledAt)/2)
			}
		}
		p.depth, p.slowStart, p.clock = max(0, p.plateau-p.rate), false, 0
	}
	p.admitted, p.refusing = false, measured < MinRate
	p.next, p.lastCut = now.Add(p.interval()), now
	p.epoch.Add(1)
	p.engaged.Store(true)
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
