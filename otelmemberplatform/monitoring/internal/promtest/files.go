package promtest

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"go.yaml.in/yaml/v3"
)

// RuleFile is a Prometheus rule file, the fields the tests read.
type RuleFile struct {
	Groups []struct {
		Name  string `yaml:"name"`
		Rules []Rule `yaml:"rules"`
	} `yaml:"groups"`
}

// Rule is a recording rule (Record set) or an alert (Alert set).
type Rule struct {
	Record      string            `yaml:"record"`
	Alert       string            `yaml:"alert"`
	Expr        string            `yaml:"expr"`
	For         string            `yaml:"for"`
	Labels      map[string]string `yaml:"labels"`
	Annotations map[string]string `yaml:"annotations"`
}

// ParseRules reads a rule file.
func ParseRules(data []byte) (RuleFile, error) {
	var f RuleFile
	if err := yaml.Unmarshal(data, &f); err != nil {
		return f, fmt.Errorf("rule file: %w", err)
	}
	return f, nil
}

// Records returns the recording rules, in file order.
func (f RuleFile) Records() []Rule { return f.rules(func(r Rule) bool { return r.Record != "" }) }

// Alerts returns the alerts, in file order.
func (f RuleFile) Alerts() []Rule { return f.rules(func(r Rule) bool { return r.Alert != "" }) }

func (f RuleFile) rules(keep func(Rule) bool) []Rule {
	var out []Rule
	for _, g := range f.Groups {
		for _, r := range g.Rules {
			if keep(r) {
				out = append(out, r)
			}
		}
	}
	return out
}

// RuleTests is a promtool unit test file, the fields the tests read.
type RuleTests struct {
	RuleFiles []string `yaml:"rule_files"`
	Tests     []struct {
		Name  string `yaml:"name"`
		Cases []struct {
			AlertName string           `yaml:"alertname"`
			ExpAlerts []map[string]any `yaml:"exp_alerts"`
		} `yaml:"alert_rule_test"`
	} `yaml:"tests"`
}

// ParseRuleTests reads a promtool unit test file.
func ParseRuleTests(data []byte) (RuleTests, error) {
	var f RuleTests
	if err := yaml.Unmarshal(data, &f); err != nil {
		return f, fmt.Errorf("rule test file: %w", err)
	}
	return f, nil
}

// Panel is one query of the dashboard: the panel's title and a target's
// expression, with the dashboard's variables in it.
type Panel struct {
	Title, RefID, Expr string
}

// Variable is a query variable of the dashboard.
type Variable struct {
	Name, Query string
}

// Dashboard is a Grafana dashboard, what the tests read of it.
type Dashboard struct {
	Rows      []string // the titles of its row panels
	Repeat    []string // the variable each row repeats over
	Panels    []Panel
	Variables []Variable
}

// ParseDashboard reads a Grafana dashboard's JSON.
func ParseDashboard(data []byte) (Dashboard, error) {
	var raw struct {
		Panels []struct {
			Type    string `json:"type"`
			Title   string `json:"title"`
			Repeat  string `json:"repeat"`
			Targets []struct {
				RefID string `json:"refId"`
				Expr  string `json:"expr"`
			} `json:"targets"`
		} `json:"panels"`
		Templating struct {
			List []struct {
				Name  string          `json:"name"`
				Type  string          `json:"type"`
				Query json.RawMessage `json:"query"`
			} `json:"list"`
		} `json:"templating"`
	}
	var d Dashboard
	if err := json.Unmarshal(data, &raw); err != nil {
		return d, fmt.Errorf("dashboard: %w", err)
	}
	for _, p := range raw.Panels {
		if p.Type == "row" {
			d.Rows = append(d.Rows, p.Title)
			d.Repeat = append(d.Repeat, p.Repeat)
			continue
		}
		for _, t := range p.Targets {
			d.Panels = append(d.Panels, Panel{Title: p.Title, RefID: t.RefID, Expr: t.Expr})
		}
	}
	for _, v := range raw.Templating.List {
		if v.Type != "query" {
			continue
		}
		var q struct {
			Query string `json:"query"`
		}
		if err := json.Unmarshal(v.Query, &q); err != nil {
			return d, fmt.Errorf("dashboard: variable %s: %w", v.Name, err)
		}
		d.Variables = append(d.Variables, Variable{Name: v.Name, Query: q.Query})
	}
	return d, nil
}

// seriesName matches the name of a series the exporter writes for the
// SDK's metrics. A recording rule's name holds colons, so the name of one
// is never matched in part.
var seriesName = regexp.MustCompile(`(?:^|[^a-zA-Z0-9_:])((?:memberplatform_client|http_client)_[a-zA-Z0-9_]+)`)

// ExportedNames returns the names of the exporter's series that expr
// reads (not those of recording rules), each once, in order.
func ExportedNames(expr string) []string {
	var out []string
	seen := map[string]bool{}
	for _, m := range seriesName.FindAllStringSubmatch(expr, -1) {
		if !seen[m[1]] {
			seen[m[1]] = true
			out = append(out, m[1])
		}
	}
	return out
}

// recordName matches the name of a recording rule: level:metric:operations.
var recordName = regexp.MustCompile(`[a-zA-Z_][a-zA-Z0-9_]*:[a-zA-Z0-9_]+:[a-zA-Z0-9_]+`)

// RecordNames returns the names of the recording rules expr reads, each
// once, in order.
func RecordNames(expr string) []string {
	var out []string
	seen := map[string]bool{}
	for _, n := range recordName.FindAllString(expr, -1) {
		if !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	return out
}

// Expand replaces the dashboard's variables in expr: $job by the regular
// expression of every job, $area by area.
func Expand(expr, area string) string {
	return strings.NewReplacer(`"$job"`, `".+"`, "$area", area).Replace(expr)
}
