package promtest

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	dto "github.com/prometheus/client_model/go"
)

// Recording is what a Prometheus would have scraped from an exporter at
// regular steps: each series by its promtool name (name{labels}), with one
// value per step, NaN where the series did not exist yet.
type Recording struct {
	Steps  int
	Series map[string][]float64
}

// NewRecording returns an empty recording.
func NewRecording() *Recording { return &Recording{Series: map[string][]float64{}} }

// Add records one scrape of families, the next step, keeping the series
// whose name keep accepts and giving each the labels extra (job,
// instance), as a scrape would.
func (r *Recording) Add(families []*dto.MetricFamily, extra map[string]string, keep func(name string) bool) {
	step := r.Steps
	r.Steps++
	set := func(name string, labels []*dto.LabelPair, more map[string]string, v float64) {
		if !keep(name) {
			return
		}
		key := SeriesName(name, labels, extra, more)
		vs, ok := r.Series[key]
		if !ok {
			vs = make([]float64, step, step+1)
			for i := range vs {
				vs[i] = math.NaN()
			}
		}
		r.Series[key] = append(vs, v)
	}
	for _, f := range families {
		name := f.GetName()
		for _, m := range f.GetMetric() {
			switch f.GetType() {
			case dto.MetricType_COUNTER:
				set(name, m.GetLabel(), nil, m.GetCounter().GetValue())
			case dto.MetricType_GAUGE:
				set(name, m.GetLabel(), nil, m.GetGauge().GetValue())
			case dto.MetricType_HISTOGRAM:
				h := m.GetHistogram()
				for _, b := range h.GetBucket() {
					set(name+"_bucket", m.GetLabel(), map[string]string{"le": strconv.FormatFloat(b.GetUpperBound(), 'g', -1, 64)}, float64(b.GetCumulativeCount()))
				}
				set(name+"_bucket", m.GetLabel(), map[string]string{"le": "+Inf"}, float64(h.GetSampleCount()))
				set(name+"_count", m.GetLabel(), nil, float64(h.GetSampleCount()))
				set(name+"_sum", m.GetLabel(), nil, h.GetSampleSum())
			}
		}
	}
	// A series that went away (none of the SDK's do) is missing.
	for k, vs := range r.Series {
		if len(vs) == step {
			r.Series[k] = append(vs, math.NaN())
		}
	}
}

// SeriesName returns name{labels} as promtool's input_series spell it, the
// labels sorted.
func SeriesName(name string, labels []*dto.LabelPair, extra ...map[string]string) string {
	all := map[string]string{}
	for _, l := range labels {
		all[l.GetName()] = l.GetValue()
	}
	for _, m := range extra {
		for k, v := range m {
			all[k] = v
		}
	}
	keys := make([]string, 0, len(all))
	for k, v := range all {
		if v != "" { // an empty label is no label, as a scrape has it
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		parts = append(parts, k+"="+strconv.Quote(all[k]))
	}
	return name + "{" + strings.Join(parts, ", ") + "}"
}

// Names returns the recorded series' names, sorted.
func (r *Recording) Names() []string {
	names := make([]string, 0, len(r.Series))
	for k := range r.Series {
		names = append(names, k)
	}
	sort.Strings(names)
	return names
}

// FormatValues spells values in promtool's expanding notation: a run of
// equal steps as a+bxn, a missing value as _.
func FormatValues(values []float64) string {
	var out []string
	for i := 0; i < len(values); {
		v := values[i]
		if math.IsNaN(v) {
			out = append(out, "_")
			i++
			continue
		}
		// The longest run from i with a constant step.
		n := 0
		if i+1 < len(values) && !math.IsNaN(values[i+1]) {
			d := values[i+1] - v
			n = 1
			for i+n+1 < len(values) && !math.IsNaN(values[i+n+1]) && values[i+n+1]-values[i+n] == d {
				n++
			}
			if n >= 2 && d == math.Trunc(d) && v == math.Trunc(v) {
				if d >= 0 {
					out = append(out, fmt.Sprintf("%s+%sx%d", num(v), num(d), n))
				} else {
					out = append(out, fmt.Sprintf("%s-%sx%d", num(v), num(-d), n))
				}
				i += n + 1
				continue
			}
		}
		out = append(out, num(v))
		i++
	}
	return strings.Join(out, " ")
}

// num spells v, rounded to a millionth.
func num(v float64) string {
	return strconv.FormatFloat(math.Round(v*1e6)/1e6, 'g', -1, 64)
}

// ParseValues reads what FormatValues wrote (and promtool's a+bxn, a-bxn,
// axn and _ in general).
func ParseValues(s string) ([]float64, error) {
	var out []float64
	for _, tok := range strings.Fields(s) {
		if tok == "_" {
			out = append(out, math.NaN())
			continue
		}
		base, times, expanding := strings.Cut(tok, "x")
		if !expanding {
			v, err := strconv.ParseFloat(tok, 64)
			if err != nil {
				return nil, fmt.Errorf("value %q: %w", tok, err)
			}
			out = append(out, v)
			continue
		}
		n, err := strconv.Atoi(times)
		if err != nil {
			return nil, fmt.Errorf("value %q: %w", tok, err)
		}
		start, step := base, "0"
		if i := strings.LastIndexAny(base, "+-"); i > 0 {
			start, step = base[:i], base[i:]
		}
		a, err1 := strconv.ParseFloat(start, 64)
		d, err2 := strconv.ParseFloat(step, 64)
		if err1 != nil || err2 != nil {
			return nil, fmt.Errorf("value %q: not a+bxn", tok)
		}
		for k := 0; k <= n; k++ {
			out = append(out, a+float64(k)*d)
		}
	}
	return out, nil
}

// Final returns the last value of each series that has one.
func (r *Recording) Final() map[string]float64 {
	out := map[string]float64{}
	for k, vs := range r.Series {
		for i := len(vs) - 1; i >= 0; i-- {
			if !math.IsNaN(vs[i]) {
				out[k] = vs[i]
				break
			}
		}
	}
	return out
}
