package main

import (
	"fmt"
	"strings"
	"testing"

	"github.com/memberplatform/memberplatform-go/benchmarks"
)

// line is one go test -bench result line.
func line(name string, ns, allocs float64) string {
	return fmt.Sprintf("%s-2 \t 1000\t %.0f ns/op\t 4096 B/op\t %.0f allocs/op\n", name, ns, allocs)
}

// sampleOutput is a run where UpdateUser passes every budget on loopback
// (more allocations than raw, fewer than generated), fails time in
// parallel and allocs in memory, and the error and scale rows
// exercise the slope and the informational rows.
func sampleOutput() string {
	var b strings.Builder
	b.WriteString("goos: linux\ngoarch: amd64\npkg: github.com/memberplatform/memberplatform-go/benchmarks\ncpu: Test CPU\n")
	for _, ns := range []float64{35000, 37000, 99000} { // median 37000
		b.WriteString(line("BenchmarkLoopback/accessmgmt.UpdateUser/serial/sdk", ns, 115))
	}
	b.WriteString(line("BenchmarkLoopback/accessmgmt.UpdateUser/serial/raw", 36000, 108))
	b.WriteString(line("BenchmarkLoopback/accessmgmt.UpdateUser/serial/generated", 40000, 124))
	b.WriteString(line("BenchmarkLoopback/accessmgmt.UpdateUser/parallel/sdk", 30000, 110))
	b.WriteString(line("BenchmarkLoopback/accessmgmt.UpdateUser/parallel/raw", 20000, 108))
	b.WriteString(line("BenchmarkLoopback/accessmgmt.UpdateUser/parallel/generated", 25000, 124))
	b.WriteString(line("BenchmarkInMemory/accessmgmt.UpdateUser/sdk", 5000, 51))
	b.WriteString(line("BenchmarkInMemory/accessmgmt.UpdateUser/raw", 5000, 39))
	b.WriteString(line("BenchmarkInMemory/accessmgmt.UpdateUser/generated", 6000, 50))
	b.WriteString(line("BenchmarkErrors/serviceErrors=100/sdk", 100000, 500))
	b.WriteString(line("BenchmarkErrors/serviceErrors=100/raw", 80000, 266))
	b.WriteString(line("BenchmarkErrors/serviceErrors=1000/sdk", 1000000, 3200))
	b.WriteString(line("BenchmarkErrors/serviceErrors=1000/raw", 790000, 2066))
	b.WriteString(line("BenchmarkScale/slugs=1/sdk", 4000, 30))
	b.WriteString(line("BenchmarkScale/slugs=1/raw", 3000, 27))
	b.WriteString(line("BenchmarkScale/slugs=10000/sdk", 500000, 31))
	b.WriteString(line("BenchmarkScale/slugs=10000/raw", 470000, 27))
	b.WriteString("PASS\n")
	return b.String()
}

func TestParse(t *testing.T) {
	st := parse(strings.NewReader(sampleOutput()))
	m, ok := st.median("BenchmarkLoopback/accessmgmt.UpdateUser/serial/sdk")
	if !ok || m.ns != 37000 || m.allocs != 115 || m.bytes != 4096 {
		t.Fatalf("median = %+v, %v", m, ok)
	}
	if st.env["cpu"] != "Test CPU" || st.env["goarch"] != "amd64" {
		t.Errorf("env = %v", st.env)
	}
	two := parse(strings.NewReader(line("BenchmarkScale/slugs=1/sdk", 10, 1) + line("BenchmarkScale/slugs=1/sdk", 20, 3)))
	if m, _ := two.median("BenchmarkScale/slugs=1/sdk"); m.ns != 15 || m.allocs != 2 {
		t.Errorf("even median = %+v", m)
	}
	if _, ok := st.median("BenchmarkScale/slugs=1"); ok {
		t.Error("a name must match whole, without its -GOMAXPROCS suffix only")
	}
}

// TestParsePerCallMetrics reads a row as the benchmarks print it: one line
// whose "<contender>-ns/call", "-allocs/call" and "-B/call" metrics become
// that contender's sample, two runs making two samples.
func TestParsePerCallMetrics(t *testing.T) {
	row := "BenchmarkLoopback/accessmgmt.UpdateUser/serial-2 \t 1725\t 137327 ns/op\t 10344 generated-B/call\t 127.0 generated-allocs/call\t 47580 generated-ns/call" +
		"\t 9124 raw-B/call\t 108.1 raw-allocs/call\t %d raw-ns/call\t 9018 sdk-B/call\t 105.1 sdk-allocs/call\t %d sdk-ns/call\n"
	st := parse(strings.NewReader(fmt.Sprintf(row, 44000, 45000) + fmt.Sprintf(row, 46000, 47000)))
	for name, want := range map[string]sample{
		"BenchmarkLoopback/accessmgmt.UpdateUser/serial/sdk":       {ns: 46000, bytes: 9018, allocs: 105.1},
		"BenchmarkLoopback/accessmgmt.UpdateUser/serial/raw":       {ns: 45000, bytes: 9124, allocs: 108.1},
		"BenchmarkLoopback/accessmgmt.UpdateUser/serial/generated": {ns: 47580, bytes: 10344, allocs: 127},
		"BenchmarkLoopback/accessmgmt.UpdateUser/serial":           {ns: 137327},
	} {
		if got, ok := st.median(name); !ok || got != want {
			t.Errorf("%s: median = %+v, %v; want %+v", name, got, ok, want)
		}
	}
	// A contender whose name has a hyphen keeps it; one without a time, or
	// with NaN (no turn was timed), was not run and leaves no sample.
	odd := parse(strings.NewReader("BenchmarkInMemory/accessmgmt.UpdateUser-2 \t 10\t 5 ns/op\t 7 oapi-codegen-ns/call\t 3 oapi-codegen-allocs/call" +
		"\t 9 sdk-allocs/call\t NaN raw-ns/call\t 4 raw-allocs/call\n"))
	if got, ok := odd.median("BenchmarkInMemory/accessmgmt.UpdateUser/oapi-codegen"); !ok || got != (sample{ns: 7, allocs: 3}) {
		t.Errorf("oapi-codegen: median = %+v, %v", got, ok)
	}
	for _, who := range []string{"sdk", "raw", "oapi"} {
		if got, ok := odd.median("BenchmarkInMemory/accessmgmt.UpdateUser/" + who); ok {
			t.Errorf("%s has a sample without a time: %+v", who, got)
		}
	}
}

func TestReport(t *testing.T) {
	var b strings.Builder
	fails := report(&b, parse(strings.NewReader(sampleOutput())), "")
	out := b.String()
	for _, want := range []string{
		"| accessmgmt.UpdateUser, loopback | 37.0 µs | 36.0 µs | 40.0 µs | 1.03× | 0.93× | 115 / 108 / 124 | ≤ 1.10× raw; allocs ≤ generated | PASS |",
		"| accessmgmt.UpdateUser, loopback parallel | 30.0 µs | 20.0 µs | 25.0 µs | 1.50× | 1.20× | 110 / 108 / 124 | ≤ 1.10× raw; allocs ≤ generated | FAIL (time) |",
		"| accessmgmt.UpdateUser, in memory | 5.0 µs | 5.0 µs | 6.0 µs | 1.00× | 0.83× | 51 / 39 / 50 | ≤ 1.15× raw; allocs ≤ generated | FAIL (allocs) |",
		"| accessmgmt.ReplaceRolePermissions, loopback | not yet measured |",
		"| 422 problem, 100 serviceErrors | 100.0 µs | 80.0 µs | — | 1.25× | — | 500 / 266 / — | ≤ 1.30× raw | PASS |",
		"| 422 problem, 1,000 serviceErrors | 1.00 ms | 790.0 µs | — | 1.27× | — | 3200 / 2066 / — | ≤ 1.30× raw | PASS |",
		"| 422 problem, allocs per serviceError (100 → 1,000) | | | | | | 3.0 / 2.0 / — | ≤ 4 allocs per item | PASS |",
		"| 422 problem, 1 serviceError | not yet measured |",
		"| ReplaceRolePermissions, 1 slug | 4.0 µs | 3.0 µs | — | 1.33× | — | 30 / 27 / — | — | info |",
		"| ReplaceRolePermissions, 10,000 slugs | 500.0 µs | 470.0 µs | — | 1.06× | — | 31 / 27 / — | ≤ 1.10× raw | PASS |",
		"5 budget(s) pass, 2 fail.",
		"(linux/amd64, Test CPU)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
	if fails != 2 {
		t.Errorf("fails = %d, want 2", fails)
	}
	if strings.Count(out, "\n|") < 20 {
		t.Errorf("report has too few rows:\n%s", out)
	}
	// A row, run or not, for every operation the SDK declares.
	for _, op := range benchmarks.Operations() {
		for _, row := range []string{", loopback |", ", loopback parallel |", ", in memory |"} {
			if !strings.Contains(out, "\n| "+op.Name+row) {
				t.Errorf("report lacks the row %q", op.Name+row)
			}
		}
	}
}

func TestSlopeFails(t *testing.T) {
	in := line("BenchmarkErrors/serviceErrors=100/sdk", 1, 2000) + line("BenchmarkErrors/serviceErrors=100/raw", 1, 266) +
		line("BenchmarkErrors/serviceErrors=1000/sdk", 1, 18200) + line("BenchmarkErrors/serviceErrors=1000/raw", 1, 2066)
	var b strings.Builder
	report(&b, parse(strings.NewReader(in)), "")
	if want := "| 422 problem, allocs per serviceError (100 → 1,000) | | | | | | 18.0 / 2.0 / — | ≤ 4 allocs per item | FAIL (allocs) |"; !strings.Contains(b.String(), want) {
		t.Errorf("report lacks %q:\n%s", want, b.String())
	}
}

// concurrentLine is a BenchmarkConcurrent result line with per-contender
// metrics, connections included.
func concurrentLine(scheme string, sdkNs, rawNs, sdkConns, rawConns float64) string {
	return fmt.Sprintf("BenchmarkConcurrent/%s-2 \t 1000\t 60000 ns/op\t 112 raw-allocs/call\t %.0f raw-conns\t %.0f raw-ns/call\t 113 sdk-allocs/call\t %.0f sdk-conns\t %.0f sdk-ns/call\n",
		scheme, rawConns, rawNs, sdkConns, sdkNs)
}

func TestConcurrentRows(t *testing.T) {
	out := concurrentLine("tls", 110000, 100000, 0, 0) + // passes
		concurrentLine("plain", 120000, 100000, 1, 0) // 1.20×: fails on time
	var b strings.Builder
	report(&b, parse(strings.NewReader(out)), "")
	table := b.String()
	for _, want := range []string{
		"| accessmgmt.UpdateUser, 32 goroutines, TLS (HTTP/1.1) (connections opened once warm: SDK 0, raw 0) | 110.0 µs | 100.0 µs | — | 1.10× |",
		"| accessmgmt.UpdateUser, 32 goroutines, plain HTTP (connections opened once warm: SDK 1, raw 0) | 120.0 µs | 100.0 µs | — | 1.20× |",
		"FAIL (time)",
	} {
		if !strings.Contains(table, want) {
			t.Errorf("report lacks %q:\n%s", want, table)
		}
	}
	if strings.Count(table, "| ≤ 1.15× raw; ≤ 16 connections opened once warm | PASS |") != 1 {
		t.Errorf("want exactly the TLS row to pass:\n%s", table)
	}

	b.Reset()
	report(&b, parse(strings.NewReader(concurrentLine("tls", 100000, 100000, 589, 34))), "")
	if !strings.Contains(b.String(), "FAIL (connections)") {
		t.Errorf("589 connections must fail the row:\n%s", b.String())
	}
}
