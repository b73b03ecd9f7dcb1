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

// TestReadmeAlertsTable: the repository's alerts table (in
// docs/observability.md, where the README points) has a row for every
// alert, with its severity and the rule's runbook line, word for word
// (backticks aside). Skipped outside the repository (in the module cache,
// where the docs are not).
func TestReadmeAlertsTable(t *testing.T) {
	readme, err := os.ReadFile("../../docs/observability.md")
	if errors.Is(err, fs.ErrNotExist) {
		t.Skip("no repository docs here")
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
			t.Errorf("docs/observability.md: no row for alert %s", a.Alert)
			continue
		}
		if !strings.Contains(row, "("+a.Labels["severity"]+")") {
			t.Errorf("docs/observability.md: the row of %s does not give its severity %s", a.Alert, a.Labels["severity"])
		}
		if !strings.Contains(row, a.Annotations["runbook"]) {
			t.Errorf("docs/observability.md: the row of %s does not hold the rule's runbook line %q", a.Alert, a.Annotations["runbook"])
		}
		delete(rows, a.Alert)
	}
	for name := range rows {
		t.Errorf("docs/observability.md: a row for %s, which the rules do not have", name)
	}
}
