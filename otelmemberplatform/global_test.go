package otelmemberplatform_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/memberplatform/memberplatform-go/otelmemberplatform"
	"github.com/memberplatform/memberplatform-go/sdktest"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/propagation"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

// TestNilMeansGlobal: nil providers and propagator are the global ones,
// and so are those no option names.
func TestNilMeansGlobal(t *testing.T) {
	spans := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans))
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	prevTP, prevMP, prevProp := otel.GetTracerProvider(), otel.GetMeterProvider(), otel.GetTextMapPropagator()
	otel.SetTracerProvider(tp)
	otel.SetMeterProvider(mp)
	otel.SetTextMapPropagator(propagation.TraceContext{})
	t.Cleanup(func() {
		otel.SetTracerProvider(prevTP)
		otel.SetMeterProvider(prevMP)
		otel.SetTextMapPropagator(prevProp)
		_ = tp.Shutdown(context.Background())
		_ = mp.Shutdown(context.Background())
	})

	tel := &telemetry{spans: spans, reader: reader}
	srv := sdktest.NewServer(t, sdktest.WithoutAuth())
	srv.AddUser(sdktest.User{ID: userID, Email: "ada@example.com"})
	srv.FailNext(1, sdktest.Fault{Operation: sdktest.OpUpdateUser, Status: http.StatusInternalServerError})
	c := srv.Client(otelmemberplatform.WithTracerProvider(nil))
	if err := updateUser(t, c); err != nil {
		t.Fatal(err)
	}
	tel.only(t, userSpan)
	attempts := tel.named(userAttempt)
	sortByStart(attempts)
	if len(attempts) != 2 {
		t.Fatalf("%d attempt spans, want 2", len(attempts))
	}
	var seen []string
	for _, r := range srv.Requests() {
		seen = append(seen, r.Header.Get("Traceparent"))
	}
	if len(seen) != 2 || seen[0] != traceparent(attempts[0]) || seen[1] != traceparent(attempts[1]) {
		t.Errorf("traceparents %q, want the attempt spans' (the global propagator)", seen)
	}
	rm := tel.collect(t)
	if n := counterSum(t, rm, "memberplatform.client.call.attempts", nil); n != 2 {
		t.Errorf("call.attempts on the global meter provider = %d, want 2", n)
	}
}
