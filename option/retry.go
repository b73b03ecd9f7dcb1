package option

import (
	"errors"
	"time"

	"github.com/memberplatform/memberplatform-go/internal/core"
)

// WithTimeout bounds a whole call, retries and backoff included. The
// context's own deadline applies too; the earlier one wins.
//
// Scope: client-wide and per call. Default: none (the context's deadline).
func WithTimeout(d time.Duration) RequestOption {
	return duration("WithTimeout", d, func(s *core.Settings) { s.Timeout = d })
}

// WithAttemptTimeout bounds each HTTP attempt (response headers and body);
// a timed-out attempt is retried like a connection error, within the retry
// budget. 0 means none.
//
// Scope: client-wide and per call. Default: none of its own; the
// connection pool client.New makes for itself (when no WithTransport or
// WithHTTPClient transport is given) ends a read that waits 30 s without a
// byte, so that a call without a deadline never hangs on a server that
// accepts and never answers or stalls the body (the README's "Retries and
// timeouts" says why 30 s).
func WithAttemptTimeout(d time.Duration) RequestOption {
	return duration("WithAttemptTimeout", d, func(s *core.Settings) { s.AttemptTimeout = d })
}

// WithMaxRetries sets how many times a retriable failure is retried; 0
// disables retries.
//
// Scope: client-wide and per call. Default: 3 (4 attempts).
func WithMaxRetries(n int) RequestOption {
	return anywhere(func(s *core.Settings) error {
		if n < 0 {
			return errors.New("memberplatform: WithMaxRetries: negative count")
		}
		s.Retry.MaxRetries = n
		return nil
	})
}

// WithRetryBackoff sets the exponential backoff: retry n waits a uniformly
// random duration in [0, min(max, base·2ⁿ)) ("full jitter").
//
// Scope: client-wide and per call. Default: base 250ms, max 8s.
func WithRetryBackoff(base, max time.Duration) RequestOption {
	return anywhere(func(s *core.Settings) error {
		if base <= 0 || max < base {
			return errors.New("memberplatform: WithRetryBackoff: need 0 < base <= max")
		}
		s.Retry.BaseDelay, s.Retry.MaxDelay = base, max
		return nil
	})
}

// WithMaxRetryAfter caps how long the SDK waits when a 429 or 503 carries
// Retry-After or Retry-After-Ms. A longer request stops the call at once
// with the rate-limited error, whose RetryAfter holds the asked duration,
// so the caller can decide. It also caps a wait for a send slot of the
// adaptive rate limit (see WithoutAdaptiveRateLimit): a slot further away
// fails the call at once, even without a deadline. 0 allows no wait at
// all: any Retry-After, and any slot wait once a throttle engaged the
// adaptive limit (for a few seconds after it), fail the call at once. For
// no cap, pass time.Duration(math.MaxInt64) and bound calls with their
// context's deadline.
//
// Scope: client-wide and per call. Default: 20s.
func WithMaxRetryAfter(d time.Duration) RequestOption {
	return duration("WithMaxRetryAfter", d, func(s *core.Settings) { s.Retry.MaxRetryAfter = d })
}

// duration is an option that sets a duration, refusing a negative one.
func duration(name string, d time.Duration, set func(*core.Settings)) RequestOption {
	return anywhere(func(s *core.Settings) error {
		if d < 0 {
			return errors.New("memberplatform: " + name + ": negative duration")
		}
		set(s)
		return nil
	})
}
