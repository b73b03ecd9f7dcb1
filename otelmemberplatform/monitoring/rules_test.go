package monitoring_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/memberplatform/memberplatform-go/otelmemberplatform/monitoring"
	"github.com/memberplatform/memberplatform-go/otelmemberplatform/monitoring/internal/promtest"
)

// promtool runs promtool with args in a directory holding the embedded
// rule file and its unit tests, as a user who copied them would, and
// returns its output; it fails the test when promtool fails.
func promtool(t *testing.T, args ...string) string {
	t.Helper()
	return promtoolWith(t, map[string][]byte{"memberplatform.rules_test.yml": monitoring.RulesTests()}, args...)
}

// promtoolWith runs promtool with args in a directory holding the embedded
// rule file and files.
func promtoolWith(t *testing.T, files map[string][]byte, args ...string) string {
	t.Helper()
	bin := promtest.Binary(t, "promtool")
	dir := t.TempDir()
	files["memberplatform.rules.yml"] = monitoring.Rules()
	for name, data := range files {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("promtool %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// TestPromtoolCheckRules: Prometheus' own checker accepts the rule file
// (the version installed: Debian bookworm's 2.42 in CI).
func TestPromtoolCheckRules(t *testing.T) {
	out := promtool(t, "check", "rules", "memberplatform.rules.yml")
	rules, err := promtest.ParseRules(monitoring.Rules())
	if err != nil {
		t.Fatal(err)
	}
	n := len(rules.Records()) + len(rules.Alerts())
	if want := "SUCCESS: " + strconv.Itoa(n) + " rules found"; !strings.Contains(out, want) {
		t.Errorf("promtool check rules said %q, want %q", out, want)
	}
}

// TestPromtoolTestRules: promtool's unit tests of the alerts pass.
func TestPromtoolTestRules(t *testing.T) {
	out := promtool(t, "test", "rules", "memberplatform.rules_test.yml")
	if !strings.Contains(out, "SUCCESS") {
		t.Errorf("promtool test rules said %q", out)
	}
}

// TestEveryAlertTestedBothWays: each alert has a promtool case where it
// fires and one where it does not, and none is tested that does not exist.
func TestEveryAlertTestedBothWays(t *testing.T) {
	rules, err := promtest.ParseRules(monitoring.Rules())
	if err != nil {
		t.Fatal(err)
	}
	tests, err := promtest.ParseRuleTests(monitoring.RulesTests())
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(tests.RuleFiles, []string{"memberplatform.rules.yml"}) {
		t.Errorf("the tests load %v, want the rule file alone", tests.RuleFiles)
	}
	firing, quiet := map[string]int{}, map[string]int{}
	for _, tc := range tests.Tests {
		for _, c := range tc.Cases {
			if len(c.ExpAlerts) > 0 {
				firing[c.AlertName]++
			} else {
				quiet[c.AlertName]++
			}
		}
	}
	alerts := map[string]bool{}
	for _, a := range rules.Alerts() {
		alerts[a.Alert] = true
		if firing[a.Alert] == 0 || quiet[a.Alert] == 0 {
			t.Errorf("%s: %d firing and %d not-firing cases, want at least one of each", a.Alert, firing[a.Alert], quiet[a.Alert])
		}
	}
	for name := range mergeKeys(firing, quiet) {
		if !alerts[name] {
			t.Errorf("the tests name alert %s, which the rules do not have", name)
		}
	}
	if len(alerts) < 7 {
		t.Errorf("%d alerts, want at least the 7 of issue 35", len(alerts))
	}
}

func mergeKeys(maps ...map[string]int) map[string]bool {
	out := map[string]bool{}
	for _, m := range maps {
		for k := range m {
			out[k] = true
		}
	}
	return out
}

// selectsDeployment matches a label matcher on a label of the deployment,
// which the rules must not have: users scrape under their own job names.
var selectsDeployment = regexp.MustCompile(`\b(job|instance|service|service_name|namespace|pod)\s*(=|!=|=~|!~)`)

// comparison matches a comparison operator outside label matchers.
var comparison = regexp.MustCompile(`(>|<|==|!=)\s*[-+]?[0-9]`)

// TestRulesShape: the recording rules compute values (no threshold), the
// alerts read recording rules only and carry a severity, a summary and a
// runbook line, and no rule selects a job, instance or service.
func TestRulesShape(t *testing.T) {
	rules, err := promtest.ParseRules(monitoring.Rules())
	if err != nil {
		t.Fatal(err)
	}
	records := map[string]bool{}
	for _, r := range rules.Records() {
		if records[r.Record] {
			t.Errorf("recording rule %s defined twice", r.Record)
		}
		records[r.Record] = true
		if comparison.MatchString(r.Expr) {
			t.Errorf("recording rule %s compares with a threshold: thresholds belong in the alerts: %s", r.Record, r.Expr)
		}
		if !strings.Contains(r.Expr, "memberplatform_area") {
			t.Errorf("recording rule %s does not keep memberplatform_area: %s", r.Record, r.Expr)
		}
	}
	for _, r := range append(rules.Records(), rules.Alerts()...) {
		if m := selectsDeployment.FindString(r.Expr); m != "" {
			t.Errorf("%s%s selects %q: the rules must work under any job name", r.Record, r.Alert, m)
		}
	}
	for _, a := range rules.Alerts() {
		if names := promtest.ExportedNames(a.Expr); len(names) > 0 {
			t.Errorf("alert %s reads %v directly: alerts read the recording rules", a.Alert, names)
		}
		for _, n := range promtest.RecordNames(a.Expr) {
			if !records[n] {
				t.Errorf("alert %s reads %s, which no recording rule defines", a.Alert, n)
			}
		}
		if a.For == "" {
			t.Errorf("alert %s has no for: a single evaluation must not page", a.Alert)
		}
		if !slices.Contains([]string{"info", "warning", "critical"}, a.Labels["severity"]) {
			t.Errorf("alert %s: severity %q", a.Alert, a.Labels["severity"])
		}
		if a.Annotations["summary"] == "" || len(a.Annotations["runbook"]) < 60 {
			t.Errorf("alert %s: summary %q, runbook %q; want both, the runbook saying what it means and what to do", a.Alert, a.Annotations["summary"], a.Annotations["runbook"])
		}
	}
}

// TestDashboardShape: the dashboard repeats one row per area and its
// panels read only the recording rules, for the area of their row.
func TestDashboardShape(t *testing.T) {
	d, err := promtest.ParseDashboard(monitoring.Dashboard())
	if err != nil {
		t.Fatal(err)
	}
	rules, err := promtest.ParseRules(monitoring.Rules())
	if err != nil {
		t.Fatal(err)
	}
	records := map[string]bool{}
	for _, r := range rules.Records() {
		records[r.Record] = true
	}
	if !slices.Equal(d.Repeat, []string{"area"}) {
		t.Errorf("rows %v repeat over %v, want one row repeated per area", d.Rows, d.Repeat)
	}
	read := map[string]bool{}
	for _, p := range d.Panels {
		if names := promtest.ExportedNames(p.Expr); len(names) > 0 {
			t.Errorf("panel %q reads %v directly: panels read the recording rules", p.Title, names)
		}
		names := promtest.RecordNames(p.Expr)
		if len(names) == 0 {
			t.Errorf("panel %q reads no recording rule: %s", p.Title, p.Expr)
		}
		for _, n := range names {
			if !records[n] {
				t.Errorf("panel %q reads %s, which no recording rule defines", p.Title, n)
			}
			read[n] = true
		}
		if !strings.Contains(p.Expr, `memberplatform_area="$area"`) || !strings.Contains(p.Expr, `job=~"$job"`) {
			t.Errorf("panel %q does not select its row's area and the chosen jobs: %s", p.Title, p.Expr)
		}
	}
	for _, want := range []string{"Calls per second by outcome", "Call latency", "Attempts answered 429", "Adaptive pacer rate",
		"Retry budget", "Waits for the pacer, limiter or a hot user", "Token fetches", "Shed by admission control", "Error ratio by error type",
		"Attempts per call"} {
		if !slices.ContainsFunc(d.Panels, func(p promtest.Panel) bool { return p.Title == want }) {
			t.Errorf("no panel %q", want)
		}
	}
	// Every recording rule is shown, alerted on, or read by another rule
	// or the dashboard's variables: none is dead weight.
	for _, r := range append(rules.Records(), rules.Alerts()...) {
		for _, n := range promtest.RecordNames(r.Expr) {
			read[n] = true
		}
	}
	for _, v := range d.Variables {
		for _, n := range promtest.RecordNames(v.Query) {
			read[n] = true
		}
	}
	for r := range records {
		if !read[r] {
			t.Errorf("recording rule %s is read by no panel, alert, variable or rule", r)
		}
	}
}

// TestFilesEmbedded: the accessors return the files of the module, and
// copies: a caller that changes one does not change the next.
func TestFilesEmbedded(t *testing.T) {
	for path, got := range map[string]func() []byte{
		"prometheus/memberplatform.rules.yml":      monitoring.Rules,
		"prometheus/memberplatform.rules_test.yml": monitoring.RulesTests,
		"grafana/memberplatform-go.json":           monitoring.Dashboard,
	} {
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		b := got()
		if !bytes.Equal(b, want) {
			t.Errorf("%s: the embedded copy differs from the file", path)
		}
		b[0] ^= 0xff
		if !bytes.Equal(got(), want) {
			t.Errorf("%s: changing the returned bytes changed the next", path)
		}
	}
}
