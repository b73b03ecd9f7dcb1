package option

import (
	"context"
	"errors"

	"github.com/memberplatform/memberplatform-go/internal/core"
	"github.com/memberplatform/memberplatform-go/internal/pacer"
)

// RetryBudget sizes the client's retry budget (see WithRetryBudget). A
// zero field takes its default, so RetryBudget{Capacity: 100} changes the
// capacity only.
type RetryBudget struct {
	// Capacity is the budget when full, and where it starts. Default 500.
	Capacity int
	// ThrottleCost is what a retry after a rate-limited answer (429, or
	// one for which errors.Is(err, errors.ErrRateLimited) holds) costs.
	// Default: nothing while the adaptive rate limit is on (the default),
	// 5 with WithoutAdaptiveRateLimit. A value set here applies in both
	// cases.
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
// A retry costs according to how much it adds to the service's trouble: 10
// after an error response such as a 503 (the service is failing), 15 after
// a timeout or connection failure (it is overloaded or unreachable), and
// nothing after a rate-limited answer while the adaptive rate limit paces
// the client (the service is up and asked it to slow down; see
// WithoutAdaptiveRateLimit), 5 without it. A call answered at its first
// attempt puts 1 back; a retry that gets a healthy answer gets its cost
// back, so transient failures never drain the budget. With the default
// 500 tokens, a client that sees no healthy answer can retry 50 failing
// calls (33 after timeouts) before it stops, and then one for every 10
// healthy answers. The pool follows AWS SDK standard mode's retry quota,
// which today has 500 tokens and charges 5 per retry and 10 per retry
// after a timeout, throttles included; AWS's 2026 retry update, an opt-in
// preview, charges 5 for a throttle against 14 for other retries. Each
// client built with this option gets a budget of its own.
//
// Scope: client-wide; passing it to a single call fails. Default: on, with
// the numbers above.
func WithRetryBudget(b RetryBudget) RequestOption {
	return clientWide(clientWideLoad, func(s *core.Settings) error {
		if b.Disabled {
			s.RetryBudget = nil
			return nil
		}
		if b.Capacity < 0 || b.ThrottleCost < 0 || b.ErrorCost < 0 || b.TimeoutCost < 0 || b.SuccessRefill < 0 {
			return errors.New("memberplatform: WithRetryBudget: negative size")
		}
		cfg := core.DefaultBudgetConfig()
		if b.ThrottleCost != 0 {
			cfg.PacedThrottleCost = b.ThrottleCost // an explicit cost charges paced throttles too
		}
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
// Several replicas of a service that share one provider limit share one
// limiter: give each client the Redis-backed limiter of the nested module
// github.com/memberplatform/memberplatform-go/fleet (fleet.NewRedisLimiter)
// on the same key, and keep the default adaptive rate limit beside it.
// Each replica then sends only what the fleet's limit allows, however many
// replicas are running.
//
// An error from Wait ends the call with an *errors.TransportError whose Err
// wraps it, and whose Last keeps the answer that was to be retried, if
// any. (*rate.Limiter's refusal of a wait past the deadline is a plain
// error; make a limiter of your own wrap context.DeadlineExceeded, as the
// adaptive limiter and fleet's do, if callers test for it.) The adaptive rate limit
// (on by default, see WithoutAdaptiveRateLimit) is waited on first, then l.
//
// Scope: client-wide; passing it to a single call fails. Default: none.
func WithRateLimiter(l RateLimiter) RequestOption {
	return clientWide(clientWideLoad, func(s *core.Settings) error {
		if l == nil {
			return errors.New("memberplatform: WithRateLimiter: nil RateLimiter")
		}
		s.RateLimiter = l
		return nil
	})
}

// WithAdaptiveRateLimit is kept for code written for 0.2.0, where the
// adaptive rate limit was opt-in: it is now on by default, and this option
// changes nothing (after WithoutAdaptiveRateLimit, it turns the limit back
// on). See WithoutAdaptiveRateLimit for what the adaptive rate limit does.
//
// Scope: client-wide; passing it to a single call fails. Default: on.
func WithAdaptiveRateLimit() RequestOption {
	return clientWide(clientWideLoad, func(s *core.Settings) error {
		if s.Adaptive == nil {
			s.Adaptive = pacer.New()
		}
		return nil
	})
}

// WithoutAdaptiveRateLimit turns off the client's adaptive rate limit. Few
// callers need it: with a shared fleet limiter (package fleet, through
// WithRateLimiter) keep the adaptive limit on, since it stays dormant while
// the shared limiter keeps the fleet under the provider's limit, and paces
// the client if 429s come anyway (when the shared store is away). Turn it
// off when another layer of yours already reacts to 429s, or to get 0.2.0's
// behaviour back.
//
// The adaptive rate limit, on by default, learns the provider's rate limit
// and paces the client just under it. It is dormant, and costs a healthy
// call nothing measurable, until the first rate-limited answer (a 429, or
// any answer for which errors.Is(err, errors.ErrRateLimited) holds). That
// answer engages it at the rate the provider admitted over the last
// second, and at no less than one attempt per Retry-After, so a lone
// call's retry leaves when its Retry-After ends; the rate then rises
// quickly until the next rate-limited answer. From then on every attempt
// of the client, retries and the SigV4 token call included, waits its
// turn: a rate-limited answer cuts the rate to 70%, and admitted answers
// raise it along a CUBIC curve that regains in about 2 s of sending the
// rate the provider admitted before the cut, then probes above it; after a
// few seconds of sending without a rate-limited answer the limiter lets
// go. It is AWS SDK adaptive retry mode's client-side rate limiting,
// changed to converge faster and sit closer to the limit (see the
// README's "Under load" section for the figures).
//
// A wait for a slot never starts when it would end after the context's
// deadline or last longer than WithMaxRetryAfter (20 s by default), even
// without a deadline: the call then fails at once with an
// *errors.TransportError that matches errors.ErrRateLimited, keeps the
// last 429 in Last when the call saw one, and also matches
// context.DeadlineExceeded when the deadline was the reason.
//
// While it is on, retries of rate-limited answers cost the retry budget
// nothing (unless RetryBudget.ThrottleCost says otherwise): the limiter,
// Retry-After and WithMaxRetries bound them, so a throttled call never
// fails with errors.ErrRetryBudgetExhausted. Without it, they cost the
// budget RetryBudget.ThrottleCost (5) each, as in 0.2.0, and a heavily
// throttled client fails the calls whose retries the budget refuses.
//
// Scope: client-wide; passing it to a single call fails.
func WithoutAdaptiveRateLimit() RequestOption {
	return clientWide(clientWideLoad, func(s *core.Settings) error {
		s.Adaptive = nil
		return nil
	})
}
