package main

import (
	"os"
	"strings"
	"testing"

	"github.com/memberplatform/memberplatform-go/benchmarks"
)

// docs/performance.md, where the README's Performance section points, is
// benchreport's last report: its table has the rows of every declared
// operation, and the sentence that states the table's figures is the one
// summary writes from that table.
func TestREADMEStatesItsLastReport(t *testing.T) {
	doc, err := os.ReadFile("../../../docs/performance.md")
	if err != nil {
		t.Fatal(err)
	}
	perf := string(doc)
	const rerun = "run `cd benchmarks && go run ./cmd/benchreport` and paste its table and the sentence under it into docs/performance.md"
	rows := parseTable(perf)
	labels := map[string]bool{}
	for _, r := range rows {
		labels[r.label] = true
	}
	for _, op := range benchmarks.Operations() {
		for _, suffix := range []string{", loopback", ", loopback parallel", ", in memory"} {
			if !labels[op.Name+suffix] {
				t.Errorf("docs/performance.md's table has no row %q: %s", op.Name+suffix, rerun)
			}
		}
	}
	want := summary(rows)
	if want == "" {
		t.Fatalf("docs/performance.md's table lacks the error or scale rows: %s", rerun)
	}
	if !strings.Contains(strings.Join(strings.Fields(perf), " "), want) {
		t.Errorf("docs/performance.md does not state its table's figures as benchreport does; %s. From the table it shows:\n%s", rerun, want)
	}
}

func TestSummary(t *testing.T) {
	rows := parseTable(`| Row | SDK | raw | generated | SDK/raw | SDK/generated | allocs SDK / raw / generated | Budget | Result |
|---|---:|---:|---:|---:|---:|---:|---|:---:|
| a.Op, loopback | 22.3 µs | 21.8 µs | 23.8 µs | 1.02× | 0.94× | 108 / 108 / 127 | ≤ 1.10× raw; allocs ≤ generated | PASS |
| a.Op, loopback parallel | 33.8 µs | 33.0 µs | 35.0 µs | 1.04× | 0.97× | 110 / 107 / 126 | ≤ 1.10× raw; allocs ≤ generated | PASS |
| a.Op, in memory | 3.7 µs | 3.7 µs | 5.2 µs | 0.99× | 0.70× | 39 / 39 / 58 | ≤ 1.15× raw; allocs ≤ generated | PASS |
| 422 problem, 1 serviceError | 6.9 µs | 5.8 µs | — | 1.18× | — | 63 / 58 / — | ≤ 1.30× raw | PASS |
| 422 problem, 100 serviceErrors | 31.3 µs | 59.0 µs | — | 0.53× | — | 268 / 266 / — | ≤ 1.30× raw | PASS |
| 422 problem, allocs per serviceError (100 → 1,000) | | | | | | 2.0 / 2.0 / — | ≤ 4 allocs per item | PASS |
| 400 code/message, 100 field errors | 30.7 µs | 59.6 µs | — | 0.51× | — | 251 / 255 / — | ≤ 1.30× raw | PASS |
| ReplaceRolePermissions, 10,000 slugs | 187.1 µs | 469.5 µs | — | 0.40× | — | 28 / 28 / — | ≤ 1.10× raw | PASS |`)
	want := "On the operations' rows the SDK makes 0 to 3 allocations per call more than raw and 16 to 19 fewer than the generated client, " +
		"and takes 1.02× to 1.04× raw's time on loopback and 0.99× in memory; error bodies of 100 items or more take 0.51× to 0.53× raw's time, " +
		"a 1-item one 1.18×, and 10,000 permission slugs 0.40×."
	if got := summary(rows); got != want {
		t.Errorf("summary =\n%s\nwant\n%s", got, want)
	}
	if got := summary(rows[:3]); got != "" {
		t.Errorf("summary without the error rows = %q, want none", got)
	}
}
