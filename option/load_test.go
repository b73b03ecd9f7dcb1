package option_test

import (
	"context"
	"strings"
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

// everyArea calls check with each area's scope.
func everyArea(t *testing.T, s core.Settings, check func(a option.Area, sc core.Scope)) {
	t.Helper()
	for i, sc := range s.Scopes {
		check(core.AreaOf(i), sc)
	}
}

func TestWithRetryBudget(t *testing.T) {
	everyArea(t, applied(t), func(a option.Area, sc core.Scope) {
		if got := sc.Budget.Config(); got != core.DefaultBudgetConfig() {
			t.Fatalf("%s: default budget %+v, want %+v", a, got, core.DefaultBudgetConfig())
		}
	})
	// A zero field keeps its default; every area gets a budget of its own.
	want := core.DefaultBudgetConfig()
	want.Capacity, want.TimeoutCost = 100, 30
	s := applied(t, option.WithRetryBudget(option.RetryBudget{Capacity: 100, TimeoutCost: 30}))
	everyArea(t, s, func(a option.Area, sc core.Scope) {
		if got := sc.Budget.Config(); got != want || sc.Budget.Tokens() != 100 || sc.Budget == s.Scopes[0].Budget && a != option.AreaAccessMgmt {
			t.Fatalf("%s: budget %+v, want %+v, full, of its own", a, got, want)
		}
	})
	everyArea(t, applied(t, option.WithRetryBudget(option.RetryBudget{Disabled: true})), func(a option.Area, sc core.Scope) {
		if sc.Budget != nil {
			t.Fatalf("Disabled: %s budget %v, want none", a, sc.Budget)
		}
	})
	// One option value, two clients: two budgets.
	o := option.WithRetryBudget(option.RetryBudget{Capacity: 7})
	first, second := applied(t, o), applied(t, o)
	if first.Scopes[0].Budget == second.Scopes[0].Budget {
		t.Fatal("two clients built with one WithRetryBudget value share a budget")
	}
}

func TestAdaptiveRateLimitOptions(t *testing.T) {
	everyArea(t, applied(t), func(a option.Area, sc core.Scope) {
		if sc.Pacer == nil || sc.Pacer.Engaged() {
			t.Fatalf("%s: the adaptive rate limit must be on by default, dormant", a)
		}
	})
	// WithAdaptiveRateLimit changes nothing from the default, but stays a
	// client-wide option.
	everyArea(t, applied(t, option.WithAdaptiveRateLimit()), func(a option.Area, sc core.Scope) {
		if sc.Pacer == nil {
			t.Fatalf("WithAdaptiveRateLimit: %s pacer %v, want on", a, sc.Pacer)
		}
	})
	everyArea(t, applied(t, option.WithoutAdaptiveRateLimit()), func(a option.Area, sc core.Scope) {
		if sc.Pacer != nil {
			t.Fatalf("WithoutAdaptiveRateLimit: %s pacer %v, want none", a, sc.Pacer)
		}
	})
	// The last option wins, and each client gets a limiter of its own.
	o := option.WithAdaptiveRateLimit()
	a := applied(t, option.WithoutAdaptiveRateLimit(), o)
	b := applied(t, option.WithoutAdaptiveRateLimit(), o)
	if a.Scopes[1].Pacer == nil || a.Scopes[1].Pacer == b.Scopes[1].Pacer || a.Scopes[1].Pacer == a.Scopes[2].Pacer {
		t.Fatal("WithAdaptiveRateLimit after WithoutAdaptiveRateLimit must give each client and area a pacer of its own")
	}
}

// An explicit ThrottleCost charges throttled retries even while paced;
// the default charges them only without the adaptive limiter.
func TestRetryBudgetThrottleCost(t *testing.T) {
	if got := applied(t).Scopes[0].Budget.Config(); got.PacedThrottleCost != 0 || got.ThrottleCost != 5 {
		t.Fatalf("default throttle costs %+v, want 0 paced, 5 without the limiter", got)
	}
	got := applied(t, option.WithRetryBudget(option.RetryBudget{ThrottleCost: 7})).Scopes[0].Budget.Config()
	if got.PacedThrottleCost != 7 || got.ThrottleCost != 7 {
		t.Fatalf("explicit throttle cost gives %+v, want 7 in both cases", got)
	}
}

type nopLimiter struct{ name string }

func (nopLimiter) Wait(context.Context) error { return nil }

// A limiter given without areas paces every area; given areas, only those,
// and a later one replaces an earlier one in the areas it names.
func TestWithRateLimiter(t *testing.T) {
	all, access, payments := nopLimiter{"all"}, nopLimiter{"access"}, nopLimiter{"payments"}
	everyArea(t, applied(t, option.WithRateLimiter(all)), func(a option.Area, sc core.Scope) {
		if sc.Limiter != all {
			t.Fatalf("%s: limiter %v, want the one given without areas", a, sc.Limiter)
		}
	})
	s := applied(t, option.WithRateLimiter(all), option.WithRateLimiter(access, option.AreaAccessMgmt),
		option.WithRateLimiter(payments, option.AreaPayments, option.AreaToken))
	want := map[option.Area]option.RateLimiter{option.AreaAccessMgmt: access, option.AreaPayments: payments,
		option.AreaToken: payments, option.AreaCustomer: all, option.AreaOther: all}
	everyArea(t, s, func(a option.Area, sc core.Scope) {
		if sc.Limiter != want[a] {
			t.Fatalf("%s: limiter %v, want %v", a, sc.Limiter, want[a])
		}
	})
	everyArea(t, applied(t, option.WithRateLimiter(access, option.AreaAccessMgmt)), func(a option.Area, sc core.Scope) {
		if (sc.Limiter != nil) != (a == option.AreaAccessMgmt) {
			t.Fatalf("a limiter for access management only: %s has %v", a, sc.Limiter)
		}
	})
	s = core.DefaultSettings()
	err := core.Apply(&s, false, []option.RequestOption{option.WithRateLimiter(all, option.AreaPayments, "billing")})
	if err == nil || !strings.Contains(err.Error(), `unknown area "billing"`) {
		t.Fatalf("an unknown area: err = %v", err)
	}
}
