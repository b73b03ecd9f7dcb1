package main

// Issue 40's figure 4: strict limiters at 1 and 2 requests/s (burst 1, 429
// + Retry-After: 1), 4 goroutines, 12 s, default options. Targets over
// seconds 2–12: admitted ≥ 0.8 × the rate with ≤ 15% of attempts 429s.
// 0.5.1: at 1/s 27–46% of attempts were 429s; at 2/s 0.75 × or 16%.

import (
	"context"
	"fmt"
	"time"
)

// 40.4 Low strict limits.
func lowStrictLimits(ctx context.Context, _ bool, _ int) bool {
	const g, d, settle = 4, 12 * time.Second, 2 * time.Second
	fmt.Printf("40.4 strict limiter (burst 1, 429 + Retry-After: 1) at a low rate; %d goroutines for %v; figures after the first %v\n", g, d, settle)
	fmt.Printf("  %-16s %9s %12s %9s %9s  %s\n", "provider", "admitted", "× its rate", "429s", "failed", "0.5.1")
	met := true
	for _, tc := range []struct {
		rate   float64
		was051 string
	}{{1, "27–46% 429s"}, {2, "0.75 × or 16% 429s"}} {
		// (Seconds 2–6, 2–12: not the calls finishing their Retry-After after them.)
		p := newStrictProvider(tc.rate, 1, settle, d-settle, throttle429RetryAfter)
		c := newClient(p.URL)
		p.begin()
		t := timed(ctx, c, []area{access}, g, d)[access]
		_, admitted, pct, el := p.window()
		c.CloseIdleConnections()
		p.Close()
		share := float64(admitted) / el.Seconds() / tc.rate
		name := fmt.Sprintf("%g requests/s", tc.rate)
		fmt.Printf("  %-16s %8.2f/s %12.2f %8.1f%% %9d  %s\n", name, share*tc.rate, share, pct, t.failed.Load(), tc.was051)
		met = verdict(share >= 0.8 && pct <= 15, "40.4 strict limiter at %s: admitted %.2f × its rate (≥ 0.8), %.1f%% of attempts 429s (≤ 15%%); 0.5.1: %s",
			name, share, pct, tc.was051) && met
	}
	return met
}
