package otelmemberplatform_test

import (
	"testing"

	"github.com/memberplatform/memberplatform-go/otelmemberplatform"
)

// TestScopeVersion: spans and metrics name this module's own scope and
// version (otelmemberplatform.Version), not the root module's version,
// since the two are released apart.
func TestScopeVersion(t *testing.T) {
	tel := newTelemetry(t)
	_, c := newServer(t, tel)
	if err := updateUser(t, c); err != nil {
		t.Fatal(err)
	}
	spans := tel.spans.Ended()
	if len(spans) == 0 {
		t.Fatal("no span ended")
	}
	for _, s := range spans {
		if sc := s.InstrumentationScope(); sc.Name != otelmemberplatform.ScopeName || sc.Version != otelmemberplatform.Version {
			t.Errorf("span %q: scope %q version %q, want %q version %q", s.Name(), sc.Name, sc.Version, otelmemberplatform.ScopeName, otelmemberplatform.Version)
		}
	}
	rm := tel.collect(t)
	if len(rm.ScopeMetrics) == 0 {
		t.Fatal("no metrics collected")
	}
	for _, sm := range rm.ScopeMetrics {
		if sm.Scope.Name != otelmemberplatform.ScopeName || sm.Scope.Version != otelmemberplatform.Version {
			t.Errorf("metrics scope %q version %q, want %q version %q", sm.Scope.Name, sm.Scope.Version, otelmemberplatform.ScopeName, otelmemberplatform.Version)
		}
	}
}
