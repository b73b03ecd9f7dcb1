package fleet

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	apierrors "github.com/memberplatform/memberplatform-go/errors"
	"github.com/redis/go-redis/v9"
)

// Two replicas (each its own Redis client and limiter) on one key share one
// budget: in a window of T, together they are admitted at most burst +
// perSecond×T times, and each gets some.
func TestReplicasShareOneBudget(t *testing.T) {
	srv := startRedis(t)
	const perSecond, burst, window = 50, 5, 1500 * time.Millisecond
	// A Redis timeout far above the round trip keeps a busy machine from
	// failing the limiters open, which this test is not about.
	logs := &logRecorder{}
	opts := []Option{WithRedisTimeout(2 * time.Second), WithLogger(slog.New(logs))}
	limiters := []*Limiter{
		NewRedisLimiter(newRedisClient(t, srv.Addr), "shared", perSecond, burst, opts...),
		NewRedisLimiter(newRedisClient(t, srv.Addr), "shared", perSecond, burst, opts...),
	}
	// A third limiter on another key has a budget of its own.
	other := NewRedisLimiter(newRedisClient(t, srv.Addr), "other", perSecond, burst, opts...)

	ctx, cancel := context.WithTimeout(context.Background(), window)
	defer cancel()
	start := time.Now()
	var admitted [3]atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for i, l := range append(limiters, other) {
		for range 4 {
			wg.Go(func() {
				for {
					err := l.Wait(ctx)
					if err != nil {
						// The window ends: a turn after the deadline is
						// refused, or the deadline passes during a wait.
						if !errors.Is(err, context.DeadlineExceeded) {
							errs <- err
						}
						return
					}
					admitted[i].Add(1)
				}
			})
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Errorf("Wait: %v; want only refusals past the deadline", err)
	}
	if n := logs.count(slog.LevelWarn); n != 0 {
		t.Fatalf("the limiters failed open %d times; the test needs Redis to answer", n)
	}
	elapsed := time.Since(start)
	shared := admitted[0].Load() + admitted[1].Load()
	limit := int64(burst + perSecond*elapsed.Seconds() + 1)
	t.Logf("in %v: replica A %d, replica B %d, other key %d admitted", elapsed, admitted[0].Load(), admitted[1].Load(), admitted[2].Load())
	if shared > limit {
		t.Errorf("the two replicas were admitted %d times in %v; the shared budget allows at most %d", shared, elapsed, limit)
	}
	if admitted[0].Load() == 0 || admitted[1].Load() == 0 {
		t.Errorf("a replica got no turn: %d and %d", admitted[0].Load(), admitted[1].Load())
	}
	// Lower bounds are loose: a busy machine can starve the waiters.
	if shared < burst+perSecond/4 {
		t.Errorf("the replicas were admitted only %d times in %v; want about %d", shared, elapsed, limit)
	}
	if n := admitted[2].Load(); n < burst+perSecond/4 || n > limit {
		t.Errorf("the other key was admitted %d times; want its own budget, about %d", n, limit)
	}
}

// A wait whose turn would come after the deadline fails at once, with an
// error matching ErrRateLimited and DeadlineExceeded, and takes no turn.
func TestWaitRefusesTurnAfterDeadline(t *testing.T) {
	srv := startRedis(t)
	l := NewRedisLimiter(newRedisClient(t, srv.Addr), "deadline", 1, 1, WithRedisTimeout(2*time.Second), WithLogger(nil))
	if err := l.Wait(context.Background()); err != nil {
		t.Fatalf("first Wait: %v", err)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	err := l.Wait(ctx)
	if ctx.Err() != nil {
		t.Errorf("Wait returned after the deadline; it must refuse at once")
	}
	if !errors.Is(err, apierrors.ErrRateLimited) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Wait = %v; want an error matching ErrRateLimited and DeadlineExceeded", err)
	}
	var waitErr *WaitError
	if !errors.As(err, &waitErr) || waitErr.Key != "deadline" || waitErr.Delay < 500*time.Millisecond || waitErr.Delay > 1100*time.Millisecond {
		t.Errorf("Wait error = %#v; want a *WaitError for key deadline with a Delay of about 1s", waitErr)
	}
	if wait, ok := apierrors.RetryAfterOf(err); !ok || wait != waitErr.Delay {
		t.Errorf("RetryAfterOf = %v, %v; want the Delay %v", wait, ok, waitErr.Delay)
	}
	if !strings.Contains(err.Error(), "after the context's deadline") {
		t.Errorf("error %q does not say why", err)
	}

	// The refused wait took no turn: the next one comes about 1s after the
	// first, not 2s.
	start := time.Now()
	ctx2, cancel2 := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel2()
	if err := l.Wait(ctx2); err != nil {
		t.Fatalf("Wait with room before the deadline: %v", err)
	}
	if waited := time.Since(start); waited > 1800*time.Millisecond {
		t.Errorf("Wait took %v; the refused wait seems to have taken a turn (want under 1s)", waited)
	}
}

// A cancelled context ends a wait promptly, with the context's error and not
// ErrRateLimited.
func TestWaitEndsWhenContextCancelled(t *testing.T) {
	srv := startRedis(t)
	l := NewRedisLimiter(newRedisClient(t, srv.Addr), "cancel", 1, 1, WithRedisTimeout(2*time.Second), WithLogger(nil))
	if err := l.Wait(context.Background()); err != nil {
		t.Fatalf("first Wait: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	start := time.Now()
	err := l.Wait(ctx)
	if !errors.Is(err, context.Canceled) || errors.Is(err, apierrors.ErrRateLimited) {
		t.Errorf("Wait = %v; want context.Canceled, not ErrRateLimited", err)
	}
	if waited := time.Since(start); waited > 900*time.Millisecond {
		t.Errorf("Wait returned %v after it started, not promptly after the cancel", waited)
	}
	if err := l.Wait(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("Wait on a cancelled context = %v; want context.Canceled", err)
	}
}

// Bad arguments give a validation error naming each of them, from every
// Wait, without a Redis call.
func TestInvalidArguments(t *testing.T) {
	srv := startRedis(t)
	rdb := newRedisClient(t, srv.Addr)
	tests := []struct {
		name      string
		l         *Limiter
		badFields []string
	}{
		{"nil client", NewRedisLimiter(nil, "k", 1, 1), []string{"rdb"}},
		{"empty key", NewRedisLimiter(rdb, "", 1, 1), []string{"key"}},
		{"zero rate", NewRedisLimiter(rdb, "k", 0, 1), []string{"perSecond"}},
		{"negative burst", NewRedisLimiter(rdb, "k", 10, -1), []string{"burst"}},
		{"rate too high", NewRedisLimiter(rdb, "k", 2_000_000_000, 1), []string{"perSecond"}},
		{"everything", NewRedisLimiter(nil, "", -5, 0), []string{"rdb", "key", "perSecond", "burst"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.l.Wait(context.Background())
			var verr *apierrors.ValidationError
			if !errors.Is(err, apierrors.ErrInvalidInput) || !errors.As(err, &verr) {
				t.Fatalf("Wait = %v; want an *errors.ValidationError", err)
			}
			var got []string
			for _, f := range verr.Fields {
				got = append(got, f.Field)
			}
			if strings.Join(got, ",") != strings.Join(tt.badFields, ",") {
				t.Errorf("fields %v; want %v", got, tt.badFields)
			}
		})
	}
	if n, err := rdb.DBSize(context.Background()).Result(); err != nil || n != 0 {
		t.Errorf("Redis holds %d keys (err %v); an invalid limiter must not call it", n, err)
	}
}

// Without a deadline, attempts reserve at most a minute of the budget ahead;
// the others wait, without reserving, until the queue shortens, and leave
// when their context ends.
func TestQueueWithoutDeadlineIsBounded(t *testing.T) {
	srv := startRedis(t)
	rdb := newRedisClient(t, srv.Addr)
	l := NewRedisLimiter(rdb, "queue", 1, 1, WithRedisTimeout(2*time.Second), WithLogger(nil))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	const waiters = 70 // one turn now, 60 in the next minute, 9 beyond it
	results := make(chan error, waiters)
	for range waiters {
		go func() { results <- l.Wait(ctx) }()
	}
	// The bucket's TAT (seconds since 2017, as redis_rate keeps it) stops
	// moving once every waiter has reserved or been turned away.
	tatAhead := func() float64 {
		tat, err := rdb.Get(context.Background(), "rate:queue").Float64()
		if err != nil {
			return 0
		}
		now, err := rdb.Time(context.Background()).Result()
		if err != nil {
			t.Fatal(err)
		}
		return tat - (float64(now.UnixMicro())/1e6 - 1483228800)
	}
	waitUntil(t, 10*time.Second, "the waiters did not reserve 61 turns", func() bool { return tatAhead() > 60 })
	time.Sleep(300 * time.Millisecond) // room for a waiter that would reserve too far
	if ahead := tatAhead(); ahead > 61.5 {
		t.Errorf("the bucket is reserved %.1f s ahead; want at most a minute (plus the burst)", ahead)
	}
	cancel()
	admitted := 0
	for range waiters {
		select {
		case err := <-results:
			switch {
			case err == nil:
				admitted++
			case !errors.Is(err, context.Canceled):
				t.Errorf("Wait = %v; want context.Canceled", err)
			}
		case <-time.After(5 * time.Second):
			t.Fatal("a waiter did not leave when its context ended")
		}
	}
	if admitted > 2 {
		t.Errorf("%d waiters were admitted; want the first (and at most one more a second later)", admitted)
	}
}

// typedNilChild names the environment variable under which
// TestTypedNilClient runs its checks, in a process of its own.
const typedNilChild = "FLEET_TEST_TYPED_NIL_CHILD"

// A nil *redis.Client (or other client pointer) passed as the interface is
// refused like a nil rdb: no goroutine calls Redis through it (one did, and
// its nil dereference killed the process), and every Wait returns a
// validation error naming rdb. The checks run in a child process so that a
// crash fails this test rather than ending the test binary.
func TestTypedNilClient(t *testing.T) {
	if os.Getenv(typedNilChild) == "" {
		cmd := exec.Command(os.Args[0], "-test.run=^TestTypedNilClient$", "-test.count=1", "-test.v")
		cmd.Env = append(os.Environ(), typedNilChild+"=1")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("the process holding limiters on typed nil clients failed (%v):\n%s", err, out)
		}
		if !strings.Contains(string(out), "--- PASS: TestTypedNilClient") {
			t.Fatalf("the child process did not run the checks:\n%s", out)
		}
		return
	}
	var (
		single  *redis.Client
		cluster *redis.ClusterClient
		ring    *redis.Ring
	)
	tests := []struct {
		name string
		rdb  redis.UniversalClient
	}{
		{"*redis.Client", single},
		{"*redis.ClusterClient", cluster},
		{"*redis.Ring", ring},
	}
	var limiters []*Limiter
	for _, tt := range tests {
		l := NewRedisLimiter(tt.rdb, "provider", 200, 20, WithLogger(nil))
		limiters = append(limiters, l)
		err := l.Wait(context.Background())
		var verr *apierrors.ValidationError
		if !errors.As(err, &verr) || len(verr.Fields) != 1 || verr.Fields[0].Field != "rdb" {
			t.Errorf("%s: Wait = %v; want an *errors.ValidationError naming rdb", tt.name, err)
		}
	}
	// Room for a goroutine started by NewRedisLimiter to reach Redis: the
	// heartbeat it ran crashed the process here.
	time.Sleep(300 * time.Millisecond)
	for i, l := range limiters {
		if l.nextBeat.Load() != 0 || l.replicas.Load() != 0 {
			t.Errorf("%s: a heartbeat ran on a nil client", tests[i].name)
		}
	}
}

// A key holding a turn further ahead than this limiter ever reserves (a
// corrupted value, or another go-redis/redis_rate user of the key with
// other limits): Wait returns at once, with or without a deadline, with a
// *WaitError matching ErrRateLimited whose Delay is positive, and makes a
// handful of Redis calls, not a busy loop.
func TestFarFutureValueAtTheKey(t *testing.T) {
	srv := startRedis(t)
	rdb := newRedisClient(t, srv.Addr)
	commands := func() int64 {
		info, err := rdb.Info(context.Background(), "stats").Result()
		if err != nil {
			t.Fatal(err)
		}
		for line := range strings.SplitSeq(info, "\r\n") {
			if v, ok := strings.CutPrefix(line, "total_commands_processed:"); ok {
				n, err := strconv.ParseInt(v, 10, 64)
				if err != nil {
					t.Fatal(err)
				}
				return n
			}
		}
		t.Fatal("no total_commands_processed in INFO stats")
		return 0
	}
	for _, tc := range []struct {
		name, tat string // redis_rate's TAT: seconds since 2017-01-01
	}{
		{"1e15 s ahead (overflows a Duration)", "1e15"},
		{"a day ahead", strconv.FormatFloat(float64(time.Now().Unix()-1483228800+86400), 'f', 3, 64)},
	} {
		for _, deadline := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s, deadline %v", tc.name, deadline), func(t *testing.T) {
				key := fmt.Sprintf("far-%v-%s", deadline, tc.tat)
				if err := rdb.Set(context.Background(), "rate:"+key, tc.tat, time.Minute).Err(); err != nil {
					t.Fatal(err)
				}
				l := NewRedisLimiter(rdb, key, 10, 5, WithRedisTimeout(2*time.Second), WithLogger(nil))
				// No deadline: cancelled after 2 s, so that a spinning
				// Wait ends (and fails the test) rather than hangs.
				ctx, cancel := context.WithCancel(context.Background())
				if deadline {
					ctx, cancel = context.WithTimeout(context.Background(), 2*time.Second)
				}
				defer cancel()
				time.AfterFunc(2*time.Second, cancel)
				before := commands()
				start := time.Now()
				err := l.Wait(ctx)
				elapsed, sent := time.Since(start), commands()-before
				var waitErr *WaitError
				if !errors.As(err, &waitErr) || !errors.Is(err, apierrors.ErrRateLimited) || waitErr.Delay <= 0 {
					t.Fatalf("Wait = %v (%#v); want a *WaitError matching ErrRateLimited with a positive Delay", err, waitErr)
				}
				if wait, ok := apierrors.RetryAfterOf(err); ok || waitErr.RetryAfter() != 0 {
					t.Errorf("RetryAfterOf = %v, %v; want no wait: the key's far turn is none to sleep on", wait, ok)
				}
				if elapsed > time.Second || sent > 25 { // a few script loads and heartbeats; a busy loop makes thousands
					t.Fatalf("Wait took %v and %d Redis commands; want it at once", elapsed, sent)
				}
				if !strings.Contains(err.Error(), key) {
					t.Errorf("error %q does not name the key", err)
				}
			})
		}
	}
}
