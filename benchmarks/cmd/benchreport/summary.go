package main

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// docs/performance.md states the figures of its table in one sentence,
// which summary writes from the table itself: benchreport prints it under
// the table, and a test recomputes it from the table pasted there,
// so neither can go stale alone.

// tableRow is what the summary reads of a row of the table: its label, its
// SDK/raw ratio and the allocations per call of each contender (NaN for
// none), all as printed.
type tableRow struct {
	label                string
	ratio                float64
	sdkAllocs, rawAllocs float64
	genAllocs            float64
}

// parseTable reads the rows of the Markdown table report prints (the
// allocation-slope row and rows not run aside).
func parseTable(md string) []tableRow {
	var rows []tableRow
	for line := range strings.SplitSeq(md, "\n") {
		cells := strings.Split(strings.Trim(strings.TrimSpace(line), "|"), "|")
		if len(cells) < 9 {
			continue
		}
		for i := range cells {
			cells[i] = strings.TrimSpace(cells[i])
		}
		ratio, err := strconv.ParseFloat(strings.TrimSuffix(cells[4], "×"), 64)
		allocs := strings.Split(cells[6], " / ")
		if err != nil || len(allocs) != 3 {
			continue
		}
		num := func(s string) float64 {
			v, err := strconv.ParseFloat(s, 64)
			if err != nil {
				return math.NaN()
			}
			return v
		}
		rows = append(rows, tableRow{label: cells[0], ratio: ratio, sdkAllocs: num(allocs[0]), rawAllocs: num(allocs[1]), genAllocs: num(allocs[2])})
	}
	return rows
}

// span is the range of the values added, written "a to b" (one value alone).
type span struct {
	lo, hi float64
	any    bool
}

func (s *span) add(v float64) {
	if !s.any {
		s.lo, s.hi, s.any = v, v, true
	}
	s.lo, s.hi = min(s.lo, v), max(s.hi, v)
}

func (s span) format(f func(float64) string) string {
	if f(s.lo) == f(s.hi) {
		return f(s.lo)
	}
	return f(s.lo) + " to " + f(s.hi)
}

func times(v float64) string { return strconv.FormatFloat(v, 'f', 2, 64) + "×" }

// count writes a whole number, a negative one with a minus sign (−1).
func count(v float64) string {
	return strings.Replace(strconv.FormatFloat(v, 'f', 0, 64), "-", "−", 1)
}

// summary is the sentence that states the figures of rows: allocations
// and time against raw and the generated client on the operations' rows,
// and the error and scale rows' time against raw.
func summary(rows []tableRow) string {
	var more, fewer, loopback, inMemory, errorsLarge, errorsOne, slugs span
	var ops, large, one, scale bool
	for _, r := range rows {
		switch {
		case strings.HasSuffix(r.label, ", loopback") || strings.HasSuffix(r.label, ", loopback parallel"):
			loopback.add(r.ratio)
		case strings.HasSuffix(r.label, ", in memory"):
			inMemory.add(r.ratio)
		case strings.HasSuffix(r.label, "100 serviceErrors") || strings.HasSuffix(r.label, "1,000 serviceErrors") || strings.HasSuffix(r.label, "100 field errors"):
			errorsLarge.add(r.ratio)
			large = true
			continue
		case strings.HasSuffix(r.label, ", 1 serviceError"):
			errorsOne.add(r.ratio)
			one = true
			continue
		case strings.HasSuffix(r.label, "10,000 slugs"):
			slugs.add(r.ratio)
			scale = true
			continue
		default:
			continue
		}
		ops = true
		more.add(r.sdkAllocs - r.rawAllocs)
		fewer.add(r.genAllocs - r.sdkAllocs)
	}
	if !ops || !large || !one || !scale {
		return ""
	}
	return fmt.Sprintf("On the operations' rows the SDK makes %s allocations per call more than raw and %s fewer than the generated client, "+
		"and takes %s raw's time on loopback and %s in memory; error bodies of 100 items or more take %s raw's time, "+
		"a 1-item one %s, and 10,000 permission slugs %s.",
		more.format(count), fewer.format(count), loopback.format(times), inMemory.format(times),
		errorsLarge.format(times), errorsOne.format(times), slugs.format(times))
}
