package fleet

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	apierrors "github.com/memberplatform/memberplatform-go/errors"
)

// A key holding no finite number (NaN, an infinity: a corrupted value)
// gives no schedule at all: Wait refuses at once, with or without a
// deadline, with a *WaitError matching ErrRateLimited whose RetryAfter is
// a usable wait (the key's time to live when it has one, else a second),
// never a wait of centuries nor a block until the context ends.
func TestNonFiniteValueAtTheKey(t *testing.T) {
	srv := startRedis(t)
	rdb := newRedisClient(t, srv.Addr)
	for _, tc := range []struct {
		value string
		ttl   time.Duration // 0: none
		want  time.Duration // RetryAfter, within 100 ms below
	}{
		{"nan", 0, time.Second},
		{"NaN", 30 * time.Second, 30 * time.Second},
		{"-nan", 0, time.Second},
		{"inf", 0, time.Second},
		{"+inf", 5 * time.Second, 5 * time.Second},
		{"1e400", 0, time.Second}, // Lua reads it as +inf
	} {
		for _, deadline := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s, ttl %v, deadline %v", tc.value, tc.ttl, deadline), func(t *testing.T) {
				key := fmt.Sprintf("nonfinite-%v-%s", deadline, tc.value)
				if err := rdb.Set(context.Background(), "rate:"+key, tc.value, tc.ttl).Err(); err != nil {
					t.Fatal(err)
				}
				l := NewRedisLimiter(rdb, key, 10, 5, WithRedisTimeout(2*time.Second), WithLogger(nil))
				ctx, cancel := context.WithCancel(context.Background())
				if deadline {
					ctx, cancel = context.WithTimeout(context.Background(), 5*time.Second)
				}
				defer cancel()
				time.AfterFunc(2*time.Second, cancel) // a Wait that blocks ends, and fails the test
				start := time.Now()
				err := l.Wait(ctx)
				elapsed := time.Since(start)
				var waitErr *WaitError
				if !errors.As(err, &waitErr) || !errors.Is(err, apierrors.ErrRateLimited) || errors.Is(err, context.Canceled) {
					t.Fatalf("Wait = %v after %v; want a *WaitError matching ErrRateLimited at once", err, elapsed)
				}
				wait, ok := apierrors.RetryAfterOf(err)
				if !ok || wait > tc.want || wait < tc.want-100*time.Millisecond {
					t.Errorf("RetryAfterOf = %v, %v; want about %v", wait, ok, tc.want)
				}
				if elapsed > time.Second {
					t.Errorf("Wait took %v; want it at once", elapsed)
				}
				if msg := err.Error(); !errors.Is(err, errNonFiniteValue) || len(msg) > 400 {
					t.Errorf("error %q, want one naming the unusable value", msg)
				}
			})
		}
	}
}

// failingGet fails every pipeline that reads a key with GET, as a Redis
// user allowed EVALSHA but not GET would see it.
type failingGet struct{}

func (failingGet) DialHook(next redis.DialHook) redis.DialHook          { return next }
func (failingGet) ProcessHook(next redis.ProcessHook) redis.ProcessHook { return next }
func (failingGet) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		for _, c := range cmds {
			if c.Name() == "get" {
				return errors.New("NOPERM this user has no permissions to run the 'get' command")
			}
		}
		return next(ctx, cmds)
	}
}

// When Redis fails the read that tells a non-finite value from a turn far
// ahead, the limiter treats it as any Redis failure (fail closed: refused
// as ErrUnavailable), never as a turn 292 years away.
func TestNonFiniteValueUnreadable(t *testing.T) {
	srv := startRedis(t)
	rdb := newRedisClient(t, srv.Addr)
	if err := rdb.Set(context.Background(), "rate:knan", "nan", 0).Err(); err != nil {
		t.Fatal(err)
	}
	rdb.AddHook(failingGet{})
	l := NewRedisLimiter(rdb, "knan", 10, 5, WithRedisTimeout(2*time.Second), WithLogger(nil), WithFailClosed())
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err := l.Wait(ctx)
	if !errors.Is(err, ErrUnavailable) || errors.Is(err, errForeignSchedule) || errors.Is(err, apierrors.ErrRateLimited) {
		t.Fatalf("Wait = %v; want the Redis failure, failed closed as ErrUnavailable", err)
	}
}

// vanishingGet answers the limiter's read of the key as Redis does once
// the key expired after the script read it: no such key.
type vanishingGet struct{ rdb *redis.Client }

func (vanishingGet) DialHook(next redis.DialHook) redis.DialHook          { return next }
func (vanishingGet) ProcessHook(next redis.ProcessHook) redis.ProcessHook { return next }
func (h vanishingGet) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		for _, c := range cmds {
			if c.Name() == "get" {
				if err := h.rdb.Del(ctx, c.Args()[1].(string)).Err(); err != nil {
					return err
				}
			}
		}
		return next(ctx, cmds)
	}
}

// A key holding a foreign value that expires before the limiter reads it
// back is no corrupted value: the limiter asks again and gets a turn.
func TestForeignValueThatVanishesIsAskedAgain(t *testing.T) {
	srv := startRedis(t)
	rdb := newRedisClient(t, srv.Addr)
	if err := rdb.Set(context.Background(), "rate:kgone", "nan", 0).Err(); err != nil {
		t.Fatal(err)
	}
	rdb.AddHook(vanishingGet{newRedisClient(t, srv.Addr)})
	l := NewRedisLimiter(rdb, "kgone", 10, 5, WithRedisTimeout(2*time.Second), WithLogger(nil))
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := l.Wait(ctx); err != nil {
		t.Fatalf("Wait = %v; want a turn once the key went away", err)
	}
}
