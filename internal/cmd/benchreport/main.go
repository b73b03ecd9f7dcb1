// Command benchreport runs the SDK's benchmarks and prints a Markdown table
// comparing each operation through the SDK with the same request written with
// plain net/http and encoding/json, checked against the performance budget:
//
//   - SDK time ≤ 1.10 × raw (medians, per operation, serial and parallel)
//   - SDK allocs/op ≤ raw allocs/op + 25
//   - cached-token overhead < 1µs (in-memory pipeline with the cached static
//     token minus the same pipeline without a token, and TokenCache.Get on a
//     warm token)
//   - 0 allocs/op on a token-cache hit
//
// Usage, from anywhere in the module:
//
//	go run ./internal/cmd/benchreport [-count 6] [-rounds 6] [-benchtime 300ms] [-v]
//
// It execs go test -run='^$' -bench=... -count=N/R -benchmem on
// ./internal/bench and ./internal/core R times (rounds), so that the SDK
// and raw samples are interleaved in time rather than taken minutes apart,
// takes the median of the N samples of each benchmark, and exits 1 when a
// budget fails (2 when the benchmarks could not run). Loopback timings are
// noisy on a busy machine: rerun before trusting a marginal FAIL. With
// -input it parses saved go test -bench output instead.
package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Budgets.
const (
	maxTimeRatio     = 1.10
	maxExtraAllocs   = 25
	maxTokenOverhead = 1000.0 // ns
)

var operations = []string{"UpdateUser", "ReplaceRolePermissions", "UpdatePaymentMethod", "UpsertMemberAddress"}

// sample is one benchmark result line.
type sample struct {
	ns, bytes, allocs float64
}

// stats holds the samples of one benchmark, by name without the -GOMAXPROCS
// suffix.
type stats map[string][]sample

// fastest returns the smallest ns/op of name's samples: on a shared
// machine, load only ever adds time, so for a small difference between two
// in-memory benchmarks the minimum is steadier than the median.
func (s stats) fastest(name string) (sample, bool) {
	xs := s[name]
	if len(xs) == 0 {
		return sample{}, false
	}
	return slices.MinFunc(xs, func(a, b sample) int {
		switch {
		case a.ns < b.ns:
			return -1
		case a.ns > b.ns:
			return 1
		}
		return 0
	}), true
}

func (s stats) median(name string) (sample, bool) {
	xs := s[name]
	if len(xs) == 0 {
		return sample{}, false
	}
	pick := func(f func(sample) float64) float64 {
		v := make([]float64, len(xs))
		for i, x := range xs {
			v[i] = f(x)
		}
		slices.Sort(v)
		if n := len(v); n%2 == 1 {
			return v[n/2]
		} else {
			return (v[n/2-1] + v[n/2]) / 2
		}
	}
	return sample{
		ns:     pick(func(x sample) float64 { return x.ns }),
		bytes:  pick(func(x sample) float64 { return x.bytes }),
		allocs: pick(func(x sample) float64 { return x.allocs }),
	}, true
}

var procSuffix = regexp.MustCompile(`-\d+$`)

// parse reads go test -bench output.
func parse(r io.Reader) stats {
	st := stats{}
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 4 || !strings.HasPrefix(f[0], "Benchmark") {
			continue
		}
		if _, err := strconv.Atoi(f[1]); err != nil {
			continue
		}
		var s sample
		ok := false
		for i := 2; i+1 < len(f); i += 2 {
			v, err := strconv.ParseFloat(f[i], 64)
			if err != nil {
				break
			}
			switch f[i+1] {
			case "ns/op":
				s.ns, ok = v, true
			case "B/op":
				s.bytes = v
			case "allocs/op":
				s.allocs = v
			}
		}
		if ok {
			name := procSuffix.ReplaceAllString(f[0], "")
			st[name] = append(st[name], s)
		}
	}
	return st
}

func moduleRoot() (string, error) {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %w", err)
	}
	gomod := strings.TrimSpace(string(out))
	if gomod == "" || gomod == os.DevNull {
		return "", fmt.Errorf("not inside the memberplatform-go module")
	}
	return filepath.Dir(gomod), nil
}

func main() {
	count := flag.Int("count", 6, "samples per benchmark, in total")
	rounds := flag.Int("rounds", 6, "go test runs the samples are split over (interleaves SDK and raw)")
	benchtime := flag.String("benchtime", "300ms", "go test -benchtime per sample")
	verbose := flag.Bool("v", false, "also print go test's output")
	input := flag.String("input", "", "parse this saved go test -bench output instead of running the benchmarks")
	flag.Parse()

	var out []byte
	start := time.Now()
	if *input != "" {
		var err error
		if out, err = os.ReadFile(*input); err != nil {
			fmt.Fprintln(os.Stderr, "benchreport:", err)
			os.Exit(2)
		}
	} else {
		root, err := moduleRoot()
		if err != nil {
			fmt.Fprintln(os.Stderr, "benchreport:", err)
			os.Exit(2)
		}
		if *count < 1 || *rounds < 1 {
			fmt.Fprintln(os.Stderr, "benchreport: -count and -rounds must be at least 1")
			os.Exit(2)
		}
		*rounds = min(*rounds, *count)
		per := (*count + *rounds - 1) / *rounds
		*count = per * *rounds
		re := "^(Benchmark(" + strings.Join(operations, "|") + "|Transport|Pipeline|TokenCacheGet))$"
		args := []string{"test", "-run=^$", "-bench=" + re, "-count=" + strconv.Itoa(per),
			"-benchtime=" + *benchtime, "-benchmem", "./internal/bench", "./internal/core"}
		for i := range *rounds {
			fmt.Fprintf(os.Stderr, "benchreport: round %d/%d: go %s\n", i+1, *rounds, strings.Join(args, " "))
			cmd := exec.Command("go", args...)
			cmd.Dir = root
			var buf bytes.Buffer
			cmd.Stdout = &buf
			cmd.Stderr = &buf
			err := cmd.Run()
			if *verbose || err != nil {
				_, _ = os.Stderr.Write(buf.Bytes())
			}
			if err != nil {
				fmt.Fprintln(os.Stderr, "benchreport: go test failed:", err)
				os.Exit(2)
			}
			out = append(out, buf.Bytes()...)
		}
	}
	st := parse(bytes.NewReader(out))
	failed := report(os.Stdout, st, *count)
	fmt.Fprintf(os.Stderr, "benchreport: done in %s\n", time.Since(start).Round(time.Second))
	if failed {
		os.Exit(1)
	}
}

func verdict(ok bool) string {
	if ok {
		return "PASS"
	}
	return "FAIL"
}

func us(ns float64) string { return strconv.FormatFloat(ns/1000, 'f', 1, 64) + " µs" }

// report prints the tables and returns whether any budget failed.
func report(w io.Writer, st stats, count int) (failed bool) {
	p := func(format string, a ...any) { fmt.Fprintf(w, format, a...) }
	missing := func(name string) {
		p("| %s | missing |\n", name)
		failed = true
	}
	if n := len(st["BenchmarkUpdateUser/sdk"]); n > 0 {
		count = n
	}

	p("### Per-operation cost: SDK vs plain net/http + encoding/json\n\n")
	p("Loopback httptest server, median of %d samples; budgets: time ≤ %.2f× raw, allocs ≤ raw + %d.\n\n", count, maxTimeRatio, maxExtraAllocs)
	p("| Operation | SDK | raw | ratio | SDK allocs/op | raw allocs/op | SDK B/op | raw B/op | time | allocs |\n")
	p("|---|---:|---:|---:|---:|---:|---:|---:|:---:|:---:|\n")
	// gated rows are the budget (the operation against the loopback
	// server); the in-memory row isolates the SDK's own CPU cost, a few µs
	// where scheduler noise alone moves the ratio by ±15%, and is shown
	// for information.
	row := func(label, sdkName, rawName string, gated bool) {
		s, ok1 := st.median(sdkName)
		r, ok2 := st.median(rawName)
		if !ok1 || !ok2 {
			missing(label)
			return
		}
		ratio := s.ns / r.ns
		timeOK := ratio <= maxTimeRatio
		allocOK := s.allocs <= r.allocs+maxExtraAllocs
		tv, av := verdict(timeOK), verdict(allocOK)
		if gated {
			failed = failed || !timeOK || !allocOK
		} else {
			tv, av = "info", "info"
		}
		p("| %s | %s | %s | %.2f× | %.0f | %.0f | %.0f | %.0f | %s | %s |\n",
			label, us(s.ns), us(r.ns), ratio, s.allocs, r.allocs, s.bytes, r.bytes, tv, av)
	}
	for _, op := range operations {
		row(op, "Benchmark"+op+"/sdk", "Benchmark"+op+"/raw", true)
		row(op+" (parallel)", "Benchmark"+op+"/sdk-parallel", "Benchmark"+op+"/raw-parallel", true)
	}
	row("UpdateUser, in-memory transport (SDK CPU cost alone)", "BenchmarkPipeline/sdk", "BenchmarkPipeline/raw", false)

	p("\n### Token cache and transport\n\n")
	p("| Measure | Value | allocs/op | Budget | Result |\n")
	p("|---|---:|---:|---|:---:|\n")
	tok, ok1 := st.fastest("BenchmarkPipeline/sdk")
	noTok, ok2 := st.fastest("BenchmarkPipeline/sdk-notoken")
	if ok1 && ok2 {
		d := tok.ns - noTok.ns
		ok := d < maxTokenOverhead
		failed = failed || !ok
		p("| Cached-token overhead per call (in-memory pipeline with token − without, fastest samples) | %.0f ns | %+.0f | < 1 µs | %s |\n", d, tok.allocs-noTok.allocs, verdict(ok))
	} else {
		missing("Cached-token overhead")
	}
	for _, v := range []string{"unknown-expiry", "expiry-1h"} {
		name := "BenchmarkTokenCacheGet/" + v
		s, ok := st.median(name)
		if !ok {
			missing(name)
			continue
		}
		good := s.ns < maxTokenOverhead && s.allocs == 0
		failed = failed || !good
		p("| TokenCache.Get hit, %s | %.1f ns | %.0f | < 1 µs, 0 allocs | %s |\n", v, s.ns, s.allocs, verdict(good))
	}
	plain, ok1 := st.median("BenchmarkTransport/nethttp")
	retry, ok2 := st.median("BenchmarkTransport/retryablehttp")
	if ok1 && ok2 {
		p("| go-retryablehttp cost (Client.Do − http.Client.Do, same PUT) | %+.0f ns (%.2f×) | %+.0f | informational | |\n",
			retry.ns-plain.ns, retry.ns/plain.ns, retry.allocs-plain.allocs)
	} else {
		missing("go-retryablehttp cost")
	}
	return failed
}
