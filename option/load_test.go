package option_test

import (
	"context"
	"testing"

	"github.com/memberplatform/memberplatform-go/internal/core"
	"github.com/memberplatform/memberplatform-go/option"
)

// applied returns default settings with opts applied, as client.New
// starts from.
func applied(t *testing.T, opts ...option.RequestOption) core.Settings {
	t.Helper()
	s := core.DefaultSettings()
	if err := core.Apply(&s, false, opts); err != nil {
		t.Fatal(err)
	}
	return s
}

func TestWithRetryBudget(t *testing.T) {
	if got := applied(t).RetryBudget.Config(); got != core.DefaultBudgetConfig() {
		t.Fatalf("default budget %+v, want %+v", got, core.DefaultBudgetConfig())
	}
	// A zero field keeps its default.
	got := applied(t, option.WithRetryBudget(option.RetryBudget{Capacity: 100, TimeoutCost: 30})).RetryBudget.Config()
	want := core.DefaultBudgetConfig()
	want.Capacity, want.TimeoutCost = 100, 30
	if got != want || applied(t, option.WithRetryBudget(option.RetryBudget{Capacity: 100})).RetryBudget.Tokens() != 100 {
		t.Fatalf("budget %+v, want %+v, full", got, want)
	}
	if s := applied(t, option.WithRetryBudget(option.RetryBudget{Disabled: true})); s.RetryBudget != nil {
		t.Fatalf("Disabled: budget %v, want none", s.RetryBudget)
	}
	// One option value, two clients: two budgets.
	o := option.WithRetryBudget(option.RetryBudget{Capacity: 7})
	first, second := applied(t, o), applied(t, o)
	if first.RetryBudget == second.RetryBudget {
		t.Fatal("two clients built with one WithRetryBudget value share a budget")
	}
}

func TestAdaptiveRateLimitOptions(t *testing.T) {
	def := applied(t)
	if def.Adaptive == nil {
		t.Fatal("the adaptive rate limit must be on by default")
	}
	if _, engaged := def.Adaptive.Rate(); engaged {
		t.Fatal("the default adaptive limiter must start dormant")
	}
	// WithAdaptiveRateLimit changes nothing from the default, but stays a
	// client-wide option.
	if s := applied(t, option.WithAdaptiveRateLimit()); s.Adaptive == nil {
		t.Fatalf("WithAdaptiveRateLimit: limiter %v, want on", s.Adaptive)
	}
	off := applied(t, option.WithoutAdaptiveRateLimit())
	if off.Adaptive != nil {
		t.Fatalf("WithoutAdaptiveRateLimit: limiter %v, want none", off.Adaptive)
	}
	// The last option wins, and each client gets a limiter of its own.
	o := option.WithAdaptiveRateLimit()
	a := applied(t, option.WithoutAdaptiveRateLimit(), o)
	b := applied(t, option.WithoutAdaptiveRateLimit(), o)
	if a.Adaptive == nil || a.Adaptive == b.Adaptive {
		t.Fatal("WithAdaptiveRateLimit after WithoutAdaptiveRateLimit must give each client a limiter of its own")
	}
}

// An explicit ThrottleCost charges throttled retries even while paced;
// the default charges them only without the adaptive limiter.
func TestRetryBudgetThrottleCost(t *testing.T) {
	if got := applied(t).RetryBudget.Config(); got.PacedThrottleCost != 0 || got.ThrottleCost != 5 {
		t.Fatalf("default throttle costs %+v, want 0 paced, 5 without the limiter", got)
	}
	got := applied(t, option.WithRetryBudget(option.RetryBudget{ThrottleCost: 7})).RetryBudget.Config()
	if got.PacedThrottleCost != 7 || got.ThrottleCost != 7 {
		t.Fatalf("explicit throttle cost gives %+v, want 7 in both cases", got)
	}
}

type nopLimiter struct{}

func (nopLimiter) Wait(context.Context) error { return nil }

func TestWithRateLimiter(t *testing.T) {
	if s := applied(t, option.WithRateLimiter(nopLimiter{})); s.RateLimiter == nil {
		t.Fatalf("limiter %v, want set", s.RateLimiter)
	}
}
