package pacer

import (
	"context"
	"fmt"
	"math"
	"sync"
	"sync/atomic"
	"time"
)

// The pacer's constants. Rates are in attempts per second.
const (
	// beta is the multiplicative decrease: a rate-limited answer cuts the
	// rate to 70% of the rate that was throttled (AWS adaptive mode's β,
	// and CUBIC's).
	beta = 0.7
	// regain is CUBIC's K: the sending time in which the rate grows back to
	// the plateau after a cut, after which it keeps probing above it. AWS
	// derives K from the rate (about 5 s at 200/s); a fixed 2 s makes the
	// recovery take the same time at any rate.
	regain = 2.0
	// slowStartStep is what each admitted answer adds to the rate between
	// the first and the second throttle: while the pacer is the
	// bottleneck, the rate then doubles every 150 ms of sending (ln 2 /
	// 0.15 s per answer), so a first estimate that is far too low is
	// corrected in well under a second.
	slowStartStep = math.Ln2 / 0.150
	// MinRate is the floor of the rate: one attempt every 2 s.
	MinRate = 0.5
	// firstRate is the least a first throttle engages at when it names no
	// wait (a bare 429, or Retry-After: 0): one attempt a second, the
	// base delay AWS's 2026 retry update gives throttles, so a lone call's
	// retry leaves after a second rather than after MinRate's two.
	firstRate = 1.0
	// growthCap bounds growth to twice the rate of admitted answers over
	// the last second (AWS caps at twice its measured sending rate), so
	// that a client that sends less than its allowance does not build up
	// an allowance it has never tested.
	growthCap = 2.0
	// cutCap bounds the rate a cut starts from to four times the admitted
	// rate, for the same reason: an allowance built up while sending
	// little is cut to what the client really sends in one step.
	cutCap = 4.0
	// release is where the pacer lets go: once CUBIC's curve reaches four
	// times its plateau (about 4.3 s of sending after it regained the
	// plateau, without a throttle, for a 30% cut), sending is unlimited
	// again until the next throttle.
	release = 4.0
)

// Pacer paces a client's attempts at a rate it learns from the provider's
// answers. It follows AWS SDK adaptive retry mode's client-side rate
// limiter: unlimited until the first rate-limited answer, then a
// multiplicative cut to 70% on each one and CUBIC growth on admitted
// answers, never above twice the admitted rate. Six changes make it
// converge faster, sit closer to the provider's limit and cost nothing
// while the provider does not throttle:
//
//   - Dormant until the first throttle, a pacer counts admitted answers
//     lock-free (see meter) and lets every attempt through after two
//     atomic loads.
//   - The first estimate is the rate of answers the provider admitted over
//     the last second (it admitted at least that much), never less than
//     one attempt per Retry-After, so that a lone call's retry leaves when
//     its Retry-After ends. It is kept at least that high as late answers
//     of the same burst arrive, and a slow start doubles it every 150 ms
//     of sending until the next rate-limited answer. AWS starts from its
//     measured sending rate, which is near zero early on, so a client
//     throttled in its first second crawls.
//   - One congestion event cuts once: a rate-limited answer to an attempt
//     let through before the last cut (the rest of a burst, or attempts
//     paced at the old rate) does not cut again. AWS cuts on every one, so
//     a burst of refusals collapses its rate.
//   - The curve flattens where the provider admitted, not where it
//     refused: the rate at a refusal overshoots the limit by what the
//     provider's burst absorbed, and a plateau there drains the burst
//     again every cycle. After a second of pacing, the admitted rate is
//     the better estimate (see throttled).
//   - Attempts queue in order and each slot is timed when it comes, at the
//     rate of the moment: a cut slows the attempts already waiting, and a
//     rise speeds up all of them but the head, whose slot was set before.
//     A slot taken late is not lost, so timer and hand-off latency do not
//     shave the rate.
//   - CUBIC's K is a fixed 2 s of sending (AWS derives it from the rate:
//     about 5 s at 200/s), and the curve's clock advances 1/rate per
//     admitted answer, so it runs while the client sends and stops while it
//     is idle. Once the curve reaches four times its plateau without a new
//     refusal, the pacer lets go.
//
// Pacing allows a burst of at most 2 (one slot made up after a late
// wake-up). A wait never starts when it would end after the context's
// deadline or last longer than the caller allows. A Pacer is safe for
// concurrent use; a client shares one among all its calls and the token
// call.
type Pacer struct {
	now func() time.Time

	// engaged and epoch are read without the lock by Wait's fast path.
	// epoch grows at every cut (and when the pacer lets go), so an answer
	// can be matched with the rate its attempt was let through at.
	engaged atomic.Bool
	epoch   atomic.Uint64
	meter   meter // admitted answers, counted lock-free

	mu        sync.Mutex
	rate      float64   // attempts per second, while engaged
	next      time.Time // when the next attempt may leave (GCRA's theoretical arrival time)
	queue     []*waiter // attempts waiting for a slot, in arrival order; queue[0] is the head
	slowStart bool      // between the first and the second throttle
	plateau   float64   // where the growth curve flattens (CUBIC's W_max)
	depth     float64   // plateau minus the rate right after the last cut
	clock     float64   // seconds of sending since the last cut (CUBIC's t)
	lastCut   time.Time // when the rate was last cut
}

// New returns a dormant pacer: it lets every attempt through at once until
// the first rate-limited answer.
func New() *Pacer { return NewWithClock(time.Now) }

// NewWithClock returns a dormant pacer that reads the time from now (for
// tests; the sleeps themselves use real timers).
func NewWithClock(now func() time.Time) *Pacer { return &Pacer{now: now} }

// Engage engages p at rate attempts per second with its next slot free now,
// and keeps it there until the next throttle (a flat curve: admitted
// answers neither raise the rate nor let go). For tests of the code that
// waits on a pacer.
func (p *Pacer) Engage(rate float64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.rate, p.next = max(MinRate, rate), p.now()
	p.plateau, p.depth, p.slowStart = p.rate, 0, false
	p.engaged.Store(true)
}

// Rate returns the current rate in attempts per second, and whether the
// pacer is engaged (when it is not, attempts are not paced and rate is 0).
func (p *Pacer) Rate() (rate float64, engaged bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.engaged.Load() {
		return 0, false
	}
	return p.rate, true
}

// Refusal is Wait's error for a wait it would not start: the next slot is
// after the context's deadline (Deadline set: it then unwraps to
// context.DeadlineExceeded), or further away than the longest wait allowed.
type Refusal struct {
	// Wait is how far away the slot was, at the current rate and queue.
	Wait time.Duration
	// Deadline says the context's deadline was the reason.
	Deadline bool
	// MaxWait is the longest wait allowed, when it was the reason.
	MaxWait time.Duration
}

func (r *Refusal) Error() string {
	if r.Deadline {
		return fmt.Sprintf("adaptive rate limit: the next send slot is %v away, after the deadline", r.Wait.Round(time.Millisecond))
	}
	return fmt.Sprintf("adaptive rate limit: the next send slot is %v away, longer than the %v a wait may last", r.Wait.Round(time.Millisecond), r.MaxWait)
}

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
// in, to be handed back to Throttled with the attempt's answer. A wait that
// would end after ctx's deadline, or last longer than maxWait (unless it
// is NoMaxWait; 0 allows no wait at all), as far as the current rate and
// queue tell, is not started:
// Wait returns a *Refusal at once. When ctx ends during the wait, the error
// wraps ctx.Err().
//
// Waiters queue in arrival order and only the head of the queue sleeps,
// until the next slot at the rate of the moment. Each slot is thus timed at
// the rate when it comes, not when it was asked for: the waiters behind
// the head go faster as soon as the rate grows, and an attempt let through
// after a cut is paced at the new rate and carries the new epoch.
func (p *Pacer) Wait(ctx context.Context, maxWait time.Duration) (uint64, error) {
	// Read epoch first: if a cut engages the pacer in between, the attempt
	// leaves unpaced with the epoch before the cut, whose answer then
	// cannot cut again.
	epoch := p.epoch.Load()
	if !p.engaged.Load() {
		return epoch, nil
	}
	return p.waitEngaged(ctx, maxWait)
}

// waitEngaged is Wait once the pacer was seen engaged. It is a function of
// its own so that the dormant path above, which every attempt takes, has
// no defer: the deferred timer.Stop below sits in a loop, which makes every
// return of its function run the runtime's deferreturn.
func (p *Pacer) waitEngaged(ctx context.Context, maxWait time.Duration) (uint64, error) {
	if err := ctx.Err(); err != nil {
		return 0, fmt.Errorf("waiting on the adaptive rate limit: %w", err)
	}
	p.mu.Lock()
	start := p.now()
	if !p.engaged.Load() || (len(p.queue) == 0 && !start.Before(p.next)) {
		epoch := p.take(start)
		p.mu.Unlock()
		return epoch, nil
	}
	if err := p.refuse(ctx, start, start, len(p.queue), maxWait); err != nil {
		p.mu.Unlock()
		return 0, err
	}
	w := &waiter{head: make(chan struct{})}
	p.queue = append(p.queue, w)
	if len(p.queue) == 1 {
		close(w.head)
	}
	p.mu.Unlock()

	select {
	case <-w.head:
	case <-ctx.Done():
		p.leave(w)
		return 0, fmt.Errorf("waiting on the adaptive rate limit: %w", ctx.Err())
	}
	var timer *time.Timer
	for {
		p.mu.Lock()
		now := p.now()
		if !p.engaged.Load() || !now.Before(p.next) {
			epoch := p.take(now)
			p.removeLocked(w)
			p.mu.Unlock()
			return epoch, nil
		}
		// A cut while it queued may have moved the slot out of reach.
		if err := p.refuse(ctx, start, now, 0, maxWait); err != nil {
			p.removeLocked(w)
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
			p.leave(w)
			return 0, fmt.Errorf("waiting on the adaptive rate limit: %w", ctx.Err())
		}
	}
}

// waiter is an attempt queued for a send slot.
type waiter struct {
	head chan struct{} // closed when the waiter reaches the head of the queue
}

// take hands out the slot at now (or at p.next, if later) and returns the
// epoch. The caller holds p.mu.
func (p *Pacer) take(now time.Time) uint64 {
	if p.engaged.Load() {
		// A slot taken late (the waiter woke after it) is not lost: the
		// next one is timed from the slot, not from now, up to one
		// interval back. Timer and hand-off latency would otherwise cost
		// a few percent of the rate.
		iv := p.interval()
		p.next = later(p.next, now.Add(-iv)).Add(iv)
	}
	return p.epoch.Load()
}

// refuse returns a *Refusal when a waiter that started waiting at start,
// with ahead waiters before it, would get its slot after ctx's deadline or
// more than maxWait after start, at the current rate. The caller holds p.mu.
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

// leave takes w out of the queue when its context ends.
func (p *Pacer) leave(w *waiter) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.removeLocked(w)
}

// removeLocked takes w out of the queue and, when w was the head, makes the
// next waiter the head. The caller holds p.mu.
func (p *Pacer) removeLocked(w *waiter) {
	for i, q := range p.queue {
		if q != w {
			continue
		}
		copy(p.queue[i:], p.queue[i+1:])
		p.queue[len(p.queue)-1] = nil
		p.queue = p.queue[:len(p.queue)-1]
		if i == 0 && len(p.queue) > 0 {
			close(p.queue[0].head)
		}
		return
	}
}

// interval is the time between two slots at the current rate.
func (p *Pacer) interval() time.Duration {
	return time.Duration(float64(time.Second) / p.rate)
}

func later(t, u time.Time) time.Time {
	if t.After(u) {
		return t
	}
	return u
}

// Admitted records an answer the provider's limit let through (a 2xx, or
// a 4xx other than a rate-limited one). While the pacer is dormant this
// takes no lock and allocates nothing.
func (p *Pacer) Admitted() {
	now := p.now()
	p.meter.add(now)
	if !p.engaged.Load() {
		return
	}
	p.admitted(now)
}

// admitted updates the rate of an engaged pacer for an admitted answer.
func (p *Pacer) admitted(now time.Time) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.engaged.Load() {
		return
	}
	if p.slowStart {
		// Never below what the provider admitted over the last second:
		// the first throttle can be answered before the rest of the burst
		// it ended, and the estimate made then is too low.
		p.rate = max(p.rate+slowStartStep, p.meter.rate(now))
		return
	}
	p.clock += 1 / p.rate
	x := (p.clock - regain) / regain
	r := p.plateau + p.depth*x*x*x
	if r >= release*p.plateau {
		p.engaged.Store(false)
		p.epoch.Add(1)
		return
	}
	if limit := max(p.rate, growthCap*p.meter.rate(now)); r > limit {
		r = limit
	}
	p.rate = max(MinRate, r)
}

// Throttled records a rate-limited answer to an attempt let through in
// epoch (Wait's result). retryAfter is the wait the answer asked for, 0
// when it named none.
func (p *Pacer) Throttled(epoch uint64, retryAfter time.Duration) {
	p.throttled(epoch, p.now(), retryAfter)
}

func (p *Pacer) throttled(epoch uint64, now time.Time, retryAfter time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if epoch != p.epoch.Load() {
		return // let through before the last cut: that cut already answered it
	}
	measured := p.meter.rate(now)
	if !p.engaged.Load() {
		p.rate = max(MinRate, measured)
		if retryAfter <= 0 {
			p.rate = max(p.rate, firstRate)
		} else {
			// A slot every Retry-After at least: the retry of a lone
			// call, which waits out its Retry-After first, then finds
			// its slot free.
			p.rate = max(p.rate, float64(time.Second)/float64(retryAfter))
		}
		p.slowStart = true
	} else {
		throttledAt := p.rate
		if measured > 0 {
			throttledAt = min(throttledAt, cutCap*measured)
		}
		p.rate = max(MinRate, beta*throttledAt)
		// The curve flattens at the rate that was throttled, which
		// overshoots the provider's limit: the provider's burst had to
		// drain before it refused. When the last second was all spent
		// pacing since the previous cut, the rate it admitted is closer
		// to its limit; it is used, but never below halfway between the
		// new rate and the throttled one, so that an idle second cannot
		// sink the curve.
		p.plateau = throttledAt
		if now.Sub(p.lastCut) >= time.Second && measured > 0 && measured < throttledAt {
			p.plateau = max(measured, (p.rate+throttledAt)/2)
		}
		p.depth = p.plateau - p.rate
		p.slowStart = false
		p.clock = 0
	}
	// The provider has just refused: the next slot is one interval from
	// now at the new rate, for the head of the queue and all behind it.
	p.next = now.Add(p.interval())
	p.lastCut = now
	p.epoch.Add(1)
	p.engaged.Store(true)
}

// meter counts admitted answers in one-second buckets, to estimate the rate
// the provider admitted over the last second. It is lock-free: a dormant
// pacer counts every healthy answer here without taking its lock.
//
// Each bucket packs the Unix second it counts (low 32 bits, as a tag) above
// the count (low 32 bits); bucket s%2 holds second s. A bucket whose tag is
// not the second asked about counts nothing for it.
type meter struct {
	buckets [2]atomic.Uint64
}

func (m *meter) add(now time.Time) {
	s := now.Unix()
	b := &m.buckets[s&1]
	tag := uint64(uint32(s)) << 32
	for {
		v := b.Load()
		if v&^(1<<32-1) == tag {
			// The common case: one more in the current second. (Were
			// the bucket taken over for second s+2 between the load and
			// the add, this answer would count there: an estimate off by
			// one answer, after a goroutine stalled for two seconds.)
			b.Add(1)
			return
		}
		if b.CompareAndSwap(v, tag|1) { // the first answer of a new second
			return
		}
	}
}

// count returns the answers counted in second s.
func (m *meter) count(s int64) float64 {
	v := m.buckets[s&1].Load()
	if v>>32 != uint64(uint32(s)) {
		return 0
	}
	return float64(uint32(v))
}

// rate estimates the answers admitted in the second before now: all of the
// current second's, and the share of the previous second's that falls
// within the last second.
func (m *meter) rate(now time.Time) float64 {
	s := now.Unix()
	frac := float64(now.Nanosecond()) / 1e9
	return m.count(s) + m.count(s-1)*(1-frac)
}
