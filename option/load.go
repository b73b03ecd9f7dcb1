package option

import (
	"context"
	"errors"

	"github.com/memberplatform/memberplatform-go/internal/core"
)

// RetryBudget sizes the client's retry budget (see WithRetryBudget). A
// zero field takes its default, so RetryBudget{Capacity: 100} changes the
// capacity only.
type RetryBudget struct {
	// Capacity is the budget when full, and where it starts. Default 500.
	Capacity int
	// ThrottleCost is what a retry after a rate-limited answer (429, or
	// one for which errors.Is(err, errors.ErrRateLimited) holds) costs.
	// Default 5.
	ThrottleCost int
	// ErrorCost is what a retry after another retriable error response
	// (408, 500, 502, 503, 504) costs. Default 10.
	ErrorCost int
	// TimeoutCost is what a retry after a connection failure or a timeout
	// costs. Default 15.
	TimeoutCost int
	// SuccessRefill is what a call whose first attempt got a healthy
	// answer (anything but 408, 429 and 5xx) puts back; a retry that got
	// one gets its own cost back instead. Default 1.
	SuccessRefill int
	// Disabled turns the budget off: every call retries on its own, up to
	// WithMaxRetries, as before the budget existed.
	Disabled bool
}

// WithRetryBudget sizes, or with RetryBudget{Disabled: true} turns off, the
// client's retry budget. The budget is one pool of tokens shared by all the
// client's calls and its SigV4 token call: a retry spends tokens, a healthy
// answer puts a few back, and when the pool is empty calls still make their
// first attempt but are not retried. A sustained outage thus costs the
// service little more than one attempt per call, instead of 1+MaxRetries;
// when the service recovers, its answers refill the pool and retries
// resume.
//
// A call that the budget stopped returns the error of its last attempt,
// which also matches errors.ErrRetryBudgetExhausted with errors.Is (see
// there), and the WithLogger give-up record says "retry budget exhausted".
//
// A retry costs according to how much it adds to the service's trouble: 5
// after a rate-limited answer (the service is up, and the retry waits its
// Retry-After), 10 after another error response (the service is failing),
// 15 after a timeout or connection failure (it is overloaded or
// unreachable). A call answered at its first attempt puts 1 back; a retry
// that gets a healthy answer gets its cost back, so transient failures
// never drain the budget. With the default 500 tokens, a client that sees
// no healthy answer can retry 50 failing calls (100 throttled ones, 33
// after timeouts) before it stops, and then one for every 10 healthy
// answers. These follow AWS SDK standard mode's retry quota (500 tokens;
// 5 per throttled retry, 14 per other retry since its 2026 update). Each
// client built with this option gets a budget of its own.
//
// Scope: client-wide; passing it to a single call fails. Default: on, with
// the numbers above.
func WithRetryBudget(b RetryBudget) RequestOption {
	return requestOption(func(s *core.Settings) error {
		s.LoadSet = true
		if b.Disabled {
			s.RetryBudget = nil
			return nil
		}
		if b.Capacity < 0 || b.ThrottleCost < 0 || b.ErrorCost < 0 || b.TimeoutCost < 0 || b.SuccessRefill < 0 {
			return errors.New("memberplatform: WithRetryBudget: negative size")
		}
		cfg := core.DefaultBudgetConfig()
		for _, f := range []struct{ dst, v *int }{
			{&cfg.Capacity, &b.Capacity}, {&cfg.ThrottleCost, &b.ThrottleCost}, {&cfg.ErrorCost, &b.ErrorCost},
			{&cfg.TimeoutCost, &b.TimeoutCost}, {&cfg.SuccessRefill, &b.SuccessRefill},
		} {
			if *f.v != 0 {
				*f.dst = *f.v
			}
		}
		s.RetryBudget = core.NewRetryBudget(cfg)
		return nil
	})
}

// RateLimiter paces the client's attempts (see WithRateLimiter). A
// *rate.Limiter from golang.org/x/time/rate satisfies it.
//
// Wait blocks until one attempt may be sent. It must return promptly with
// an error when ctx is done, and must refuse, with an error at once, a wait
// that would end after ctx's deadline: the SDK never starts a wait it
// cannot finish, and relies on the limiter for that. *rate.Limiter does
// both. Wait must be safe for concurrent use.
type RateLimiter interface {
	Wait(ctx context.Context) error
}

// WithRateLimiter makes every attempt wait on l before it is sent: each
// call's first attempt, each retry (after its backoff or Retry-After), and
// the SigV4 token call. Use it to stay under a limit you know, such as
// rate.NewLimiter(100, 10) for 100 requests per second with bursts of 10.
//
// Several replicas of a service that share one provider limit can share
// one limiter: give each client an l that takes its tokens from a shared
// store, such as a token bucket in Redis (see the example). Each replica
// then sends only what the fleet's limit allows, however many replicas
// are running.
//
// An error from Wait ends the call with an *errors.TransportError whose Err
// wraps it, and whose Last keeps the answer that was to be retried, if
// any. (*rate.Limiter's refusal of a wait past the deadline is a plain
// error; make a limiter of your own wrap context.DeadlineExceeded, as the
// adaptive limiter does, if callers test for it.) With
// WithAdaptiveRateLimit as well, an attempt waits on the adaptive limiter
// first, then on l.
//
// Scope: client-wide; passing it to a single call fails. Default: none.
func WithRateLimiter(l RateLimiter) RequestOption {
	return requestOption(func(s *core.Settings) error {
		if l == nil {
			return errors.New("memberplatform: WithRateLimiter: nil RateLimiter")
		}
		s.RateLimiter, s.LoadSet = l, true
		return nil
	})
}

// WithAdaptiveRateLimit makes the client learn the provider's rate limit
// and send no faster, instead of sending at will and sleeping through a
// Retry-After on every 429. It starts unlimited; the first rate-limited
// answer (a 429, or any answer for which errors.Is(err,
// errors.ErrRateLimited) holds) engages a client-side limiter that paces
// every attempt, the token call included, at the rate the provider
// admitted over the last second (at least one attempt every 2 s), raised
// quickly until the next rate-limited answer. From then on a rate-limited
// answer cuts the rate to 70% and admitted answers raise it again along a
// CUBIC curve that regains, in about 2 s of sending, the rate the provider
// admitted before the cut, and then probes above it; after a few seconds
// of sending without a rate-limited answer the limiter lets go.
// Retry-After is still honoured by the retry that follows a 429, and a wait
// for a slot never starts when it would end after the context's deadline (the call then fails at once with an
// *errors.TransportError that matches context.DeadlineExceeded).
//
// This is AWS SDK adaptive retry mode's client-side rate limiting, changed
// to converge faster and to sit closer to the limit: estimates come from
// the rate the provider admitted, not the client's own sending rate; one
// congestion event (the answers to attempts sent before the cut) cuts the
// rate once, not once per answer; and attempts already waiting follow a
// change of rate from their next slot. Each client built with this option
// learns on its own. Under throttling it lets nearly every call succeed
// near the provider's rate, where the retry budget alone refuses the
// retries of many 429s: the README's "Under load" section has the figures
// and how to reproduce them.
//
// It suits a client throttled by a limit of its own (per API key or
// tenant). Replicas that share one limit each learn a share of it
// separately and keep probing against one another; a WithRateLimiter that
// draws from a shared bucket divides the limit exactly.
//
// Scope: client-wide; passing it to a single call fails. Default: off.
func WithAdaptiveRateLimit() RequestOption {
	return requestOption(func(s *core.Settings) error {
		s.Adaptive, s.LoadSet = core.NewAdaptiveLimiter(), true
		return nil
	})
}
