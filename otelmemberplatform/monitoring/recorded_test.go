package monitoring_test

import (
	"bytes"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/memberplatform/memberplatform-go/otelmemberplatform/monitoring"
	"github.com/memberplatform/memberplatform-go/otelmemberplatform/monitoring/internal/promtest"
)

var update = flag.Bool("update", false, "record the scenarios anew and write the promtool tests built from them")

// recordedFile is a promtool test file built from the recording of a
// scenario at an evaluation interval: 15 s, as the scrape, or Prometheus'
// default of 1 minute.
type recordedFile struct {
	path string
	sc   scenario
	eval time.Duration
	// pageBy is how late after an outage's start its alert must fire.
	pageBy time.Duration
}

// recordedFiles returns the files built from the recordings, in
// prometheus/recorded.
func recordedFiles() []recordedFile {
	var out []recordedFile
	for _, sc := range scenarios {
		for _, e := range []struct{ eval, pageBy time.Duration }{{15 * time.Second, 2 * time.Minute}, {time.Minute, 3 * time.Minute}} {
			out = append(out, recordedFile{path: "prometheus/recorded/" + sc.name + "_" + promDuration(e.eval) + "_test.yml", sc: sc, eval: e.eval, pageBy: e.pageBy})
		}
	}
	return out
}

// outageAlert is the alert that pages for a whole outage of an area.
const outageAlert = "MemberplatformAreaOutage"

// errorRatioAlert is the warning of an error ratio above 5% for 10 minutes.
const errorRatioAlert = "MemberplatformErrorRatioHigh"

// resolveBy is how late after the heal the outage alert must be resolved.
const resolveBy = 5 * time.Minute

// ruleTestFile is a promtool test file, as the generator writes it.
type ruleTestFile struct {
	RuleFiles          []string   `yaml:"rule_files"`
	EvaluationInterval string     `yaml:"evaluation_interval"`
	Tests              []ruleTest `yaml:"tests"`
}

type ruleTest struct {
	Name        string       `yaml:"name"`
	Interval    string       `yaml:"interval"`
	InputSeries []inputSerie `yaml:"input_series"`
	AlertTests  []alertCase  `yaml:"alert_rule_test"`
}

type inputSerie struct {
	Series string `yaml:"series"`
	Values string `yaml:"values"`
}

type alertCase struct {
	EvalTime  string     `yaml:"eval_time"`
	AlertName string     `yaml:"alertname"`
	ExpAlerts []expAlert `yaml:"exp_alerts"`
}

type expAlert struct {
	Labels      map[string]string `yaml:"exp_labels"`
	Annotations map[string]string `yaml:"exp_annotations"`
}

// promDuration spells d as Prometheus does (1m30s, 15s, 2m).
func promDuration(d time.Duration) string {
	if d == 0 {
		return "0s"
	}
	var b strings.Builder
	for _, u := range []struct {
		unit time.Duration
		name string
	}{{time.Hour, "h"}, {time.Minute, "m"}, {time.Second, "s"}, {time.Millisecond, "ms"}} {
		if n := d / u.unit; n > 0 {
			fmt.Fprintf(&b, "%d%s", n, u.name)
			d -= n * u.unit
		}
	}
	return b.String()
}

// expected returns the alert area would raise: its labels and its
// annotations with the job and area filled in.
func expected(t *testing.T, alert, area string, extra ...string) expAlert {
	t.Helper()
	rules, err := promtest.ParseRules(monitoring.Rules())
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range rules.Alerts() {
		if a.Alert != alert {
			continue
		}
		labels := map[string]string{"job": "checkout", "memberplatform_area": area}
		for k, v := range a.Labels {
			labels[k] = v
		}
		pairs := []string{"{{ $labels.job }}", "checkout", "{{ $labels.memberplatform_area }}", area}
		for i := 0; i+1 < len(extra); i += 2 { // more labels, name then value
			labels[extra[i]] = extra[i+1]
			pairs = append(pairs, "{{ $labels."+extra[i]+" }}", extra[i+1])
		}
		fill := strings.NewReplacer(pairs...)
		annotations := map[string]string{}
		for k, v := range a.Annotations {
			annotations[k] = fill.Replace(v)
		}
		return expAlert{Labels: labels, Annotations: annotations}
	}
	t.Fatalf("no alert %s", alert)
	return expAlert{}
}

// cases returns what the promtool tests assert of sc at an evaluation
// interval: the outage alert fires for payments by pageBy after the
// outage's start and is resolved resolveBy after the heal; nothing fires
// while all is healthy, for one 503 in ten, or for a throttle the pacer
// rides out.
func cases(t *testing.T, sc scenario, pageBy time.Duration) []alertCase {
	t.Helper()
	rules, err := promtest.ParseRules(monitoring.Rules())
	if err != nil {
		t.Fatal(err)
	}
	var out []alertCase
	none := func(at time.Duration) {
		for _, a := range rules.Alerts() {
			out = append(out, alertCase{EvalTime: promDuration(at), AlertName: a.Alert, ExpAlerts: []expAlert{}})
		}
	}
	if sc.blip != [2]time.Duration{} {
		for at := sc.blip[0]; at <= sc.blip[1]+4*time.Minute; at += time.Minute {
			out = append(out, alertCase{EvalTime: promDuration(at), AlertName: outageAlert, ExpAlerts: []expAlert{}})
		}
	}
	if sc.down != [2]time.Duration{} {
		none(sc.down[0] - step)
		// A one-minute outage pages once at a 1-minute evaluation, 2
		// minutes after its start, and is resolved at the next: the case
		// is then at 2 minutes, within the bound.
		at := sc.down[0] + pageBy
		if sc.down[1]-sc.down[0] < pageBy {
			at = sc.down[0] + 2*time.Minute
		}
		out = append(out, alertCase{EvalTime: promDuration(at), AlertName: outageAlert, ExpAlerts: []expAlert{expected(t, outageAlert, "payments")}})
		if last := sc.down[1] - step; last > sc.down[0]+pageBy { // still paging until the heal
			out = append(out, alertCase{EvalTime: promDuration(last), AlertName: outageAlert, ExpAlerts: []expAlert{expected(t, outageAlert, "payments")}})
		}
		out = append(out, alertCase{EvalTime: promDuration(sc.down[1] + resolveBy), AlertName: outageAlert, ExpAlerts: []expAlert{}})
		return out
	}
	for at := 2 * time.Minute; at < sc.length; at += 2 * time.Minute {
		for _, a := range rules.Alerts() {
			c := alertCase{EvalTime: promDuration(at), AlertName: a.Alert, ExpAlerts: []expAlert{}}
			if sc.oneIn > 0 && a.Alert == errorRatioAlert && at > 10*time.Minute+time.Minute {
				// The POST not retried fails one call in ten: the warning,
				// after its 10 minutes.
				c.ExpAlerts = []expAlert{expected(t, a.Alert, "other", "error_type", "service_unavailable")}
			}
			out = append(out, c)
		}
	}
	return out
}

// keepRead keeps the series the rules read, by their exported name.
func keepRead(t *testing.T) func(string) bool {
	t.Helper()
	rules, err := promtest.ParseRules(monitoring.Rules())
	if err != nil {
		t.Fatal(err)
	}
	read := map[string]bool{}
	for _, r := range append(rules.Records(), rules.Alerts()...) {
		for _, n := range promtest.ExportedNames(r.Expr) {
			read[n] = true
		}
	}
	return func(name string) bool { return read[name] }
}

// generate writes the promtool test file of rf from the recording of its
// scenario.
func generate(t *testing.T, rf recordedFile, rec *promtest.Recording) []byte {
	t.Helper()
	keep := keepRead(t)
	f := ruleTestFile{RuleFiles: []string{"../memberplatform.rules.yml"}, EvaluationInterval: promDuration(rf.eval)}
	rt := ruleTest{Name: rf.sc.name, Interval: promDuration(step), AlertTests: cases(t, rf.sc, rf.pageBy)}
	for _, name := range rec.Names() {
		if keep(name[:strings.IndexByte(name, '{')]) {
			rt.InputSeries = append(rt.InputSeries, inputSerie{Series: name, Values: promtest.FormatValues(rec.Series[name])})
		}
	}
	f.Tests = append(f.Tests, rt)
	var b bytes.Buffer
	fmt.Fprintf(&b, "# promtool unit tests of memberplatform.rules.yml at a %s evaluation interval (scenario %s),\n"+
		"# from the series OpenTelemetry's Prometheus exporter served while otelmemberplatform\n"+
		"# instrumented a client with the default options, scraped every 15 s (job and instance added\n"+
		"# as a scrape does), in virtual time. %s\n"+
		"# Generated by the monitoring module's tests: go test -run TestRecordedSeries -update .\n",
		promDuration(rf.eval), rf.sc.name, rf.sc.about(rf.pageBy))
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(f); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// recordAll records every scenario.
func recordAll(t *testing.T) map[string]*promtest.Recording {
	t.Helper()
	recs := map[string]*promtest.Recording{}
	for _, sc := range scenarios {
		recs[sc.name] = record(t, sc)
	}
	return recs
}

// TestRecordedSeries records the scenarios anew and compares the promtool
// tests built from them with the committed ones: the same cases, the
// same series, and values within a tolerance (admission control and the
// retries' jitter draw random numbers, so no two runs are equal). With
// -update it writes them.
func TestRecordedSeries(t *testing.T) {
	recs := recordAll(t)
	for _, rf := range recordedFiles() {
		got := generate(t, rf, recs[rf.sc.name])
		if *update {
			if err := os.MkdirAll(filepath.Dir(rf.path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(rf.path, got, 0o644); err != nil { //nolint:gosec // a file of the repository
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(rf.path)
		if err != nil {
			t.Fatalf("%v (go test -run TestRecordedSeries -update . writes it)", err)
		}
		compareRecorded(t, rf.path, got, want)
	}
}

// compareRecorded reports where got and want differ beyond the noise of
// a run.
func compareRecorded(t *testing.T, path string, got, want []byte) {
	t.Helper()
	var g, w ruleTestFile
	if err := yaml.Unmarshal(got, &g); err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(want, &w); err != nil {
		t.Fatal(err)
	}
	if len(g.Tests) != len(w.Tests) || g.EvaluationInterval != w.EvaluationInterval {
		t.Fatalf("%s: %d tests at %s, regenerated %d at %s: go test -run TestRecordedSeries -update .", path, len(w.Tests), w.EvaluationInterval, len(g.Tests), g.EvaluationInterval)
	}
	for i := range g.Tests {
		gt, wt := g.Tests[i], w.Tests[i]
		if !slices.EqualFunc(gt.AlertTests, wt.AlertTests, func(a, b alertCase) bool { return fmt.Sprint(a) == fmt.Sprint(b) }) {
			t.Errorf("%s: %s: the cases differ from the regenerated ones: go test -run TestRecordedSeries -update .", path, gt.Name)
		}
		series := map[string]string{}
		for _, s := range wt.InputSeries {
			series[s.Series] = s.Values
		}
		for _, s := range gt.InputSeries {
			old, ok := series[s.Series]
			if !ok {
				t.Errorf("%s: %s: series %s is new", path, gt.Name, s.Series)
				continue
			}
			delete(series, s.Series)
			name := s.Series[:strings.IndexByte(s.Series, '{')]
			// A gauge, and the retry budget, which spends on the retries
			// admission control's random draws let out, vary the most.
			noisy := strings.Contains(name, "retry_budget") ||
				!strings.HasSuffix(name, "_total") && !strings.HasSuffix(name, "_count") && !strings.HasSuffix(name, "_bucket") && !strings.HasSuffix(name, "_sum")
			if d := differs(s.Values, old, noisy); d != "" {
				t.Errorf("%s: %s: %s: %s", path, gt.Name, s.Series, d)
			}
		}
		for s := range series {
			t.Errorf("%s: %s: series %s is no longer exported", path, gt.Name, s)
		}
	}
}

// differs says how two recordings of a series differ beyond a run's
// noise: where one exists and the other not (by more than 2 minutes), or a counter's value off by
// more than a quarter (and 20) of the larger. A noisy series (a gauge,
// read at an instant that admission control's random draws decide; the
// retry budget's) is compared only where it exists.
func differs(got, want string, noisy bool) string {
	g, err1 := promtest.ParseValues(got)
	w, err2 := promtest.ParseValues(want)
	if err1 != nil || err2 != nil || len(g) != len(w) {
		return fmt.Sprintf("%d values (%v), committed %d (%v)", len(g), err1, len(w), err2)
	}
	born := func(vs []float64) int { return slices.IndexFunc(vs, func(v float64) bool { return !math.IsNaN(v) }) }
	// The retry budget's first refusal in an outage comes at a random
	// moment, up to about a minute and a half apart between runs.
	if bg, bw := born(g), born(w); bg-bw > 8 || bw-bg > 8 {
		return fmt.Sprintf("first exported at step %d, committed at %d", bg, bw)
	}
	for i := range g {
		if noisy || math.IsNaN(g[i]) || math.IsNaN(w[i]) {
			continue
		}
		if d, m := math.Abs(g[i]-w[i]), math.Max(math.Abs(g[i]), math.Abs(w[i])); d > 20 && d > m/4 {
			return fmt.Sprintf("step %d: %v, committed %v", i, g[i], w[i])
		}
	}
	return ""
}

// TestRecordedAlertTimes runs promtool on the recorded series with a case
// at every step expecting no alert, and reads from its failures when each
// alert fired: the outage alert must fire by the bound after the outage's
// start and be resolved by resolveBy after the heal, nothing else may fire
// outside the outage; the times are logged (the runbook's figures).
func TestRecordedAlertTimes(t *testing.T) {
	bin := promtest.Binary(t, "promtool")
	for _, rf := range recordedFiles() {
		data, err := os.ReadFile(rf.path)
		if err != nil {
			t.Fatal(err)
		}
		var f ruleTestFile
		if err := yaml.Unmarshal(data, &f); err != nil {
			t.Fatal(err)
		}
		firing := promtest.FiringTimes(t, bin, monitoring.Rules(), data, rf.eval)
		for _, rt := range f.Tests {
			sc := rf.sc
			for alert, times := range firing[rt.Name] {
				t.Logf("eval %s, %s: %s fires at %s", promDuration(rf.eval), rt.Name, alert, promtest.Spans(times, rf.eval))
				allowed := alert == errorRatioAlert && sc.oneIn > 0 // the POST not retried, failing 10%
				if sc.down != [2]time.Duration{} {
					allowed = alert == outageAlert || alert == "MemberplatformCallsShed" || alert == errorRatioAlert
				}
				if !allowed {
					t.Errorf("eval %s, %s: %s fires (at %v)", promDuration(rf.eval), rt.Name, alert, promtest.Spans(times, rf.eval))
				}
			}
			if sc.down == [2]time.Duration{} {
				continue
			}
			times := firing[rt.Name][outageAlert]
			if len(times) == 0 || times[0] > sc.down[0]+rf.pageBy || times[len(times)-1] >= sc.down[1]+resolveBy {
				t.Errorf("eval %s, %s: %s fires at %s, want from %s at the latest until before %s", promDuration(rf.eval), rt.Name, outageAlert,
					promtest.Spans(times, rf.eval), promDuration(sc.down[0]+rf.pageBy), promDuration(sc.down[1]+resolveBy))
			}
		}
	}
}

// The committed files are the ones promtool checks with the rules.
func TestRecordedFilesRun(t *testing.T) {
	for _, rf := range recordedFiles() {
		data, err := os.ReadFile(rf.path)
		if err != nil {
			t.Fatal(err)
		}
		out := promtoolWith(t, map[string][]byte{rf.path[len("prometheus/"):]: data}, "test", "rules", rf.path[len("prometheus/"):])
		if !strings.Contains(out, "SUCCESS") {
			t.Errorf("promtool test rules %s said %q", rf.path, out)
		}
	}
}
