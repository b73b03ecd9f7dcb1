package main

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/memberplatform/memberplatform-go/benchmarks"
)

// The release owns the figures (release.go): between releases a change
// needs no benchmark run. docs/performance.md's table, where the README's
// link points, must only be well formed for the operations declared now:
// a row for each (a new one marked "not yet measured", as the failure says
// to add it), each with benchreport's budget, and the sentence under the
// table stating its measured rows. The release checks (.ci/release-check
// figures) hold the figures to the release's own run.
func TestREADMEStatesItsLastReport(t *testing.T) {
	doc, err := os.ReadFile("../../../docs/performance.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range checkTable(string(doc)) {
		t.Errorf("docs/performance.md: %s", p)
	}
}

// fullRun is a saved run of release version measuring every row within
// its budgets: each operation's contenders and the error, scale and
// concurrent rows.
func fullRun(version string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%smemberplatform-go %s; 1 interleaved runs, -benchtime 1x, go1.26\n", runHeader, version)
	b.WriteString("goos: linux\ngoarch: amd64\ncpu: Test CPU\n")
	contenders := func(name string, gen bool) {
		b.WriteString(line(name+"/sdk", 1000, 10))
		b.WriteString(line(name+"/raw", 1000, 10))
		if gen {
			b.WriteString(line(name+"/generated", 1200, 12))
		}
	}
	for _, op := range benchmarks.Operations() {
		contenders("BenchmarkLoopback/"+op.Name+"/serial", true)
		contenders("BenchmarkLoopback/"+op.Name+"/parallel", true)
		contenders("BenchmarkInMemory/"+op.Name, true)
	}
	for _, n := range []string{"serviceErrors=1", "serviceErrors=100", "serviceErrors=1000", "fieldErrors=100"} {
		contenders("BenchmarkErrors/"+n, false)
	}
	for _, n := range []string{"slugs=1", "slugs=100", "slugs=10000"} {
		contenders("BenchmarkScale/"+n, false)
	}
	b.WriteString(concurrentLine("tls", 1000, 1000, 0, 0))
	b.WriteString(concurrentLine("plain", 1000, 1000, 0, 0))
	return b.String()
}

// docWith is a performance document whose figures are block.
func docWith(block string) string {
	return "# Performance\n\nProse.\n\n" + blockBegin + "\n" + block + blockEnd + "\n\nMore prose.\n"
}

func TestCheckTable(t *testing.T) {
	run := fullRun("9.9.9")
	block, _ := render(parse(strings.NewReader(run)), runInfoOf([]byte(run)))
	if p := checkTable(docWith(block)); len(p) != 0 {
		t.Fatalf("benchreport's own report is not well formed: %q", p)
	}
	ops := benchmarks.Operations()
	op := ops[len(ops)-1].Name // not the concurrent rows' operation

	// A new operation: its rows missing, then added as not yet measured.
	var without []string
	for l := range strings.SplitSeq(block, "\n") {
		if !strings.HasPrefix(l, "| "+op+", ") {
			without = append(without, l)
		}
	}
	p := checkTable(docWith(strings.Join(without, "\n")))
	if len(p) != 3 || !strings.Contains(p[0], "no row \""+op+", loopback\": add it, not yet measured") ||
		!strings.Contains(p[0], "\n| "+op+", loopback | not yet measured | | | | | | ≤ 1.10× raw; allocs ≤ generated | |") {
		t.Errorf("rows of %s missing: problems %q, want the three rows to add", op, p)
	}
	var marked []string
	for l := range strings.SplitSeq(block, "\n") {
		if strings.HasPrefix(l, "| "+op+", in memory |") {
			l = "| " + op + ", in memory | not yet measured | | | | | | ≤ 1.15× raw; allocs ≤ generated | |"
		}
		marked = append(marked, l)
	}
	if p := checkTable(docWith(strings.Join(marked, "\n"))); len(p) != 0 {
		t.Errorf("a row marked not yet measured: problems %q, want none", p)
	}

	for name, c := range map[string]struct{ from, to, want string }{
		"a stale row":     {"| " + op + ", in memory |", "| gone.Op, in memory | 1 µs | 1 µs | 1 µs | 1.00× | 1.00× | 1 / 1 / 1 | ≤ 1.15× raw; allocs ≤ generated | PASS |\n| " + op + ", in memory |", "benchreport does not print"},
		"another budget":  {"≤ 1.30× raw |", "≤ 2.00× raw |", "states the budget"},
		"a changed ratio": {"| 1.00× | — | 10 / 10 / — | ≤ 1.10× raw |", "| 0.50× | — | 10 / 10 / — | ≤ 1.10× raw |", "the sentence under the table"},
		"no markers":      {blockBegin, "", "no lines"},
	} {
		doc := strings.Replace(docWith(block), c.from, c.to, 1)
		if p := checkTable(doc); !strings.Contains(strings.Join(p, "\n"), c.want) {
			t.Errorf("%s: problems %q, want one saying %q", name, p, c.want)
		}
	}
}

func TestCheckRelease(t *testing.T) {
	run := fullRun("9.9.9")
	block, fails := render(parse(strings.NewReader(run)), runInfoOf([]byte(run)))
	if fails != 0 || !strings.Contains(block, "(memberplatform-go 9.9.9; 1 interleaved runs") {
		t.Fatalf("render: %d fails, block:\n%s", fails, block)
	}
	if p := checkRelease(docWith(block), []byte(run), "9.9.9"); len(p) != 0 {
		t.Errorf("the release's own report: problems %q, want none", p)
	}
	for name, c := range map[string]struct {
		doc, run, version, want string
	}{
		"a run of another release": {docWith(block), run, "9.9.10", "measured memberplatform-go 9.9.9, not this release 9.9.10"},
		"a run without its header": {docWith(block), strings.SplitN(run, "\n", 2)[1], "9.9.9", "not a run saved with -save"},
		"figures edited by hand":   {docWith(strings.Replace(block, "1.0 µs", "0.9 µs", 1)), run, "9.9.9", "not the report of the saved run"},
		"a row not measured": {docWith(block), strings.ReplaceAll(run, "BenchmarkScale/slugs=100/", "BenchmarkScale/slugs=1x/"), "9.9.9",
			"did not measure the row ReplaceRolePermissions, 100 slugs"},
		"a budget failed": {docWith(block), strings.Replace(run, line("BenchmarkScale/slugs=10000/sdk", 1000, 10), line("BenchmarkScale/slugs=10000/sdk", 2000, 10), 1), "9.9.9",
			"1 budget(s) failed"},
	} {
		if p := checkRelease(c.doc, []byte(c.run), c.version); !strings.Contains(strings.Join(p, "\n"), c.want) {
			t.Errorf("%s: problems %q, want one saying %q", name, p, c.want)
		}
	}
}

// checkTable says what keeps the document's figures from being a well
// formed report for the operations declared now, without running anything:
// every row benchreport prints, in its order, with its budget, either
// measured or marked "not yet measured" exactly as benchreport marks it,
// no other row, and the sentence under the table stating the table's
// measured rows.
func checkTable(doc string) (problems []string) {
	block, ok := docBlock(doc)
	if !ok {
		return []string{fmt.Sprintf("no lines %q and %q around the figures", blockBegin, blockEnd)}
	}
	// An empty run: every row as benchreport prints it without figures.
	var empty bytes.Buffer
	report(&empty, stats{samples: map[string][]sample{}, env: map[string]string{}}, "")
	var header, rule string
	var want [][]string // cells of each row, in order
	var wantLines []string
	for line := range strings.SplitSeq(empty.String(), "\n") {
		switch {
		case strings.HasPrefix(line, "| Row |"):
			header = line
		case strings.HasPrefix(line, "|---"):
			rule = line
		case strings.HasPrefix(line, "| "):
			want, wantLines = append(want, tableCells(line)), append(wantLines, line)
		}
	}
	if !strings.Contains("\n"+block, "\n"+header+"\n"+rule+"\n") {
		problems = append(problems, "the table does not start with benchreport's header and rule lines:\n"+header+"\n"+rule)
	}
	seen := make([]bool, len(want))
	last := -1
	for line := range strings.SplitSeq(block, "\n") {
		if !strings.HasPrefix(line, "| ") || line == header {
			continue
		}
		cells := tableCells(line)
		i := slicesIndexRow(want, cells[0])
		switch {
		case i < 0:
			problems = append(problems, fmt.Sprintf("a row %q that benchreport does not print for the declared operations: remove it", cells[0]))
			continue
		case seen[i]:
			problems = append(problems, fmt.Sprintf("the row %q twice", cells[0]))
			continue
		case i < last:
			problems = append(problems, fmt.Sprintf("the row %q out of benchreport's order", cells[0]))
		}
		seen[i], last = true, max(last, i)
		switch {
		case len(cells) != len(want[i]):
			problems = append(problems, fmt.Sprintf("the row %q has %d cells, want %d", cells[0], len(cells), len(want[i])))
		case cells[1] == notMeasured && line != wantLines[i]:
			problems = append(problems, fmt.Sprintf("the row %q is marked %q but not as benchreport marks it:\n%s", cells[0], notMeasured, wantLines[i]))
		case cells[7] != want[i][7]:
			problems = append(problems, fmt.Sprintf("the row %q states the budget %q, benchreport's is %q", cells[0], cells[7], want[i][7]))
		}
	}
	for i, ok := range seen {
		if !ok {
			problems = append(problems, fmt.Sprintf("no row %q: add it, not yet measured until the next release's run:\n%s", want[i][0], wantLines[i]))
		}
	}
	sentence := summary(parseTable(block))
	if sentence == "" {
		problems = append(problems, "the table lacks the measured error or scale rows the sentence under it states")
	} else if !strings.Contains(strings.Join(strings.Fields(block), " "), sentence) {
		problems = append(problems, "the sentence under the table does not state its measured rows as benchreport does; from the table:\n"+sentence)
	}
	return problems
}

// tableCells splits a Markdown table line into its trimmed cells.
func tableCells(line string) []string {
	cells := strings.Split(strings.Trim(strings.TrimSpace(line), "|"), "|")
	for i := range cells {
		cells[i] = strings.TrimSpace(cells[i])
	}
	return cells
}

// slicesIndexRow returns the index of the row of want labelled label, a
// measured row's label possibly followed by a parenthesis of figures (the
// concurrent rows' connections), or -1.
func slicesIndexRow(want [][]string, label string) int {
	for i, w := range want {
		if label == w[0] || strings.HasPrefix(label, w[0]+" (") {
			return i
		}
	}
	return -1
}
