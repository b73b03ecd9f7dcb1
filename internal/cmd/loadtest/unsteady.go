package main

// Issue 40's figure 1: throttles that do not follow the rate. Every 50th,
// 20th and 10th answer is a bare 429 whatever the rate (a hot partition, a
// per-object lock, one bad replica behind a balancer); 16 goroutines per
// client for 4 s, servers answering after 2 ms, default options and
// WithoutAdaptiveRateLimit() side by side in the same run, each with a
// server of its own. Targets: default options make ≥ 0.9 × / 0.9 × / 0.8 ×
// the calls/s of the other client, and no call of either fails.
// 0.5.1 made 0.13–0.33 × / 0.05–0.07 × / 0.07 ×.

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/memberplatform/memberplatform-go/option"
)

// 40.1 Throttles whatever the rate.
func throttlesWhateverTheRate(ctx context.Context, _ bool, _ int) bool {
	const g, d = 16, 4 * time.Second
	met := true
	for _, tc := range []struct {
		every  int64
		min    float64
		was051 string
	}{{50, 0.9, "0.13–0.33"}, {20, 0.9, "0.05–0.07"}, {10, 0.8, "0.07"}} {
		fmt.Printf("40.1 every %dth answer a bare 429 whatever the rate; %d goroutines per client for %v, both clients at once (0.5.1: %s ×)\n", tc.every, g, d, tc.was051)
		fmt.Printf("  %-26s %9s %10s %10s %10s\n", "client", "calls", "calls/s", "failed", "429s")
		clients := []clientConfig{{"default options", defaults}, {"WithoutAdaptiveRateLimit", []option.RequestOption{option.WithoutAdaptiveRateLimit()}}}
		var rates [2]float64
		var failed [2]int64
		var rows [2]string
		var wg sync.WaitGroup
		for i, cfg := range clients {
			wg.Go(func() {
				var n atomic.Int64
				srv := newServer(slow(func(w http.ResponseWriter) bool {
					if n.Add(1)%tc.every == 0 {
						return throttle429(w)
					}
					return ok200(w)
				}))
				defer srv.Close()
				c := newClient(srv.URL, cfg.opts...)
				defer c.CloseIdleConnections()
				start := time.Now()
				t := timed(ctx, c, []area{access}, g, d)[access]
				el := time.Since(start).Seconds()
				failed[i] = t.failed.Load()
				rates[i] = float64(t.calls.Load()-failed[i]) / el
				rows[i] = fmt.Sprintf("  %-26s %9d %10.0f %10d %10d", cfg.name, t.calls.Load(), rates[i], failed[i], srv.throttled.Load())
			})
		}
		wg.Wait()
		for _, r := range rows {
			fmt.Println(r)
		}
		ratio := rates[0] / max(rates[1], 1)
		met = verdict(failed[0] == 0 && failed[1] == 0 && ratio >= tc.min,
			"40.1 every %dth answer a 429: default options at %.2f × (≥ %.1f; 0.5.1: %s) the calls/s of WithoutAdaptiveRateLimit(); %d and %d calls failed (0)",
			tc.every, ratio, tc.min, tc.was051, failed[0], failed[1]) && met
	}
	return met
}
