// Command benchreport runs the benchmarks of this module and prints a
// Markdown table, ready to paste into the SDK's docs/performance.md, of each row's median
// time per call through the three contenders (sdk, raw net/http +
// encoding/json into plain structs, and the oapi-codegen client), the ratios
// SDK/raw and SDK/generated, allocations per call of all three, and a
// PASS/FAIL verdict against the performance budget, then the sentence
// that states the table's figures in docs/performance.md (summary.go):
//
//   - loopback, serial and parallel: SDK/raw ≤ 1.10× per operation
//   - in memory: SDK/raw ≤ 1.15× per operation
//   - allocations per call ≤ generated's, every operation
//   - error decoding: ≤ 1.30× raw at 1, 100 and 1,000 serviceErrors (and
//     the 100 field-error code/message body), and ≤ 4 allocations per
//     serviceError (the slope between the 100 and 1,000 rows)
//   - ReplaceRolePermissions with 10,000 slugs: ≤ 1.10× raw
//   - UpdateUser from 32 goroutines, over TLS (HTTP/1.1) and plain HTTP,
//     the SDK on its own pool against raw on a pool that fits: ≤ 1.15× raw,
//     and, once its pool is warm, the SDK opens ≤ 16 connections
//
// Its operation rows are the operations the SDK declares
// (benchmarks.Operations), as the benchmarks' are.
//
// Usage, from the benchmarks module (the directory holding its go.mod):
//
//	go run ./cmd/benchreport [-count 10] [-benchtime 200ms] [-bench regexp] [-strict] [-v] [-save run.txt] [-write doc.md]
//	go run ./cmd/benchreport -input run.txt [-write doc.md | -check doc.md]
//
// It builds the benchmark test binary once and runs it -count times, one
// sample of every row per run. Within a row the contenders take turns call
// by call and each reports its trimmed mean time per call (see run in
// bench_test.go), so the contenders compared in a row are measured in the
// same moments; each run seeds the turns' order differently (-rotate). It
// reports the median of each row's samples. It also reads older output
// with one line per contender and ns/op. The report is informational: it
// exits 0 whatever the verdicts, unless -strict is given (then 1 on any
// FAIL); it exits 2 when the benchmarks could not run.
//
// -save writes the run's output, under a line naming the release it
// measured, to a file that -input reads back; -write replaces the figures
// between the markers of a document (docs/performance.md) with the report;
// -check, with -input, exits 1 unless the document states the report of
// that saved run of this release (release.go: the release owns the
// figures).
package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/memberplatform/memberplatform-go/benchmarks"
)

// Budgets.
const (
	maxLoopbackRatio = 1.10
	maxInMemoryRatio = 1.15
	maxErrorRatio    = 1.30
	maxAllocsPerItem = 4.0
	maxScaleRatio    = 1.10
	// 32 goroutines: the SDK on its own pool against raw on a pool that
	// fits; once warm, the SDK opens at most one connection per two
	// callers in the timed turns (a pool that churns opens thousands).
	maxConcurrentRatio = 1.15
	maxConnsPerCaller  = 0.5
	concurrentCallers  = 32
)

// sample is one benchmark result line.
type sample struct {
	ns, bytes, allocs float64
	conns             float64 // connections opened in the run (concurrent rows)
}

// stats holds the samples of each benchmark, by name without the
// -GOMAXPROCS suffix, and the environment lines of the output.
type stats struct {
	samples map[string][]sample
	env     map[string]string // goos, goarch, cpu
}

func (s stats) median(name string) (sample, bool) {
	xs := s.samples[name]
	if len(xs) == 0 {
		return sample{}, false
	}
	pick := func(f func(sample) float64) float64 {
		v := make([]float64, len(xs))
		for i, x := range xs {
			v[i] = f(x)
		}
		slices.Sort(v)
		n := len(v)
		if n%2 == 1 {
			return v[n/2]
		}
		return (v[n/2-1] + v[n/2]) / 2
	}
	return sample{
		ns:     pick(func(x sample) float64 { return x.ns }),
		bytes:  pick(func(x sample) float64 { return x.bytes }),
		allocs: pick(func(x sample) float64 { return x.allocs }),
		conns:  pick(func(x sample) float64 { return x.conns }),
	}, true
}

var procSuffix = regexp.MustCompile(`-\d+$`)

// parse reads go test -bench output.
func parse(r io.Reader) stats {
	st := stats{samples: map[string][]sample{}, env: map[string]string{}}
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		line := sc.Text()
		for _, k := range []string{"goos", "goarch", "cpu"} {
			if v, ok := strings.CutPrefix(line, k+": "); ok {
				st.env[k] = strings.TrimSpace(v)
			}
		}
		f := strings.Fields(line)
		if len(f) < 4 || !strings.HasPrefix(f[0], "Benchmark") {
			continue
		}
		if _, err := strconv.Atoi(f[1]); err != nil {
			continue
		}
		name := procSuffix.ReplaceAllString(f[0], "")
		var s sample
		ok := false
		perCall := map[string]*sample{} // a row's contenders, from "<contender>-ns/call" and the like
		for i := 2; i+1 < len(f); i += 2 {
			v, err := strconv.ParseFloat(f[i], 64)
			if err != nil {
				break
			}
			unit := f[i+1]
			if who, what, found := perCallMetric(unit); found {
				c := perCall[who]
				if c == nil {
					c = &sample{ns: math.NaN()}
					perCall[who] = c
				}
				switch what {
				case "ns/call":
					c.ns = v
				case "B/call":
					c.bytes = v
				case "allocs/call":
					c.allocs = v
				case "conns":
					c.conns = v
				}
				continue
			}
			switch unit {
			case "ns/op":
				s.ns, ok = v, true
			case "B/op":
				s.bytes = v
			case "allocs/op":
				s.allocs = v
			}
		}
		if ok {
			st.samples[name] = append(st.samples[name], s)
		}
		for who, c := range perCall {
			if c.ns > 0 { // a contender without a time was not run
				st.samples[name+"/"+who] = append(st.samples[name+"/"+who], *c)
			}
		}
	}
	return st
}

// perCallMetric splits a unit such as "oapi-codegen-ns/call" into the
// contender and what it measures.
func perCallMetric(unit string) (who, what string, ok bool) {
	for _, what := range []string{"ns/call", "B/call", "allocs/call", "conns"} {
		if who, found := strings.CutSuffix(unit, "-"+what); found && who != "" {
			return who, what, true
		}
	}
	return "", "", false
}

// moduleDir is the directory of the benchmarks module's go.mod.
func moduleDir() (string, error) {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %w", err)
	}
	gomod := strings.TrimSpace(string(out))
	if gomod == "" || gomod == os.DevNull {
		return "", fmt.Errorf("run it inside the benchmarks module (cd benchmarks)")
	}
	dir := filepath.Dir(gomod)
	if _, err := os.Stat(filepath.Join(dir, "bench_test.go")); err != nil {
		return "", fmt.Errorf("%s is not the benchmarks module: run it from memberplatform-go/benchmarks", dir)
	}
	return dir, nil
}

const defaultBench = "^Benchmark(Loopback|InMemory|Errors|Scale|Concurrent)$"

func main() {
	count := flag.Int("count", 10, "runs of the benchmarks: samples per row")
	benchtime := flag.String("benchtime", "200ms", "-test.benchtime of each sample")
	bench := flag.String("bench", defaultBench, "-test.bench regexp")
	strict := flag.Bool("strict", false, "exit 1 when a budget fails")
	verbose := flag.Bool("v", false, "also print the benchmarks' output")
	input := flag.String("input", "", "parse this saved go test -bench output instead of running the benchmarks")
	save := flag.String("save", "", "write the run's output, under a line naming the release, to this file (for -input)")
	write := flag.String("write", "", "replace the figures between the markers of this document with the report")
	check := flag.String("check", "", "with -input: exit 1 unless this document states the report of that saved run of this release")
	flag.Parse()
	if *check != "" {
		if *input == "" {
			fail(fmt.Errorf("-check needs -input, the saved run"))
		}
		checkMain(*check, *input)
		return
	}

	start := time.Now()
	var out []byte
	runInfo := ""
	if *input != "" {
		var err error
		if out, err = os.ReadFile(*input); err != nil {
			fail(err)
		}
		runInfo = runInfoOf(out)
	} else {
		if *count < 1 {
			fail(fmt.Errorf("-count must be at least 1"))
		}
		var err error
		if out, err = runBenchmarks(*count, *benchtime, *bench, *verbose); err != nil {
			fail(err)
		}
		v, _ := exec.Command("go", "env", "GOVERSION").Output()
		runInfo = newRunInfo(*count, *benchtime, strings.TrimSpace(string(v)))
		if *save != "" {
			if err := os.WriteFile(*save, append([]byte(runHeader+runInfo+"\n"), out...), 0o644); err != nil {
				fail(err)
			}
		}
	}
	st := parse(bytes.NewReader(out))
	if len(st.samples) == 0 {
		fail(fmt.Errorf("no benchmark results"))
	}
	block, fails := render(st, runInfo)
	fmt.Print(block)
	if *write != "" {
		if err := writeBlock(*write, block); err != nil {
			fail(err)
		}
	}
	fmt.Fprintf(os.Stderr, "benchreport: %d budget(s) failed; done in %s\n", fails, time.Since(start).Round(time.Second))
	if *strict && fails > 0 {
		os.Exit(1)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "benchreport:", err)
	os.Exit(2)
}

// runBenchmarks builds the test binary once and runs it count times, each
// run rotating the contenders one place further.
func runBenchmarks(count int, benchtime, bench string, verbose bool) ([]byte, error) {
	dir, err := moduleDir()
	if err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp("", "benchreport")
	if err != nil {
		return nil, err
	}
	defer func() { _ = os.RemoveAll(tmp) }()
	bin := filepath.Join(tmp, "benchmarks.test")
	build := exec.Command("go", "test", "-c", "-o", bin, ".")
	build.Dir = dir
	if b, err := build.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("go test -c: %v\n%s", err, b)
	}
	var out []byte
	for i := range count {
		args := []string{"-test.run=^$", "-test.bench=" + bench, "-test.benchtime=" + benchtime,
			"-test.count=1", "-test.benchmem", "-rotate=" + strconv.Itoa(i)}
		fmt.Fprintf(os.Stderr, "benchreport: run %d/%d: benchmarks.test %s\n", i+1, count, strings.Join(args, " "))
		cmd := exec.Command(bin, args...)
		cmd.Dir = dir
		var buf bytes.Buffer
		cmd.Stdout, cmd.Stderr = &buf, &buf
		err := cmd.Run()
		if verbose || err != nil {
			_, _ = os.Stderr.Write(buf.Bytes())
		}
		if err != nil {
			return nil, fmt.Errorf("benchmarks failed: %v", err)
		}
		out = append(out, buf.Bytes()...)
	}
	return out, nil
}

// Verdicts.
const (
	pass = "PASS"
	bad  = "FAIL"
	info = "info"
)

func dur(ns float64) string {
	switch {
	case ns >= 1e6:
		return strconv.FormatFloat(ns/1e6, 'f', 2, 64) + " ms"
	case ns >= 1e3:
		return strconv.FormatFloat(ns/1e3, 'f', 1, 64) + " µs"
	}
	return strconv.FormatFloat(ns, 'f', 0, 64) + " ns"
}

func allocs(v float64) string { return strconv.FormatFloat(v, 'f', 0, 64) }

// report prints the Markdown table and returns how many budgets failed.
func report(w io.Writer, st stats, runInfo string) (fails int) {
	p := func(format string, a ...any) { _, _ = fmt.Fprintf(w, format, a...) }
	n := 0
	for _, xs := range st.samples {
		n = max(n, len(xs))
	}
	p("### SDK vs plain net/http + encoding/json (raw) vs oapi-codegen client (generated)\n\n")
	env := strings.TrimSpace(st.env["goos"] + "/" + st.env["goarch"] + ", " + st.env["cpu"])
	if runInfo != "" {
		env = runInfo + ", " + env
	}
	p("Median time per call of %d samples (%s). Loopback rows call an httptest server; in-memory, error and scale rows use an http.RoundTripper that answers without a socket. Allocations per call are process-wide (the loopback server's included).\n\n", n, env)
	p("| Row | SDK | raw | generated | SDK/raw | SDK/generated | allocs SDK / raw / generated | Budget | Result |\n")
	p("|---|---:|---:|---:|---:|---:|---:|---|:---:|\n")

	var passes int
	verdict := func(failed []string, gated bool) string {
		switch {
		case !gated:
			return info
		case len(failed) == 0:
			passes++
			return pass
		}
		fails++
		return bad + " (" + strings.Join(failed, ", ") + ")"
	}

	// row prints one row of sdk against raw, and against generated when the
	// row has it: then the SDK's allocations are held to generated's.
	// maxRatio 0 means no time budget.
	row := func(label, prefix string, withGen bool, maxRatio float64, budget string) {
		s, okS := st.median(prefix + "/sdk")
		r, okR := st.median(prefix + "/raw")
		g, okG := st.median(prefix + "/generated")
		if !okS || !okR || (withGen && !okG) {
			p("| %s | "+notMeasured+" | | | | | | %s | |\n", label, budget)
			return
		}
		genTime, genRatio, genAllocs := "—", "—", "—"
		if withGen {
			genTime, genRatio, genAllocs = dur(g.ns), fmt.Sprintf("%.2f×", s.ns/g.ns), allocs(g.allocs)
		}
		ratio := s.ns / r.ns
		var failed []string
		if maxRatio > 0 && !(ratio <= maxRatio) { // NaN fails too
			failed = append(failed, "time")
		}
		if withGen && s.allocs > g.allocs {
			failed = append(failed, "allocs")
		}
		p("| %s | %s | %s | %s | %.2f× | %s | %s / %s / %s | %s | %s |\n",
			label, dur(s.ns), dur(r.ns), genTime, ratio, genRatio, allocs(s.allocs), allocs(r.allocs), genAllocs,
			budget, verdict(failed, maxRatio > 0 || withGen))
	}

	loopbackBudget := fmt.Sprintf("≤ %.2f× raw; allocs ≤ generated", maxLoopbackRatio)
	for _, decl := range benchmarks.Operations() {
		op := decl.Name
		row(op+", loopback", "BenchmarkLoopback/"+op+"/serial", true, maxLoopbackRatio, loopbackBudget)
		row(op+", loopback parallel", "BenchmarkLoopback/"+op+"/parallel", true, maxLoopbackRatio, loopbackBudget)
		row(op+", in memory", "BenchmarkInMemory/"+op, true, maxInMemoryRatio,
			fmt.Sprintf("≤ %.2f× raw; allocs ≤ generated", maxInMemoryRatio))
	}

	errBudget := fmt.Sprintf("≤ %.2f× raw", maxErrorRatio)
	row("422 problem, 1 serviceError", "BenchmarkErrors/serviceErrors=1", false, maxErrorRatio, errBudget)
	row("422 problem, 100 serviceErrors", "BenchmarkErrors/serviceErrors=100", false, maxErrorRatio, errBudget)
	row("422 problem, 1,000 serviceErrors", "BenchmarkErrors/serviceErrors=1000", false, maxErrorRatio, errBudget)
	slopeBudget := fmt.Sprintf("≤ %.0f allocs per item", maxAllocsPerItem)
	s100, ok1 := st.median("BenchmarkErrors/serviceErrors=100/sdk")
	s1000, ok2 := st.median("BenchmarkErrors/serviceErrors=1000/sdk")
	r100, ok3 := st.median("BenchmarkErrors/serviceErrors=100/raw")
	r1000, ok4 := st.median("BenchmarkErrors/serviceErrors=1000/raw")
	if ok1 && ok2 && ok3 && ok4 {
		sdkSlope, rawSlope := (s1000.allocs-s100.allocs)/900, (r1000.allocs-r100.allocs)/900
		var failed []string
		if sdkSlope > maxAllocsPerItem {
			failed = append(failed, "allocs")
		}
		p("| 422 problem, allocs per serviceError (100 → 1,000) | | | | | | %.1f / %.1f / — | %s | %s |\n",
			sdkSlope, rawSlope, slopeBudget, verdict(failed, true))
	} else {
		p("| 422 problem, allocs per serviceError (100 → 1,000) | "+notMeasured+" | | | | | | %s | |\n", slopeBudget)
	}
	row("400 code/message, 100 field errors", "BenchmarkErrors/fieldErrors=100", false, maxErrorRatio, errBudget)

	row("ReplaceRolePermissions, 1 slug", "BenchmarkScale/slugs=1", false, 0, "—")
	row("ReplaceRolePermissions, 100 slugs", "BenchmarkScale/slugs=100", false, 0, "—")
	row("ReplaceRolePermissions, 10,000 slugs", "BenchmarkScale/slugs=10000", false, maxScaleRatio, fmt.Sprintf("≤ %.2f× raw", maxScaleRatio))

	connBudget := fmt.Sprintf("≤ %.2f× raw; ≤ %.0f connections opened once warm", maxConcurrentRatio, maxConnsPerCaller*concurrentCallers)
	for _, scheme := range []string{"tls", "plain"} {
		label := fmt.Sprintf("accessmgmt.UpdateUser, %d goroutines, %s", concurrentCallers, map[string]string{"tls": "TLS (HTTP/1.1)", "plain": "plain HTTP"}[scheme])
		s, okS := st.median("BenchmarkConcurrent/" + scheme + "/sdk")
		r, okR := st.median("BenchmarkConcurrent/" + scheme + "/raw")
		if !okS || !okR {
			p("| %s | "+notMeasured+" | | | | | | %s | |\n", label, connBudget)
			continue
		}
		ratio := s.ns / r.ns
		var failed []string
		if !(ratio <= maxConcurrentRatio) {
			failed = append(failed, "time")
		}
		if !(s.conns <= maxConnsPerCaller*concurrentCallers) {
			failed = append(failed, "connections")
		}
		p("| %s (connections opened once warm: SDK %.0f, raw %.0f) | %s | %s | — | %.2f× | — | %s / %s / — | %s | %s |\n",
			label, s.conns, r.conns, dur(s.ns), dur(r.ns), ratio, allocs(s.allocs), allocs(r.allocs), connBudget, verdict(failed, true))
	}

	p("\n%d budget(s) pass, %d fail.\n", passes, fails)
	return fails
}
