package main

import (
	"context"
	"strings"
	"testing"

	"go.opentelemetry.io/otel/metric"
)

// TestExporterSpellsAdmissionControlNames: the names the rules read for
// admission control's metrics, which the SDK of this branch does not
// record yet (pendingAdmissionControl), are the ones this service's
// exporter gives instruments of otelmemberplatform's names, kinds and
// units: a {attempt} counter gains _total and no unit, a gauge of unit 1
// gains _ratio.
func TestExporterSpellsAdmissionControlNames(t *testing.T) {
	svc, err := newService()
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Close()
	meter := svc.meters.Meter("github.com/memberplatform/memberplatform-go/otelmemberplatform")
	shed, err := meter.Int64Counter("memberplatform.client.admission.shed", metric.WithUnit("{attempt}"))
	if err != nil {
		t.Fatal(err)
	}
	shed.Add(t.Context(), 1)
	if _, err := meter.Float64ObservableGauge("memberplatform.client.admission.shed_ratio", metric.WithUnit("1"),
		metric.WithFloat64Callback(func(_ context.Context, o metric.Float64Observer) error { o.Observe(0.5); return nil })); err != nil {
		t.Fatal(err)
	}
	families, err := svc.registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, f := range families {
		got[f.GetName()] = true
	}
	for name := range pendingAdmissionControl {
		if strings.Contains(name, ":") { // a recording rule's
			continue
		}
		if !got[name] {
			t.Errorf("the exporter does not write %s; it wrote %v", name, got)
		}
	}
}
