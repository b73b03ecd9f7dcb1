package fleet

import (
	"context"
	"fmt"
	"log/slog"
	"math"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/time/rate"
)

// probeEvery is how often, during an outage, one Wait asks Redis again. The
// others meanwhile do not ask, so an unreachable Redis costs one attempt a
// timeout every probeEvery, not every attempt.
const probeEvery = 200 * time.Millisecond

// outage is the limiter's view of Redis's health and, while Redis cannot
// answer, the local limiter that stands in for it.
type outage struct {
	down atomic.Bool // read without mu on Wait's fast path

	mu        sync.Mutex
	since     time.Time
	nextProbe time.Time
	lastErr   error
	local     *rate.Limiter // this replica's share, while down and failing open
	admitted  int           // attempts admitted locally during this outage
	refused   int           // attempts refused during this outage (fail-closed)
}

// mayAskRedis reports whether this Wait should ask Redis: always while it
// is up, and during an outage once every probeEvery.
func (l *Limiter) mayAskRedis(now time.Time) bool {
	o := &l.outage
	if !o.down.Load() {
		return true
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if !o.down.Load() {
		return true
	}
	if now.Before(o.nextProbe) {
		return false
	}
	o.nextProbe = now.Add(probeEvery)
	return true
}

// beginOutage records that Redis could not answer. The first failure of
// an outage sets up the local limiter and logs the one warning.
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
	share := rate.Limit(float64(l.perSecond) / float64(replicas))
	if !l.cfg.failClosed {
		burst := int(math.Ceil(float64(l.burst) / float64(replicas)))
		o.local = rate.NewLimiter(share, burst)
		// Start empty: the fleet's bucket was most likely in use.
		o.local.AllowN(now, burst)
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
		slog.Float64("share_per_second", float64(share)), slog.Int64("replicas", replicas))
}

// endOutage records that Redis answered, and logs the end of an outage.
func (l *Limiter) endOutage(now time.Time) {
	o := &l.outage
	if !o.down.Load() {
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if !o.down.Load() {
		return
	}
	o.down.Store(false)
	o.local = nil
	if l.cfg.logger != nil {
		l.cfg.logger.LogAttrs(context.Background(), slog.LevelInfo, "fleet: Redis rate limit answers again",
			slog.String("key", l.key), slog.Duration("outage", now.Sub(o.since)),
			slog.Int("admitted_locally", o.admitted), slog.Int("refused", o.refused))
	}
}

// refuse returns the error of an attempt refused under WithFailClosed.
func (l *Limiter) refuse() error {
	o := &l.outage
	o.mu.Lock()
	defer o.mu.Unlock()
	o.refused++
	return &WaitError{Key: l.key, Err: fmt.Errorf("%w: %w", ErrUnavailable, o.lastErr)}
}

// waitLocally waits for a turn at this replica's share of the rate. It
// reports admitted false, and no error, when Redis came back before it
// looked: the caller then asks Redis.
func (l *Limiter) waitLocally(ctx context.Context) (admitted bool, err error) {
	o := &l.outage
	o.mu.Lock()
	local := o.local
	o.mu.Unlock()
	if local == nil {
		return false, nil
	}
	now := time.Now()
	r := local.ReserveN(now, 1)
	turn := now.Add(r.DelayFrom(now))
	if deadline, ok := ctx.Deadline(); ok && turn.After(deadline) {
		r.CancelAt(now)
		return false, &WaitError{Key: l.key, Delay: turn.Sub(now), Err: context.DeadlineExceeded}
	}
	if err := l.sleepUntil(ctx, turn); err != nil {
		r.Cancel()
		return false, err
	}
	o.mu.Lock()
	o.admitted++
	o.mu.Unlock()
	return true, nil
}
