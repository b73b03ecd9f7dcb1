// Command loadtest reproduces, against loopback servers, the two load
// figures of the retry budget and the adaptive rate limit, and prints them
// beside the same runs without the feature:
//
//	go run ./internal/cmd/loadtest                    # outage and throttle, about 50 s
//	go run ./internal/cmd/loadtest -scenario outage   # about 20 s
//	go run ./internal/cmd/loadtest -scenario throttle # about 30 s (-repeat n: n adaptive runs, 6 s each)
//	go run ./internal/cmd/loadtest -scenario today    # throttle without budget or limiter, about 45 s
//
// Clients use default options apart from the base URL and no token (and
// the option under test). Each goroutine makes its own share of the calls,
// so a goroutine that waits out a Retry-After does not hand its calls to
// the others: the wall time is the slowest goroutine's.
//
// outage: a server answers 503 to everything; 200 goroutines make 20 calls
// each (4,000 calls) through one client with default options, then through
// one with the retry budget disabled (the SDK before the budget). Target:
// attempts seen by the server ≤ 1.10 × calls with the budget. The same
// default client then sees the server recover (every call succeeds at its
// first attempt) and fail again (retries resume, as many as the healthy
// answers refilled).
//
// throttle: a server admits 200 requests/s (token bucket, burst 20) and
// answers 429 with Retry-After: 1 above that; 20 goroutines make 50 calls
// each (1,000 calls, ideally 5 s) with option.WithAdaptiveRateLimit(), then
// with default options. Targets with the adaptive limit: ≥ 99% of calls
// succeed, 429s ≤ 15% of attempts, wall time ≤ 1.3 × 5 s. The today
// scenario runs it with neither budget nor limiter (the SDK before both).
//
// Every call has a deadline and the whole program stops after -timeout, so
// it always ends by itself. It exits 1 when a target is missed. Timings on
// a busy machine are noisy (other processes starve the goroutines and the
// server alike): rerun before trusting a marginal miss.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/memberplatform/memberplatform-go/accessmgmt"
	"github.com/memberplatform/memberplatform-go/client"
	apierrors "github.com/memberplatform/memberplatform-go/errors"
	"github.com/memberplatform/memberplatform-go/option"
)

func main() {
	scenario := flag.String("scenario", "all", "outage, throttle, all or today")
	timeout := flag.Duration("timeout", 3*time.Minute, "stop everything after this long")
	repeat := flag.Int("repeat", 1, "run the adaptive throttle run this many times (at most 10), each with a fresh client")
	flag.Parse()
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()

	*repeat = min(max(*repeat, 1), 10)
	ok := true
	switch *scenario {
	case "outage":
		ok = outage(ctx)
	case "throttle":
		ok = throttle(ctx, false, *repeat)
	case "today":
		ok = throttle(ctx, true, 1)
	case "all":
		ok = outage(ctx)
		fmt.Println()
		ok = throttle(ctx, false, *repeat) && ok
	default:
		fmt.Fprintf(os.Stderr, "loadtest: unknown -scenario %q\n", *scenario)
		os.Exit(2)
	}
	if ctx.Err() != nil {
		fmt.Println("stopped: -timeout reached")
		ok = false
	}
	if !ok {
		os.Exit(1)
	}
}

// server is a loopback platform whose answers a scenario chooses. It counts
// attempts, retries (requests carrying X-Retry-Attempt) and 429s.
type server struct {
	*httptest.Server
	answer    atomic.Value // func(http.ResponseWriter) bool: writes the answer, reports a 429
	attempts  atomic.Int64
	retries   atomic.Int64
	throttled atomic.Int64
}

func newServer(answer func(http.ResponseWriter) bool) *server {
	s := &server{}
	s.answer.Store(answer)
	s.Server = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		s.attempts.Add(1)
		if r.Header.Get("X-Retry-Attempt") != "" {
			s.retries.Add(1)
		}
		if s.answer.Load().(func(http.ResponseWriter) bool)(w) {
			s.throttled.Add(1)
		}
	}))
	s.Config.ErrorLog = log.New(io.Discard, "", 0)
	s.Start()
	return s
}

// reset zeroes the counters between runs.
func (s *server) reset() {
	s.attempts.Store(0)
	s.retries.Store(0)
	s.throttled.Store(0)
}

func ok200(w http.ResponseWriter) bool {
	w.Header().Set("Content-Type", "application/json")
	_, _ = io.WriteString(w, `{"id":"user_1","email":"ada@example.com","firstName":"Ada"}`)
	return false
}

func unavailable503(w http.ResponseWriter) bool {
	w.Header().Set("Content-Type", "application/problem+json")
	w.WriteHeader(http.StatusServiceUnavailable)
	_, _ = io.WriteString(w, `{"title":"Service Unavailable","status":503}`)
	return false
}

// tokenBucket is the provider's rate limit: rate per second, bursts of burst.
type tokenBucket struct {
	mu          sync.Mutex
	rate, burst float64
	tokens      float64
	last        time.Time
}

func (b *tokenBucket) take() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	now := time.Now()
	if b.last.IsZero() {
		b.tokens = b.burst
	} else {
		b.tokens = min(b.burst, b.tokens+now.Sub(b.last).Seconds()*b.rate)
	}
	b.last = now
	if b.tokens < 1 {
		return false
	}
	b.tokens--
	return true
}

// result is what one run of calls saw from the client's side.
type result struct {
	calls, succeeded, budgetStopped int64
	wall                            time.Duration
}

// run makes perG calls from each of g goroutines through c and waits for
// them. Each call gets at most 30 s, and none starts once ctx is done.
func run(ctx context.Context, c *client.Client, g, perG int) result {
	var r result
	var calls, succeeded, stopped atomic.Int64
	start := time.Now()
	var wg sync.WaitGroup
	for range g {
		wg.Go(func() {
			for range perG {
				if ctx.Err() != nil {
					return
				}
				callCtx, cancel := context.WithTimeout(ctx, 30*time.Second)
				_, err := c.AccessMgmt.UpdateUser(callCtx, "user_1", accessmgmt.UpdateUserParams{FirstName: new("Ada")})
				cancel()
				calls.Add(1)
				switch {
				case err == nil:
					succeeded.Add(1)
				case errors.Is(err, apierrors.ErrRetryBudgetExhausted):
					stopped.Add(1)
				}
			}
		})
	}
	wg.Wait()
	r.wall = time.Since(start)
	r.calls, r.succeeded, r.budgetStopped = calls.Load(), succeeded.Load(), stopped.Load()
	return r
}

func newClient(srv *server, opts ...option.RequestOption) *client.Client {
	all := append([]option.RequestOption{option.WithBaseURL(srv.URL), option.WithTokenSource(nil)}, opts...)
	c, err := client.New(all...)
	if err != nil {
		log.Fatal(err)
	}
	return c
}

var noBudget = option.WithRetryBudget(option.RetryBudget{Disabled: true})

// outage runs the outage scenario and reports whether its target was met.
func outage(ctx context.Context) bool {
	const goroutines, perG, target = 200, 20, 1.10
	srv := newServer(unavailable503)
	defer srv.Close()
	fmt.Printf("outage: every answer 503; %d goroutines × %d calls = %d calls per run\n\n", goroutines, perG, goroutines*perG)
	fmt.Printf("  %-26s %7s %9s %14s %12s %8s\n", "client", "calls", "attempts", "attempts/call", "budget-stop", "wall")

	c := newClient(srv)
	defer c.CloseIdleConnections()
	r := run(ctx, c, goroutines, perG)
	ratio := float64(srv.attempts.Load()) / float64(r.calls)
	fmt.Printf("  %-26s %7d %9d %14.3f %12d %8s\n", "default options (budget)", r.calls, srv.attempts.Load(), ratio, r.budgetStopped, r.wall.Round(10*time.Millisecond))

	srv.reset()
	legacy := newClient(srv, noBudget)
	defer legacy.CloseIdleConnections()
	lr := run(ctx, legacy, goroutines, perG)
	fmt.Printf("  %-26s %7d %9d %14.3f %12d %8s\n\n", "budget disabled (before)", lr.calls, srv.attempts.Load(), float64(srv.attempts.Load())/float64(lr.calls), lr.budgetStopped, lr.wall.Round(10*time.Millisecond))

	// The same default client, whose budget the outage emptied.
	srv.reset()
	srv.answer.Store(ok200)
	rec := run(ctx, c, 20, 10)
	fmt.Printf("  recovery: the server answers 200: %d/%d calls succeeded in %d attempts (%d retries)\n",
		rec.succeeded, rec.calls, srv.attempts.Load(), srv.retries.Load())
	srv.reset()
	srv.answer.Store(unavailable503)
	again := run(ctx, c, 20, 10)
	fmt.Printf("  outage again: %d calls made %d retries (the %d healthy answers put back %d tokens, 10 per retry) before the budget stopped them\n\n",
		again.calls, srv.retries.Load(), rec.succeeded, rec.succeeded)

	met := ratio <= target && r.calls == goroutines*perG && rec.succeeded == rec.calls && srv.retries.Load() > 0
	verdict(met, fmt.Sprintf("attempts/call %.3f ≤ %.2f with default options; retries resume after recovery", ratio, target))
	return met
}

// throttle runs the throttle scenario: repeat times with the adaptive
// limit, then once with default options; or, for today, once with neither
// budget nor limiter.
func throttle(ctx context.Context, today bool, repeat int) bool {
	const goroutines, perG, rate, burst = 20, 50, 200, 20
	ideal := time.Duration(float64(goroutines*perG) / rate * float64(time.Second))
	fmt.Printf("throttle: the server admits %d requests/s (burst %d), 429 + Retry-After: 1 above; %d goroutines × %d calls = %d calls per run (ideal %v)\n\n",
		rate, burst, goroutines, perG, goroutines*perG, ideal)
	fmt.Printf("  %-30s %9s %9s %11s %9s %8s\n", "client", "succeeded", "attempts", "429s", "wall", "× ideal")

	type config struct {
		name    string
		opts    []option.RequestOption
		checked bool // the run the targets apply to
	}
	var configs []config
	if today {
		configs = []config{{name: "no budget, no limiter (before)", opts: []option.RequestOption{noBudget}}}
	} else {
		for range repeat {
			configs = append(configs, config{"WithAdaptiveRateLimit()", []option.RequestOption{option.WithAdaptiveRateLimit()}, true})
		}
		configs = append(configs, config{name: "default options (budget)"})
	}
	var verdicts []string
	met := true
	for _, cfg := range configs {
		b := &tokenBucket{rate: rate, burst: burst}
		srv := newServer(func(w http.ResponseWriter) bool {
			if b.take() {
				return ok200(w)
			}
			w.Header().Set("Retry-After", "1")
			w.Header().Set("Content-Type", "application/problem+json")
			w.WriteHeader(http.StatusTooManyRequests)
			_, _ = io.WriteString(w, `{"title":"Too Many Requests","status":429}`)
			return true
		})
		c := newClient(srv, cfg.opts...) // a fresh client: nothing learnt from the previous run
		r := run(ctx, c, goroutines, perG)
		c.CloseIdleConnections()
		srv.Close()
		okPct := 100 * float64(r.succeeded) / float64(goroutines*perG)
		thrPct := 100 * float64(srv.throttled.Load()) / float64(srv.attempts.Load())
		times := float64(r.wall) / float64(ideal)
		fmt.Printf("  %-30s %8.1f%% %9d %10.1f%% %9s %8.2f\n", cfg.name, okPct, srv.attempts.Load(), thrPct, r.wall.Round(10*time.Millisecond), times)
		if cfg.checked {
			ok := okPct >= 99 && thrPct <= 15 && times <= 1.3
			met = met && ok
			v := "PASS"
			if !ok {
				v = "FAIL"
			}
			verdicts = append(verdicts, fmt.Sprintf("%s with WithAdaptiveRateLimit(): %.1f%% ≥ 99%% succeeded, 429s %.1f%% ≤ 15%%, wall %.2f ≤ 1.3 × ideal", v, okPct, thrPct, times))
		}
	}
	fmt.Println()
	for _, v := range verdicts {
		fmt.Println(v)
	}
	return met
}

func verdict(ok bool, what string) {
	if ok {
		fmt.Println("PASS", what)
	} else {
		fmt.Println("FAIL", what)
	}
}
