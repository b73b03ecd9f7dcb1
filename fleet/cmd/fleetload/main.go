// Command fleetload measures how a fleet of replicas shares one provider
// rate limit, with and without fleet.NewRedisLimiter:
//
//	cd fleet && go run ./cmd/fleetload                    # all three scenarios, about 2 minutes
//	cd fleet && go run ./cmd/fleetload -scenario outage   # one of redis, default, outage
//	cd fleet && go run ./cmd/fleetload -timeline          # also attempts and 429s per 100 ms
//
// It starts its own redis-server (Debian's redis-server package) on a free
// loopback port and a loopback provider that admits 200 requests/s (burst
// 20) for the whole fleet and answers 429 + Retry-After: 1 above that. It
// then runs 4 replicas as separate OS processes (it runs itself again as
// each), each with one client whose 20 goroutines make 50 calls each: 4,000
// calls, ideally 20 s. Scenarios:
//
//   - redis: each client with
//     option.WithRateLimiter(fleet.NewRedisLimiter(rdb, "provider", 200, 20), option.AreaAccessMgmt).
//     Targets: ≥ 99.9% of calls succeed, ≤ 1% of attempts answered 429,
//     wall time ≤ 1.15 × ideal.
//   - default: each client with default options only (each paces itself).
//     No target: the figures are reported beside the others.
//   - outage: as redis, with Redis stopped for 5 s in the middle of the run
//     and started again. Targets: no call fails because of it, ≥ 99% of
//     calls succeed, and under 1% of the attempts after Redis is back are
//     answered 429.
//
// Clients use default options apart from the base URL, no token and the
// limiter, so the figures follow the SDK's defaults. Before the runs it
// measures Redis round trips on loopback: a PING, and a Wait that is never
// limited. It exits 1 when a target is missed. Timings on a busy machine are
// noisy: rerun before trusting a marginal miss.
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/memberplatform/memberplatform-go/fleet"
	"github.com/memberplatform/memberplatform-go/fleet/internal/redisserver"
	"github.com/redis/go-redis/v9"
)

// settings are the fleet's shape and the provider's limit.
type settings struct {
	processes, goroutines, calls, rate, burst int
	outage                                    time.Duration
	timeline                                  bool
}

func (s settings) totalCalls() int { return s.processes * s.goroutines * s.calls }

// ideal is the wall time of the calls sent exactly at the provider's rate.
func (s settings) ideal() time.Duration {
	return time.Duration(float64(s.totalCalls()) / float64(s.rate) * float64(time.Second))
}

func main() {
	child := flag.String("child", "", "internal: run as one replica with these JSON arguments")
	scenario := flag.String("scenario", "all", "redis, default, outage or all")
	timeout := flag.Duration("timeout", 5*time.Minute, "stop everything after this long")
	var s settings
	flag.IntVar(&s.processes, "processes", 4, "replicas, each a separate OS process")
	flag.IntVar(&s.goroutines, "goroutines", 20, "goroutines per replica")
	flag.IntVar(&s.calls, "calls", 50, "calls per goroutine")
	flag.IntVar(&s.rate, "rate", 200, "the provider's limit, requests per second for the whole fleet")
	flag.IntVar(&s.burst, "burst", 20, "the provider's burst")
	flag.DurationVar(&s.outage, "outage", 5*time.Second, "how long Redis is stopped in the outage scenario")
	flag.BoolVar(&s.timeline, "timeline", false, "print attempts and 429s per 100 ms of each run")
	flag.Parse()
	if *child != "" {
		if err := runChild(*child); err != nil {
			fmt.Fprintln(os.Stderr, "fleetload replica:", err)
			os.Exit(1)
		}
		return
	}

	var scenarios []string
	switch *scenario {
	case "all":
		scenarios = []string{"redis", "default", "outage"}
	case "redis", "default", "outage":
		scenarios = []string{*scenario}
	default:
		fmt.Fprintf(os.Stderr, "fleetload: unknown -scenario %q\n", *scenario)
		os.Exit(2)
	}
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()

	srv, err := redisserver.Start()
	if err != nil {
		fmt.Fprintln(os.Stderr, "fleetload:", err)
		os.Exit(1)
	}
	defer srv.Close()
	rdb := redis.NewClient(&redis.Options{Addr: srv.Addr})
	defer func() { _ = rdb.Close() }()
	redis.SetLogger(quietRedis{})

	fmt.Printf("Redis round trip on loopback (redis-server %s, 2,000 sequential calls each):\n", srv.Addr)
	if err := measureRoundTrip(ctx, rdb); err != nil {
		fmt.Fprintln(os.Stderr, "fleetload:", err)
		os.Exit(1)
	}
	fmt.Printf("\nfleet: %d processes × %d goroutines × %d calls = %d calls; provider admits %d req/s (burst %d), 429 + Retry-After: 1 above; ideal %v\n\n",
		s.processes, s.goroutines, s.calls, s.totalCalls(), s.rate, s.burst, s.ideal())

	ok := true
	var rows []string
	var verdicts []string
	for _, name := range scenarios {
		if err := rdb.FlushAll(ctx).Err(); err != nil {
			fmt.Fprintln(os.Stderr, "fleetload: flushing Redis:", err)
			os.Exit(1)
		}
		r, err := runFleet(ctx, s, name, srv)
		if err != nil {
			fmt.Fprintln(os.Stderr, "fleetload:", err)
			os.Exit(1)
		}
		rows = append(rows, r.row(s))
		v, met := r.verdict(s)
		verdicts = append(verdicts, v...)
		ok = ok && met
	}
	fmt.Println("| Scenario | Calls succeeded | Failed calls | Attempts per call | 429s of attempts | Wall time |")
	fmt.Println("|---|---:|---:|---:|---:|---:|")
	for _, r := range rows {
		fmt.Println(r)
	}
	fmt.Println()
	for _, v := range verdicts {
		fmt.Println(v)
	}
	if !ok {
		os.Exit(1)
	}
}

// measureRoundTrip prints the latency of a PING and of a Wait that is never
// limited (one GCRA script call, plus a heartbeat once a second).
func measureRoundTrip(ctx context.Context, rdb *redis.Client) error {
	const n = 2000
	ping := make([]time.Duration, 0, n)
	for range n {
		start := time.Now()
		if err := rdb.Ping(ctx).Err(); err != nil {
			return err
		}
		ping = append(ping, time.Since(start))
	}
	l := fleet.NewRedisLimiter(rdb, "round-trip", 1_000_000, 1_000_000, fleet.WithRedisTimeout(time.Second))
	wait := make([]time.Duration, 0, n)
	for range n {
		start := time.Now()
		if err := l.Wait(ctx); err != nil {
			return err
		}
		wait = append(wait, time.Since(start))
	}
	fmt.Printf("  PING:                     median %v, p99 %v\n", percentile(ping, 50), percentile(ping, 99))
	fmt.Printf("  fleet Limiter.Wait (GCRA): median %v, p99 %v\n", percentile(wait, 50), percentile(wait, 99))
	return nil
}

func percentile(ds []time.Duration, p int) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[(len(s)-1)*p/100].Round(time.Microsecond)
}

// fleetResult is what one scenario measured.
type fleetResult struct {
	name                  string
	calls, succeeded      int64
	failed                map[string]int64
	attempts, throttled   int
	wall, late            time.Duration
	stopAt, backAt        time.Time // the outage scenario's
	before, during, after [2]int    // attempts and 429s in each phase of the outage
}

// runFleet runs one scenario: the provider, the replicas and, for outage,
// Redis's stop and restart.
func runFleet(ctx context.Context, s settings, name string, srv *redisserver.Server) (*fleetResult, error) {
	p := newProvider(s.rate, s.burst)
	defer p.Close()
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	start := time.Now().Add(2 * time.Second) // time for the replicas to start
	args := childArgs{Provider: p.URL, Rate: s.rate, Burst: s.burst, Goroutines: s.goroutines, Calls: s.calls, Start: start}
	if name != "default" {
		args.Redis = srv.Addr
	}
	raw, err := json.Marshal(args)
	if err != nil {
		return nil, err
	}
	fmt.Printf("running %s …\n", name)
	outs := make([]*bytes.Buffer, s.processes)
	cmds := make([]*exec.Cmd, s.processes)
	var logs sync.WaitGroup
	for i := range cmds {
		cmd := exec.CommandContext(ctx, exe, "-child", string(raw))
		outs[i] = &bytes.Buffer{}
		cmd.Stdout = outs[i]
		stderr, err := cmd.StderrPipe()
		if err != nil {
			return nil, err
		}
		if err := cmd.Start(); err != nil {
			return nil, err
		}
		logs.Go(func() { prefixLines(stderr, fmt.Sprintf("  [replica %d] ", i+1)) })
		cmds[i] = cmd
	}

	r := &fleetResult{name: name, failed: map[string]int64{}}
	var outage sync.WaitGroup
	var outageErr error
	if name == "outage" {
		outage.Go(func() {
			time.Sleep(time.Until(start.Add(s.ideal()/2 - s.outage/2)))
			srv.Stop()
			r.stopAt = time.Now()
			fmt.Printf("  Redis stopped at %.1f s\n", r.stopAt.Sub(start).Seconds())
			time.Sleep(s.outage)
			outageErr = srv.Restart()
			r.backAt = time.Now()
			fmt.Printf("  Redis started again at %.1f s\n", r.backAt.Sub(start).Seconds())
		})
	}
	var end time.Time
	for i, cmd := range cmds {
		err := cmd.Wait()
		logs.Wait()
		if err != nil {
			return nil, fmt.Errorf("replica %d: %v", i+1, err)
		}
		var res childResult
		if err := json.Unmarshal(outs[i].Bytes(), &res); err != nil {
			return nil, fmt.Errorf("replica %d: %v: %q", i+1, err, outs[i].String())
		}
		r.calls += res.Calls
		r.succeeded += res.Succeeded
		for k, v := range res.Failed {
			r.failed[k] += v
		}
		r.late = max(r.late, res.Late)
		end = later(end, res.End)
	}
	outage.Wait()
	if outageErr != nil {
		return nil, fmt.Errorf("restarting redis-server: %v", outageErr)
	}
	r.wall = end.Sub(start)
	r.attempts, r.throttled = p.count(start.Add(-time.Second), end.Add(time.Second))
	if name == "outage" {
		r.before[0], r.before[1] = p.count(start, r.stopAt)
		r.during[0], r.during[1] = p.count(r.stopAt, r.backAt)
		r.after[0], r.after[1] = p.count(r.backAt, end.Add(time.Second))
	}
	if s.timeline {
		for t := start; t.Before(end); t = t.Add(100 * time.Millisecond) {
			a, th := p.count(t, t.Add(100*time.Millisecond))
			fmt.Printf("  %5.1f s: %4d attempts, %3d 429s\n", t.Sub(start).Seconds(), a, th)
		}
	}
	if r.late > 500*time.Millisecond {
		fmt.Printf("  note: a replica started %v late\n", r.late.Round(time.Millisecond))
	}
	return r, nil
}

func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// prefixLines copies r to stderr line by line, each line prefixed.
func prefixLines(r io.Reader, prefix string) {
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		fmt.Fprintln(os.Stderr, prefix+sc.Text())
	}
}

var titles = map[string]string{
	"redis":   "`fleet.NewRedisLimiter(…, 200, 20)`",
	"default": "default options only",
	"outage":  "`fleet.NewRedisLimiter`, Redis stopped 5 s mid-run",
}

// row is the scenario's line of the table.
func (r *fleetResult) row(s settings) string {
	return fmt.Sprintf("| %s | %.2f %% | %d%s | %.2f | %.2f %% | %.1f s (%.2f × ideal) |",
		titles[r.name], r.successPct(s), r.failedCalls(), r.failedCauses(),
		float64(r.attempts)/float64(r.calls), pct(r.throttled, r.attempts),
		r.wall.Seconds(), float64(r.wall)/float64(s.ideal()))
}

func (r *fleetResult) successPct(s settings) float64 {
	return 100 * float64(r.succeeded) / float64(s.totalCalls())
}

func (r *fleetResult) failedCalls() int64 { return r.calls - r.succeeded }

// failedCauses lists why calls failed, " (cause: n, …)", or "".
func (r *fleetResult) failedCauses() string {
	if len(r.failed) == 0 {
		return ""
	}
	var parts []string
	for k, v := range r.failed {
		parts = append(parts, fmt.Sprintf("%s: %d", k, v))
	}
	sort.Strings(parts)
	return " (" + strings.Join(parts, ", ") + ")"
}

func pct(n, of int) float64 {
	if of == 0 {
		return 0
	}
	return 100 * float64(n) / float64(of)
}

// verdict checks the scenario's targets.
func (r *fleetResult) verdict(s settings) ([]string, bool) {
	okPct, thrPct, times := r.successPct(s), pct(r.throttled, r.attempts), float64(r.wall)/float64(s.ideal())
	switch r.name {
	case "redis":
		met := okPct >= 99.9 && thrPct <= 1 && times <= 1.15
		return []string{fmt.Sprintf("%s redis: %.2f%% ≥ 99.9%% succeeded, 429s %.2f%% ≤ 1%% of attempts, wall %.2f ≤ 1.15 × ideal",
			passFail(met), okPct, thrPct, times)}, met
	case "outage":
		byLimiter := r.failed["fleet limiter refused"]
		afterPct := pct(r.after[1], r.after[0])
		met := byLimiter == 0 && okPct >= 99 && afterPct < 1
		return []string{
			fmt.Sprintf("  outage phases: before %d attempts, %.2f%% 429; Redis down (%.1f s) %d attempts, %.2f%% 429; after Redis is back %d attempts, %.2f%% 429",
				r.before[0], pct(r.before[1], r.before[0]), r.backAt.Sub(r.stopAt).Seconds(), r.during[0], pct(r.during[1], r.during[0]), r.after[0], afterPct),
			fmt.Sprintf("%s outage: %d calls failed because of Redis (limiter errors), %d failed in all; %.2f%% ≥ 99%% succeeded; 429s after Redis is back %.2f%% < 1%%",
				passFail(met), byLimiter, r.failedCalls(), okPct, afterPct),
		}, met
	}
	return []string{fmt.Sprintf("info default: %.2f%% succeeded, 429s %.2f%% of attempts, wall %.2f × ideal", okPct, thrPct, times)}, true
}

func passFail(ok bool) string {
	if ok {
		return "PASS"
	}
	return "FAIL"
}
