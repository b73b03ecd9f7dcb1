package otelmemberplatform_test

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/memberplatform/memberplatform-go/accessmgmt"
	"github.com/memberplatform/memberplatform-go/client"
	"github.com/memberplatform/memberplatform-go/option"
	"github.com/memberplatform/memberplatform-go/otelmemberplatform"
	metricnoop "go.opentelemetry.io/otel/metric/noop"
	"go.opentelemetry.io/otel/propagation"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	tracenoop "go.opentelemetry.io/otel/trace/noop"
)

// userTransport answers every request in memory with a user, so that the
// benchmark measures the SDK and the instrumentation, not the network.
type userTransport struct{}

func (userTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Body != nil {
		_, _ = io.Copy(io.Discard, r.Body)
		_ = r.Body.Close()
	}
	const body = `{"id":"user_1","email":"ada@example.com","firstName":"Ada"}`
	return &http.Response{StatusCode: http.StatusOK, Header: http.Header{"Content-Type": {"application/json"}},
		Body: io.NopCloser(strings.NewReader(body)), ContentLength: int64(len(body)), Request: r}, nil
}

// BenchmarkUpdateUser measures a successful call without instrumentation,
// with no-op providers, and with the OpenTelemetry SDK (spans sampled and
// dropped, metrics aggregated), to show what the instrumentation costs.
func BenchmarkUpdateUser(b *testing.B) {
	sdkTP := sdktrace.NewTracerProvider()
	sdkMP := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewManualReader()))
	b.Cleanup(func() {
		_ = sdkTP.Shutdown(context.Background())
		_ = sdkMP.Shutdown(context.Background())
	})
	variants := []struct {
		name string
		opts []option.RequestOption
	}{
		{"none", nil},
		{"noop-providers", []option.RequestOption{otelmemberplatform.WithTracerProvider(tracenoop.NewTracerProvider()),
			otelmemberplatform.WithMeterProvider(metricnoop.NewMeterProvider())}},
		{"sdk", []option.RequestOption{otelmemberplatform.WithTracerProvider(sdkTP), otelmemberplatform.WithMeterProvider(sdkMP),
			otelmemberplatform.WithPropagator(propagation.TraceContext{})}},
	}
	for _, v := range variants {
		b.Run(v.name, func(b *testing.B) {
			opts := append([]option.RequestOption{option.WithBaseURL("http://127.0.0.1:1"), option.WithTransport(userTransport{}),
				option.WithTokenSource(client.StaticToken("static-token"))}, v.opts...)
			c, err := client.New(opts...)
			if err != nil {
				b.Fatal(err)
			}
			ctx := context.Background()
			params := accessmgmt.UpdateUserParams{FirstName: new("Ada")}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := c.AccessMgmt.UpdateUser(ctx, "user_1", params); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
