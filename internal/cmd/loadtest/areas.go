package main

// The figures of load control per area (issue 27), on a loopback platform
// whose three backends answer independently:
//
//  7. The access provider admits 10 requests/s (burst 10) and answers 429 +
//     Retry-After: 1 above; 4 goroutines per area call for 5 s. Targets:
//     payments and customer keep ≥ 70% of the calls/s they make beside an
//     unthrottled provider in the same run, none of their calls fails; ≥ 95%
//     of access calls succeed.
//  8. Customer answers 503 to everything; access management answers 503 to
//     1 in 5 first attempts, 200 to the rest; 8 goroutines × 200 calls per
//     area. Targets: ≤ 1% of access calls fail; customer ≤ 1.10 attempts per
//     call.
//  9. One access call answered 429 + Retry-After: 1 then 200; 6 s quiet;
//     300 concurrent access calls. Targets: all sent and succeed, in ≤ 2 s;
//     then 500 healthy calls report no rate-limit wait to an observer.
//  10. 8 goroutines of access calls: healthy for 2 s, every answer 429 +
//     Retry-After: 1 (then, in a second run, a bare 429) for 3 s, healthy
//     again. Target: a 250 ms window with ≥ 50% of the calls/s before the
//     storm ends within 2 s of healing.
//  11. A limiter of 50/s (burst 5) given for access management: access
//     calls are paced to it, customer calls keep ≥ 70% of the calls/s they
//     make without a limiter; the same limiter given without an area paces
//     customer too.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/time/rate"

	"github.com/memberplatform/memberplatform-go/accessmgmt"
	"github.com/memberplatform/memberplatform-go/client"
	"github.com/memberplatform/memberplatform-go/customer"
	apierrors "github.com/memberplatform/memberplatform-go/errors"
	"github.com/memberplatform/memberplatform-go/observe"
	"github.com/memberplatform/memberplatform-go/option"
	"github.com/memberplatform/memberplatform-go/payments"
)

// area names the backends the figures load.
type area int

const (
	access area = iota
	pay
	cust
)

// platform is a loopback server answering each backend with its own
// answer, counting attempts per backend.
type platform struct {
	*httptest.Server
	answers  [3]atomic.Value // answer
	attempts [3]atomic.Int64
}

// newPlatform starts a platform; wrap, if set, sees each request first.
func newPlatform(wrap ...func(http.Handler) http.Handler) *platform {
	return newPlatformOn(nil, wrap...)
}

// newPlatformOn is newPlatform listening on l (nil: a new loopback port).
func newPlatformOn(l net.Listener, wrap ...func(http.Handler) http.Handler) *platform {
	p := &platform{}
	for i := range p.answers {
		p.answers[i].Store(answer(okFor(area(i))))
	}
	var h http.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		a := access
		switch {
		case strings.HasPrefix(r.URL.Path, "/payment-methods"):
			a = pay
		case strings.HasPrefix(r.URL.Path, "/customer"):
			a = cust
		}
		p.attempts[a].Add(1)
		p.answers[a].Load().(answer)(w)
	})
	for _, w := range wrap {
		h = w(h)
	}
	p.Server = httptest.NewUnstartedServer(h)
	if l != nil {
		_ = p.Listener.Close()
		p.Listener = l
	}
	p.Config.ErrorLog = log.New(io.Discard, "", 0)
	p.Start()
	return p
}

func (p *platform) set(a area, ans answer) { p.answers[a].Store(ans) }

func okFor(a area) answer {
	switch a {
	case pay:
		return func(w http.ResponseWriter) bool {
			return reply(w, http.StatusOK, "application/json", `{"id":"3fa85f64-5717-4562-b3fc-2c963f66afa6","billingAccountId":"9b2f4c1e-2a57-4d0b-9a43-1c7c2f5e8d10","lastFourDigits":"4242","cardBrand":"visa","expDate":"08/2031","primary":true,"createdAt":"2024-01-02T03:04:05Z","updatedAt":"2024-01-02T03:04:05Z"}`, false)
		}
	case cust:
		return func(w http.ResponseWriter) bool {
			return reply(w, http.StatusOK, "application/json", `{"id":"a1","tenantId":"t1","addressLineOne":"1 George St","state":"NSW","suburb":"Sydney","postcode":"2000","country":"AU"}`, false)
		}
	}
	return ok200
}

// call makes one call of area a through c, with at most timeout.
func call(ctx context.Context, c *client.Client, a area, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var err error
	switch a {
	case access:
		_, err = c.AccessMgmt.UpdateUser(ctx, "user_1", accessmgmt.UpdateUserParams{FirstName: new("Ada")})
	case pay:
		_, err = c.Payments.UpdatePaymentMethod(ctx, "3fa85f64-5717-4562-b3fc-2c963f66afa6", payments.UpdatePaymentMethodParams{SetAsPrimary: new(true)})
	case cust:
		_, err = c.Customer.UpsertMemberAddress(ctx, "5d2f3a9e-0c41-4f6b-8a77-1b2c3d4e5f60", customer.UpsertMemberAddressParams{
			AddressLineOne: "1 George St", State: "NSW", Suburb: "Sydney", Postcode: "2000", Country: "AU"})
	}
	return err
}

// tally is what one area's goroutines saw: calls, and failed calls, those
// stopped by the retry budget and those that match ErrRateLimited.
type tally struct{ calls, failed, budgetStopped, rateLimited atomic.Int64 }

// load runs g goroutines per area of areas, each calling until it made perG
// calls (0: no limit) or, when until is set, until then, and returns each
// area's tally. A call's deadline is its own (timeout), not the run's: a
// caller's deadline is what the pacer refuses a wait past.
func load(ctx context.Context, c *client.Client, areas []area, g, perG int, until time.Time, timeout time.Duration) map[area]*tally {
	out := map[area]*tally{}
	var wg sync.WaitGroup
	for _, a := range areas {
		t := &tally{}
		out[a] = t
		for range g {
			wg.Go(func() {
				for n := 0; perG == 0 || n < perG; n++ {
					if ctx.Err() != nil || !until.IsZero() && time.Now().After(until) {
						return
					}
					err := call(ctx, c, a, timeout)
					t.calls.Add(1)
					if err == nil {
						continue
					}
					if n := t.failed.Add(1); n <= 3 && *verbose {
						fmt.Printf("  a failure (%s): %v\n", errKinds(err), err)
					}
					if errors.Is(err, apierrors.ErrRetryBudgetExhausted) {
						t.budgetStopped.Add(1)
					}
					if errors.Is(err, apierrors.ErrRateLimited) {
						t.rateLimited.Add(1)
					}
				}
			})
		}
	}
	wg.Wait()
	return out
}

// timed runs load for d and returns the tallies.
func timed(ctx context.Context, c *client.Client, areas []area, g int, d time.Duration) map[area]*tally {
	return load(ctx, c, areas, g, 0, time.Now().Add(d), callTimeout)
}

// 7. A throttled access provider beside healthy payments and customer.
func throttledProviderBesideOthers(ctx context.Context, _ bool, _ int) bool {
	const g, d = 4, 5 * time.Second
	fmt.Printf("7. the access provider admits 10 requests/s (burst 10), 429 + Retry-After: 1 above; %d goroutines per area for %v\n", g, d)
	fmt.Printf("  %-26s %10s %10s %10s %14s %14s\n", "provider", "access/s", "payments/s", "customer/s", "access failed", "others failed")
	rates := map[bool][3]float64{}
	var accessOK float64
	var othersFailed int64
	for _, throttled := range []bool{false, true} {
		p := newPlatform()
		name := "unthrottled"
		if throttled {
			bucket := rate.NewLimiter(10, 10)
			p.set(access, func(w http.ResponseWriter) bool {
				if bucket.Allow() {
					return ok200(w)
				}
				return throttle429RetryAfter(w)
			})
			name = "10 requests/s"
		}
		c := newClient(p.URL)
		start := time.Now()
		t := timed(ctx, c, []area{access, pay, cust}, g, d)
		el := time.Since(start).Seconds()
		c.CloseIdleConnections()
		p.Close()
		var r [3]float64
		for a, tl := range t {
			r[a] = float64(tl.calls.Load()-tl.failed.Load()) / el
		}
		rates[throttled] = r
		fmt.Printf("  %-26s %10.1f %10.1f %10.1f %8d of %-4d %8d\n", name, r[access], r[pay], r[cust], t[access].failed.Load(), t[access].calls.Load(),
			t[pay].failed.Load()+t[cust].failed.Load())
		if throttled {
			accessOK = 100 * float64(t[access].calls.Load()-t[access].failed.Load()) / float64(max(t[access].calls.Load(), 1))
			othersFailed = t[pay].failed.Load() + t[cust].failed.Load()
		}
	}
	payKept := 100 * rates[true][pay] / rates[false][pay]
	custKept := 100 * rates[true][cust] / rates[false][cust]
	return verdict(payKept >= 70 && custKept >= 70 && othersFailed == 0 && accessOK >= 95,
		"7. throttled provider: payments kept %.0f%%, customer %.0f%% of their calls/s (≥ 70%%), %d of their calls failed (0); %.1f%% ≥ 95%% of access calls succeeded",
		payKept, custKept, othersFailed, accessOK)
}

// 8. Customer down beside a mostly healthy access provider.
func outageBesideTransientFailures(ctx context.Context, _ bool, _ int) bool {
	const g, perG = 8, 200
	fmt.Printf("8. customer answers 503; access management 503 to 1 in 5 first attempts; %d goroutines × %d calls per area\n", g, perG)
	var firsts, faulted atomic.Int64
	p := newPlatform(func(next http.Handler) http.Handler { return firstAttemptFaults(next, &firsts, &faulted) })
	defer p.Close()
	p.set(cust, unavailable503)
	c := newClient(p.URL)
	defer c.CloseIdleConnections()
	t := load(ctx, c, []area{access, cust}, g, perG, time.Time{}, callTimeout)
	accessFailed := 100 * float64(t[access].failed.Load()) / float64(t[access].calls.Load())
	custPerCall := float64(p.attempts[cust].Load()) / float64(t[cust].calls.Load())
	fmt.Printf("  access: %d of %d calls failed (%.2f%%), %d attempts; customer: %d calls, %d attempts (%.3f per call)\n",
		t[access].failed.Load(), t[access].calls.Load(), accessFailed, p.attempts[access].Load()+faulted.Load(), t[cust].calls.Load(), p.attempts[cust].Load(), custPerCall)
	return verdict(accessFailed <= 1 && custPerCall <= 1.10,
		"8. customer down: %.2f%% ≤ 1%% of access calls failed; customer %.3f ≤ 1.10 attempts per call", accessFailed, custPerCall)
}

// firstAttemptFaults answers 503 to every fifth first attempt of access
// management, counting it in faulted, before next sees it.
func firstAttemptFaults(next http.Handler, firsts, faulted *atomic.Int64) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/auth/access-management") && r.Header.Get("X-Retry-Attempt") == "" && firsts.Add(1)%5 == 0 {
			faulted.Add(1)
			_, _ = io.Copy(io.Discard, r.Body)
			unavailable503(w)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// waitCounter counts the rate-limit waits a client reports.
type waitCounter struct {
	observe.Nop
	waits atomic.Int64
}

func (w *waitCounter) RateLimitWait(context.Context, observe.Wait) { w.waits.Add(1) }

// 9. One throttle ridden out, a quiet spell, then a burst.
func burstAfterQuiet(ctx context.Context, _ bool, _ int) bool {
	fmt.Println("9. one access call answered 429 + Retry-After: 1 then 200; 6 s quiet; 300 concurrent access calls; then 500 healthy calls")
	p := newPlatform()
	defer p.Close()
	var once atomic.Bool
	p.set(access, func(w http.ResponseWriter) bool {
		if once.CompareAndSwap(false, true) {
			return throttle429RetryAfter(w)
		}
		return ok200(w)
	})
	waits := &waitCounter{}
	c := newClient(p.URL, option.WithObserver(waits))
	defer c.CloseIdleConnections()
	if err := call(ctx, c, access, callTimeout); err != nil {
		fmt.Println("  the throttled call failed:", err)
		return verdict(false, "9. burst after quiet: the throttled call failed")
	}
	time.Sleep(6 * time.Second)
	before := p.attempts[access].Load()
	start := time.Now()
	t := load(ctx, c, []area{access}, 300, 1, time.Time{}, callTimeout)
	burst := time.Since(start)
	sent := p.attempts[access].Load() - before
	waits.waits.Store(0)
	after := load(ctx, c, []area{access}, 1, 500, time.Time{}, callTimeout)
	fmt.Printf("  burst: %d of %d succeeded, %d sent, in %v; then %d of 500 healthy calls succeeded with %d rate-limit waits\n",
		t[access].calls.Load()-t[access].failed.Load(), t[access].calls.Load(), sent, burst.Round(time.Millisecond),
		after[access].calls.Load()-after[access].failed.Load(), waits.waits.Load())
	return verdict(t[access].failed.Load() == 0 && sent == 300 && burst <= 2*time.Second && after[access].failed.Load() == 0 && waits.waits.Load() == 0,
		"9. burst after quiet: %d of 300 sent, %d failed, %v ≤ 2 s; %d waits in 500 healthy calls (0)",
		sent, t[access].failed.Load(), burst.Round(time.Millisecond), waits.waits.Load())
}

// 10. A storm of throttles, then healing: with Retry-After: 1, and bare.
func recoveryAfterStorm(ctx context.Context, _ bool, _ int) bool {
	met := true
	for _, storm := range []struct {
		name   string
		refuse answer
	}{{"429 + Retry-After: 1", throttle429RetryAfter}, {"bare 429", throttle429}} {
		back := stormThenHealing(ctx, storm.name, storm.refuse)
		met = verdict(back >= 0 && back <= 2*time.Second,
			"10. storm (%s) then healing: half the pre-storm throughput back after %v ≤ 2 s (-1ns: not within 4 s)", storm.name, back.Round(10*time.Millisecond)) && met
	}
	return met
}

// stormThenHealing runs figure 10 with the storm answering refuse and
// returns when half the pre-storm throughput came back (-1: not in 4 s).
func stormThenHealing(ctx context.Context, name string, refuse answer) time.Duration {
	const g = 8
	fmt.Printf("10. %d goroutines of access calls: healthy 2 s, every answer %s for 3 s, then healthy\n", g, name)
	p := newPlatform()
	defer p.Close()
	c := newClient(p.URL)
	defer c.CloseIdleConnections()
	var mu sync.Mutex
	var done []time.Time // when each successful call returned
	runCtx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	for range g {
		wg.Go(func() {
			for runCtx.Err() == nil {
				if err := call(runCtx, c, access, callTimeout); err == nil {
					mu.Lock()
					done = append(done, time.Now())
					mu.Unlock()
				}
			}
		})
	}
	start := time.Now()
	time.Sleep(2 * time.Second)
	stormAt := time.Now()
	p.set(access, refuse)
	time.Sleep(3 * time.Second)
	healedAt := time.Now()
	p.set(access, ok200)
	time.Sleep(4 * time.Second)
	cancel()
	wg.Wait()
	mu.Lock()
	defer mu.Unlock()
	count := func(from, to time.Time) int {
		n := 0
		for _, t := range done {
			if !t.Before(from) && t.Before(to) {
				n++
			}
		}
		return n
	}
	before := float64(count(start.Add(500*time.Millisecond), stormAt)) / stormAt.Sub(start.Add(500*time.Millisecond)).Seconds()
	const window = 250 * time.Millisecond
	back := time.Duration(-1)
	for at := healedAt; at.Before(healedAt.Add(4 * time.Second)); at = at.Add(10 * time.Millisecond) {
		if float64(count(at, at.Add(window)))/window.Seconds() >= before/2 {
			back = at.Add(window).Sub(healedAt)
			break
		}
	}
	if *verbose {
		for at := healedAt.Add(-time.Second); at.Before(healedAt.Add(3 * time.Second)); at = at.Add(250 * time.Millisecond) {
			fmt.Printf("    %+5.2fs %6.0f calls/s\n", at.Sub(healedAt).Seconds(), float64(count(at, at.Add(250*time.Millisecond)))*4)
		}
	}
	when := "not within 4 s of healing"
	if back >= 0 {
		when = back.Round(10*time.Millisecond).String() + " after healing"
	}
	fmt.Printf("  before the storm %.0f calls/s; during it %d calls succeeded; the first 250 ms window with half of it ended %s\n",
		before, count(stormAt, healedAt), when)
	return back
}

// 11. A limiter for one area.
func limiterForOneArea(ctx context.Context, _ bool, _ int) bool {
	const g, d = 4, 3 * time.Second
	fmt.Printf("11. a limiter of 50/s (burst 5) for access management, and for every area; %d goroutines per area for %v\n", g, d)
	fmt.Printf("  %-34s %10s %10s\n", "limiter", "access/s", "customer/s")
	var r [3][3]float64
	for i, opts := range [][]option.RequestOption{nil,
		{option.WithRateLimiter(rate.NewLimiter(50, 5), option.AreaAccessMgmt)},
		{option.WithRateLimiter(rate.NewLimiter(50, 5))}} {
		p := newPlatform()
		c := newClient(p.URL, opts...)
		start := time.Now()
		t := timed(ctx, c, []area{access, cust}, g, d)
		el := time.Since(start).Seconds()
		c.CloseIdleConnections()
		p.Close()
		for a, tl := range t {
			r[i][a] = float64(tl.calls.Load()-tl.failed.Load()) / el
		}
		fmt.Printf("  %-34s %10.1f %10.1f\n", []string{"none", "for access management", "for every area (no area given)"}[i], r[i][access], r[i][cust])
	}
	kept := 100 * r[1][cust] / r[0][cust]
	return verdict(r[1][access] <= 60 && kept >= 70 && r[2][access]+r[2][cust] <= 60,
		"11. limiter for one area: access paced at %.1f/s (≤ 60), customer kept %.0f%% (≥ 70%%); without an area both paced at %.1f/s together (≤ 60)",
		r[1][access], kept, r[2][access]+r[2][cust])
}
