package main

// The figures of admission control and of the shared token (issue 34,
// figures 3–5), run after the others (go run ./internal/cmd/loadtest
// -figure N, N as printed):
//
//   - A 401 storm: payments answers 401 to everything for 4 s, the client
//     authenticating with SigV4; 8 goroutines per area. Targets: access
//     management keeps ≥ 0.8 × the calls/s of the same run with payments
//     healthy; ≤ 10 token fetches in the storm.
//   - Access management down for 6 s (every answer 503, then in a second
//     run every connection refused), 16 goroutines, healthy 2 s before and
//     3 s after. Targets, from the outage's second second on: ≤ 0.2
//     attempts per call and ≤ 0.1 × the attempts/s sent before; failing
//     calls take < 50 ms (median) and match ErrServiceUnavailable (503s) or
//     ErrTransport (refused); after the heal, a 250 ms window with ≥ 50% of
//     the pre-outage calls/s ends within 1 s, one with ≥ 90% within 2 s.
//   - Every 10th answer a 503 for 5 s, 16 goroutines: every call's first
//     attempt is sent (nothing refused locally) and ≥ 99% of calls succeed.
//
// 0.4.0 had no admission control and dropped the shared token on any
// 401: "0.4.0" rows are measured with option.WithoutAdmissionControl()
// where that is what changed (the token rule is not an option: its 0.4.0
// numbers are the issue's).

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aws/aws-sdk-go-v2/credentials"

	"github.com/memberplatform/memberplatform-go/client"
	apierrors "github.com/memberplatform/memberplatform-go/errors"
	"github.com/memberplatform/memberplatform-go/observe"
	"github.com/memberplatform/memberplatform-go/option"
)

// admissionFigures are this file's figures, in the order they run.
var admissionFigures = []func(context.Context, bool, int) bool{unauthorizedStorm, areaDown, partialFailure}

// restAfterOutage lets admission control forget an outage (its window is
// 2 s) before a figure's next phase: figures 1, 4 and 5 measure what an
// outage leaves of the retry budget, which only answers refill, not what
// admission control does right after a heal (figure 34.4 does: the first
// calls after it may be refused until a probe is answered).
func restAfterOutage() { time.Sleep(2100 * time.Millisecond) }

// 401 storm in payments beside access management.
func unauthorizedStorm(ctx context.Context, _ bool, _ int) bool {
	const g, d = 8, 4 * time.Second
	fmt.Printf("34.3 payments answers 401 to everything for %v (SigV4 token source); %d goroutines per area\n", d, g)
	fmt.Printf("  %-18s %10s %12s %14s\n", "payments", "access/s", "payments/s", "token fetches")
	var accessRate [2]float64
	var fetched int64
	for i, storm := range []bool{false, true} {
		var fetches atomic.Int64
		p := newPlatform(func(next http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path == "/auth/token" {
					_, _ = io.Copy(io.Discard, r.Body)
					n := fetches.Add(1)
					reply(w, http.StatusOK, "application/json", fmt.Sprintf(`{"accessToken":"jwt-%d","expiresIn":3600}`, n), false)
					return
				}
				next.ServeHTTP(w, r)
			})
		})
		name := "healthy"
		if storm {
			name = "401 to everything"
			p.set(pay, func(w http.ResponseWriter) bool {
				return reply(w, http.StatusUnauthorized, problemJSON, `{"title":"Unauthorized","status":401,"serviceCode":"40100001"}`, false)
			})
		}
		c, err := client.New(option.WithBaseURL(p.URL),
			option.WithSigV4(credentials.NewStaticCredentialsProvider("AKIDLOADTEST", "loadtest-secret", ""), "ap-southeast-2"))
		if err != nil {
			log.Fatal(err)
		}
		if err := call(ctx, c, access, callTimeout); err != nil { // the first token, before the clock starts
			log.Fatal(err)
		}
		before := fetches.Load()
		start := time.Now()
		t := timed(ctx, c, []area{access, pay}, g, d)
		el := time.Since(start).Seconds()
		c.CloseIdleConnections()
		p.Close()
		accessRate[i] = float64(t[access].calls.Load()-t[access].failed.Load()) / el
		payRate := float64(t[pay].calls.Load()) / el
		n := fetches.Load() - before
		if storm {
			fetched = n
		}
		fmt.Printf("  %-18s %10.1f %12.1f %14d\n", name, accessRate[i], payRate, n)
	}
	kept := accessRate[1] / max(accessRate[0], 1)
	return verdict(kept >= 0.8 && fetched <= 10,
		"34.3 401 storm in payments: access management kept %.2f ≥ 0.8 × its calls/s; %d ≤ 10 token fetches in the storm (0.4.0: 0.70–0.73 ×, 463–484)", kept, fetched)
}

// attemptCounter counts the attempts a client starts and the ones
// admission control refuses, by time.
type attemptCounter struct {
	observe.Nop
	mu       sync.Mutex
	attempts []time.Time
	sheds    atomic.Int64
}

func (a *attemptCounter) StartAttempt(ctx context.Context, _ observe.Attempt) context.Context {
	a.mu.Lock()
	a.attempts = append(a.attempts, time.Now())
	a.mu.Unlock()
	return ctx
}

func (a *attemptCounter) Shed(context.Context, observe.Shed) { a.sheds.Add(1) }

func (a *attemptCounter) between(from, to time.Time) int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return countBetween(a.attempts, from, to)
}

func countBetween(ts []time.Time, from, to time.Time) int {
	n := 0
	for _, t := range ts {
		if !t.Before(from) && t.Before(to) {
			n++
		}
	}
	return n
}

// callRecord is one finished call: when it ended, how long it took, how.
type callRecord struct {
	end  time.Time
	took time.Duration
	err  error
}

// recordCalls runs g goroutines of access calls through c until ctx ends,
// recording each call.
func recordCalls(ctx context.Context, c *client.Client, g int) (stop func() []callRecord) {
	var mu sync.Mutex
	var recs []callRecord
	runCtx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	for range g {
		wg.Go(func() {
			for runCtx.Err() == nil {
				start := time.Now()
				err := call(runCtx, c, access, callTimeout)
				end := time.Now()
				if runCtx.Err() != nil {
					return
				}
				mu.Lock()
				recs = append(recs, callRecord{end, end.Sub(start), err})
				mu.Unlock()
			}
		})
	}
	return func() []callRecord {
		cancel()
		wg.Wait()
		mu.Lock()
		defer mu.Unlock()
		return recs
	}
}

// Access management down for 6 s, with 503s and with refused connections.
func areaDown(ctx context.Context, old bool, repeat int) bool {
	met := true
	for _, refused := range []bool{false, true} {
		runs := slices.Repeat([]bool{false}, repeat)
		if old {
			runs = append(runs, true)
		}
		for _, off := range runs {
			r := outageRun(ctx, refused, off)
			if !off {
				met = verdict(r.met(), "34.4 access management down (%s): %s", r.kind, r) && met
			}
		}
	}
	return met
}

// outageResult is one run of figure 34.4.
type outageResult struct {
	kind                           string
	preRate, attemptsPerS, perCall float64 // before; and after the outage's first second
	median                         time.Duration
	failing, matching              int
	half, ninety                   time.Duration // -1: not within 3 s
}

func (r outageResult) met() bool {
	return r.perCall <= 0.2 && r.attemptsPerS <= 0.1*r.preRate && r.median < 50*time.Millisecond && r.matching == r.failing &&
		r.half >= 0 && r.half <= time.Second && r.ninety >= 0 && r.ninety <= 2*time.Second
}

func (r outageResult) String() string {
	return fmt.Sprintf("%.5f ≤ 0.2 attempts per call, %.1f attempts/s ≤ 0.1 × %.0f; failing calls %v median (< 50 ms), %d of %d match; "+
		"≥ 50%% back after %s (≤ 1 s), ≥ 90%% after %s (≤ 2 s) (0.4.0: 1.000 attempts per call)",
		r.perCall, r.attemptsPerS, r.preRate, r.median.Round(time.Microsecond), r.matching, r.failing, within(r.half), within(r.ninety))
}

// within prints how long after the heal a window reached its share, or
// "not within 3 s".
func within(d time.Duration) string {
	if d < 0 {
		return "not within 3 s"
	}
	return d.Round(10 * time.Millisecond).String()
}

// outageRun runs 16 goroutines of access calls: healthy 2 s, down 6 s
// (503s, or refused connections when refused is set), healthy 3 s.
func outageRun(ctx context.Context, refused, withoutAdmission bool) outageResult {
	const g, healthy, down, after = 16, 2 * time.Second, 6 * time.Second, 3 * time.Second
	r := outageResult{kind: "every answer 503", half: -1, ninety: -1}
	if refused {
		r.kind = "connections refused"
	}
	name := "default options"
	opts := []option.RequestOption{}
	if withoutAdmission {
		name, opts = "0.4.0 (no admission control)", append(opts, option.WithoutAdmissionControl())
	}
	fmt.Printf("34.4 access management down %v (%s), %d goroutines, %s\n", down, r.kind, g, name)
	p := newPlatform()
	addr := p.Listener.Addr().String()
	counter := &attemptCounter{}
	c := newClient(p.URL, append(opts, option.WithObserver(counter))...)
	defer c.CloseIdleConnections()
	stop := recordCalls(ctx, c, g)
	start := time.Now()
	time.Sleep(healthy)
	downAt := time.Now()
	if refused {
		p.Close()
	} else {
		p.set(access, unavailable503)
	}
	time.Sleep(down)
	healedAt := time.Now()
	if refused {
		p = restartPlatform(addr)
	} else {
		p.set(access, ok200)
	}
	time.Sleep(after)
	recs := stop()
	p.Close()

	warm := start.Add(500 * time.Millisecond)
	ok := func(from, to time.Time) float64 {
		n := 0
		for _, rec := range recs {
			if rec.err == nil && !rec.end.Before(from) && rec.end.Before(to) {
				n++
			}
		}
		return float64(n) / to.Sub(from).Seconds()
	}
	preCalls := ok(warm, downAt)
	r.preRate = float64(counter.between(warm, downAt)) / downAt.Sub(warm).Seconds()
	from := downAt.Add(time.Second)
	var calls int
	var took []time.Duration
	for _, rec := range recs {
		if rec.end.Before(from) || !rec.end.Before(healedAt) {
			continue
		}
		calls++
		if rec.err != nil {
			r.failing++
			took = append(took, rec.took)
			if refused && errors.Is(rec.err, apierrors.ErrTransport) || !refused && errors.Is(rec.err, apierrors.ErrServiceUnavailable) {
				r.matching++
			}
		}
	}
	attempts := counter.between(from, healedAt)
	r.attemptsPerS = float64(attempts) / healedAt.Sub(from).Seconds()
	r.perCall = float64(attempts) / float64(max(calls, 1))
	slices.Sort(took)
	if len(took) > 0 {
		r.median = took[len(took)/2]
	}
	const window = 250 * time.Millisecond
	for at := healedAt; at.Before(healedAt.Add(after - window)); at = at.Add(10 * time.Millisecond) {
		rate := ok(at, at.Add(window))
		if r.half < 0 && rate >= preCalls/2 {
			r.half = at.Add(window).Sub(healedAt)
		}
		if r.ninety < 0 && rate >= 0.9*preCalls {
			r.ninety = at.Add(window).Sub(healedAt)
			break
		}
	}
	fmt.Printf("  before: %.0f calls/s, %.0f attempts/s; outage after its first second: %d calls (%d failed, median %v), %d attempts (%.1f/s, %.5f per call), %d refused locally in all\n",
		preCalls, r.preRate, calls, r.failing, r.median.Round(time.Microsecond), attempts, r.attemptsPerS, r.perCall, counter.sheds.Load())
	fmt.Printf("  after the heal: a 250 ms window at ≥ 50%% of %.0f calls/s ended after %s, at ≥ 90%% after %s\n",
		preCalls, within(r.half), within(r.ninety))
	if *verbose {
		for at := downAt.Add(-time.Second); at.Before(healedAt.Add(after)); at = at.Add(250 * time.Millisecond) {
			fmt.Printf("    %+6.2fs from the heal: %6.0f calls/s succeeded, %5d attempts\n", at.Sub(healedAt).Seconds(), ok(at, at.Add(250*time.Millisecond)),
				counter.between(at, at.Add(250*time.Millisecond)))
		}
	}
	return r
}

// restartPlatform starts a healthy platform on addr again, where the
// closed one listened.
func restartPlatform(addr string) *platform {
	var l net.Listener
	var err error
	for range 50 { // the port may take a moment to be free
		if l, err = net.Listen("tcp", addr); err == nil {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err != nil {
		log.Fatal(err)
	}
	return newPlatformOn(l)
}

// Every 10th answer a 503.
func partialFailure(ctx context.Context, _ bool, _ int) bool {
	const g, d = 16, 5 * time.Second
	fmt.Printf("34.5 every 10th answer a 503 for %v; %d goroutines of access calls\n", d, g)
	p := newPlatform()
	defer p.Close()
	var n atomic.Int64
	p.set(access, func(w http.ResponseWriter) bool {
		if n.Add(1)%10 == 0 {
			return unavailable503(w)
		}
		return ok200(w)
	})
	counter := &attemptCounter{}
	c := newClient(p.URL, option.WithObserver(counter))
	defer c.CloseIdleConnections()
	t := timed(ctx, c, []area{access}, g, d)
	calls, failed := t[access].calls.Load(), t[access].failed.Load()
	okPct := 100 * float64(calls-failed) / float64(max(calls, 1))
	fmt.Printf("  %d calls, %d failed (%.2f%% succeeded), %d attempts, %d refused locally\n", calls, failed, okPct, p.attempts[access].Load(), counter.sheds.Load())
	return verdict(counter.sheds.Load() == 0 && okPct >= 99,
		"34.5 1 answer in 10 a 503: %d attempts refused locally (0), %.2f%% ≥ 99%% of calls succeeded", counter.sheds.Load(), okPct)
}
