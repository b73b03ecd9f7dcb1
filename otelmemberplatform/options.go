package otelmemberplatform

import (
	"fmt"
	"reflect"

	"github.com/memberplatform/memberplatform-go/observe"
	"github.com/memberplatform/memberplatform-go/option"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

// WithTracerProvider turns on the instrumentation and has it create its
// spans with tp; nil means the global provider (otel.GetTracerProvider,
// which follows a later otel.SetTracerProvider). A tp holding a nil
// pointer fails client.New with an *errors.ValidationError.
//
// Scope: client-wide (client.New); passing it to a single call fails.
// Default: without any option of this package, the client is not
// instrumented; with one, the providers not given are the global ones.
func WithTracerProvider(tp trace.TracerProvider) option.RequestOption {
	return option.WithObserver(&part{cfg: config{tracerProvider: tp, tracerProviderSet: true}})
}

// WithMeterProvider turns on the instrumentation and has it create its
// instruments with mp; nil means the global provider
// (otel.GetMeterProvider, which follows a later otel.SetMeterProvider). An
// mp holding a nil pointer fails client.New with an *errors.ValidationError.
//
// Scope: client-wide (client.New); passing it to a single call fails.
// Default: the global provider, once any option of this package is given.
func WithMeterProvider(mp metric.MeterProvider) option.RequestOption {
	return option.WithObserver(&part{cfg: config{meterProvider: mp, meterProviderSet: true}})
}

// WithPropagator turns on the instrumentation and has it inject each HTTP
// attempt's span context into the request with p (propagation.TraceContext
// writes W3C traceparent and tracestate); nil means the global propagator,
// read at each attempt (otel.GetTextMapPropagator, which injects nothing
// until otel.SetTextMapPropagator sets one). The headers are set before the
// SigV4 signature, which covers them. A p holding a nil pointer fails
// client.New with an *errors.ValidationError.
//
// Scope: client-wide (client.New); passing it to a single call fails.
// Default: the global propagator, once any option of this package is given.
func WithPropagator(p propagation.TextMapPropagator) option.RequestOption {
	return option.WithObserver(&part{cfg: config{propagator: p, propagatorSet: true}})
}

// config is what the options chose; a field not Set takes the global.
type config struct {
	tracerProvider    trace.TracerProvider
	tracerProviderSet bool
	meterProvider     metric.MeterProvider
	meterProviderSet  bool
	propagator        propagation.TextMapPropagator
	propagatorSet     bool
}

// merge returns c with what next set.
func (c config) merge(next config) config {
	if next.tracerProviderSet {
		c.tracerProvider, c.tracerProviderSet = next.tracerProvider, true
	}
	if next.meterProviderSet {
		c.meterProvider, c.meterProviderSet = next.meterProvider, true
	}
	if next.propagatorSet {
		c.propagator, c.propagatorSet = next.propagator, true
	}
	return c
}

// part is what one option of this package gives option.WithObserver: a
// piece of configuration, which Combine turns into an instrumentation,
// merged with the one the options before it built. So the options of one
// client.New build one instrumentation, and each client.New builds its own
// even when the option values are reused.
type part struct {
	// Nop's methods are never called: option.WithObserver calls Combine
	// and keeps what it returns instead of the part.
	observe.Nop
	cfg config
}

// Validate implements observe.Validator: a provider or propagator
// interface holding a nil pointer (a variable declared and never
// assigned) would panic in client.New or in the first call, so it fails
// client.New instead, as the SDK's own options do. Nil itself is the global.
func (p *part) Validate() error {
	for _, o := range []struct {
		option string
		value  any
	}{
		{"WithTracerProvider", p.cfg.tracerProvider},
		{"WithMeterProvider", p.cfg.meterProvider},
		{"WithPropagator", p.cfg.propagator},
	} {
		if v := reflect.ValueOf(o.value); nilKinds[v.Kind()] && v.IsNil() {
			return fmt.Errorf("memberplatform: otelmemberplatform.%s: a nil %T; pass nil itself for the global one", o.option, o.value)
		}
	}
	return nil
}

// nilKinds are the kinds of value that may be a typed nil.
var nilKinds = map[reflect.Kind]bool{reflect.Pointer: true, reflect.Func: true, reflect.Map: true, reflect.Chan: true, reflect.Slice: true}

// Combine implements observe.Combiner.
func (p *part) Combine(prev observe.Observer) (observe.Observer, bool) {
	if in, ok := prev.(*instrumentation); ok {
		return newInstrumentation(in.cfg.merge(p.cfg)), true
	}
	return newInstrumentation(p.cfg), false
}
