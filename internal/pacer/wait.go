package pacer

import (
	"context"
	"fmt"
	"slices"
	"time"
)

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
