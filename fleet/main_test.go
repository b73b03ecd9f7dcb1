package fleet

import (
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/memberplatform/memberplatform-go/fleet/internal/redisserver"
	"github.com/redis/go-redis/v9"
)

// startRedis starts a real redis-server for one test and stops it after.
// It fails the test, naming the package to install, when redis-server
// cannot start: these tests are not skipped.
func startRedis(t *testing.T) *redisserver.Server {
	t.Helper()
	srv, err := redisserver.Start()
	if err != nil {
		t.Fatalf("starting redis-server: %v", err)
	}
	t.Cleanup(srv.Close)
	return srv
}

// newRedisClient returns a go-redis client with default options, closed
// when the test ends.
func newRedisClient(t *testing.T, addr string) *redis.Client {
	t.Helper()
	rdb := redis.NewClient(&redis.Options{Addr: addr})
	t.Cleanup(func() { _ = rdb.Close() })
	return rdb
}

// logRecorder is a slog.Handler that keeps every record.
type logRecorder struct {
	mu      sync.Mutex
	records []slog.Record
}

func (r *logRecorder) Enabled(context.Context, slog.Level) bool { return true }

func (r *logRecorder) Handle(_ context.Context, rec slog.Record) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.records = append(r.records, rec.Clone())
	return nil
}

func (r *logRecorder) WithAttrs([]slog.Attr) slog.Handler { return r }
func (r *logRecorder) WithGroup(string) slog.Handler      { return r }

// count returns how many records of level were logged.
func (r *logRecorder) count(level slog.Level) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, rec := range r.records {
		if rec.Level == level {
			n++
		}
	}
	return n
}

// countContaining returns how many records of level were logged with a
// message containing substr.
func (r *logRecorder) countContaining(level slog.Level, substr string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, rec := range r.records {
		if rec.Level == level && strings.Contains(rec.Message, substr) {
			n++
		}
	}
	return n
}
