package main

// Issue 40's figure 3: strict limiters (burst 1, as nginx limit_req without
// burst) answering 429 + Retry-After: 1 above their rate, servers answering
// after 2 ms, 32 goroutines, 6 s, default options. Targets over seconds
// 2–6: 200 and 500 requests/s admitted ≥ 0.85 × with ≤ 5% of attempts
// 429s; 500/s with one core of the process kept busy by other work ≥ 0.8 ×,
// ≤ 5%. 0.5.1 admitted 0.69–0.89 × / 0.70–0.81 × with 1–2% 429s, and
// 0.56–0.82 × with a core busy.

import (
	"context"
	"fmt"
	"runtime"
	"time"
)

// 40.3 Strict limiters at high rates, and under CPU load.
func strictLimiters(ctx context.Context, _ bool, _ int) bool {
	const g, d, settle = 32, 6 * time.Second, 2 * time.Second
	fmt.Printf("40.3 strict limiter (burst 1, 429 + Retry-After: 1), servers answering after %v; %d goroutines for %v; figures after the first %v\n", serverLatency, g, d, settle)
	fmt.Printf("  %-30s %9s %12s %9s %9s  %s\n", "provider", "admitted", "× its rate", "429s", "failed", "0.5.1")
	met := true
	for _, tc := range []struct {
		rate   float64
		busy   bool
		min    float64
		was051 string
	}{{200, false, 0.85, "0.69–0.89 ×, 1–2%"}, {500, false, 0.85, "0.70–0.81 ×, 1–2%"}, {500, true, 0.8, "0.56–0.82 ×"}} {
		// (Seconds 2–6, 2–12: not the calls finishing their Retry-After after them.)
		p := newStrictProvider(tc.rate, 1, settle, d-settle, throttle429RetryAfter)
		c := newClient(p.URL)
		runCtx, stop := context.WithCancel(ctx)
		if tc.busy && runtime.GOMAXPROCS(0) > 1 {
			go spin(runCtx)
		}
		p.begin()
		t := timed(ctx, c, []area{access}, g, d)[access]
		stop()
		_, admitted, pct, el := p.window()
		c.CloseIdleConnections()
		p.Close()
		share := float64(admitted) / el.Seconds() / tc.rate
		name := fmt.Sprintf("%g requests/s", tc.rate)
		if tc.busy {
			name += ", a core busy"
		}
		fmt.Printf("  %-30s %8.1f/s %12.2f %8.1f%% %9d  %s\n", name, share*tc.rate, share, pct, t.failed.Load(), tc.was051)
		met = verdict(share >= tc.min && pct <= 5, "40.3 strict limiter at %s: admitted %.2f × its rate (≥ %.2f), %.1f%% of attempts 429s (≤ 5%%); 0.5.1: %s",
			name, share, tc.min, pct, tc.was051) && met
	}
	return met
}

// spin keeps one core busy until ctx ends, as other work in the process
// would.
func spin(ctx context.Context) {
	for n := 0; ctx.Err() == nil; n++ {
		for range 100_000 {
			n ^= n << 1
		}
	}
}
