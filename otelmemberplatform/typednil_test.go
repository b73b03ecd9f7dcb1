package otelmemberplatform_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/memberplatform/memberplatform-go/client"
	apierrors "github.com/memberplatform/memberplatform-go/errors"
	"github.com/memberplatform/memberplatform-go/option"
	"github.com/memberplatform/memberplatform-go/otelmemberplatform"
	"github.com/memberplatform/memberplatform-go/sdktest"
	"go.opentelemetry.io/otel/propagation"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// TestTypedNilsFailNew: a provider or propagator interface holding a nil
// pointer (a variable declared and never assigned) fails client.New with
// an *errors.ValidationError naming the option, as the SDK's own options
// do, instead of panicking there or in the first call.
func TestTypedNilsFailNew(t *testing.T) {
	srv := sdktest.NewServer(t, sdktest.WithoutAuth())
	srv.AddUser(sdktest.User{ID: userID, Email: "ada@example.com"})
	var (
		tp   *sdktrace.TracerProvider
		mp   *sdkmetric.MeterProvider
		prop *propagation.TraceContext
	)
	for _, tc := range []struct {
		name   string
		option option.RequestOption
	}{
		{"WithTracerProvider", otelmemberplatform.WithTracerProvider(tp)},
		{"WithMeterProvider", otelmemberplatform.WithMeterProvider(mp)},
		{"WithPropagator", otelmemberplatform.WithPropagator(prop)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := func() (c *client.Client, err error) {
				defer func() {
					if p := recover(); p != nil {
						err = fmt.Errorf("panicked: %v", p)
					}
				}()
				c, err = client.New(option.WithBaseURL(srv.URL), option.WithTokenSource(nil), tc.option)
				if err == nil { // a propagator is first used by a call
					err = updateUser(t, c)
				}
				return c, err
			}()
			var verr *apierrors.ValidationError
			if c != nil || !errors.As(err, &verr) || !strings.Contains(err.Error(), "otelmemberplatform."+tc.name) {
				t.Fatalf("client.New = %v, %v; want an *errors.ValidationError naming otelmemberplatform.%s", c, err, tc.name)
			}
		})
	}
	// Nil itself still means the global provider or propagator.
	if _, err := client.New(option.WithBaseURL(srv.URL), option.WithTokenSource(nil),
		otelmemberplatform.WithTracerProvider(nil), otelmemberplatform.WithMeterProvider(nil), otelmemberplatform.WithPropagator(nil)); err != nil {
		t.Fatalf("nil options: %v", err)
	}
}
