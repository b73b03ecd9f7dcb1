package promtest

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"
)

// FiringTimes runs promtool on a copy of the unit test file tests (of the
// rule file rules) whose cases are replaced by one per alert of rules at
// every evaluation (every eval) of each test's series, each expecting no
// alert, and reads from promtool's failures when each alert fired: by
// test name, by alert, the evaluation times, in order.
func FiringTimes(t testing.TB, bin string, rules, tests []byte, eval time.Duration) map[string]map[string][]time.Duration {
	t.Helper()
	rf, err := ParseRules(rules)
	if err != nil {
		t.Fatal(err)
	}
	var f map[string]any
	if err := yaml.Unmarshal(tests, &f); err != nil {
		t.Fatal(err)
	}
	f["rule_files"] = []any{"memberplatform.rules.yml"} // beside it in the directory below
	list, _ := f["tests"].([]any)
	for _, x := range list {
		test, _ := x.(map[string]any)
		interval, err := time.ParseDuration(test["interval"].(string))
		if err != nil {
			t.Fatal(err)
		}
		steps := 0
		for _, s := range test["input_series"].([]any) {
			vs, err := ParseValues(s.(map[string]any)["values"].(string))
			if err != nil {
				t.Fatal(err)
			}
			steps = max(steps, len(vs))
		}
		var cases []any
		for at := time.Duration(0); at < time.Duration(steps)*interval; at += eval {
			for _, a := range rf.Alerts() {
				cases = append(cases, map[string]any{"eval_time": at.String(), "alertname": a.Alert, "exp_alerts": []any{}})
			}
		}
		test["alert_rule_test"] = cases
	}
	data, err := yaml.Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for name, b := range map[string][]byte{"memberplatform.rules.yml": rules, "probe_test.yml": data} {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(bin, "test", "rules", "probe_test.yml")
	cmd.Dir = dir
	out, _ := cmd.CombinedOutput() // it fails wherever an alert fired
	return parseFailures(t, string(out))
}

// failure matches a failed case of promtool's output, after the test's
// name line: "alertname: X, time: 5m30s,".
var (
	failedTest = regexp.MustCompile(`(?m)^\s*FAILED:\s*$`)
	failedCase = regexp.MustCompile(`alertname: ([A-Za-z0-9_]+), time: ([0-9hms.]+),`)
	testName   = regexp.MustCompile(`(?m)^\s*name: (.+?),?\s*$`)
)

func parseFailures(t testing.TB, out string) map[string]map[string][]time.Duration {
	t.Helper()
	firing := map[string]map[string][]time.Duration{}
	name := ""
	for _, line := range strings.Split(out, "\n") {
		if m := testName.FindStringSubmatch(line); m != nil && !failedCase.MatchString(line) {
			name = strings.TrimSpace(m[1])
			continue
		}
		m := failedCase.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		at, err := time.ParseDuration(m[2])
		if err != nil {
			t.Fatalf("promtool's time %q: %v", m[2], err)
		}
		if firing[name] == nil {
			firing[name] = map[string][]time.Duration{}
		}
		firing[name][m[1]] = append(firing[name][m[1]], at)
	}
	for _, alerts := range firing {
		for _, times := range alerts {
			sort.Slice(times, func(i, j int) bool { return times[i] < times[j] })
		}
	}
	_ = failedTest
	return firing
}

// Spans spells times, evaluations eval apart, as runs: "5m45s-10m30s".
func Spans(times []time.Duration, eval time.Duration) string {
	var parts []string
	for i := 0; i < len(times); {
		j := i
		for j+1 < len(times) && times[j+1]-times[j] <= eval {
			j++
		}
		parts = append(parts, times[i].String()+"-"+times[j].String())
		i = j + 1
	}
	if len(parts) == 0 {
		return "never"
	}
	return strings.Join(parts, ", ")
}
