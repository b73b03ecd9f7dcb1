package monitoring_test

import (
	"errors"
	"io/fs"
	"os"
	"strings"
	"testing"

	"github.com/memberplatform/memberplatform-go/otelmemberplatform/monitoring"
	"github.com/memberplatform/memberplatform-go/otelmemberplatform/monitoring/internal/promtest"
)

// TestReadmeAlertsTable: the repository README's alerts table has a row
// for every alert, with its severity and the rule's runbook line, word for
// word (backticks aside). Skipped outside the repository (in the module
// cache, where the README is not).
func TestReadmeAlertsTable(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if errors.Is(err, fs.ErrNotExist) {
		t.Skip("no repository README here")
	}
	if err != nil {
		t.Fatal(err)
	}
	rules, err := promtest.ParseRules(monitoring.Rules())
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string]string{}
	for _, line := range strings.Split(string(readme), "\n") {
		if name, _, ok := strings.Cut(strings.TrimPrefix(line, "| `"), "`"); ok && strings.HasPrefix(line, "| `Memberplatform") {
			rows[name] = strings.ReplaceAll(line, "`", "")
		}
	}
	for _, a := range rules.Alerts() {
		row, ok := rows[a.Alert]
		if !ok {
			t.Errorf("README: no row for alert %s", a.Alert)
			continue
		}
		if !strings.Contains(row, "("+a.Labels["severity"]+")") {
			t.Errorf("README: the row of %s does not give its severity %s", a.Alert, a.Labels["severity"])
		}
		if !strings.Contains(row, a.Annotations["runbook"]) {
			t.Errorf("README: the row of %s does not hold the rule's runbook line %q", a.Alert, a.Annotations["runbook"])
		}
		delete(rows, a.Alert)
	}
	for name := range rows {
		t.Errorf("README: a row for %s, which the rules do not have", name)
	}
}
