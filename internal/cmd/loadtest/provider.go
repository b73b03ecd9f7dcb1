package main

// The figures of a pacer that reads the provider's rate (issue 34, figures
// 1 and 2), on access management alone:
//
//  12. Sporadic throttles far below the provider's rate: every 100th answer
//     a bare 429 (16 goroutines, 3 s), then every 1,000th a 429 with
//     Retry-After: 1 (16 goroutines, 4 s), default options and
//     WithoutAdaptiveRateLimit() side by side in the same run, each with a
//     server of its own. Targets: every call succeeds; default options make
//     ≥ 0.9 × the calls/s of the other client.
//  13. A provider admitting a fixed rate (token bucket, burst 1) and
//     answering a bare 429 above it, for 10 s: 5 requests/s with 8
//     goroutines, 50/s and 500/s with 32. Targets, after the first 2 s:
//     admitted ≥ 0.8 × 5/s with ≤ 15% of attempts 429s; ≥ 0.9 × 50/s with
//     ≤ 10%; ≥ 0.9 × 500/s with ≤ 5%.

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/time/rate"
)

// 12. Sporadic throttles.
func sporadicThrottles(ctx context.Context, _ bool, _ int) bool {
	met := true
	for _, tc := range []struct {
		name     string
		every    int64
		g        int
		d        time.Duration
		throttle answer
	}{
		{"every 100th answer a bare 429", 100, 16, 3 * time.Second, throttle429},
		{"every 1,000th answer 429 + Retry-After: 1", 1000, 16, 4 * time.Second, throttle429RetryAfter},
	} {
		fmt.Printf("12. %s; %d goroutines per client for %v, both clients at once\n", tc.name, tc.g, tc.d)
		fmt.Printf("  %-26s %9s %10s %10s %10s\n", "client", "calls", "calls/s", "succeeded", "429s")
		clients := []clientConfig{{"default options", defaults}, {"WithoutAdaptiveRateLimit", v020}}
		var rates, okPct [2]float64
		var rows [2]string
		var wg sync.WaitGroup
		for i, cfg := range clients {
			wg.Go(func() {
				var n atomic.Int64
				srv := newServer(func(w http.ResponseWriter) bool {
					if n.Add(1)%tc.every == 0 {
						return tc.throttle(w)
					}
					return ok200(w)
				})
				defer srv.Close()
				c := newClient(srv.URL, cfg.opts...)
				defer c.CloseIdleConnections()
				start := time.Now()
				t := timed(ctx, c, []area{access}, tc.g, tc.d)[access]
				el := time.Since(start).Seconds()
				ok := t.calls.Load() - t.failed.Load()
				rates[i] = float64(ok) / el
				okPct[i] = 100 * float64(ok) / float64(max(t.calls.Load(), 1))
				rows[i] = fmt.Sprintf("  %-26s %9d %10.0f %9.2f%% %10d", cfg.name, t.calls.Load(), rates[i], okPct[i], srv.throttled.Load())
			})
		}
		wg.Wait()
		for _, r := range rows {
			fmt.Println(r)
		}
		ratio := rates[0] / max(rates[1], 1)
		met = verdict(okPct[0] == 100 && ratio >= 0.9, "12. %s: %.2f%% of calls succeeded (100%%); default options at %.2f × (≥ 0.9) the calls/s of WithoutAdaptiveRateLimit()",
			tc.name, okPct[0], ratio) && met
	}
	return met
}

// 13. A provider admitting a fixed rate, burst 1.
func providerAtItsRate(ctx context.Context, _ bool, _ int) bool {
	const d, settle = 10 * time.Second, 2 * time.Second
	fmt.Printf("13. the provider admits a fixed rate (burst 1) and answers a bare 429 above it, for %v; figures after the first %v\n", d, settle)
	fmt.Printf("  %-22s %11s %9s %12s %11s %9s\n", "provider", "goroutines", "admitted", "× its rate", "429s", "failed")
	met := true
	for _, tc := range []struct {
		rate             float64
		g                int
		minShare, max429 float64
	}{{5, 8, 0.8, 15}, {50, 32, 0.9, 10}, {500, 32, 0.9, 5}} {
		p := newBucketProvider(tc.rate, settle)
		c := newClient(p.URL)
		start := p.begin()
		t := timed(ctx, c, []area{access}, tc.g, d)[access]
		c.CloseIdleConnections()
		p.Close()
		share, pct := p.figures(start)
		name := fmt.Sprintf("%g requests/s", tc.rate)
		fmt.Printf("  %-22s %11d %8.1f/s %12.2f %10.1f%% %9d\n", name, tc.g, share*tc.rate, share, pct, t.failed.Load())
		met = verdict(share >= tc.minShare && pct <= tc.max429, "13. provider at %s, %d goroutines: admitted %.2f × its rate (≥ %.1f), %.1f%% of attempts 429s (≤ %g%%)",
			name, tc.g, share, tc.minShare, pct, tc.max429) && met
	}
	return met
}

// bucketProvider is a provider admitting a fixed rate with a burst of 1
// and a bare 429 above it (figure 13, and 40.2's control). It counts the
// attempts it admits and refuses from settle after begin on.
type bucketProvider struct {
	*server
	rate              float64
	settle            time.Duration
	mu                sync.Mutex
	start             time.Time
	admitted, refused int
}

func newBucketProvider(perSecond float64, settle time.Duration) *bucketProvider {
	p := &bucketProvider{rate: perSecond, settle: settle}
	bucket := rate.NewLimiter(rate.Limit(perSecond), 1)
	p.server = newServer(func(w http.ResponseWriter) bool {
		ok := bucket.Allow()
		p.mu.Lock()
		if !p.start.IsZero() && time.Since(p.start) >= p.settle {
			if ok {
				p.admitted++
			} else {
				p.refused++
			}
		}
		p.mu.Unlock()
		if ok {
			return ok200(w)
		}
		return throttle429(w)
	})
	return p
}

// begin starts the figure's clock and returns when it started.
func (p *bucketProvider) begin() time.Time {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.start = time.Now()
	return p.start
}

// figures returns the rate admitted after the settling time, as a share of
// the provider's rate, and the percentage of attempts answered 429.
func (p *bucketProvider) figures(start time.Time) (share, pct float64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	el := time.Since(start) - p.settle
	return float64(p.admitted) / el.Seconds() / p.rate, 100 * float64(p.refused) / float64(max(p.admitted+p.refused, 1))
}
