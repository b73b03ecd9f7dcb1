package option

import (
	"cmp"
	"context"
	"errors"
	"fmt"

	memberplatform "github.com/memberplatform/memberplatform-go"
	"github.com/memberplatform/memberplatform-go/internal/core"
	"github.com/memberplatform/memberplatform-go/internal/pacer"
)

// Area is one backend of the platform: access management (the access
// provider), payments, customer, the token endpoint, and other paths of
// client.Client.Execute. A client keeps its load control per area: each
// has its own adaptive rate limit, retry budget and, with WithRateLimiter,
// rate limiter, so a throttle or an outage of one never delays, refuses
// or fails a call of another. Execute's calls take the area of their
// path's prefix (/auth/access-management, /payment-methods, /customer,
// /auth/token), else AreaOther.
type Area = memberplatform.Area

// The areas, for WithRateLimiter.
const (
	AreaAccessMgmt = memberplatform.AreaAccessMgmt // accessmgmt: the access provider's rate limit
	AreaPayments   = memberplatform.AreaPayments   // payments
	AreaCustomer   = memberplatform.AreaCustomer   // customer
	AreaToken      = memberplatform.AreaToken      // the SigV4 token call, POST /auth/token
	AreaOther      = memberplatform.AreaOther      // Execute calls to any other path
)

// RetryBudget sizes the retry budget (see WithRetryBudget); a zero field takes its default.
type RetryBudget struct {
	Capacity      int  // the budget of each area when full, and at the start; default 500
	ThrottleCost  int  // after a rate-limited answer; default 0 with the adaptive rate limit on, else 5; set, it applies to both
	ErrorCost     int  // after a 408, 500, 502, 503, 504 or a status of WithRetryOn; default 10
	TimeoutCost   int  // after a connection failure or timeout; default 15
	SuccessRefill int  // put back by a call healthy at its first attempt (a healthy retry gets its cost back); default 1
	Disabled      bool // off: each call retries on its own, up to WithMaxRetries
}

// WithRetryBudget sizes, or with RetryBudget{Disabled: true} turns off, the
// retry budgets (AWS SDK standard mode's retry quota): one per Area, its
// tokens shared by the area's calls, spent by retries, put back by healthy
// answers. Once an area's budget is spent, its calls make one attempt, and
// the error also matches errors.ErrRetryBudgetExhausted; other areas still
// retry.
//
// Scope: client. Default: on, sized as RetryBudget's defaults.
func WithRetryBudget(b RetryBudget) RequestOption {
	return clientWide(clientWideLoad, requestOption{apply: func(s *core.Settings) error {
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
		for i := range s.Scopes {
			s.Scopes[i].Budget = nil
			if !b.Disabled {
				s.Scopes[i].Budget = core.NewRetryBudget(cfg)
			}
		}
		return nil
	}})
}

// RateLimiter paces the client's attempts, safe for concurrent use, as
// golang.org/x/time/rate's *rate.Limiter: Wait returns when one may be sent,
// or an error at once when ctx is done or the wait would pass its deadline.
// An error that knows when to try again (errors.RetryAfterError, as fleet's
// *WaitError) tells errors.RetryAfterOf. A limiter that can tell it was
// misconfigured has a Validate() error method (fleet's *Limiter does):
// WithRateLimiter calls it, so client.New fails with its error.
//
// The call a Wait error ends matches errors.ErrRateLimited: the limit
// refused the attempt, or the call ended while it waited (it then matches
// the context's error too). Two errors say they are no rate limit, and the
// call's then matches errors.ErrTransport and what the limiter's error
// matches, not errors.ErrRateLimited: one matching errors.ErrInvalidInput
// (a misconfigured limiter), and one whose chain holds a method
//
//	RateLimited() bool
//
// returning false: a limiter that could not decide, such as one whose
// shared store cannot be reached (fleet's *WaitError under
// fleet.WithFailClosed while Redis is away, which matches
// fleet.ErrUnavailable). Such an outage is then no 429 to code that tests
// errors.ErrRateLimited first.
type RateLimiter interface {
	Wait(ctx context.Context) error
}

// WithRateLimiter makes every attempt of the given areas (every area when
// none is given), retries included, wait on l after the area's adaptive
// rate limit: a limit you know, such as rate.NewLimiter(100, 10), or for
// replicas sharing the access provider's limit, the Redis limiter of
// module github.com/memberplatform/memberplatform-go/fleet, given for
// AreaAccessMgmt. An area has one limiter: a later WithRateLimiter naming
// it replaces the earlier. Wait's error ends the call in an
// *errors.TransportError wrapping it, before anything is sent, that matches
// errors.ErrRateLimited unless the error says it is no rate limit (see
// RateLimiter).
//
// Scope: client. Default: none.
func WithRateLimiter(l RateLimiter, areas ...Area) RequestOption {
	return clientWide(clientWideLoad, requestOption{apply: func(s *core.Settings) error {
		switch {
		case l == nil:
			return errors.New("memberplatform: WithRateLimiter: nil RateLimiter")
		case core.NilInside(l):
			return core.TypedNilError("WithRateLimiter", l, "pass a limiter, or leave the option out for none")
		}
		if v, ok := l.(interface{ Validate() error }); ok {
			if err := v.Validate(); err != nil {
				return fmt.Errorf("memberplatform: WithRateLimiter: %w", err)
			}
		}
		if len(areas) == 0 {
			for i := range s.Scopes {
				s.Scopes[i].Limiter = l
			}
		}
		for _, a := range areas {
			i := core.AreaIndex(a)
			if core.AreaOf(i) != a {
				return fmt.Errorf("memberplatform: WithRateLimiter: unknown area %q; use the option.Area constants", string(a))
			}
			s.Scopes[i].Limiter = l
		}
		return nil
	}})
}

// WithAdaptiveRateLimit undoes WithoutAdaptiveRateLimit; it is kept for
// code written for 0.2.0, where the limit was opt-in.
//
// Scope: client. Default: on.
func WithAdaptiveRateLimit() RequestOption {
	return clientWide(clientWideLoad, set(func(s *core.Settings) {
		for i := range s.Scopes {
			if s.Scopes[i].Pacer == nil {
				s.Scopes[i].Pacer = pacer.New()
			}
		}
	}))
}

// WithoutAdaptiveRateLimit turns off the adaptive rate limit of every
// area, for when another layer reacts to 429s (keep it beside a fleet
// limiter, under which it stays dormant).
//
// The limit is dormant, at no measurable cost, until the area's provider
// refuses (429 or a "rate limited" problem) more than 2% of the answers it
// gave over the last second: sporadic refusals, such as one 429 in 100
// from a hot partition, pace nothing. Then it engages at the rate the
// provider admitted over that second, and at no less than one attempt per
// Retry-After: so after a lone 429 with Retry-After: 1, the next call of
// that area waits for a slot up to 1 s away, even a call that saw no 429
// itself. From then on each attempt of the area waits its turn, spaced by
// at least the interval (a burst of 1). It cuts the rate at most once per
// throttle event (refusals of attempts sent before the last cut are the
// same event), by the share of answers refused beyond 2% (at least 5%, at
// most 30%), so it settles just under the rate the provider admits; the
// rate then regains and probes above it (CUBIC), and while every answer is
// a throttle it probes once a second. Release is by time and gradual: 3 s
// after the last throttle (and 20 admitted answers) the rate doubles every
// 250 ms, so a provider still at its limit meets a few more attempts, not
// the whole queue; at 16 times the rate it admits the limit is dormant
// again, and so it is at once when a provider that refused everything for
// a second and a half admits an attempt, or when the area is idle. A wait
// it cannot finish before the context's deadline or within
// WithMaxRetryAfter (counting the calls queued ahead, but right after a
// first throttle and while the provider refuses everything, whose rates
// are about to rise) fails the call at once with an
// *errors.TransportError matching errors.ErrRateLimited, whose
// errors.RetryAfterOf is the slot's distance; a call whose context
// ends while it waits matches both errors.ErrRateLimited and the context's
// error. Rate-limited retries cost the retry budget nothing.
//
// Throttles concentrated on one resource or a few (an operation and its
// path parameters: a hot user, a locked object) while the rest of the area
// is admitted are each resource's own: they do not engage or cut the area's
// limit; the resource's retries are spaced on their own and, while many
// queue, its new calls fail at once with errors.ErrRateLimited (the
// load-control document says when). This option turns that off too.
//
// Scope: client. Default: on.
func WithoutAdaptiveRateLimit() RequestOption {
	return clientWide(clientWideLoad, set(func(s *core.Settings) {
		for i := range s.Scopes {
			s.Scopes[i].Pacer = nil
		}
	}))
}
