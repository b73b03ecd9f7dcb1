package otelmemberplatform

import (
	"runtime"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"

	memberplatform "github.com/memberplatform/memberplatform-go"
	"github.com/memberplatform/memberplatform-go/observe"
)

// fixedState is a client's state with one value per gauge for every area.
func fixedState(tokens int, rate, shed float64) *observe.State {
	return &observe.State{
		Areas:         []memberplatform.Area{memberplatform.AreaPayments},
		RetryBudgetOf: func(memberplatform.Area) (int, bool) { return tokens, true },
		PacerRateOf:   func(memberplatform.Area) (float64, bool) { return rate, true },
		ShedRatioOf:   func(memberplatform.Area) (float64, bool) { return shed, true },
	}
}

// Two clients on one MeterProvider: the gauges show the one in trouble (the
// smallest budget, the largest rate and shed ratio), not whichever client
// registered last; and once that client is gone, the other's values.
func TestClientsSharingAMeterReportTogether(t *testing.T) {
	in, reader, _ := newTestInstrumentation(t)
	other := newInstrumentation(in.cfg) // a second client of the same providers
	troubled := fixedState(40, 12.5, 0.9)
	healthy := fixedState(500, 0, 0)
	in.ObserveState(troubled)
	other.ObserveState(healthy)

	payments := attribute.NewSet(AttrArea.String(string(memberplatform.AreaPayments)))
	want := map[string]float64{
		"memberplatform.client.retry_budget.available": 40,
		"memberplatform.client.ratelimit.rate":         12.5,
		"memberplatform.client.admission.shed_ratio":   0.9,
	}
	for name, v := range want {
		if _, got := points(t, reader, name); len(got) != 1 || got[payments] != v {
			t.Errorf("%s: points %v, want one, payments %v", name, got, v)
		}
	}

	// The troubled client is dropped: once collected, the healthy one's
	// values alone.
	troubled = nil
	deadline := time.Now().Add(10 * time.Second)
	for {
		runtime.GC()
		if _, got := points(t, reader, "memberplatform.client.admission.shed_ratio"); got[payments] == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the dropped client still counts after 10 s of collections")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if _, got := points(t, reader, "memberplatform.client.retry_budget.available"); got[payments] != 500 {
		t.Errorf("budget %v, want the healthy client's 500", got)
	}
	runtime.KeepAlive(healthy)
}

// unhashableMeter is a Meter whose value is no map key (an interface field
// holding a slice), though its type is comparable.
type unhashableMeter struct {
	metric.Meter
	tags any
}

// A meter that cannot be a map key reads each client alone, without a
// panic.
func TestUnhashableMeterReadsEachClientAlone(t *testing.T) {
	in, reader, _ := newTestInstrumentation(t)
	in.meter = unhashableMeter{Meter: in.meter, tags: []string{"a"}}
	state := fixedState(40, 0, 0.5)
	in.ObserveState(state)
	payments := attribute.NewSet(AttrArea.String(string(memberplatform.AreaPayments)))
	if _, got := points(t, reader, "memberplatform.client.admission.shed_ratio"); got[payments] != 0.5 {
		t.Errorf("shed_ratio points %v, want payments 0.5", got)
	}
	runtime.KeepAlive(state)
}
