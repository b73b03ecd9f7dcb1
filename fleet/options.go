package fleet

import (
	"log/slog"
	"time"
)

// DefaultRedisTimeout is how long Wait waits for one Redis call, by default,
// before it treats Redis as unavailable.
const DefaultRedisTimeout = 50 * time.Millisecond

// Option configures a Limiter (see NewRedisLimiter).
type Option struct{ apply func(*config) }

type config struct {
	timeout    time.Duration
	failClosed bool
	logger     *slog.Logger
}

func defaultConfig() config {
	return config{timeout: DefaultRedisTimeout, logger: slog.Default()}
}

// WithRedisTimeout sets how long Wait waits for one Redis call before it
// treats Redis as unavailable (and admits the attempt, or refuses it under
// WithFailClosed). It is enforced even when the go-redis client ignores
// context deadlines (ContextTimeoutEnabled false, go-redis's default). A d of
// 0 or less keeps the default, DefaultRedisTimeout (50 ms).
func WithRedisTimeout(d time.Duration) Option {
	return Option{func(c *config) {
		if d > 0 {
			c.timeout = d
		}
	}}
}

// WithFailClosed makes Wait refuse every attempt, at once, while Redis cannot
// answer, with a *WaitError that matches ErrUnavailable. The fleet then never
// exceeds its limit, but every call fails for as long as Redis is away, with
// an error that matches ErrUnavailable, not errors.ErrRateLimited.
// Default: fail open (see the package documentation).
func WithFailClosed() Option {
	return Option{func(c *config) { c.failClosed = true }}
}

// WithLogger sets where the limiter logs the start (Warn) and end (Info) of
// each Redis outage: one record each per outage, never one per attempt. nil
// turns logging off. Default: slog.Default(). It does not cover go-redis's
// own log lines (failed dials during an outage), which go to go-redis's
// process-wide logger: see "Logs during an outage" in the package
// documentation for how to quiet or route them.
func WithLogger(l *slog.Logger) Option {
	return Option{func(c *config) { c.logger = l }}
}
