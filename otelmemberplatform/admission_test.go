package otelmemberplatform

import (
	"context"
	"testing"

	memberplatform "github.com/memberplatform/memberplatform-go"
	"github.com/memberplatform/memberplatform-go/observe"
	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

// The SDK side of admission control calls Shed and reads State.ShedRatioOf
// (issue 34); these tests call them directly, as the SDK does, and read
// what the real OpenTelemetry SDK collects.

// newTestInstrumentation returns an instrumentation on the OpenTelemetry
// SDK, with a ManualReader for its metrics and a recorder for its spans.
func newTestInstrumentation(t *testing.T) (*instrumentation, *sdkmetric.ManualReader, *tracetest.SpanRecorder) {
	t.Helper()
	spans := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans))
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	t.Cleanup(func() {
		_ = tp.Shutdown(context.Background())
		_ = mp.Shutdown(context.Background())
	})
	in := newInstrumentation(config{tracerProvider: tp, tracerProviderSet: true, meterProvider: mp, meterProviderSet: true})
	return in, reader, spans
}

// points returns the metric's data points as attribute sets with their
// values, failing unless it is the named kind.
func points(t *testing.T, reader *sdkmetric.ManualReader, name string) (unit string, got map[attribute.Set]float64) {
	t.Helper()
	var rm metricdata.ResourceMetrics
	if err := reader.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	got = map[attribute.Set]float64{}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if m.Name != name {
				continue
			}
			unit = m.Unit
			switch d := m.Data.(type) {
			case metricdata.Sum[int64]:
				if !d.IsMonotonic {
					t.Fatalf("%s is not monotonic", name)
				}
				for _, p := range d.DataPoints {
					got[p.Attributes] = float64(p.Value)
				}
			case metricdata.Gauge[float64]:
				for _, p := range d.DataPoints {
					got[p.Attributes] = p.Value
				}
			case metricdata.Gauge[int64]:
				for _, p := range d.DataPoints {
					got[p.Attributes] = float64(p.Value)
				}
			default:
				t.Fatalf("%s is a %T", name, m.Data)
			}
		}
	}
	return unit, got
}

func areaReason(area memberplatform.Area, reason string) attribute.Set {
	return attribute.NewSet(AttrArea.String(string(area)), keyErrorType.String(reason))
}

// TestShedCounted: each shed attempt counts once under its area and the
// reason (error.type) the SDK gave, and is an event on the call's span.
func TestShedCounted(t *testing.T) {
	in, reader, spans := newTestInstrumentation(t)
	call := observe.Call{Operation: "accessmgmt.UpdateUser", Method: "PUT", Area: memberplatform.AreaAccessMgmt}
	ctx := in.StartCall(t.Context(), call)
	in.Shed(ctx, observe.Shed{Area: memberplatform.AreaAccessMgmt, Reason: observe.ErrorServiceUnavailable})
	in.Shed(ctx, observe.Shed{Area: memberplatform.AreaAccessMgmt, Reason: observe.ErrorServiceUnavailable})
	in.Shed(t.Context(), observe.Shed{Area: memberplatform.AreaPayments, Reason: observe.ErrorTransport}) // no call scope: counted all the same
	in.EndCall(ctx, call, nil)

	unit, got := points(t, reader, "memberplatform.client.admission.shed")
	if unit != "{attempt}" {
		t.Errorf("unit %q, want {attempt}", unit)
	}
	want := map[attribute.Set]float64{
		areaReason(memberplatform.AreaAccessMgmt, "service_unavailable"): 2,
		areaReason(memberplatform.AreaPayments, "transport"):             1,
	}
	if len(got) != len(want) {
		t.Errorf("%d points, want %d: %v", len(got), len(want), got)
	}
	for set, n := range want {
		if got[set] != n {
			t.Errorf("shed{%s} = %v, want %v", set.Encoded(attribute.DefaultEncoder()), got[set], n)
		}
	}
	ended := spans.Ended()
	if len(ended) != 1 {
		t.Fatalf("%d spans, want the call's", len(ended))
	}
	var events int
	for _, e := range ended[0].Events() {
		if e.Name == EventShed {
			events++
			if set := attribute.NewSet(e.Attributes...); set != areaReason(memberplatform.AreaAccessMgmt, "service_unavailable") {
				t.Errorf("shed event attributes %v", e.Attributes)
			}
		}
	}
	if events != 2 {
		t.Errorf("%d shed events on the call's span, want 2", events)
	}
}

// TestBudgetRefusedCounted: a refusal counts under the area of the call it
// belongs to (observe.Refusal names none) and the refused attempt's
// error.type.
func TestBudgetRefusedCounted(t *testing.T) {
	in, reader, _ := newTestInstrumentation(t)
	call := observe.Call{Operation: "payments.GetPaymentMethod", Method: "GET", Area: memberplatform.AreaPayments}
	ctx := in.StartCall(t.Context(), call)
	in.BudgetRefused(ctx, observe.Refusal{Attempt: 1, Reason: observe.ErrorServiceUnavailable}) // no Area: the call's
	in.EndCall(ctx, call, nil)
	in.BudgetRefused(t.Context(), observe.Refusal{Attempt: 1, Reason: observe.ErrorTimeout, Area: memberplatform.AreaCustomer}) // outside a call: its own area

	unit, got := points(t, reader, "memberplatform.client.retry_budget.refused")
	if unit != "{retry}" {
		t.Errorf("unit %q, want {retry}", unit)
	}
	if len(got) != 2 || got[areaReason(memberplatform.AreaPayments, "service_unavailable")] != 1 || got[areaReason(memberplatform.AreaCustomer, "timeout")] != 1 {
		t.Errorf("points %v, want two: payments, service_unavailable = 1 and customer, timeout = 1", got)
	}
}

// TestShedRatioGauge: the gauge reads State.ShedRatioOf at collection,
// one point per area that has admission control, none for an area whose
// ok is false.
func TestShedRatioGauge(t *testing.T) {
	in, reader, _ := newTestInstrumentation(t)
	ratio := 0.25
	state := &observe.State{
		Areas:         []memberplatform.Area{memberplatform.AreaAccessMgmt, memberplatform.AreaPayments, memberplatform.AreaToken},
		RetryBudgetOf: func(memberplatform.Area) (int, bool) { return 0, false },
		PacerRateOf:   func(memberplatform.Area) (float64, bool) { return 0, false },
		ShedRatioOf: func(a memberplatform.Area) (float64, bool) {
			switch a {
			case memberplatform.AreaAccessMgmt:
				return ratio, true
			case memberplatform.AreaPayments:
				return 0, true
			}
			return 0, false
		},
	}
	in.ObserveState(state)

	unit, got := points(t, reader, "memberplatform.client.admission.shed_ratio")
	if unit != "1" {
		t.Errorf("unit %q, want 1", unit)
	}
	area := func(a memberplatform.Area) attribute.Set { return attribute.NewSet(AttrArea.String(string(a))) }
	if len(got) != 2 || got[area(memberplatform.AreaAccessMgmt)] != 0.25 || got[area(memberplatform.AreaPayments)] != 0 {
		t.Errorf("points %v, want accessmgmt 0.25 and payments 0 (token has no admission control)", got)
	}
	ratio = 0.75 // read again at the next collection
	if _, got = points(t, reader, "memberplatform.client.admission.shed_ratio"); got[area(memberplatform.AreaAccessMgmt)] != 0.75 {
		t.Errorf("after the ratio moved: points %v, want accessmgmt 0.75", got)
	}
}

// TestShedRatioGaugeWithoutShedRatioOf: a State that has no ShedRatioOf
// reports the other gauges and no shed ratio, without panicking.
func TestShedRatioGaugeWithoutShedRatioOf(t *testing.T) {
	in, reader, _ := newTestInstrumentation(t)
	in.ObserveState(&observe.State{
		Areas:         []memberplatform.Area{memberplatform.AreaAccessMgmt},
		RetryBudgetOf: func(memberplatform.Area) (int, bool) { return 7, true },
		PacerRateOf:   func(memberplatform.Area) (float64, bool) { return 0, false },
	})
	if _, got := points(t, reader, "memberplatform.client.admission.shed_ratio"); len(got) != 0 {
		t.Errorf("shed_ratio points %v, want none", got)
	}
	var rm metricdata.ResourceMetrics
	if err := reader.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	var budget bool
	for _, m := range rm.ScopeMetrics[0].Metrics {
		budget = budget || m.Name == "memberplatform.client.retry_budget.available"
	}
	if !budget {
		t.Error("no retry_budget.available beside the missing shed ratio")
	}
}
