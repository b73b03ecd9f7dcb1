package fleet

import (
	"context"
	"fmt"
	"log/slog"
	"math"
	"sync"
	"sync/atomic"
	"time"
)

// probeEvery is how often, during an outage, one Wait asks Redis again. The
// others meanwhile do not ask, so an unreachable Redis costs one attempt a
// timeout every probeEvery, not every attempt.
const probeEvery = 50 * time.Millisecond

// recoveryGrace is how long a replica that finds Redis back keeps its local
// share as a ceiling as well. Replicas find Redis back at different moments
// (go-redis redials a failed pool about once a second), and Redis may have
// lost the bucket: one replica taking the whole budget from Redis while the
// others still pace locally would exceed the limit.
const recoveryGrace = 2 * time.Second

// outage is the limiter's view of Redis's health and, while Redis cannot
// answer and for recoveryGrace after, the local pacer that stands in for it.
type outage struct {
	down  atomic.Bool // read without mu on Wait's fast path
	paced atomic.Bool // local is in use: down (failing open) or within the grace

	mu         sync.Mutex
	since      time.Time
	nextProbe  time.Time
	lastErr    error
	local      *localPacer // this replica's share
	graceUntil time.Time
	admitted   int // attempts admitted locally during this outage
	refused    int // attempts refused during this outage (fail-closed)
}

// lockDown reports whether Redis is down and, when it is, locks o.mu, which
// the caller unlocks. It looks without the lock first, so that while Redis
// is up Wait takes no lock, and again with it.
func (o *outage) lockDown() bool {
	if !o.down.Load() {
		return false
	}
	o.mu.Lock()
	if !o.down.Load() {
		o.mu.Unlock()
		return false
	}
	return true
}

// mayAskRedis reports whether this Wait should ask Redis: always while it
// is up, and during an outage once every probeEvery.
func (l *Limiter) mayAskRedis(now time.Time) bool {
	o := &l.outage
	if !o.lockDown() {
		return true
	}
	defer o.mu.Unlock()
	if now.Before(o.nextProbe) {
		return false
	}
	o.nextProbe = now.Add(probeEvery)
	return true
}

// beginOutage records that Redis could not answer. The first failure of
// an outage sets up the local pacer and logs the one warning.
func (l *Limiter) beginOutage(err error, now time.Time) {
	o := &l.outage
	o.mu.Lock()
	defer o.mu.Unlock()
	o.lastErr = err
	o.nextProbe = now.Add(probeEvery)
	if o.down.Load() {
		return
	}
	o.since, o.admitted, o.refused = now, 0, 0
	replicas := max(1, l.replicas.Load())
	share := float64(l.perSecond) / float64(replicas)
	if !l.cfg.failClosed {
		if o.local == nil { // else still within the last outage's grace: keep its schedule
			burst := int(math.Ceil(float64(l.burst) / float64(replicas)))
			// Start empty, after the turns Redis has already handed
			// out: their attempts are still to come.
			o.local = newLocalPacer(share, burst, later(now, time.Unix(0, l.lastTurn.Load())))
		}
		o.paced.Store(true)
	}
	o.down.Store(true)
	if l.cfg.logger == nil {
		return
	}
	if l.cfg.failClosed {
		l.cfg.logger.LogAttrs(context.Background(), slog.LevelWarn,
			"fleet: Redis rate limit unavailable; refusing attempts until it answers",
			slog.String("key", l.key), slog.String("error", err.Error()))
		return
	}
	l.cfg.logger.LogAttrs(context.Background(), slog.LevelWarn,
		"fleet: Redis rate limit unavailable; pacing attempts locally at this replica's share until it answers",
		slog.String("key", l.key), slog.String("error", err.Error()),
		slog.Float64("share_per_second", share), slog.Int64("replicas", replicas))
}

// endOutage records that Redis answered: it logs the end of an outage and
// starts the grace period. It reports whether an outage ended.
func (l *Limiter) endOutage(now time.Time) bool {
	o := &l.outage
	if !o.lockDown() {
		return false
	}
	defer o.mu.Unlock()
	o.down.Store(false)
	o.graceUntil = now.Add(recoveryGrace)
	if l.cfg.logger != nil {
		l.cfg.logger.LogAttrs(context.Background(), slog.LevelInfo, "fleet: Redis rate limit answers again",
			slog.String("key", l.key), slog.Duration("outage", now.Sub(o.since)),
			slog.Int("admitted_locally", o.admitted), slog.Int("refused", o.refused))
	}
	return true
}

// inGrace reports whether Redis answers again but the grace period after
// the outage still runs; it drops the local pacer once the period is over.
func (l *Limiter) inGrace(now time.Time) bool {
	o := &l.outage
	if !o.paced.Load() || o.down.Load() {
		return false
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.down.Load() || o.local == nil {
		return false
	}
	if !now.Before(o.graceUntil) {
		o.local = nil
		o.paced.Store(false)
		return false
	}
	return true
}

// refuse returns the error of an attempt refused under WithFailClosed.
func (l *Limiter) refuse() error {
	o := &l.outage
	o.mu.Lock()
	defer o.mu.Unlock()
	o.refused++
	return &WaitError{Key: l.key, Err: fmt.Errorf("%w: %w", ErrUnavailable, o.lastErr)}
}

// localTurn takes a turn from the local pacer, if one is in use. It
// returns ok false when there is none (Redis is back and the grace over),
// and a *WaitError when the turn would come after ctx's deadline.
func (l *Limiter) localTurn(ctx context.Context, now time.Time) (turn time.Time, release func(), ok bool, err error) {
	o := &l.outage
	if !o.paced.Load() {
		return time.Time{}, nil, false, nil
	}
	o.mu.Lock()
	local := o.local
	o.mu.Unlock()
	if local == nil {
		return time.Time{}, nil, false, nil
	}
	deadline, _ := ctx.Deadline()
	turn, tat, reserved := local.reserve(now, deadline)
	if !reserved {
		return time.Time{}, nil, true, &WaitError{Key: l.key, Delay: turn.Sub(now), Err: context.DeadlineExceeded}
	}
	return turn, func() { local.release(tat) }, true, nil
}

// waitLocally waits for a turn at this replica's share of the rate. It
// reports admitted false, and no error, when Redis came back before it
// looked: the caller then asks Redis.
func (l *Limiter) waitLocally(ctx context.Context) (admitted bool, err error) {
	turn, release, ok, err := l.localTurn(ctx, time.Now())
	if !ok || err != nil {
		return false, err
	}
	if err := l.sleepUntil(ctx, turn); err != nil {
		release()
		return false, err
	}
	o := &l.outage
	o.mu.Lock()
	o.admitted++
	o.mu.Unlock()
	return true, nil
}
