package main

// Issue 40's figure 6: replicas sharing a limit. 4 processes (this program
// run again, as replicas) × 8 goroutines, default options, no shared store,
// call one provider admitting 50 requests/s (burst 5, 429 + Retry-After: 1
// above, answering after 2 ms) for 12 s. Targets over seconds 2–12:
// together ≥ 0.9 × the limit, ≤ 10% of attempts 429s, the least-served
// replica ≥ 0.5 × the most-served. 0.5.1: together 0.99–1.00 ×, 6–9%
// 429s, least/most 0.06–0.21.

import (
	"context"
	"fmt"
	"log"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/memberplatform/memberplatform-go/option"
)

// The environment of a replica: its name, the provider's URL, when to
// start (Unix nanoseconds) and for how long.
const (
	replicaEnv      = "LOADTEST_REPLICA"
	replicaURLEnv   = "LOADTEST_REPLICA_URL"
	replicaStartEnv = "LOADTEST_REPLICA_START"
	replicaForEnv   = "LOADTEST_REPLICA_FOR"
)

const replicaG = 8

// A replica runs before main: it calls the provider and exits.
func init() {
	name := os.Getenv(replicaEnv)
	if name == "" {
		return
	}
	startNs, err1 := strconv.ParseInt(os.Getenv(replicaStartEnv), 10, 64)
	d, err2 := time.ParseDuration(os.Getenv(replicaForEnv))
	if err1 != nil || err2 != nil {
		log.Fatalf("replica %s: bad environment", name)
	}
	c := newClient(os.Getenv(replicaURLEnv), option.WithHeader("X-Replica", name))
	time.Sleep(time.Until(time.Unix(0, startNs)))
	t := timed(context.Background(), c, []area{access}, replicaG, d)[access]
	fmt.Printf("%d calls, %d failed\n", t.calls.Load(), t.failed.Load())
	os.Exit(0)
}

// 40.6 Replicas sharing a limit.
func replicasShareALimit(ctx context.Context, _ bool, _ int) bool {
	const replicas, limit, d, settle = 4, 50.0, 12 * time.Second, 2 * time.Second
	fmt.Printf("40.6 %d replicas (processes) × %d goroutines, default options, one provider admitting %g requests/s (burst 5, 429 + Retry-After: 1) for %v; figures after the first %v\n",
		replicas, replicaG, limit, d, settle)
	self, err := os.Executable()
	if err != nil {
		return verdict(false, "40.6 replicas: %v", err)
	}
	p := newStrictProvider(limit, 5, settle, 0, throttle429RetryAfter)
	defer p.Close()
	start := time.Now().Add(time.Second) // the replicas' processes start meanwhile
	outs := make([][]byte, replicas)
	var wg sync.WaitGroup
	for i := range replicas {
		cmd := exec.CommandContext(ctx, self)
		cmd.Env = append(os.Environ(), replicaEnv+"="+strconv.Itoa(i+1), replicaURLEnv+"="+p.URL,
			replicaStartEnv+"="+strconv.FormatInt(start.UnixNano(), 10), replicaForEnv+"="+d.String())
		wg.Go(func() {
			out, err := cmd.CombinedOutput()
			if err != nil {
				out = fmt.Appendf(out, "replica failed: %v", err)
			}
			outs[i] = out
		})
	}
	time.Sleep(time.Until(start))
	p.begin()
	wg.Wait()
	per, admitted, pct, el := p.window()
	fmt.Printf("  %-10s %10s  %s\n", "replica", "admitted", "its calls")
	var served []float64
	for i := range replicas {
		name := strconv.Itoa(i + 1)
		r := float64(per[name]) / el.Seconds()
		served = append(served, r)
		fmt.Printf("  %-10s %8.1f/s  %s", name, r, outs[i])
	}
	share := float64(admitted) / el.Seconds() / limit
	fairness := slices.Min(served) / max(slices.Max(served), 1e-9)
	fmt.Printf("  together %.1f/s (%.2f × the limit), %.1f%% of attempts 429s, least/most served %.2f (0.5.1: 0.99–1.00 ×, 6–9%%, 0.06–0.21)\n",
		share*limit, share, pct, fairness)
	return verdict(share >= 0.9 && pct <= 10 && fairness >= 0.5,
		"40.6 replicas: together %.2f × the limit (≥ 0.9), %.1f%% of attempts 429s (≤ 10%%), least/most served %.2f (≥ 0.5); 0.5.1: 0.99–1.00 ×, 6–9%%, 0.06–0.21",
		share, pct, fairness)
}
