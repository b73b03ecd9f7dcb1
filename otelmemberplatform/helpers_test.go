package otelmemberplatform_test

import (
	"context"
	"testing"

	"github.com/memberplatform/memberplatform-go/option"
	"github.com/memberplatform/memberplatform-go/otelmemberplatform"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/propagation"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

// telemetry is the real OpenTelemetry SDK wired to in-memory readers: a
// SpanRecorder for the spans and a ManualReader for the metrics.
type telemetry struct {
	spans  *tracetest.SpanRecorder
	reader *sdkmetric.ManualReader
	opts   []option.RequestOption
}

func newTelemetry(t *testing.T) *telemetry {
	t.Helper()
	spans := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans))
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	t.Cleanup(func() {
		_ = tp.Shutdown(context.Background())
		_ = mp.Shutdown(context.Background())
	})
	return &telemetry{spans: spans, reader: reader, opts: []option.RequestOption{
		otelmemberplatform.WithTracerProvider(tp),
		otelmemberplatform.WithMeterProvider(mp),
		otelmemberplatform.WithPropagator(propagation.TraceContext{}),
	}}
}

// named returns the ended spans called name, in the order they ended.
func (tel *telemetry) named(name string) []sdktrace.ReadOnlySpan {
	var out []sdktrace.ReadOnlySpan
	for _, s := range tel.spans.Ended() {
		if s.Name() == name {
			out = append(out, s)
		}
	}
	return out
}

// only returns the one ended span called name, failing the test otherwise.
func (tel *telemetry) only(t *testing.T, name string) sdktrace.ReadOnlySpan {
	t.Helper()
	spans := tel.named(name)
	if len(spans) != 1 {
		t.Fatalf("%d spans named %q, want 1; all: %v", len(spans), name, tel.names())
	}
	return spans[0]
}

func (tel *telemetry) names() []string {
	var out []string
	for _, s := range tel.spans.Ended() {
		out = append(out, s.Name())
	}
	return out
}

// children returns the ended spans whose parent is parent, in start order.
func (tel *telemetry) children(parent sdktrace.ReadOnlySpan) []sdktrace.ReadOnlySpan {
	var out []sdktrace.ReadOnlySpan
	for _, s := range tel.spans.Ended() {
		if s.Parent().SpanID() == parent.SpanContext().SpanID() {
			out = append(out, s)
		}
	}
	sortByStart(out)
	return out
}

func sortByStart(spans []sdktrace.ReadOnlySpan) {
	for i := 1; i < len(spans); i++ {
		for j := i; j > 0 && spans[j].StartTime().Before(spans[j-1].StartTime()); j-- {
			spans[j], spans[j-1] = spans[j-1], spans[j]
		}
	}
}

// attr returns the value of key on s, and whether it is set.
func attr(s sdktrace.ReadOnlySpan, key string) (attribute.Value, bool) {
	for _, kv := range s.Attributes() {
		if string(kv.Key) == key {
			return kv.Value, true
		}
	}
	return attribute.Value{}, false
}

// events returns s's events called name.
func events(s sdktrace.ReadOnlySpan, name string) []sdktrace.Event {
	var out []sdktrace.Event
	for _, e := range s.Events() {
		if e.Name == name {
			out = append(out, e)
		}
	}
	return out
}

func eventAttr(e sdktrace.Event, key string) (attribute.Value, bool) {
	for _, kv := range e.Attributes {
		if string(kv.Key) == key {
			return kv.Value, true
		}
	}
	return attribute.Value{}, false
}

// collect reads every metric once.
func (tel *telemetry) collect(t *testing.T) metricdata.ResourceMetrics {
	t.Helper()
	var rm metricdata.ResourceMetrics
	if err := tel.reader.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	return rm
}

// metricNamed returns the metric called name, or false.
func metricNamed(rm metricdata.ResourceMetrics, name string) (metricdata.Metrics, bool) {
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if m.Name == name {
				return m, true
			}
		}
	}
	return metricdata.Metrics{}, false
}

// matches reports whether set has every key=value of want.
func matches(set attribute.Set, want map[string]string) bool {
	for k, v := range want {
		got, ok := set.Value(attribute.Key(k))
		if !ok || got.String() != v {
			return false
		}
	}
	return true
}

// counterSum sums the int64 counter's points whose attributes match want.
func counterSum(t *testing.T, rm metricdata.ResourceMetrics, name string, want map[string]string) int64 {
	t.Helper()
	m, ok := metricNamed(rm, name)
	if !ok {
		return 0
	}
	sum, ok := m.Data.(metricdata.Sum[int64])
	if !ok {
		t.Fatalf("%s is a %T, want an int64 sum", name, m.Data)
	}
	var n int64
	for _, p := range sum.DataPoints {
		if matches(p.Attributes, want) {
			n += p.Value
		}
	}
	return n
}

// histogram returns the count and sum of the float64 histogram's points
// whose attributes match want.
func histogram(t *testing.T, rm metricdata.ResourceMetrics, name string, want map[string]string) (count uint64, sum float64) {
	t.Helper()
	m, ok := metricNamed(rm, name)
	if !ok {
		return 0, 0
	}
	h, ok := m.Data.(metricdata.Histogram[float64])
	if !ok {
		t.Fatalf("%s is a %T, want a float64 histogram", name, m.Data)
	}
	for _, p := range h.DataPoints {
		if matches(p.Attributes, want) {
			count += p.Count
			sum += p.Sum
		}
	}
	return count, sum
}

// gauge returns the value of a gauge (int64 or float64) for area, and
// whether it has one; it fails unless the gauge has one point per area.
func gauge(t *testing.T, rm metricdata.ResourceMetrics, name string, area option.Area) (float64, bool) {
	t.Helper()
	m, ok := metricNamed(rm, name)
	if !ok {
		return 0, false
	}
	want := map[string]string{"memberplatform.area": string(area)}
	var values []float64
	switch g := m.Data.(type) {
	case metricdata.Gauge[int64]:
		for _, p := range g.DataPoints {
			if matches(p.Attributes, want) {
				values = append(values, float64(p.Value))
			}
		}
		ok = len(g.DataPoints) == 5
	case metricdata.Gauge[float64]:
		for _, p := range g.DataPoints {
			if matches(p.Attributes, want) {
				values = append(values, p.Value)
			}
		}
		ok = len(g.DataPoints) == 5
	default:
		t.Fatalf("%s is a %T, want a gauge", name, m.Data)
	}
	if !ok || len(values) != 1 {
		t.Fatalf("%s: %d points for area %s, want one point for each of the 5 areas", name, len(values), area)
	}
	return values[0], true
}
