package otelmemberplatform

import (
	"testing"

	"go.opentelemetry.io/otel/attribute"

	memberplatform "github.com/memberplatform/memberplatform-go"
	"github.com/memberplatform/memberplatform-go/observe"
)

// TestThrottledResourcesGauge: the gauge reads State.ThrottledResourcesOf
// at collection, one point per area with an adaptive rate limit; a State
// built by hand without it reports none.
func TestThrottledResourcesGauge(t *testing.T) {
	in, reader, _ := newTestInstrumentation(t)
	n := 1
	in.ObserveState(&observe.State{
		Areas:         []memberplatform.Area{memberplatform.AreaAccessMgmt, memberplatform.AreaPayments},
		RetryBudgetOf: func(memberplatform.Area) (int, bool) { return 0, false },
		PacerRateOf:   func(memberplatform.Area) (float64, bool) { return 0, false },
		ThrottledResourcesOf: func(a memberplatform.Area) (int, bool) {
			return n, a == memberplatform.AreaAccessMgmt
		},
	})
	const name = "memberplatform.client.ratelimit.throttled_resources"
	unit, got := points(t, reader, name)
	access := attribute.NewSet(AttrArea.String(string(memberplatform.AreaAccessMgmt)))
	if unit != "{resource}" || len(got) != 1 || got[access] != 1 {
		t.Errorf("unit %q, points %v; want {resource}, accessmgmt 1 alone (payments has no pacer)", unit, got)
	}
	n = 3 // read again at the next collection
	if _, got = points(t, reader, name); got[access] != 3 {
		t.Errorf("after it moved: points %v, want accessmgmt 3", got)
	}

	in2, reader2, _ := newTestInstrumentation(t)
	in2.ObserveState(&observe.State{
		Areas:         []memberplatform.Area{memberplatform.AreaAccessMgmt},
		RetryBudgetOf: func(memberplatform.Area) (int, bool) { return 7, true },
		PacerRateOf:   func(memberplatform.Area) (float64, bool) { return 0, false },
	})
	if _, got := points(t, reader2, name); len(got) != 0 {
		t.Errorf("a State without ThrottledResourcesOf: points %v, want none", got)
	}
}
