package otelmemberplatform

import (
	"testing"

	"go.opentelemetry.io/otel/attribute"

	memberplatform "github.com/memberplatform/memberplatform-go"
	"github.com/memberplatform/memberplatform-go/observe"
)

// TestUnfollowedShareGauge: the gauge reads State.UnfollowedShareOf at
// collection, one point per area that has a pacer, the largest share of
// the meter's clients; a State without it reports no point.
func TestUnfollowedShareGauge(t *testing.T) {
	in, reader, _ := newTestInstrumentation(t)
	share := 0.05
	none := func(memberplatform.Area) (float64, bool) { return 0, false }
	in.ObserveState(&observe.State{
		Areas:         []memberplatform.Area{memberplatform.AreaAccessMgmt, memberplatform.AreaToken},
		RetryBudgetOf: func(memberplatform.Area) (int, bool) { return 0, false },
		PacerRateOf:   none,
		UnfollowedShareOf: func(a memberplatform.Area) (float64, bool) {
			if a == memberplatform.AreaAccessMgmt {
				return share, true
			}
			return 0, false
		},
	})
	other := &observe.State{ // another client of the meter, learning nothing
		Areas:             []memberplatform.Area{memberplatform.AreaAccessMgmt},
		RetryBudgetOf:     func(memberplatform.Area) (int, bool) { return 0, false },
		PacerRateOf:       none,
		UnfollowedShareOf: func(memberplatform.Area) (float64, bool) { return 0, true },
	}
	in.ObserveState(other)
	unit, got := points(t, reader, "memberplatform.client.ratelimit.unfollowed_ratio")
	if unit != "1" {
		t.Errorf("unit %q, want 1", unit)
	}
	access := attribute.NewSet(AttrArea.String(string(memberplatform.AreaAccessMgmt)))
	if len(got) != 1 || got[access] != 0.05 {
		t.Errorf("points %v, want accessmgmt 0.05 only (the larger of two clients; token has no pacer)", got)
	}
	share = 0
	if _, got = points(t, reader, "memberplatform.client.ratelimit.unfollowed_ratio"); got[access] != 0 {
		t.Errorf("after the share lapsed: points %v, want accessmgmt 0", got)
	}

	in2, reader2, _ := newTestInstrumentation(t)
	in2.ObserveState(&observe.State{
		Areas:         []memberplatform.Area{memberplatform.AreaAccessMgmt},
		RetryBudgetOf: func(memberplatform.Area) (int, bool) { return 7, true },
		PacerRateOf:   none,
	})
	if _, got := points(t, reader2, "memberplatform.client.ratelimit.unfollowed_ratio"); len(got) != 0 {
		t.Errorf("a State without UnfollowedShareOf: points %v, want none", got)
	}
}
