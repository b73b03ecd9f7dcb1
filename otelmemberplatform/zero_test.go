package otelmemberplatform_test

import (
	"testing"

	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/memberplatform/memberplatform-go/option"
)

// A client that has made no call yet exports every counter and gauge the
// monitoring module's rules and panels read, at 0 for each area, so a
// healthy service's panels show 0 and not "No data"; and the zero points
// stay 0 once calls count under their own attributes.
func TestFirstCollectionExportsEveryCounterAtZero(t *testing.T) {
	tel := newTelemetry(t)
	_, c := newServer(t, tel)
	areas := []option.Area{option.AreaAccessMgmt, option.AreaPayments, option.AreaCustomer, option.AreaToken, option.AreaOther}
	counters := []string{
		"memberplatform.client.call.attempts",
		"memberplatform.client.call.errors",
		"memberplatform.client.retry_budget.refused",
		"memberplatform.client.admission.shed",
		"memberplatform.client.deprecated_answers",
	}
	check := func(rm metricdata.ResourceMetrics) {
		t.Helper()
		for _, name := range counters {
			m, ok := metricNamed(rm, name)
			if !ok {
				t.Errorf("%s is not exported", name)
				continue
			}
			sum, ok := m.Data.(metricdata.Sum[int64])
			if !ok || !sum.IsMonotonic {
				t.Fatalf("%s is a %T, want a monotonic int64 sum", name, m.Data)
			}
			for _, area := range areas {
				n := 0
				for _, p := range sum.DataPoints {
					if p.Attributes.Len() == 1 && matches(p.Attributes, map[string]string{"memberplatform.area": string(area)}) {
						n++
						if p.Value != 0 {
							t.Errorf("%s{area=%s} alone is %d, want 0", name, area, p.Value)
						}
					}
				}
				if n != 1 {
					t.Errorf("%s: %d points of area %s alone, want 1", name, n, area)
				}
			}
		}
		for _, name := range []string{"memberplatform.client.retry_budget.available", "memberplatform.client.ratelimit.rate",
			"memberplatform.client.admission.shed_ratio"} {
			for _, area := range areas {
				if _, ok := gauge(t, rm, name, area); !ok {
					t.Errorf("gauge %s has no point for %s", name, area)
				}
			}
		}
	}
	check(tel.collect(t))

	if err := updateUser(t, c); err != nil {
		t.Fatal(err)
	}
	rm := tel.collect(t)
	check(rm)
	if n := counterSum(t, rm, "memberplatform.client.call.attempts", map[string]string{"memberplatform.operation": "accessmgmt.UpdateUser"}); n != 1 {
		t.Errorf("attempts of UpdateUser: %d, want 1", n)
	}
}
