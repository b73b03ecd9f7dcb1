package fleet

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	apierrors "github.com/memberplatform/memberplatform-go/errors"
	"github.com/redis/go-redis/v9"
)

// waitUntil polls cond every 20 ms until it holds or timeout passes.
func waitUntil(t *testing.T, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("after %v: %s", timeout, what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// While Redis is down, attempts are admitted (no Wait fails) but paced at
// the replica's share of the rate; the outage is logged once, and the
// limiter goes back to Redis by itself when it returns.
func TestFailOpenPacesAtShareAndRecovers(t *testing.T) {
	srv := startRedis(t)
	const perSecond, burst = 40, 4
	logs := &logRecorder{}
	// A stopped Redis refuses connections at once; the long timeout keeps a
	// busy machine from starting the outage early.
	l := NewRedisLimiter(newRedisClient(t, srv.Addr), "outage", perSecond, burst, WithRedisTimeout(2*time.Second), WithLogger(slog.New(logs)))
	peer := NewRedisLimiter(newRedisClient(t, srv.Addr), "outage", perSecond, burst, WithRedisTimeout(2*time.Second), WithLogger(nil))
	// Replicas record themselves about once a second.
	waitUntil(t, 5*time.Second, "the limiter does not count 2 replicas", func() bool {
		for _, x := range []*Limiter{peer, l} {
			if err := x.Wait(context.Background()); err != nil {
				t.Fatalf("Wait with Redis up: %v", err)
			}
		}
		return l.replicas.Load() == 2
	})

	srv.Stop()
	// 4 goroutines × 8 attempts at a share of 40/2 = 20 per second, from
	// an empty local bucket: at least 32/20 s. Failing open without
	// pacing would take no time at all.
	const attempts = 32
	start := time.Now()
	var wg sync.WaitGroup
	errs := make(chan error, attempts)
	for range 4 {
		wg.Go(func() {
			for range attempts / 4 {
				if err := l.Wait(context.Background()); err != nil {
					errs <- err
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Errorf("Wait while Redis is down = %v; want the attempt admitted", err)
	}
	share := float64(perSecond) / 2
	if elapsed, least := time.Since(start), time.Duration(0.9*attempts/share*float64(time.Second)); elapsed < least {
		t.Errorf("%d attempts took %v while Redis was down; paced at %v/s they take at least %v", attempts, elapsed, share, least)
	}
	if n := logs.count(slog.LevelWarn); n != 1 {
		t.Errorf("%d warnings for one outage; want 1", n)
	}

	if err := srv.Restart(); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, 5*time.Second, "the limiter did not log that Redis is back", func() bool {
		if err := l.Wait(context.Background()); err != nil {
			t.Fatalf("Wait after Redis came back: %v", err)
		}
		return logs.count(slog.LevelInfo) == 1
	})
	// For the grace period after recovery, the local share stays a
	// ceiling: 10 attempts at 20/s take about 0.5 s, where Redis alone (40/s)
	// would admit them in 0.25 s at most.
	graceStart := time.Now()
	for range 10 {
		if err := l.Wait(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	if elapsed := time.Since(graceStart); elapsed < 350*time.Millisecond {
		t.Errorf("10 attempts just after recovery took %v; the local share (20/s) should still pace them", elapsed)
	}
	// It decides in Redis again: the GCRA key is back.
	if err := l.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n, err := l.rdb.Exists(context.Background(), "rate:outage").Result(); err != nil || n != 1 {
		t.Errorf("rate:outage exists = %d (err %v) after recovery; want the GCRA state back in Redis", n, err)
	}
	if n := logs.count(slog.LevelWarn); n != 1 {
		t.Errorf("%d warnings after recovery; want still 1", n)
	}

	// A second outage is a second warning.
	srv.Stop()
	for range 3 {
		if err := l.Wait(context.Background()); err != nil {
			t.Errorf("Wait in the second outage = %v", err)
		}
	}
	if n := logs.count(slog.LevelWarn); n != 2 {
		t.Errorf("%d warnings after two outages; want 2", n)
	}
}

// A Redis that accepts connections but does not answer (the process is
// stopped) costs an attempt the Redis timeout, not go-redis's 3 s read
// timeout, and the attempt is admitted.
func TestSlowRedisTimesOut(t *testing.T) {
	srv := startRedis(t)
	logs := &logRecorder{}
	l := NewRedisLimiter(newRedisClient(t, srv.Addr), "slow", 100, 10, WithLogger(slog.New(logs)))
	if err := l.Wait(context.Background()); err != nil {
		t.Fatalf("Wait with Redis up: %v", err)
	}
	if err := srv.Pause(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = srv.Resume() }()
	start := time.Now()
	if err := l.Wait(context.Background()); err != nil {
		t.Errorf("Wait while Redis hangs = %v; want the attempt admitted", err)
	}
	if waited := time.Since(start); waited > 1500*time.Millisecond {
		t.Errorf("Wait took %v while Redis hung; want about the 50ms Redis timeout", waited)
	}
	if n := logs.count(slog.LevelWarn); n != 1 {
		t.Errorf("%d warnings; want 1", n)
	}
	if err := srv.Resume(); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, 5*time.Second, "the limiter did not go back to Redis", func() bool {
		if err := l.Wait(context.Background()); err != nil {
			t.Fatalf("Wait after Redis resumed: %v", err)
		}
		return logs.count(slog.LevelInfo) == 1
	})
}

// With WithFailClosed, every attempt is refused at once while Redis is down,
// with an error matching ErrUnavailable (not ErrRateLimited), logged once;
// attempts are admitted again when Redis returns.
func TestFailClosedRefusesDuringOutage(t *testing.T) {
	srv := startRedis(t)
	logs := &logRecorder{}
	l := NewRedisLimiter(newRedisClient(t, srv.Addr), "closed", 100, 10, WithFailClosed(), WithLogger(slog.New(logs)))
	if err := l.Wait(context.Background()); err != nil {
		t.Fatalf("Wait with Redis up: %v", err)
	}
	srv.Stop()
	start := time.Now()
	for range 20 {
		err := l.Wait(context.Background())
		var waitErr *WaitError
		if !errors.Is(err, ErrUnavailable) || errors.Is(err, apierrors.ErrRateLimited) || !errors.As(err, &waitErr) {
			t.Fatalf("Wait while Redis is down = %v; want a *WaitError matching ErrUnavailable only", err)
		}
		if want := `fleet: rate limit "closed": rate limit store unavailable: `; !strings.HasPrefix(err.Error(), want) {
			t.Fatalf("error %q; want it to start %q", err, want)
		}
	}
	if elapsed := time.Since(start); elapsed > 2*time.Second {
		t.Errorf("20 refusals took %v; want them at once", elapsed)
	}
	if n := logs.count(slog.LevelWarn); n != 1 {
		t.Errorf("%d warnings for one outage; want 1", n)
	}
	if err := srv.Restart(); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, 5*time.Second, "Wait still refuses after Redis came back", func() bool {
		return l.Wait(context.Background()) == nil
	})
	if n := logs.count(slog.LevelInfo); n != 1 {
		t.Errorf("%d recovery records; want 1", n)
	}
}

// Each replica that uses a key counts itself in Redis, and an outage paces
// a replica at perSecond divided by their number; one that has never
// reached Redis assumes it is alone.
func TestOutageShareFollowsReplicaCount(t *testing.T) {
	srv := startRedis(t)
	var ls []*Limiter
	for range 3 {
		l := NewRedisLimiter(newRedisClient(t, srv.Addr), "count", 90, 9, WithRedisTimeout(2*time.Second), WithLogger(nil))
		if err := l.Wait(context.Background()); err != nil {
			t.Fatal(err)
		}
		ls = append(ls, l)
	}
	waitUntil(t, 5*time.Second, "the third replica does not count 3", func() bool {
		if err := ls[2].Wait(context.Background()); err != nil {
			t.Fatal(err)
		}
		return ls[2].replicas.Load() == 3
	})
	srv.Stop()
	if err := ls[2].Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	ls[2].outage.mu.Lock()
	interval, burst := ls[2].outage.local.interval, ls[2].outage.local.burst
	ls[2].outage.mu.Unlock()
	if want := time.Second / 30; interval < want-time.Microsecond || interval > want+time.Microsecond || burst != 3 {
		t.Errorf("local share: one turn every %v, burst %d; want 30/s (every %v), burst 3", interval, burst, want)
	}

	alone := NewRedisLimiter(newRedisClient(t, srv.Addr), "count", 90, 9, WithLogger(nil))
	if err := alone.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	alone.outage.mu.Lock()
	interval = alone.outage.local.interval
	alone.outage.mu.Unlock()
	if want := time.Second / 90; interval < want-time.Microsecond || interval > want+time.Microsecond {
		t.Errorf("a replica that never reached Redis paces at one turn every %v; want the whole 90/s (every %v)", interval, want)
	}
}

// A wait refused locally for the deadline matches the same errors as one
// refused by Redis.
func TestLocalWaitRefusesTurnAfterDeadline(t *testing.T) {
	srv := startRedis(t)
	l := NewRedisLimiter(newRedisClient(t, srv.Addr), "localdeadline", 1, 1, WithLogger(nil))
	srv.Stop()
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	// The local bucket starts empty, so the first turn is 1s away.
	err := l.Wait(ctx)
	if !errors.Is(err, apierrors.ErrRateLimited) || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Wait = %v; want an error matching ErrRateLimited and DeadlineExceeded", err)
	}
	if ctx.Err() != nil {
		t.Errorf("Wait returned after the deadline; it must refuse at once")
	}
}

// A new limiter records itself and learns the fleet's size before its first
// Wait, so that a first Redis call that times out paces at the share.
func TestNewLimiterLearnsFleetSize(t *testing.T) {
	srv := startRedis(t)
	first := NewRedisLimiter(newRedisClient(t, srv.Addr), "size", 100, 10, WithLogger(nil))
	waitUntil(t, 5*time.Second, "the first limiter did not record itself", func() bool { return first.replicas.Load() == 1 })
	second := NewRedisLimiter(newRedisClient(t, srv.Addr), "size", 100, 10, WithLogger(nil))
	waitUntil(t, 5*time.Second, "the second limiter did not count 2 replicas", func() bool { return second.replicas.Load() == 2 })
}

// goRedisLog routes go-redis's records to slog at Debug level, as the
// package documentation shows.
type goRedisLog struct{ logger *slog.Logger }

func (g goRedisLog) Printf(ctx context.Context, format string, v ...any) {
	g.logger.DebugContext(ctx, fmt.Sprintf(format, v...), "component", "go-redis")
}

// discardRedisLog drops go-redis's records, as TestMain has them.
type discardRedisLog struct{}

func (discardRedisLog) Printf(context.Context, string, ...any) {}

// During an outage the limiter logs one warning, while go-redis logs its
// failed dials (the lines the package documentation says to quiet) through
// the process-wide logger redis.SetLogger sets, which the documented
// adapter routes to slog.
func TestGoRedisDialFailuresGoThroughSetLogger(t *testing.T) {
	srv := startRedis(t)
	fleetLogs, redisLogs := &logRecorder{}, &logRecorder{}
	l := NewRedisLimiter(newRedisClient(t, srv.Addr), "goredislog", 200, 20, WithLogger(slog.New(fleetLogs)))
	if err := l.Wait(context.Background()); err != nil {
		t.Fatalf("Wait with Redis up: %v", err)
	}
	redis.SetLogger(goRedisLog{slog.New(redisLogs)})
	t.Cleanup(func() { redis.SetLogger(discardRedisLog{}) })

	srv.Stop()
	waitUntil(t, 10*time.Second, "go-redis logged no failed dial through the logger set with redis.SetLogger", func() bool {
		if err := l.Wait(context.Background()); err != nil {
			t.Fatalf("Wait while Redis is down = %v; want the attempt admitted", err)
		}
		return redisLogs.countContaining(slog.LevelDebug, "redis: connection pool: failed to dial") > 0
	})
	if n := fleetLogs.count(slog.LevelWarn); n != 1 {
		t.Errorf("the limiter logged %d warnings for one outage; want 1", n)
	}
}
