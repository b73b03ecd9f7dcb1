package fleet

import (
	"context"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/go-redis/redis_rate/v10"
	apierrors "github.com/memberplatform/memberplatform-go/errors"
	"github.com/redis/go-redis/v9"
)

// maxQueue bounds how far ahead a wait without a deadline may reserve its
// turn. Beyond it (a minute of the fleet's budget already reserved), Wait
// asks again when the queue has shortened, rather than reserving a turn that
// its caller may long have given up on.
const maxQueue = time.Minute

// maxArg bounds perSecond and burst: above it, the interval between turns
// would round to zero and the burst plus the queue could overflow.
const maxArg = 1_000_000_000

// Limiter paces attempts against a rate limit that every replica using the
// same Redis key shares. It satisfies option.RateLimiter: pass it to
// option.WithRateLimiter. It is safe for concurrent use; one per client is
// enough, and clients of one process may share it.
type Limiter struct {
	key       string
	perSecond int
	burst     int
	interval  time.Duration // between two turns at perSecond
	cfg       config
	invalid   error // the constructor's arguments were unusable

	rdb  redis.UniversalClient
	gcra *redis_rate.Limiter

	id       string       // this limiter's name in the replica set
	nextBeat atomic.Int64 // Unix nanoseconds of the next heartbeat
	replicas atomic.Int64 // replicas seen using the key, 0 until Redis has said
	lastTurn atomic.Int64 // Unix nanoseconds of the latest turn Redis handed this limiter

	outage outage
}

// NewRedisLimiter returns a limiter that admits, across every replica that
// uses key on the same Redis, perSecond attempts per second on average, with
// bursts of up to burst attempts. rdb may be any go-redis client (single
// node, Sentinel failover or cluster); the limiter never closes it.
//
// NewRedisLimiter makes one Redis call in the background, bounded by the
// Redis timeout, to record the replica and learn how many share the key.
// Each Wait costs one Redis round trip (a GCRA decision by
// go-redis/redis_rate's Lua script), and about once a second one more, which
// records the replica as active. The repository's docs/load-control.md,
// "Many replicas", has the latency measured on loopback.
//
// Invalid arguments (a nil rdb, including a nil *redis.Client or other
// nil pointer in the interface, an empty key, perSecond or burst below 1 or
// above 1,000,000,000) do not panic: NewRedisLimiter then starts nothing in
// the background, and every Wait returns an *errors.ValidationError that
// names them, before any Redis call.
func NewRedisLimiter(rdb redis.UniversalClient, key string, perSecond, burst int, opts ...Option) *Limiter {
	l := &Limiter{key: key, perSecond: perSecond, burst: burst, cfg: defaultConfig(), rdb: rdb, id: newReplicaID()}
	for _, o := range opts {
		if o.apply != nil {
			o.apply(&l.cfg)
		}
	}
	var fields []apierrors.FieldError
	if isNil(rdb) {
		fields = append(fields, apierrors.FieldError{Field: "rdb", Message: "is nil"})
	}
	if key == "" {
		fields = append(fields, apierrors.FieldError{Field: "key", Message: "is empty"})
	}
	if perSecond < 1 || perSecond > maxArg {
		fields = append(fields, apierrors.FieldError{Field: "perSecond", Message: fmt.Sprintf("is %d; must be from 1 to %d", perSecond, maxArg)})
	}
	if burst < 1 || burst > maxArg {
		fields = append(fields, apierrors.FieldError{Field: "burst", Message: fmt.Sprintf("is %d; must be from 1 to %d", burst, maxArg)})
	}
	if len(fields) > 0 {
		l.invalid = &apierrors.ValidationError{Operation: "fleet.NewRedisLimiter", Fields: fields}
		return l
	}
	l.interval = time.Second / time.Duration(perSecond)
	l.gcra = redis_rate.NewLimiter(rdb)
	// Learn the fleet's size before the first Wait: a replica whose first
	// Redis calls time out (connections are still being dialed) then paces
	// at its share rather than the whole limit. The call is bounded by the
	// Redis timeout.
	go l.heartbeatIfDue(context.Background())
	return l
}

// isNil reports whether rdb is nil or an interface holding a nil pointer
// (var rdb *redis.Client passed as is): either would panic at the first
// Redis call, in the background heartbeat's goroutine, where it kills the
// process.
func isNil(rdb redis.UniversalClient) bool {
	if rdb == nil {
		return true
	}
	v := reflect.ValueOf(rdb)
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface, reflect.Map, reflect.Slice, reflect.Func, reflect.Chan:
		return v.IsNil()
	}
	return false
}

// Validate returns the *errors.ValidationError naming the arguments
// NewRedisLimiter could not use, or nil. option.WithRateLimiter calls it,
// so a misconfigured limiter fails client.New rather than every call.
func (l *Limiter) Validate() error { return l.invalid }

// Wait blocks until the attempt's turn in the fleet's budget comes. It
// returns at once with a *WaitError, without taking a turn, when the turn
// would come after ctx's deadline (the error matches errors.ErrRateLimited
// and context.DeadlineExceeded), and returns promptly with a *WaitError
// wrapping ctx's error when ctx ends while it waits.
//
// When Redis does not answer within the Redis timeout, Wait admits the
// attempt at this replica's fair share of the rate (or, with WithFailClosed,
// refuses it with an error matching ErrUnavailable); see the package
// documentation.
func (l *Limiter) Wait(ctx context.Context) error {
	if l.invalid != nil {
		return l.invalid
	}
	waitedLocally := false
	for {
		if err := ctx.Err(); err != nil {
			return &WaitError{Key: l.key, Err: err}
		}
		if l.mayAskRedis(time.Now()) {
			if !waitedLocally && l.inGrace(time.Now()) {
				// Just after an outage, wait for a turn at the local
				// share first and only then ask Redis, so that Redis
				// counts the attempt when it is sent.
				admitted, err := l.waitLocally(ctx)
				if err != nil {
					return err
				}
				waitedLocally = admitted
			}
			turn, err := l.reserve(ctx)
			var unavailable *unavailableError
			switch {
			case err == nil:
				l.noteTurn(turn)
				if l.endOutage(time.Now()) {
					l.drainBurst(ctx)
				}
				l.heartbeatIfDue(ctx)
				return l.sleepUntil(ctx, turn)
			case !errors.As(err, &unavailable):
				return err
			}
			l.beginOutage(unavailable.err, time.Now())
		}
		if l.cfg.failClosed {
			return l.refuse()
		}
		if waitedLocally {
			return nil // Redis failed again after the local turn
		}
		admitted, err := l.waitLocally(ctx)
		switch {
		case err != nil:
			return err
		case admitted && l.outage.down.Load():
			return nil
		}
		// Redis came back, before this attempt looked or while it
		// waited: ask it, so that it counts the attempt.
		waitedLocally = waitedLocally || admitted
	}
}

// reserve takes the attempt's turn in the fleet's schedule and returns when
// it comes.
//
// redis_rate's GCRA admits an event when the bucket's theoretical arrival
// time (TAT) lies at most burst intervals ahead. Asking with a burst raised
// by queue turns admits, and records, an attempt whose turn lies up to queue
// intervals in the future: a reservation. The queue is what fits before the
// deadline, so a turn that would come after it is refused by the same
// script, without changing the bucket.
func (l *Limiter) reserve(ctx context.Context) (time.Time, error) {
	askedAgain := false // once, when the key went away between the script and its read
	for {
		start := time.Now()
		ahead := maxQueue
		deadline, hasDeadline := ctx.Deadline()
		bounded := hasDeadline && deadline.Sub(start) <= maxQueue
		if bounded {
			ahead = deadline.Sub(start)
		}
		queue := max(0, int(ahead/l.interval))
		limit := redis_rate.Limit{Rate: l.perSecond, Period: time.Second, Burst: l.burst + queue}
		res, err := callRedis(ctx, l.cfg.timeout, func(rctx context.Context) (*redis_rate.Result, error) {
			return l.gcra.Allow(rctx, l.key, limit)
		})
		var unparsable *strconv.NumError
		switch {
		case errors.As(err, &unparsable): // the script's answer over "-nan", which Lua writes back as it is
			if err := l.foreignValue(ctx, nil); err != errKeyGone || askedAgain {
				return time.Time{}, err
			}
			askedAgain = true
			continue
		case err != nil:
			return time.Time{}, l.waitError(ctx, err)
		}
		now := time.Now()
		// A refusal further ahead than this limiter ever reserves
		// (negative when the answer overflowed a Duration), or an
		// admission whose new turn is not ahead (what the script answers
		// over NaN, which its comparisons all fail): the key holds no
		// schedule of this limiter's.
		if res.Allowed == 0 && (res.RetryAfter < 0 || res.RetryAfter > l.horizon()) ||
			res.Allowed > 0 && (res.ResetAfter <= 0 || res.ResetAfter > l.horizon()) {
			if err := l.foreignValue(ctx, res); err != errKeyGone || askedAgain {
				return time.Time{}, err
			}
			askedAgain = true
			continue
		}
		if res.Allowed > 0 {
			// ResetAfter is how far the new TAT lies ahead; the turn
			// comes burst intervals before it.
			turn := now.Add(res.ResetAfter - time.Duration(l.burst)*l.interval)
			if bounded && turn.After(deadline) {
				// The round trip used up the last of the margin. The
				// turn is lost to the fleet, which happens only when
				// the deadline falls within a round trip of it.
				return time.Time{}, &WaitError{Key: l.key, Delay: turn.Sub(now), Err: context.DeadlineExceeded}
			}
			return turn, nil
		}
		if bounded {
			delay := res.RetryAfter + time.Duration(queue)*l.interval
			return time.Time{}, &WaitError{Key: l.key, Delay: delay, Err: context.DeadlineExceeded}
		}
		// More than maxQueue of the budget is reserved: ask again when
		// the queue has shortened (not sooner than a millisecond: never a
		// busy loop on Redis).
		if err := l.sleepUntil(ctx, now.Add(max(res.RetryAfter, time.Millisecond))); err != nil {
			return time.Time{}, err
		}
	}
}

// horizon is how far ahead the next turn may lie when the key holds only
// what limiters of these arguments write: a queue of maxQueue behind a
// full burst, and one interval.
func (l *Limiter) horizon() time.Duration {
	return maxQueue + time.Duration(l.burst+1)*l.interval
}

// errForeignSchedule is the cause of a refusal when the key holds a turn
// beyond the horizon.
var errForeignSchedule = errors.New("the key holds a turn further ahead than this limiter ever reserves " +
	"(a corrupted value, or another user of the key with other limits); give the limiter a key of its own, or delete the key")

// errNonFiniteValue is the cause of a refusal when the key holds NaN or
// an infinity, from which the script computes no turn at all.
var errNonFiniteValue = errors.New("the key holds no finite number (a corrupted value); delete the key, or give the limiter a key of its own")

// errKeyGone is foreignValue's answer when the key no longer exists (it
// expired, or was deleted, since the script read it): reserve asks again.
var errKeyGone = errors.New("the key went away")

// nonFiniteRetry is the wait a refusal for a non-finite value asks for
// when the key does not expire sooner: nothing can tell when someone
// repairs it, and asking Redis again costs one round trip.
const nonFiniteRetry = time.Second

// foreignValue is the refusal for a key that holds no schedule of this
// limiter's (reserve: res is the script's answer, nil when unparsable). It reads the key, one more Redis call on this path
// only, to tell a turn far ahead (errForeignSchedule, its Delay the turn's
// distance) from a value that is no finite number (errNonFiniteValue, its
// Delay until the key expires, or nonFiniteRetry: a wait to retry after),
// or errKeyGone when there is no key any more.
func (l *Limiter) foreignValue(ctx context.Context, res *redis_rate.Result) error {
	type value struct {
		raw  string
		ttl  time.Duration
		gone bool // no key: errKeyGone
	}
	v, err := callRedis(ctx, l.cfg.timeout, func(rctx context.Context) (value, error) {
		pipe := l.rdb.Pipeline()
		get, ttl := pipe.Get(rctx, "rate:"+l.key), pipe.PTTL(rctx, "rate:"+l.key)
		if _, err := pipe.Exec(rctx); err != nil && !errors.Is(err, redis.Nil) {
			return value{}, err
		}
		return value{get.Val(), ttl.Val(), errors.Is(get.Err(), redis.Nil)}, nil
	})
	if err != nil { // Redis failed on this read: as when it fails on the script
		return l.waitError(ctx, err)
	}
	if v.gone {
		return errKeyGone
	}
	if f, perr := strconv.ParseFloat(strings.TrimSpace(v.raw), 64); perr == nil && !math.IsNaN(f) && !math.IsInf(f, 0) {
		delay := time.Duration(math.MaxInt64)
		if res != nil && res.Allowed == 0 && res.RetryAfter > 0 {
			delay = res.RetryAfter
		}
		return &WaitError{Key: l.key, Delay: delay, Err: errForeignSchedule}
	}
	delay := nonFiniteRetry
	if v.ttl > 0 && v.ttl < maxQueue {
		delay = v.ttl
	}
	return &WaitError{Key: l.key, Delay: delay, Err: errNonFiniteValue}
}

// drainBurst takes whatever burst the fleet's bucket holds when Redis
// answers again after an outage. The bucket has not seen the attempts sent
// while Redis was away (or, restarted, has lost its state) and offers a full
// burst, which the provider, which did see them, no longer has: spent
// there, the burst would come back as 429s. Errors are left to the next
// Wait to notice.
func (l *Limiter) drainBurst(ctx context.Context) {
	limit := redis_rate.Limit{Rate: l.perSecond, Period: time.Second, Burst: l.burst}
	_, _ = callRedis(ctx, l.cfg.timeout, func(rctx context.Context) (*redis_rate.Result, error) {
		return l.gcra.AllowAtMost(rctx, l.key, limit, l.burst)
	})
}

// noteTurn remembers the latest turn Redis handed out, where an outage's
// local pacing starts.
func (l *Limiter) noteTurn(turn time.Time) {
	t := turn.UnixNano()
	for {
		last := l.lastTurn.Load()
		if t <= last || l.lastTurn.CompareAndSwap(last, t) {
			return
		}
	}
}

// waitError turns a failed Redis call into Wait's error: an
// *unavailableError stays one (Wait handles the outage), and a call cut
// short by ctx becomes a *WaitError.
func (l *Limiter) waitError(ctx context.Context, err error) error {
	var unavailable *unavailableError
	if errors.As(err, &unavailable) {
		return err
	}
	if ctxErr := ctx.Err(); ctxErr != nil {
		err = ctxErr
	}
	return &WaitError{Key: l.key, Err: err}
}

// sleepUntil sleeps until t, or returns a *WaitError when ctx ends first.
func (l *Limiter) sleepUntil(ctx context.Context, t time.Time) error {
	d := time.Until(t)
	if d <= 0 {
		return nil
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
		return nil
	case <-ctx.Done():
		return &WaitError{Key: l.key, Err: ctx.Err()}
	}
}
