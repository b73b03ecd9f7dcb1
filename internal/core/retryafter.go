package core

import (
	"context"
	"math/rand/v2"
	"time"
)

// Retries after a Retry-After are spread out: calls throttled together
// (a burst at a limit of a few requests a second, a hot key) would
// otherwise come back together, and a provider with a burst of 1 would
// admit one of them and throttle the rest again, every Retry-After. The
// Retry-After stays a floor: a retry waits it, plus a random share of
// retryAfterSpread of it, at most maxRetryAfterJitter. The deadline rule is
// unchanged: a Retry-After that does not fit the deadline stops the call at
// once (StopDeadline); the jitter only takes half of what is left after it,
// so the retry keeps time to be answered. While the area's pacer is
// engaged it spaces the retries itself, each waiting its slot: the jitter
// would only delay them (a throttled batch's last calls), so there is none.
// Nor is there after a throttle of a resource's own (resources.go): its
// retries are spaced one after another over the Retry-After (SpaceRetry),
// which spreads them evenly; a random share on top only lengthens each of
// its calls' turns (by a fifth on average), and a hot user with a few calls
// waiting is tried less often than it admits.
const (
	retryAfterSpread    = 0.4
	maxRetryAfterJitter = 2 * time.Second
)

// retryAfterJitter returns the jitter a retry after a Retry-After of ra
// waits on top of it, before the deadline rule.
func (p *RetryPolicy) retryAfterJitter(ra time.Duration) time.Duration {
	if p.paced {
		return 0
	}
	r := p.Rand
	if r == nil {
		r = rand.Float64
	}
	return time.Duration(r() * float64(min(time.Duration(float64(ra)*retryAfterSpread), maxRetryAfterJitter)))
}

// fitJitter returns jitter, cut to half of what the context's deadline
// leaves after a wait of wait from now.
func fitJitter(ctx context.Context, now time.Time, wait, jitter time.Duration) time.Duration {
	if dl, ok := ctx.Deadline(); ok {
		jitter = min(jitter, max(dl.Sub(now.Add(wait))/2, 0))
	}
	return jitter
}
