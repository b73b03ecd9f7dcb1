// Command loadtest reproduces, against loopback servers, the load figures
// of the SDK's defaults (issue 17, figures 1–6, each with default options
// beside the behaviour of 0.2.0 where that is useful) and of its load
// control per area (issue 27, figures 7–11, in areas.go), of a pacer that
// follows real providers (issue 34's figures 1–2 as 12–13, in provider.go),
// of admission control and the shared token (issue 34's figures 3–5 as
// 14–16, printed 34.3–34.5, in admission.go), and of connections under
// concurrency (issue 33, figure 17, in connections.go), and of issue 40
// (printed 40.1–40.6): its figure 5, admission per operation, as 18 in
// operations.go; its figure 2, a hot user, as 19 in hotuser.go; its
// figures 1, 3, 4 and 6 as 20–23: throttles whatever the rate in
// unsteady.go, strict limiters in strictlimit.go and lowlimit.go, replicas
// as separate processes in replicas.go; its figure 2 with several hot
// users as 24 (printed 40.2+) in hotusers.go:
//
//	go run ./internal/cmd/loadtest                 # every figure (1–24), about 10 minutes
//	go run ./internal/cmd/loadtest -figure 2       # one figure
//	go run ./internal/cmd/loadtest -old=false      # default options only, about a minute
//	go run ./internal/cmd/loadtest -figure 2 -repeat 5
//
// "0.2.0 defaults" is option.WithoutAdaptiveRateLimit() and
// WithoutAdmissionControl(): the retry budget charging throttled retries,
// no pacing, nothing refused locally, as 0.2.0 shipped. "0.1.0" adds
// WithRetryBudget(RetryBudget{Disabled: true}): no budget either.
//
//  1. Outage: every answer 503; 200 goroutines × 20 calls. Target ≤ 1.10
//     attempts per call.
//  2. Throttled batch: the provider admits 200 requests/s (token bucket,
//     burst 20) and answers 429 + Retry-After: 1 above that; 20 goroutines
//     × 50 calls (ideally 5 s). Targets: ≥ 99% of calls succeed, ≤ 15% of
//     attempts answered 429, wall time ≤ 1.3 × ideal.
//  3. The same batch when the provider answers a bare 429 (no
//     Retry-After), and when it answers the contract's rate-limited problem
//     (503, application/problem+json, "rate limited", no Retry-After): the
//     same targets.
//  4. One call answered 429 + Retry-After: 1, then 200: succeeds in ≤ 1.5 s,
//     on a fresh client and on one whose budget an outage emptied.
//  5. Outage (figure 1) then the throttled batch (figure 2) on one client:
//     ≥ 99% of the throttled calls succeed.
//  6. A provider answering 429 + Retry-After: 1 to everything; 20 goroutines
//     × 10 calls with a 5 s deadline each. Targets: the provider sees ≤ 2
//     attempts/s from the client once the opening burst (one attempt per
//     goroutine, sent before any answer) is answered; every failure matches
//     ErrRateLimited, none ErrRetryBudgetExhausted.
//
// Each goroutine makes its own share of the calls, so a goroutine that
// waits out a Retry-After does not hand its calls to the others: the wall
// time is the slowest goroutine's. Every call has a deadline (30 s unless
// the figure says otherwise) and the program stops after -timeout, so it
// always ends. It exits 1 when a target is missed. Timings on a busy
// machine are noisy: rerun before trusting a marginal miss.
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
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/time/rate"

	"github.com/memberplatform/memberplatform-go/client"
	apierrors "github.com/memberplatform/memberplatform-go/errors"
	"github.com/memberplatform/memberplatform-go/option"
)

func main() {
	figure := flag.Int("figure", 0, "run only this figure (1–24); 0 runs all")
	old := flag.Bool("old", true, "also run 0.2.0's (and where useful 0.1.0's) behaviour beside the defaults")
	repeat := flag.Int("repeat", 1, "run the default-options measurement of figures 2, 3, 6, 19 (40.2) and 24 (40.2+) this many times (at most 10)")
	timeout := flag.Duration("timeout", 12*time.Minute, "stop everything after this long")
	verbose = flag.Bool("v", false, "print the first failures of each run of calls, per area")
	flag.Parse()
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	*repeat = min(max(*repeat, 1), 10)

	figures := []func(context.Context, bool, int) bool{outage, throttledBatch, otherThrottles, loneCall, outageThenThrottle, throttledForever,
		throttledProviderBesideOthers, outageBesideTransientFailures, burstAfterQuiet, recoveryAfterStorm, limiterForOneArea,
		sporadicThrottles, providerAtItsRate} // 12–13: provider.go
	figures = append(figures, admissionFigures...) // admission.go: 14–16
	figures = append(figures, connections)         // connections.go: 17
	figures = append(figures, operationFigures...) // operations.go: 18 (issue 40's figure 5)
	figures = append(figures, hotUserBesideOthers) // hotuser.go: 19, printed 40.2

	// Issue 40's 1, 3, 4, 6 as 20–23: unsteady.go, strictlimit.go, lowlimit.go, replicas.go.
	figures = append(figures, throttlesWhateverTheRate, strictLimiters, lowStrictLimits, replicasShareALimit)
	figures = append(figures, hotUsersBesideOthers) // hotusers.go: 24, printed 40.2+
	if *figure < 0 || *figure > len(figures) {
		fmt.Fprintf(os.Stderr, "loadtest: no figure %d\n", *figure)
		os.Exit(2)
	}
	ok := true
	for i, f := range figures {
		if *figure != 0 && *figure != i+1 {
			continue
		}
		ok = f(ctx, *old, *repeat) && ok
		fmt.Println()
	}
	if ctx.Err() != nil {
		fmt.Println("stopped: -timeout reached")
		ok = false
	}
	for _, v := range verdicts {
		fmt.Println(v)
	}
	if !ok {
		os.Exit(1)
	}
}

// Clients as the figures compare them.
var (
	defaults = []option.RequestOption(nil)
	v020     = []option.RequestOption{option.WithoutAdaptiveRateLimit(), option.WithoutAdmissionControl()}
	v010     = []option.RequestOption{option.WithoutAdaptiveRateLimit(), option.WithoutAdmissionControl(), option.WithRetryBudget(option.RetryBudget{Disabled: true})}
)

// clientConfig is a client a figure runs: its name in the rows, its options.
type clientConfig struct {
	name string
	opts []option.RequestOption
}

// compared returns the clients of a figure: default options repeat times,
// then, when old is set, the older behaviour o.
func compared(repeat int, old bool, o clientConfig) []clientConfig {
	cs := slices.Repeat([]clientConfig{{"default options", defaults}}, repeat)
	if old {
		cs = append(cs, o)
	}
	return cs
}

var verdicts []string

var verbose = new(bool)

// verdict records a target's outcome, printed at the end.
func verdict(ok bool, format string, args ...any) bool {
	v := "PASS "
	if !ok {
		v = "FAIL "
	}
	verdicts = append(verdicts, v+fmt.Sprintf(format, args...))
	return ok
}

// server is a loopback platform whose answers a figure chooses. It counts
// attempts, retries (requests carrying X-Retry-Attempt) and throttles, and
// notes when each attempt arrived.
type server struct {
	*httptest.Server
	answer    atomic.Value // answer
	attempts  atomic.Int64
	retries   atomic.Int64
	throttled atomic.Int64
	mu        sync.Mutex
	arrivals  []time.Time
}

// answer writes a response and reports whether it was a throttle.
type answer func(http.ResponseWriter) bool

func newServer(a answer) *server {
	s := &server{}
	s.answer.Store(a)
	s.Server = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		s.attempts.Add(1)
		s.mu.Lock()
		s.arrivals = append(s.arrivals, time.Now())
		s.mu.Unlock()
		if r.Header.Get("X-Retry-Attempt") != "" {
			s.retries.Add(1)
		}
		if s.answer.Load().(answer)(w) {
			s.throttled.Add(1)
		}
	}))
	s.Config.ErrorLog = log.New(io.Discard, "", 0)
	s.Start()
	return s
}

// reset zeroes the counters and sets the next answers.
func (s *server) reset(a answer) {
	s.answer.Store(a)
	s.attempts.Store(0)
	s.retries.Store(0)
	s.throttled.Store(0)
	s.mu.Lock()
	s.arrivals = nil
	s.mu.Unlock()
}

func ok200(w http.ResponseWriter) bool {
	return reply(w, http.StatusOK, "application/json", `{"id":"user_1","email":"ada@example.com","firstName":"Ada"}`, false)
}

func unavailable503(w http.ResponseWriter) bool {
	return reply(w, http.StatusServiceUnavailable, problemJSON, `{"title":"Service Unavailable","status":503}`, false)
}

// Three ways the provider says "slow down".
func throttle429RetryAfter(w http.ResponseWriter) bool {
	w.Header().Set("Retry-After", "1")
	return throttle429(w)
}

func throttle429(w http.ResponseWriter) bool {
	return reply(w, http.StatusTooManyRequests, problemJSON, `{"title":"Too Many Requests","status":429}`, true)
}

func throttleProblem(w http.ResponseWriter) bool {
	return reply(w, http.StatusServiceUnavailable, problemJSON, `{"type":"https://platform.example/problems/rate-limited","title":"Rate limited","status":503,`+
		`"detail":"The configured access provider rate limited the request"}`, true)
}

const problemJSON = "application/problem+json"

// reply writes one answer and returns throttled, as an answer does.
func reply(w http.ResponseWriter, status int, contentType, body string, throttled bool) bool {
	w.Header().Set("Content-Type", contentType)
	w.WriteHeader(status)
	_, _ = io.WriteString(w, body)
	return throttled
}

// limited is the provider of figure 2: 200 requests/s, burst 20, and
// refuse above that.
func limited(refuse answer) answer {
	bucket := rate.NewLimiter(batchRate, 20)
	return func(w http.ResponseWriter) bool {
		if bucket.Allow() {
			return ok200(w)
		}
		return refuse(w)
	}
}

// result is what one run of calls saw from the client's side.
type result struct {
	calls, succeeded, budgetStopped, rateLimited int64
	wall                                         time.Duration
}

// run makes perG access calls from each of g goroutines through c, each
// with at most timeout, and waits for them. None starts once ctx is done.
func run(ctx context.Context, c *client.Client, g, perG int, timeout time.Duration) result {
	start := time.Now()
	t := load(ctx, c, []area{access}, g, perG, time.Time{}, timeout)[access]
	return result{calls: t.calls.Load(), succeeded: t.calls.Load() - t.failed.Load(), budgetStopped: t.budgetStopped.Load(),
		rateLimited: t.rateLimited.Load(), wall: time.Since(start)}
}

// newClient returns a client of the loopback server at baseURL, without a
// token, with opts.
func newClient(baseURL string, opts ...option.RequestOption) *client.Client {
	all := append([]option.RequestOption{option.WithBaseURL(baseURL), option.WithTokenSource(nil)}, opts...)
	c, err := client.New(all...)
	if err != nil {
		log.Fatal(err)
	}
	return c
}

const (
	outageG, outagePerG = 200, 20
	batchG, batchPerG   = 20, 50
	batchRate           = 200
	callTimeout         = 30 * time.Second
)

// 1. Outage.
func outage(ctx context.Context, old bool, _ int) bool {
	fmt.Printf("1. outage: every answer 503; %d goroutines × %d calls\n", outageG, outagePerG)
	fmt.Printf("  %-22s %7s %9s %14s %12s %8s\n", "client", "calls", "attempts", "attempts/call", "budget-stop", "wall")
	srv := newServer(unavailable503)
	defer srv.Close()
	var ratio float64
	var spent *client.Client
	for _, cfg := range compared(1, old, clientConfig{"0.1.0 (no budget)", v010}) {
		srv.reset(unavailable503)
		c := newClient(srv.URL, cfg.opts...)
		defer c.CloseIdleConnections()
		r := run(ctx, c, outageG, outagePerG, callTimeout)
		perCall := float64(srv.attempts.Load()) / float64(r.calls)
		fmt.Printf("  %-22s %7d %9d %14.3f %12d %8s\n", cfg.name, r.calls, srv.attempts.Load(), perCall, r.budgetStopped, r.wall.Round(10*time.Millisecond))
		if cfg.opts == nil {
			ratio, spent = perCall, c
		}
	}
	// The default client, whose budget the outage emptied, sees the
	// service recover (every call succeeds at its first attempt) and fail
	// again (retries resume, as many as the healthy answers refilled).
	restAfterOutage()
	srv.reset(ok200)
	rec := run(ctx, spent, 20, 10, callTimeout)
	fmt.Printf("  recovery: the server answers 200: %d/%d calls succeeded in %d attempts (%d retries)\n",
		rec.succeeded, rec.calls, srv.attempts.Load(), srv.retries.Load())
	srv.reset(unavailable503)
	again := run(ctx, spent, 20, 10, callTimeout)
	fmt.Printf("  outage again: %d calls made %d retries (the %d healthy answers put back %d tokens, 10 per retry)\n",
		again.calls, srv.retries.Load(), rec.succeeded, rec.succeeded)
	return verdict(ratio <= 1.10 && rec.succeeded == rec.calls && srv.retries.Load() > 0,
		"1. outage: %.3f attempts per call ≤ 1.10; after recovery every call succeeded and retries resumed (%d)", ratio, srv.retries.Load())
}

// batch runs the throttled batch against a fresh provider refusing with
// refuse, through a fresh client built with opts, and prints a row.
func batch(ctx context.Context, name string, refuse answer, opts []option.RequestOption) (okPct, thrPct, times float64) {
	srv := newServer(limited(refuse))
	defer srv.Close()
	c := newClient(srv.URL, opts...)
	defer c.CloseIdleConnections()
	r := run(ctx, c, batchG, batchPerG, callTimeout)
	return batchRow(name, r, srv)
}

func batchRow(name string, r result, srv *server) (okPct, thrPct, times float64) {
	ideal := time.Duration(float64(batchG*batchPerG) / batchRate * float64(time.Second))
	okPct = 100 * float64(r.succeeded) / float64(batchG*batchPerG)
	thrPct = 100 * float64(srv.throttled.Load()) / float64(max(srv.attempts.Load(), 1))
	times = float64(r.wall) / float64(ideal)
	fmt.Printf("  %-28s %8.1f%% %9d %10.1f%% %12d %9s %8.2f\n", name, okPct, srv.attempts.Load(), thrPct, r.budgetStopped, r.wall.Round(10*time.Millisecond), times)
	return okPct, thrPct, times
}

func batchHeader(title string) {
	fmt.Println(title)
	fmt.Printf("  %-28s %9s %9s %11s %12s %9s %8s\n", "client", "succeeded", "attempts", "throttled", "budget-stop", "wall", "× ideal")
}

func batchMet(okPct, thrPct, times float64) bool { return okPct >= 99 && thrPct <= 15 && times <= 1.3 }

// 2. Throttled batch, 429 + Retry-After: 1.
func throttledBatch(ctx context.Context, old bool, repeat int) bool {
	batchHeader(fmt.Sprintf("2. throttled batch: the provider admits %d requests/s (burst 20), 429 + Retry-After: 1 above; %d goroutines × %d calls (ideal 5 s)", batchRate, batchG, batchPerG))
	met := true
	for range repeat {
		ok, thr, times := batch(ctx, "default options", throttle429RetryAfter, defaults)
		met = verdict(batchMet(ok, thr, times), "2. throttled batch: %.1f%% ≥ 99%% succeeded, %.1f%% ≤ 15%% throttled, %.2f ≤ 1.3 × ideal", ok, thr, times) && met
	}
	if old {
		batch(ctx, "0.2.0 defaults", throttle429RetryAfter, v020)
		batch(ctx, "0.1.0 (no budget, no limit)", throttle429RetryAfter, v010)
	}
	return met
}

// 3. The batch with a bare 429, and with the rate-limited problem.
func otherThrottles(ctx context.Context, old bool, repeat int) bool {
	batchHeader("3. throttled batch as in 2, the provider refusing with a bare 429, then with the contract's rate-limited problem (503)")
	met := true
	for _, kind := range []struct {
		name   string
		refuse answer
	}{{"bare 429", throttle429}, {"rate-limited problem", throttleProblem}} {
		for range repeat {
			ok, thr, times := batch(ctx, kind.name+", defaults", kind.refuse, defaults)
			met = verdict(batchMet(ok, thr, times), "3. %s: %.1f%% ≥ 99%% succeeded, %.1f%% ≤ 15%% throttled, %.2f ≤ 1.3 × ideal", kind.name, ok, thr, times) && met
		}
		if old {
			batch(ctx, kind.name+", 0.2.0", kind.refuse, v020)
		}
	}
	return met
}

// 4. One call, 429 + Retry-After: 1 then 200, on a fresh client and right
// after an outage emptied the budget.
func loneCall(ctx context.Context, old bool, _ int) bool {
	fmt.Println("4. one call answered 429 + Retry-After: 1, then 200")
	fmt.Printf("  %-44s %-10s %8s  %s\n", "client", "outcome", "time", "error")
	srv := newServer(ok200)
	defer srv.Close()
	met := true
	for _, cfg := range compared(1, old, clientConfig{"0.2.0 defaults", v020}) {
		for _, afterOutage := range []bool{false, true} {
			c := newClient(srv.URL, cfg.opts...)
			name := cfg.name + ", fresh client"
			if afterOutage {
				srv.reset(unavailable503)
				run(ctx, c, outageG, outagePerG, callTimeout)
				restAfterOutage()
				name = cfg.name + ", budget emptied by an outage"
			}
			var once atomic.Bool
			srv.reset(func(w http.ResponseWriter) bool {
				if once.CompareAndSwap(false, true) {
					return throttle429RetryAfter(w)
				}
				return ok200(w)
			})
			start := time.Now()
			err := call(ctx, c, access, callTimeout)
			took := time.Since(start)
			c.CloseIdleConnections()
			outcome, detail := "succeeded", ""
			if err != nil {
				outcome, detail = "failed", errKinds(err)
			}
			fmt.Printf("  %-44s %-10s %8s  %s\n", name, outcome, took.Round(time.Millisecond), detail)
			if cfg.opts == nil {
				met = verdict(err == nil && took <= 1500*time.Millisecond, "4. lone call (%s): succeeded %v in %v ≤ 1.5 s", name, err == nil, took.Round(time.Millisecond)) && met
			}
		}
	}
	return met
}

// errKinds names the sentinels err matches.
func errKinds(err error) string {
	s := ""
	for _, k := range []struct {
		name string
		err  error
	}{{"ErrRetryBudgetExhausted", apierrors.ErrRetryBudgetExhausted}, {"ErrRateLimited", apierrors.ErrRateLimited},
		{"DeadlineExceeded", context.DeadlineExceeded}, {"ErrTransport", apierrors.ErrTransport}} {
		if errors.Is(err, k.err) {
			s += k.name + " "
		}
	}
	return s
}

// 5. Outage then the throttled batch, on one client.
func outageThenThrottle(ctx context.Context, old bool, _ int) bool {
	batchHeader("5. outage (as in 1) then the throttled batch (as in 2) on one client; the batch's figures")
	met := true
	for _, cfg := range compared(1, old, clientConfig{"0.2.0 defaults", v020}) {
		srv := newServer(unavailable503)
		c := newClient(srv.URL, cfg.opts...)
		run(ctx, c, outageG, outagePerG, callTimeout)
		restAfterOutage()
		srv.reset(limited(throttle429RetryAfter))
		r := run(ctx, c, batchG, batchPerG, callTimeout)
		ok, _, _ := batchRow(cfg.name, r, srv)
		c.CloseIdleConnections()
		srv.Close()
		if cfg.opts == nil {
			met = verdict(ok >= 99, "5. outage then throttle: %.1f%% ≥ 99%% of the throttled calls succeeded", ok)
		}
	}
	return met
}

// 6. A provider throttling everything.
func throttledForever(ctx context.Context, old bool, repeat int) bool {
	const g, perG, deadline = 20, 10, 5 * time.Second
	fmt.Printf("6. every answer 429 + Retry-After: 1; %d goroutines × %d calls, %v deadline each\n", g, perG, deadline)
	fmt.Printf("  %-16s %9s %9s %12s %15s %11s %12s %12s\n", "client", "attempts", "wall", "attempts/s", "after opening", "failures", "rate-limited", "budget-stop")
	met := true
	for _, cfg := range compared(repeat, old, clientConfig{"0.2.0 defaults", v020}) {
		srv := newServer(throttle429RetryAfter)
		c := newClient(srv.URL, cfg.opts...)
		r := run(ctx, c, g, perG, deadline)
		c.CloseIdleConnections()
		srv.Close()
		attempts := srv.attempts.Load()
		overall := float64(attempts) / r.wall.Seconds()
		// The opening burst: one attempt per goroutine, all sent before
		// the first answer. The rate after it is what the pacer controls.
		srv.mu.Lock()
		arrivals := srv.arrivals
		srv.mu.Unlock()
		steady := 0.0
		if len(arrivals) > g {
			span := arrivals[len(arrivals)-1].Sub(arrivals[g-1])
			steady = float64(len(arrivals)-g) / max(span.Seconds(), 1)
		}
		failures := r.calls - r.succeeded
		fmt.Printf("  %-16s %9d %9s %12.2f %15.2f %11d %12d %12d\n", cfg.name, attempts, r.wall.Round(10*time.Millisecond), overall, steady, failures, r.rateLimited, r.budgetStopped)
		if cfg.opts == nil {
			met = verdict(steady <= 2 && r.rateLimited == failures && r.budgetStopped == 0,
				"6. throttled forever: %.2f attempts/s ≤ 2 after the opening burst of %d (%.2f/s over the whole run); %d of %d failures match ErrRateLimited, %d ErrRetryBudgetExhausted",
				steady, g, overall, r.rateLimited, failures, r.budgetStopped) && met
		}
	}
	return met
}
