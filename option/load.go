package option

import (
	"cmp"
	"context"
	"errors"

	"github.com/memberplatform/memberplatform-go/internal/core"
	"github.com/memberplatform/memberplatform-go/internal/pacer"
)

// RetryBudget sizes the retry budget (see WithRetryBudget); a zero field
// takes its default.
type RetryBudget struct {
	Capacity int // the budget when full, and at the start; default 500
	// ThrottleCost is a retry's cost after a rate-limited answer; default
	// 0 while the adaptive rate limit is on, else 5. Set, it applies to both.
	ThrottleCost  int
	ErrorCost     int  // after a 408, 500, 502, 503 or 504; default 10
	TimeoutCost   int  // after a connection failure or timeout; default 15
	SuccessRefill int  // put back by a call healthy at its first attempt (a healthy retry gets its cost back); default 1
	Disabled      bool // off: each call retries on its own, up to WithMaxRetries
}

// WithRetryBudget sizes, or with RetryBudget{Disabled: true} turns off, the
// retry budget (after AWS SDK standard mode's retry quota): tokens shared
// by the client's calls and its SigV4 token call, spent by retries and put
// back by healthy answers. Once they are spent, calls make their first
// attempt only, and fail with its error, which then also matches
// errors.ErrRetryBudgetExhausted.
//
// Scope: client. Default: on, sized as RetryBudget's defaults.
func WithRetryBudget(b RetryBudget) RequestOption {
	return clientWide(clientWideLoad, requestOption{apply: func(s *core.Settings) error {
		if b.Disabled {
			s.RetryBudget = nil
			return nil
		}
		if b.Capacity < 0 || b.ThrottleCost < 0 || b.ErrorCost < 0 || b.TimeoutCost < 0 || b.SuccessRefill < 0 {
			return errors.New("memberplatform: WithRetryBudget: negative size")
		}
		cfg := core.DefaultBudgetConfig()
		cfg.Capacity = cmp.Or(b.Capacity, cfg.Capacity) // a zero field takes its default
		cfg.ErrorCost = cmp.Or(b.ErrorCost, cfg.ErrorCost)
		cfg.TimeoutCost = cmp.Or(b.TimeoutCost, cfg.TimeoutCost)
		cfg.SuccessRefill = cmp.Or(b.SuccessRefill, cfg.SuccessRefill)
		cfg.ThrottleCost = cmp.Or(b.ThrottleCost, cfg.ThrottleCost)
		cfg.PacedThrottleCost = cmp.Or(b.ThrottleCost, cfg.PacedThrottleCost) // an explicit cost charges paced throttles too
		s.RetryBudget = core.NewRetryBudget(cfg)
		return nil
	}})
}

// RateLimiter paces the client's attempts; *rate.Limiter from
// golang.org/x/time/rate is one. Wait blocks until one attempt may be sent,
// and must return an error at once when ctx is done or the wait would end
// after its deadline. It must be safe for concurrent use.
type RateLimiter interface {
	Wait(ctx context.Context) error
}

// WithRateLimiter makes every attempt, the SigV4 token call's included,
// wait on l after the adaptive rate limit: a limit you know, such as
// rate.NewLimiter(100, 10), or for replicas sharing one, fleet's Redis
// limiter (module github.com/memberplatform/memberplatform-go/fleet). An
// error from Wait ends the call with an *errors.TransportError wrapping it.
//
// Scope: client. Default: none.
func WithRateLimiter(l RateLimiter) RequestOption {
	return clientWide(clientWideLoad, checked(l == nil, "WithRateLimiter: nil RateLimiter", func(s *core.Settings) { s.RateLimiter = l }))
}

// WithAdaptiveRateLimit turns the adaptive rate limit back on after
// WithoutAdaptiveRateLimit, and otherwise changes nothing; it is kept for
// code written for 0.2.0, where the limit was opt-in.
//
// Scope: client. Default: on.
func WithAdaptiveRateLimit() RequestOption {
	return clientWide(clientWideLoad, set(func(s *core.Settings) {
		if s.Adaptive == nil {
			s.Adaptive = pacer.New()
		}
	}))
}

// WithoutAdaptiveRateLimit turns off the adaptive rate limit, for when
// another layer of yours reacts to 429s. Keep it on beside a fleet limiter:
// it stays dormant while that limiter holds the fleet under the limit.
//
// The limit is dormant, at no measurable cost, until a rate-limited answer
// (matching errors.ErrRateLimited) engages it at the rate the provider
// admitted over the last second. Then every attempt waits its turn: each
// rate-limited answer cuts the rate to 70%, admitted answers regain it in
// about 2 s (CUBIC) and probe above it, and a few quiet seconds release
// it. A wait past the context's deadline or WithMaxRetryAfter fails the
// call at once with an *errors.TransportError matching
// errors.ErrRateLimited. Rate-limited retries cost the retry budget
// nothing while the limit is on.
//
// Scope: client. Default: the adaptive rate limit is on.
func WithoutAdaptiveRateLimit() RequestOption {
	return clientWide(clientWideLoad, set(func(s *core.Settings) { s.Adaptive = nil }))
}
