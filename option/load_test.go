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
	if err := core.Apply(&s, opts); err != nil {
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
	if s := applied(t, option.WithRetryBudget(option.RetryBudget{Disabled: true})); s.RetryBudget != nil || !s.LoadSet {
		t.Fatalf("Disabled: budget %v, LoadSet %v; want none, set", s.RetryBudget, s.LoadSet)
	}
	// One option value, two clients: two budgets.
	o := option.WithRetryBudget(option.RetryBudget{Capacity: 7})
	first, second := applied(t, o), applied(t, o)
	if first.RetryBudget == second.RetryBudget {
		t.Fatal("two clients built with one WithRetryBudget value share a budget")
	}
}

func TestWithAdaptiveRateLimit(t *testing.T) {
	o := option.WithAdaptiveRateLimit()
	a, b := applied(t, o), applied(t, o)
	if a.Adaptive == nil || a.Adaptive == b.Adaptive || !a.LoadSet {
		t.Fatal("each client built with WithAdaptiveRateLimit needs a limiter of its own")
	}
	if _, engaged := a.Adaptive.Rate(); engaged {
		t.Fatal("a new adaptive limiter must start unlimited")
	}
}

type nopLimiter struct{}

func (nopLimiter) Wait(context.Context) error { return nil }

func TestWithRateLimiter(t *testing.T) {
	if s := applied(t, option.WithRateLimiter(nopLimiter{})); s.RateLimiter == nil || !s.LoadSet {
		t.Fatalf("limiter %v, LoadSet %v", s.RateLimiter, s.LoadSet)
	}
}
