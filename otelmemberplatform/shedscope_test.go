package otelmemberplatform

import (
	"testing"

	memberplatform "github.com/memberplatform/memberplatform-go"
	"github.com/memberplatform/memberplatform-go/observe"
	"go.opentelemetry.io/otel/attribute"
)

// TestShedOfOneOperation: a shed the SDK reports for one operation (scope
// operation) counts apart from its area's outage (scope area), under the
// operation's name, and the span event says which.
func TestShedOfOneOperation(t *testing.T) {
	in, reader, spans := newTestInstrumentation(t)
	call := observe.Call{Operation: "accessmgmt.ReplaceRolePermissions", Method: "PUT", Area: memberplatform.AreaAccessMgmt}
	ctx := in.StartCall(t.Context(), call)
	own := observe.Shed{Area: memberplatform.AreaAccessMgmt, Reason: observe.ErrorInternal, Operation: call.Operation, Scope: observe.ShedOperation}
	in.Shed(ctx, own)
	in.Shed(ctx, own)
	in.EndCall(ctx, call, nil)
	in.Shed(t.Context(), observe.Shed{Area: memberplatform.AreaAccessMgmt, Reason: observe.ErrorTimeout, Operation: "accessmgmt.UpdateUser", Scope: observe.ShedArea})

	_, got := points(t, reader, "memberplatform.client.admission.shed")
	set := func(op, reason, scope string) attribute.Set {
		return attribute.NewSet(AttrArea.String("accessmgmt"), AttrOperation.String(op), keyErrorType.String(reason), AttrShedScope.String(scope))
	}
	want := map[attribute.Set]float64{
		set("accessmgmt.ReplaceRolePermissions", "internal", "operation"): 2,
		set("accessmgmt.UpdateUser", "timeout", "area"):                   1,
	}
	if len(got) != len(want) {
		t.Errorf("%d points, want %d: %v", len(got), len(want), got)
	}
	for s, n := range want {
		if got[s] != n {
			t.Errorf("shed{%s} = %v, want %v", s.Encoded(attribute.DefaultEncoder()), got[s], n)
		}
	}
	ended := spans.Ended()
	if len(ended) != 1 {
		t.Fatalf("%d spans, want the call's", len(ended))
	}
	wantEvent := attribute.NewSet(AttrArea.String("accessmgmt"), keyErrorType.String("internal"), AttrShedScope.String("operation"))
	var events int
	for _, e := range ended[0].Events() {
		if e.Name == EventShed {
			events++
			if s := attribute.NewSet(e.Attributes...); s != wantEvent {
				t.Errorf("shed event attributes %v, want area, error.type and scope operation", e.Attributes)
			}
		}
	}
	if events != 2 {
		t.Errorf("%d shed events, want 2", events)
	}
}
