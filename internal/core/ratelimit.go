package core

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	apierrors "github.com/memberplatform/memberplatform-go/errors"
)

// RateLimiter is waited on before every attempt, retries and the token
// call included. option.RateLimiter is the same interface; a
// *rate.Limiter from golang.org/x/time/rate satisfies it. Wait must return
// promptly with an error when ctx is done, and should refuse (return an
// error at once) a wait that would end after ctx's deadline, as
// *rate.Limiter does. An error ends the call.
type RateLimiter interface {
	Wait(ctx context.Context) error
}

// waitTurn waits until the call may send its next attempt: first on the
// adaptive limiter, then on the user's limiter. It runs before the first
// attempt of a send and after the backoff of each retry, before the
// attempt is signed, so a long wait cannot stale a signature.
func (state *callState) waitTurn(ctx context.Context) error {
	defer state.observeWait(state.waitStarts())
	if a := state.s.Adaptive; a != nil {
		epoch, err := a.wait(ctx)
		if err != nil {
			return err
		}
		state.epoch = epoch
	}
	if l := state.s.RateLimiter; l != nil {
		if err := l.Wait(ctx); err != nil {
			return fmt.Errorf("waiting on the rate limiter: %w", err)
		}
	}
	return nil
}

// observeRate tells the adaptive limiter how an attempt went: apiErr is its
// decoded error response (nil for a 2xx) and err the failure that left it
// without a usable response.
func (state *callState) observeRate(apiErr *apierrors.Error, err error) {
	a := state.s.Adaptive
	if a == nil || err != nil {
		return // no answer: nothing learnt about the provider's rate
	}
	switch {
	case apiErr == nil:
		a.admitted(a.now())
	case rateLimited(apiErr):
		a.throttled(state.epoch, a.now())
	case apiErr.StatusCode < http.StatusInternalServerError:
		// A 4xx was admitted by the provider's limit just as a 2xx was. A
		// 5xx says nothing about the rate and is left to the retry budget.
		a.admitted(a.now())
	}
}

// The adaptive limiter's constants. Rates are in attempts per second.
const (
	// adaptiveBeta is the multiplicative decrease: a rate-limited answer
	// cuts the rate to 70% of the rate that was throttled (AWS adaptive
	// mode's β, and CUBIC's).
	adaptiveBeta = 0.7
	// adaptiveRegain is CUBIC's K: the sending time in which the rate grows
	// back to the plateau after a cut, after which it keeps probing above
	// it. AWS derives K from the rate (about 5 s at 200/s); a fixed 2 s
	// makes the recovery take the same time at any rate.
	adaptiveRegain = 2.0
	// adaptiveSlowStartStep is what each admitted answer adds to the rate
	// between the first and the second throttle: while the limiter is the
	// bottleneck, the rate then doubles every 150 ms of sending (ln 2 /
	// 0.15 s per answer), so a first estimate that is far too low is
	// corrected in well under a second.
	adaptiveSlowStartStep = math.Ln2 / 0.150
	// adaptiveMinRate is the floor of the rate: one attempt every 2 s.
	adaptiveMinRate = 0.5
	// adaptiveGrowthCap bounds growth to twice the rate of admitted
	// answers over the last second (AWS caps at twice its measured sending
	// rate), so that a client that sends less than its allowance does not
	// build up an allowance it has never tested.
	adaptiveGrowthCap = 2.0
	// adaptiveCutCap bounds the rate a cut starts from to four times the
	// admitted rate, for the same reason: an allowance built up while
	// sending little is cut to what the client really sends in one step.
	adaptiveCutCap = 4.0
	// adaptiveRelease is where the limiter lets go: once CUBIC's curve
	// reaches four times its plateau (about 4.3 s of sending after it
	// regained the plateau, without a throttle, for a 30% cut), sending is
	// unlimited again until the next throttle.
	adaptiveRelease = 4.0
)

// AdaptiveLimiter paces a client's attempts at a rate it learns from the
// provider's answers. It follows AWS SDK adaptive retry mode's client-side
// rate limiter: unlimited until the first rate-limited answer, then a
// multiplicative cut to 70% on each one and CUBIC growth on admitted
// answers, never above twice the admitted rate. Five changes make it
// converge faster and sit closer to the provider's limit:
//
//   - The first estimate is the rate of answers the provider admitted over
//     the last second (it admitted at least that much), kept at least
//     that high as late answers of the same burst arrive, and a slow start
//     doubles it every 150 ms of sending until the next rate-limited
//     answer. AWS starts from its measured sending rate, which is near
//     zero early on, so a client throttled in its first second crawls.
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
//     rise speeds up all of them but the head, whose slot was set before. A slot taken late is not lost, so timer and
//     hand-off latency do not shave the rate.
//   - CUBIC's K is a fixed 2 s of sending (AWS derives it from the rate:
//     about 5 s at 200/s), and the curve's clock advances 1/rate per
//     admitted answer, so it runs while the client sends and stops while it
//     is idle. Once the curve reaches four times its plateau without a new
//     refusal, the limiter lets go.
//
// Pacing allows a burst of at most 2 (one slot made up after a late
// wake-up). A wait never starts when it would end after the context's
// deadline. The limiter is safe for concurrent use; a client shares one
// among all its calls and the token call.
type AdaptiveLimiter struct {
	now func() time.Time

	// engaged and epoch are read without the lock by wait's fast path.
	// epoch grows at every cut (and when the limiter lets go), so an
	// answer can be matched with the rate its attempt was let through at.
	engaged atomic.Bool
	epoch   atomic.Uint64

	mu        sync.Mutex
	rate      float64           // attempts per second, while engaged
	next      time.Time         // when the next attempt may leave (GCRA's theoretical arrival time)
	queue     []*adaptiveWaiter // attempts waiting for a slot, in arrival order; queue[0] is the head
	slowStart bool              // between the first and the second throttle
	plateau   float64           // where the growth curve flattens (CUBIC's W_max)
	depth     float64           // plateau minus the rate right after the last cut
	clock     float64           // seconds of sending since the last cut (CUBIC's t)
	lastCut   time.Time         // when the rate was last cut
	meter     admittedMeter
}

// NewAdaptiveLimiter returns a limiter that is not engaged: it lets every
// attempt through at once until the first rate-limited answer.
func NewAdaptiveLimiter() *AdaptiveLimiter { return newAdaptiveLimiter(time.Now) }

func newAdaptiveLimiter(now func() time.Time) *AdaptiveLimiter {
	return &AdaptiveLimiter{now: now}
}

// Rate returns the current rate in attempts per second, and whether the
// limiter is engaged (when it is not, attempts are not paced and rate is 0).
func (a *AdaptiveLimiter) Rate() (rate float64, engaged bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if !a.engaged.Load() {
		return 0, false
	}
	return a.rate, true
}

// wait waits for the next send slot and returns the epoch it was granted
// in. A wait that would end after ctx's deadline, as far as the current
// rate and queue tell, is not started: wait returns an error wrapping
// context.DeadlineExceeded at once.
//
// Waiters queue in arrival order and only the head of the queue sleeps,
// until the next slot at the rate of the moment. Each slot is thus timed at
// the rate when it comes, not when it was asked for: the waiters behind
// the head go faster as soon as the rate grows, and an attempt let through
// after a cut is paced at the new rate and carries the new epoch.
func (a *AdaptiveLimiter) wait(ctx context.Context) (uint64, error) {
	// Read epoch first: if a cut engages the limiter in between, the
	// attempt leaves unpaced with the epoch before the cut, whose answer
	// then cannot cut again.
	epoch := a.epoch.Load()
	if !a.engaged.Load() {
		return epoch, nil
	}
	if err := ctx.Err(); err != nil {
		return 0, fmt.Errorf("waiting on the adaptive rate limit: %w", err)
	}
	a.mu.Lock()
	now := a.now()
	if !a.engaged.Load() || (len(a.queue) == 0 && !now.Before(a.next)) {
		epoch := a.take(now)
		a.mu.Unlock()
		return epoch, nil
	}
	if err := a.beyondDeadline(ctx, now, len(a.queue)); err != nil {
		a.mu.Unlock()
		return 0, err
	}
	w := &adaptiveWaiter{head: make(chan struct{})}
	a.queue = append(a.queue, w)
	if len(a.queue) == 1 {
		close(w.head)
	}
	a.mu.Unlock()

	select {
	case <-w.head:
	case <-ctx.Done():
		a.leave(w)
		return 0, fmt.Errorf("waiting on the adaptive rate limit: %w", ctx.Err())
	}
	var timer *time.Timer
	for {
		a.mu.Lock()
		now := a.now()
		if !a.engaged.Load() || !now.Before(a.next) {
			epoch := a.take(now)
			a.removeLocked(w)
			a.mu.Unlock()
			return epoch, nil
		}
		if err := a.beyondDeadline(ctx, now, 0); err != nil {
			a.removeLocked(w)
			a.mu.Unlock()
			return 0, err
		}
		delay := a.next.Sub(now)
		a.mu.Unlock()
		if timer == nil {
			timer = time.NewTimer(delay)
			defer timer.Stop()
		} else {
			timer.Reset(delay)
		}
		select {
		case <-timer.C:
		case <-ctx.Done():
			a.leave(w)
			return 0, fmt.Errorf("waiting on the adaptive rate limit: %w", ctx.Err())
		}
	}
}

// adaptiveWaiter is an attempt queued for a send slot.
type adaptiveWaiter struct {
	head chan struct{} // closed when the waiter reaches the head of the queue
}

// take hands out the slot at now (or at a.next, if later) and returns the
// epoch. The caller holds a.mu.
func (a *AdaptiveLimiter) take(now time.Time) uint64 {
	if a.engaged.Load() {
		// A slot taken late (the waiter woke after it) is not lost: the
		// next one is timed from the slot, not from now, up to one
		// interval back. Timer and hand-off latency would otherwise cost
		// a few percent of the rate.
		iv := a.interval()
		a.next = later(a.next, now.Add(-iv)).Add(iv)
	}
	return a.epoch.Load()
}

// beyondDeadline returns an error when a waiter with ahead waiters before
// it would get its slot after ctx's deadline at the current rate. The
// caller holds a.mu.
func (a *AdaptiveLimiter) beyondDeadline(ctx context.Context, now time.Time, ahead int) error {
	dl, ok := ctx.Deadline()
	if !ok {
		return nil
	}
	slot := later(a.next, now).Add(time.Duration(ahead) * a.interval())
	if !slot.After(dl) {
		return nil
	}
	return fmt.Errorf("adaptive rate limit: the next send slot is %v away, after the deadline: %w",
		slot.Sub(now).Round(time.Millisecond), context.DeadlineExceeded)
}

// leave takes w out of the queue when its context ends.
func (a *AdaptiveLimiter) leave(w *adaptiveWaiter) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.removeLocked(w)
}

// removeLocked takes w out of the queue and, when w was the head, makes the
// next waiter the head. The caller holds a.mu.
func (a *AdaptiveLimiter) removeLocked(w *adaptiveWaiter) {
	for i, q := range a.queue {
		if q != w {
			continue
		}
		copy(a.queue[i:], a.queue[i+1:])
		a.queue[len(a.queue)-1] = nil
		a.queue = a.queue[:len(a.queue)-1]
		if i == 0 && len(a.queue) > 0 {
			close(a.queue[0].head)
		}
		return
	}
}

// interval is the time between two slots at the current rate.
func (a *AdaptiveLimiter) interval() time.Duration {
	return time.Duration(float64(time.Second) / a.rate)
}

func later(t, u time.Time) time.Time {
	if t.After(u) {
		return t
	}
	return u
}

// admitted records an answer the provider's limit let through, at now.
func (a *AdaptiveLimiter) admitted(now time.Time) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.meter.add(now)
	if !a.engaged.Load() {
		return
	}
	if a.slowStart {
		// Never below what the provider admitted over the last second:
		// the first throttle can be answered before the rest of the burst
		// it ended, and the estimate made then is too low.
		a.rate = max(a.rate+adaptiveSlowStartStep, a.meter.rate(now))
		return
	}
	a.clock += 1 / a.rate
	x := (a.clock - adaptiveRegain) / adaptiveRegain
	r := a.plateau + a.depth*x*x*x
	if r >= adaptiveRelease*a.plateau {
		a.engaged.Store(false)
		a.epoch.Add(1)
		return
	}
	if limit := max(a.rate, adaptiveGrowthCap*a.meter.rate(now)); r > limit {
		r = limit
	}
	a.rate = max(adaptiveMinRate, r)
}

// throttled records a rate-limited answer, at now, to an attempt let
// through in epoch.
func (a *AdaptiveLimiter) throttled(epoch uint64, now time.Time) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if epoch != a.epoch.Load() {
		return // let through before the last cut: that cut already answered it
	}
	measured := a.meter.rate(now)
	if !a.engaged.Load() {
		a.rate = max(adaptiveMinRate, measured)
		a.slowStart = true
	} else {
		throttledAt := a.rate
		if measured > 0 {
			throttledAt = min(throttledAt, adaptiveCutCap*measured)
		}
		a.rate = max(adaptiveMinRate, adaptiveBeta*throttledAt)
		// The curve flattens at the rate that was throttled, which
		// overshoots the provider's limit: the provider's burst had to
		// drain before it refused. When the last second was all spent
		// pacing since the previous cut, the rate it admitted is closer
		// to its limit; it is used, but never below halfway between the
		// new rate and the throttled one, so that an idle second cannot
		// sink the curve.
		a.plateau = throttledAt
		if now.Sub(a.lastCut) >= time.Second && measured > 0 && measured < throttledAt {
			a.plateau = max(measured, (a.rate+throttledAt)/2)
		}
		a.depth = a.plateau - a.rate
		a.slowStart = false
		a.clock = 0
	}
	// The provider has just refused: the next slot is one interval from
	// now at the new rate, for the head of the queue and all behind it.
	a.next = now.Add(a.interval())
	a.lastCut = now
	a.epoch.Add(1)
	a.engaged.Store(true)
}

// admittedMeter counts admitted answers in one-second buckets, to estimate
// the rate the provider admitted over the last second.
type admittedMeter struct {
	second    int64   // the Unix second cur counts
	cur, prev float64 // answers in that second and in the one before
}

func (m *admittedMeter) add(now time.Time) {
	switch s := now.Unix(); s {
	case m.second:
	case m.second + 1:
		m.second, m.prev, m.cur = s, m.cur, 0
	default:
		m.second, m.prev, m.cur = s, 0, 0
	}
	m.cur++
}

// rate estimates the answers admitted in the second before now: all of
// the current second's, and the share of the previous second's that falls
// within the last second.
func (m *admittedMeter) rate(now time.Time) float64 {
	s := now.Unix()
	frac := float64(now.Nanosecond()) / 1e9
	switch s {
	case m.second:
		return m.cur + m.prev*(1-frac)
	case m.second + 1:
		return m.cur * (1 - frac)
	}
	return 0
}
