package option

import (
	"cmp"
	"context"
	"errors"

	"github.com/memberplatform/memberplatform-go/internal/core"
	"github.com/memberplatform/memberplatform-go/internal/pacer"
)

// RetryBudget sizes the retry budget (see WithRetryBudget); a zero field takes its default.
type RetryBudget struct {
	Capacity      int  // the budget when full, and at the start; default 500
	ThrottleCost  int  // after a rate-limited answer; default 0 with the adaptive rate limit on, else 5; set, it applies to both
	ErrorCost     int  // after a 408, 500, 502, 503 or 504; default 10
	TimeoutCost   int  // after a connection failure or timeout; default 15
	SuccessRefill int  // put back by a call healthy at its first attempt (a healthy retry gets its cost back); default 1
	Disabled      bool // off: each call retries on its own, up to WithMaxRetries
}

// WithRetryBudget sizes, or with RetryBudget{Disabled: true} turns off, the
// retry budget (AWS SDK standard mode's retry quota): tokens shared by the
// client's calls and SigV4 token call, spent by retries, put back by healthy
// answers. Once spent, calls make one attempt, and its error also matches
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
		cfg.Capacity = cmp.Or(b.Capacity, cfg.Capacity)
		cfg.ErrorCost = cmp.Or(b.ErrorCost, cfg.ErrorCost)
		cfg.TimeoutCost = cmp.Or(b.TimeoutCost, cfg.TimeoutCost)
		cfg.SuccessRefill = cmp.Or(b.SuccessRefill, cfg.SuccessRefill)
		cfg.ThrottleCost = cmp.Or(b.ThrottleCost, cfg.ThrottleCost)
		cfg.PacedThrottleCost = cmp.Or(b.ThrottleCost, cfg.PacedThrottleCost) // an explicit cost charges paced throttles too
		s.RetryBudget = core.NewRetryBudget(cfg)
		return nil
	}})
}

// RateLimiter paces the client's attempts, safe for concurrent use, as
// golang.org/x/time/rate's *rate.Limiter: Wait returns when one may be sent,
// or an error at once when ctx is done or the wait would pass its deadline.
type RateLimiter interface {
	Wait(ctx context.Context) error
}

// WithRateLimiter makes every attempt, token call included, wait on l after
// the adaptive rate limit: a limit you know, such as rate.NewLimiter(100,
// 10), or for replicas sharing one, the Redis limiter of module
// github.com/memberplatform/memberplatform-go/fleet. Wait's error ends the
// call in an *errors.TransportError.
//
// Scope: client. Default: none.
func WithRateLimiter(l RateLimiter) RequestOption {
	return clientWide(clientWideLoad, checked(l == nil, "WithRateLimiter: nil RateLimiter", func(s *core.Settings) { s.RateLimiter = l }))
}

// WithAdaptiveRateLimit undoes WithoutAdaptiveRateLimit; it is kept for
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
// another layer reacts to 429s (keep it beside a fleet limiter, under which
// it stays dormant).
//
// Dormant at no measurable cost, the limit engages on a rate-limited answer
// at the rate the provider admitted over the last second; then each attempt
// waits its turn, each rate-limited answer cuts the rate to 70%, admitted
// ones regain it in about 2 s (CUBIC) and probe above it, and a few quiet
// seconds release it. A wait past the deadline or WithMaxRetryAfter fails
// the call at once with an *errors.TransportError matching
// errors.ErrRateLimited. Rate-limited retries then cost the budget nothing.
//
// Scope: client. Default: on.
func WithoutAdaptiveRateLimit() RequestOption {
	return clientWide(clientWideLoad, set(func(s *core.Settings) { s.Adaptive = nil }))
}
