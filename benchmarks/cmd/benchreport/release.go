package main

import (
	"bytes"
	"fmt"
	"os"
	"strings"

	memberplatform "github.com/memberplatform/memberplatform-go"
)

// The release owns the figures. docs/performance.md holds benchreport's
// report of the last release's run between two markers, and that run's raw
// output is saved beside it (docs/performance-run.txt), its first line
// naming the release it measured. At release, on a quiet machine:
//
//	go run ./cmd/benchreport -save ../docs/performance-run.txt -write ../docs/performance.md
//
// and the release checks (.ci/release-check figures) run
//
//	go run ./cmd/benchreport -input ../docs/performance-run.txt -check ../docs/performance.md
//
// which fails unless the saved run measured this release (version.go),
// measured every row within its budget, and the document states exactly
// its report. Between releases, a change needs no benchmark run: a new
// operation's rows are marked "not yet measured" (checkTable in
// readme_test.go, run on every change, says what to add).

// Markers of the block benchreport writes into the document.
const (
	blockBegin = "<!-- benchreport: begin (the last release's report; RELEASING.md regenerates it) -->"
	blockEnd   = "<!-- benchreport: end -->"
)

// runHeader starts the first line of a saved run: what it measured.
const runHeader = "benchreport-run: "

// notMeasured fills the SDK cell of a row that has no figures: an
// operation added since the last release's run, or a row the run left out.
const notMeasured = "not yet measured"

// runInfoOf returns what a saved run's header line says (the release,
// runs, benchtime and Go version), or "" when out has none.
func runInfoOf(out []byte) string {
	for line := range strings.SplitSeq(string(out), "\n") {
		if info, ok := strings.CutPrefix(line, runHeader); ok {
			return strings.TrimSpace(info)
		}
	}
	return ""
}

// releaseOf returns the release a run's info names ("memberplatform-go
// 0.6.0; ..." names 0.6.0), or "".
func releaseOf(info string) string {
	first, _, _ := strings.Cut(info, ";")
	v, ok := strings.CutPrefix(first, "memberplatform-go ")
	if !ok {
		return ""
	}
	return strings.TrimSpace(v)
}

// newRunInfo is the header of a run benchreport makes now.
func newRunInfo(count int, benchtime, goVersion string) string {
	return fmt.Sprintf("memberplatform-go %s; %d interleaved runs, -benchtime %s, %s", memberplatform.Version, count, benchtime, goVersion)
}

// render returns the block benchreport writes into the document for st:
// the report and the sentence under it; fails counts the budgets failed.
func render(st stats, info string) (block string, fails int) {
	var b bytes.Buffer
	fails = report(&b, st, info)
	return b.String() + "\n" + summary(parseTable(b.String())) + "\n", fails
}

// docBlock returns the text between the markers of doc.
func docBlock(doc string) (string, bool) {
	_, rest, ok := strings.Cut(doc, blockBegin+"\n")
	if !ok {
		return "", false
	}
	block, _, ok := strings.Cut(rest, blockEnd)
	return block, ok
}

// writeBlock replaces the block between the markers of the document at
// path with block.
func writeBlock(path, block string) error {
	doc, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	old, ok := docBlock(string(doc))
	if !ok {
		return fmt.Errorf("%s has no lines %q and %q around the figures", path, blockBegin, blockEnd)
	}
	updated := strings.Replace(string(doc), blockBegin+"\n"+old+blockEnd, blockBegin+"\n"+block+blockEnd, 1)
	return os.WriteFile(path, []byte(updated), 0o644)
}

// checkRelease says what keeps the document from stating the release's
// figures: the saved run out must be this release's (version), measure
// every row within its budget, and the document's block must be exactly
// its report.
func checkRelease(doc string, out []byte, version string) (problems []string) {
	info := runInfoOf(out)
	switch got := releaseOf(info); {
	case info == "":
		problems = append(problems, "the saved run has no "+runHeader+"line: it is not a run saved with -save")
	case got != version:
		problems = append(problems, fmt.Sprintf("the saved run measured memberplatform-go %s, not this release %s", got, version))
	}
	st := parse(bytes.NewReader(out))
	block, fails := render(st, info)
	if fails > 0 {
		problems = append(problems, fmt.Sprintf("%d budget(s) failed in the saved run (a busy machine? rerun on a quiet one)", fails))
	}
	for line := range strings.SplitSeq(block, "\n") {
		if strings.Contains(line, "| "+notMeasured+" |") {
			problems = append(problems, "the saved run did not measure the row "+strings.TrimSpace(strings.Split(line, "|")[1]))
		}
	}
	got, ok := docBlock(doc)
	switch {
	case !ok:
		problems = append(problems, fmt.Sprintf("the document has no lines %q and %q around the figures", blockBegin, blockEnd))
	case got != block:
		problems = append(problems, "the document's figures are not the report of the saved run: rewrite them with -input and -write")
	}
	return problems
}

// checkMain runs -check: the document at docPath against the saved run at
// runPath, for this release. It exits 1 on any problem.
func checkMain(docPath, runPath string) {
	doc, err := os.ReadFile(docPath)
	if err != nil {
		fail(err)
	}
	out, err := os.ReadFile(runPath)
	if err != nil {
		fail(fmt.Errorf("%w: a release saves its run there (RELEASING.md)", err))
	}
	problems := checkRelease(string(doc), out, memberplatform.Version)
	if len(problems) == 0 {
		fmt.Printf("benchreport: %s states the report of %s, a run of memberplatform-go %s\n", docPath, runPath, memberplatform.Version)
		return
	}
	for _, p := range problems {
		fmt.Fprintf(os.Stderr, "benchreport: %s: %s\n", docPath, p)
	}
	fmt.Fprintf(os.Stderr, "benchreport: regenerate on a quiet machine: cd benchmarks && go run ./cmd/benchreport -save %s -write %s\n", runPath, docPath)
	os.Exit(1)
}
