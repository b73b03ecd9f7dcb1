package otelmemberplatform

import (
	"context"
	"net/http"
	"strconv"
	"sync"
	"time"

	memberplatform "github.com/memberplatform/memberplatform-go"
	"github.com/memberplatform/memberplatform-go/observe"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

// ScopeName is the instrumentation scope of the tracer and the meter.
const ScopeName = "github.com/memberplatform/memberplatform-go/otelmemberplatform"

// Attribute keys of this package's own (the others are OpenTelemetry
// semantic conventions).
const (
	AttrOperation    = attribute.Key("memberplatform.operation")
	AttrArea         = attribute.Key("memberplatform.area") // the backend whose load control the call shares: accessmgmt, payments, customer, token, other
	AttrRetryAttempt = attribute.Key("memberplatform.retry.attempt")
	AttrRetryReason  = attribute.Key("memberplatform.retry.reason")
	AttrRetryDelay   = attribute.Key("memberplatform.retry.delay")             // seconds
	AttrWaitDuration = attribute.Key("memberplatform.ratelimit.wait.duration") // seconds
	// AttrShedScope says what admission control judged to be failing when
	// it shed an attempt: "operation" (the operation alone; others of its
	// area were served) or "area" (every operation of it: the backend is
	// down). The values of observe.Shed.Scope.
	AttrShedScope = attribute.Key("memberplatform.admission.scope")
	// AttrSunset is the date an operation's deprecated answers gave for its
	// sunset, such as "2026-07-01" (UTC); absent when they gave none.
	AttrSunset = attribute.Key("memberplatform.sunset")
	// AttrDeprecationLink is the platform's link about a deprecation, on
	// the call span's EventDeprecated.
	AttrDeprecationLink = attribute.Key("memberplatform.deprecation.link")
)

// Span event names.
const (
	EventRetry         = "memberplatform.retry"
	EventRateLimitWait = "memberplatform.ratelimit.wait"
	EventBudgetRefused = "memberplatform.retry_budget.refused"
	EventShed          = "memberplatform.admission.shed"
	EventDeprecated    = "memberplatform.deprecated"
)

// TokenFetchSpanName names the span of a token fetch.
const TokenFetchSpanName = "auth.Token"

// Semantic-convention attribute keys.
const (
	keyMethod      = attribute.Key("http.request.method")
	keyServer      = attribute.Key("server.address")
	keyPort        = attribute.Key("server.port")
	keyURLTemplate = attribute.Key("url.template")
	keyStatus      = attribute.Key("http.response.status_code")
	keyResend      = attribute.Key("http.request.resend_count")
	keyErrorType   = attribute.Key("error.type")
)

// durationBuckets are the semantic conventions' advice for
// http.client.request.duration, in seconds, used by every duration here.
var durationBuckets = []float64{0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10}

// The SDK tells an instrumentation of shed attempts and hands it its state.
var (
	_ observe.ShedObserver        = (*instrumentation)(nil)
	_ observe.StateObserver       = (*instrumentation)(nil)
	_ observe.DeprecationObserver = (*instrumentation)(nil)
)

// instrumentation is the observe.Observer the options build: it turns the
// SDK's events into spans and metrics.
type instrumentation struct {
	cfg    config
	tracer trace.Tracer
	meter  metric.Meter

	callDuration    metric.Float64Histogram
	callAttempts    metric.Int64Counter
	callErrors      metric.Int64Counter
	attemptDuration metric.Float64Histogram
	fetchDuration   metric.Float64Histogram
	waitDuration    metric.Float64Histogram
	budgetRefused   metric.Int64Counter
	shed            metric.Int64Counter
	deprecated      metric.Int64Counter
	budgetAvailable metric.Int64ObservableGauge
	pacerRate       metric.Float64ObservableGauge
	shedRatio       metric.Float64ObservableGauge
	hotResources    metric.Int64ObservableGauge
	unfollowed      metric.Float64ObservableGauge

	stateOnce sync.Once
	measures  measureSets
}

func newInstrumentation(cfg config) *instrumentation {
	tp, mp := cfg.tracerProvider, cfg.meterProvider
	if tp == nil {
		tp = otel.GetTracerProvider()
	}
	if mp == nil {
		mp = otel.GetMeterProvider()
	}
	in := &instrumentation{cfg: cfg,
		tracer: tp.Tracer(ScopeName, trace.WithInstrumentationVersion(Version)),
		meter:  mp.Meter(ScopeName, metric.WithInstrumentationVersion(Version)),
	}
	// Every duration is in seconds, with the same buckets.
	seconds := metric.WithExplicitBucketBoundaries(durationBuckets...)
	histogram := func(name, description string) metric.Float64Histogram {
		return made(in.meter.Float64Histogram(name, metric.WithUnit("s"), seconds, metric.WithDescription(description)))
	}
	in.callDuration = histogram("memberplatform.client.call.duration", "Duration of an operation call, retries and waits included.")
	in.callAttempts = made(in.meter.Int64Counter("memberplatform.client.call.attempts", metric.WithUnit("{attempt}"),
		metric.WithDescription("HTTP attempts made by operation calls.")))
	in.callErrors = made(in.meter.Int64Counter("memberplatform.client.call.errors", metric.WithUnit("{error}"),
		metric.WithDescription("Operation calls that returned an error, by error.type.")))
	in.attemptDuration = histogram("http.client.request.duration", "Duration of HTTP client requests.")
	in.fetchDuration = histogram("memberplatform.client.token.fetch.duration", "Duration of a bearer token fetch.")
	in.waitDuration = histogram("memberplatform.client.ratelimit.wait.duration",
		"Time an attempt waited for the adaptive pacer, the user's rate limiter, or a throttled user's next admission.")
	in.budgetRefused = made(in.meter.Int64Counter("memberplatform.client.retry_budget.refused", metric.WithUnit("{retry}"),
		metric.WithDescription("Retries the retry budget refused, by error.type of the attempt not retried.")))
	in.shed = made(in.meter.Int64Counter("memberplatform.client.admission.shed", metric.WithUnit("{attempt}"),
		metric.WithDescription("Attempts admission control refused locally, unsent, by operation, error.type of its recent failures and scope (operation or area).")))
	in.deprecated = made(in.meter.Int64Counter("memberplatform.client.deprecated_answers", metric.WithUnit("{answer}"),
		metric.WithDescription("Calls whose final answer said their operation is deprecated or has a sunset date (Deprecation, Sunset headers), by operation and sunset date.")))
	in.budgetAvailable = made(in.meter.Int64ObservableGauge("memberplatform.client.retry_budget.available", metric.WithUnit("{token}"),
		metric.WithDescription("Tokens left in the area's retry budget.")))
	in.pacerRate = made(in.meter.Float64ObservableGauge("memberplatform.client.ratelimit.rate", metric.WithUnit("{request}/s"),
		metric.WithDescription("Rate at which the adaptive pacer lets attempts out; 0 while it is dormant.")))
	in.shedRatio = made(in.meter.Float64ObservableGauge("memberplatform.client.admission.shed_ratio", metric.WithUnit("1"),
		metric.WithDescription("Share of attempts admission control refused locally over the last 2 s; 0 while the area is healthy.")))
	in.hotResources = made(in.meter.Int64ObservableGauge("memberplatform.client.ratelimit.throttled_resources", metric.WithUnit("{resource}"),
		metric.WithDescription("Resources (an operation and its path parameters) the provider throttles on their own while the rest of the area is admitted; their throttles do not slow the area.")))
	in.unfollowed = made(in.meter.Float64ObservableGauge("memberplatform.client.ratelimit.unfollowed_ratio", metric.WithUnit("1"),
		metric.WithDescription("Share of answers the adaptive pacer found throttled whatever rate it sends, which it does not slow down for; 0 while it found none.")))
	return in
}

// made returns an instrument the meter made. One that cannot be made comes
// back as a no-op one with the error: the error goes to OpenTelemetry's
// handler, and the calls go on.
func made[I any](instrument I, err error) I {
	if err != nil {
		otel.Handle(err)
	}
	return instrument
}

// propagator is the configured propagator, or the global one at the time
// of the attempt.
func (in *instrumentation) propagator() propagation.TextMapPropagator {
	if in.cfg.propagator != nil {
		return in.cfg.propagator
	}
	return otel.GetTextMapPropagator()
}

// Context keys of the scopes the SDK's contexts carry.
type (
	callKey    struct{}
	fetchKey   struct{}
	attemptKey struct{}
)

// callScope is an operation call in progress.
type callScope struct {
	span  trace.Span
	start time.Time
	area  string // the call's memberplatform.area, for the events that do not name it
	// inFetch says the call is the SigV4 token call of a fetch: its
	// attempts and events go on the fetch's span, which the fetch ends.
	inFetch bool
}

// fetchScope is a token fetch in progress.
type fetchScope struct {
	span    trace.Span
	start   time.Time
	hasCall bool // the token call has taken the fetch's span
}

// attemptScope is an HTTP attempt in progress.
type attemptScope struct {
	span    trace.Span
	start   time.Time
	measure measureKey // the request's semantic-convention attributes
}

// StartCall starts the operation's span.
func (in *instrumentation) StartCall(ctx context.Context, call observe.Call) context.Context {
	start := time.Now()
	if f, ok := ctx.Value(fetchKey{}).(*fetchScope); ok && call.Token && !f.hasCall {
		f.hasCall = true
		f.span.SetAttributes(AttrArea.String(string(call.Area)))
		return context.WithValue(ctx, callKey{}, &callScope{span: f.span, start: start, area: string(call.Area), inFetch: true})
	}
	ctx, span := in.tracer.Start(ctx, call.Operation, trace.WithSpanKind(trace.SpanKindInternal), trace.WithTimestamp(start),
		trace.WithAttributes(AttrOperation.String(call.Operation), AttrArea.String(string(call.Area))))
	return context.WithValue(ctx, callKey{}, &callScope{span: span, start: start, area: string(call.Area)})
}

// EndCall records the call's metrics and ends its span, with status Error
// and the error's type when it failed.
func (in *instrumentation) EndCall(ctx context.Context, call observe.Call, err error) {
	scope, ok := ctx.Value(callKey{}).(*callScope)
	if !ok {
		return
	}
	end := time.Now()
	errType := observe.ErrorType(err)
	attrs := in.measures.get(measureKey{operation: call.Operation, area: string(call.Area), errorType: errType})
	if errType != "" {
		in.callErrors.Add(ctx, 1, attrs)
	}
	in.callDuration.Record(ctx, end.Sub(scope.start).Seconds(), attrs)
	if scope.inFetch {
		return
	}
	if errType != "" {
		scope.span.SetAttributes(keyErrorType.String(errType))
		scope.span.SetStatus(codes.Error, errType)
	}
	scope.span.End(trace.WithTimestamp(end))
}

// StartAttempt starts the attempt's CLIENT span under the call's and
// injects its context into the request's headers.
func (in *instrumentation) StartAttempt(ctx context.Context, attempt observe.Attempt) context.Context {
	start := time.Now()
	parent := ctx
	if call, ok := ctx.Value(callKey{}).(*callScope); ok {
		parent = trace.ContextWithSpan(ctx, call.span)
	}
	measure := measureKey{area: string(attempt.Call.Area), method: normalizeMethod(attempt.Call.Method), urlTemplate: attempt.Call.URLTemplate}
	attrs := make([]attribute.KeyValue, 0, 5)
	attrs = append(attrs, keyMethod.String(measure.method))
	name := measure.method
	if measure.urlTemplate != "" {
		attrs = append(attrs, keyURLTemplate.String(measure.urlTemplate))
		name += " " + measure.urlTemplate
	}
	if req := attempt.Request; req != nil && req.URL != nil {
		measure.serverHost, measure.serverPort = req.URL.Hostname(), serverPort(req)
		attrs = append(attrs, keyServer.String(measure.serverHost))
		if measure.serverPort > 0 {
			attrs = append(attrs, keyPort.Int(measure.serverPort))
		}
	}
	if attempt.Resend > 0 {
		attrs = append(attrs, keyResend.Int(attempt.Resend))
	}
	ctx, span := in.tracer.Start(parent, name, trace.WithSpanKind(trace.SpanKindClient), trace.WithTimestamp(start),
		trace.WithAttributes(attrs...))
	if attempt.Request != nil {
		in.propagator().Inject(ctx, propagation.HeaderCarrier(attempt.Request.Header))
	}
	return context.WithValue(ctx, attemptKey{}, &attemptScope{span: span, start: start, measure: measure})
}

// EndAttempt records http.client.request.duration and the call's attempt
// count, and ends the attempt's span.
func (in *instrumentation) EndAttempt(ctx context.Context, attempt observe.Attempt, result observe.AttemptResult) {
	scope, ok := ctx.Value(attemptKey{}).(*attemptScope)
	if !ok {
		return
	}
	end := time.Now()
	// The semantic conventions' error.type: the status code of an error
	// response, else the failure's type.
	var errType string
	switch {
	case result.StatusCode >= http.StatusBadRequest:
		errType = strconv.Itoa(result.StatusCode)
	case result.Err != nil:
		errType = observe.ErrorType(result.Err)
	}
	measure := scope.measure
	measure.statusCode, measure.errorType = result.StatusCode, errType
	in.attemptDuration.Record(ctx, end.Sub(scope.start).Seconds(), in.measures.get(measure))
	in.callAttempts.Add(ctx, 1, in.measures.get(measureKey{operation: attempt.Call.Operation, area: string(attempt.Call.Area)}))
	if result.StatusCode > 0 {
		scope.span.SetAttributes(keyStatus.Int(result.StatusCode))
	}
	if errType != "" {
		scope.span.SetAttributes(keyErrorType.String(errType))
		scope.span.SetStatus(codes.Error, errType)
	}
	scope.span.End(trace.WithTimestamp(end))
}

// StartTokenFetch starts the fetch's span under the call that triggered it.
func (in *instrumentation) StartTokenFetch(ctx context.Context) context.Context {
	start := time.Now()
	if call, ok := ctx.Value(callKey{}).(*callScope); ok {
		// A refresh before a retry gets the previous attempt's context:
		// the fetch belongs to the call, not to that attempt.
		ctx = trace.ContextWithSpan(ctx, call.span)
	}
	ctx, span := in.tracer.Start(ctx, TokenFetchSpanName, trace.WithSpanKind(trace.SpanKindInternal), trace.WithTimestamp(start),
		trace.WithAttributes(AttrOperation.String(TokenFetchSpanName)))
	return context.WithValue(ctx, fetchKey{}, &fetchScope{span: span, start: start})
}

// EndTokenFetch records the fetch's duration and ends its span.
func (in *instrumentation) EndTokenFetch(ctx context.Context, err error) {
	scope, ok := ctx.Value(fetchKey{}).(*fetchScope)
	if !ok {
		return
	}
	end := time.Now()
	errType := observe.ErrorType(err)
	// A fetch has no call of its own (with a SigV4 token source its token
	// call is one, of area token; with another source there is none): it
	// is the token area's, as the token call's metrics are.
	in.fetchDuration.Record(ctx, end.Sub(scope.start).Seconds(), in.measures.get(measureKey{area: string(memberplatform.AreaToken), errorType: errType}))
	if errType != "" {
		scope.span.SetAttributes(keyErrorType.String(errType))
		scope.span.SetStatus(codes.Error, errType)
	}
	scope.span.End(trace.WithTimestamp(end))
}

// Retry adds a retry event, with its reason and delay, to the call's span.
func (in *instrumentation) Retry(ctx context.Context, retry observe.Retry) {
	if call, ok := ctx.Value(callKey{}).(*callScope); ok {
		call.span.AddEvent(EventRetry, trace.WithAttributes(AttrRetryAttempt.Int(retry.Attempt),
			AttrRetryReason.String(retry.Reason), AttrRetryDelay.Float64(retry.Delay.Seconds())))
	}
}

// RateLimitWait records the wait and adds an event to the call's span.
func (in *instrumentation) RateLimitWait(ctx context.Context, wait observe.Wait) {
	in.waitDuration.Record(ctx, wait.Duration.Seconds(), in.measures.get(measureKey{area: string(wait.Area)}))
	if call, ok := ctx.Value(callKey{}).(*callScope); ok {
		call.span.AddEvent(EventRateLimitWait, trace.WithAttributes(AttrWaitDuration.Float64(wait.Duration.Seconds()), AttrArea.String(string(wait.Area))))
	}
}

// BudgetRefused counts the refusal, under its area (the call's, from an
// SDK before observe.Refusal had one), and adds an event to the call's
// span.
func (in *instrumentation) BudgetRefused(ctx context.Context, refusal observe.Refusal) {
	call, inCall := ctx.Value(callKey{}).(*callScope)
	area := string(refusal.Area)
	if area == "" && inCall {
		area = call.area
	}
	in.budgetRefused.Add(ctx, 1, in.measures.get(measureKey{area: area, errorType: refusal.Reason}))
	if inCall {
		call.span.AddEvent(EventBudgetRefused, trace.WithAttributes(AttrRetryAttempt.Int(refusal.Attempt),
			AttrRetryReason.String(refusal.Reason)))
	}
}

// Shed counts an attempt admission control refused locally and adds an
// event to the call's span.
// The counter carries the operation and the scope (operation or area) when
// the SDK names them, so an operation shed on its own shows apart from an
// area that is down.
func (in *instrumentation) Shed(ctx context.Context, shed observe.Shed) {
	in.shed.Add(ctx, 1, in.measures.get(measureKey{area: string(shed.Area), errorType: shed.Reason, operation: shed.Operation, shedScope: shed.Scope}))
	if call, ok := ctx.Value(callKey{}).(*callScope); ok {
		attrs := []attribute.KeyValue{AttrArea.String(string(shed.Area)), keyErrorType.String(shed.Reason)}
		if shed.Scope != "" {
			attrs = append(attrs, AttrShedScope.String(shed.Scope))
		}
		call.span.AddEvent(EventShed, trace.WithAttributes(attrs...))
	}
}

// Deprecated counts a call whose answer said its operation is deprecated,
// by operation, area and sunset date, and adds an event to the call's span.
func (in *instrumentation) Deprecated(ctx context.Context, d observe.Deprecation) {
	var sunset string
	if !d.Sunset.IsZero() {
		sunset = d.Sunset.UTC().Format(time.DateOnly)
	}
	in.deprecated.Add(ctx, 1, in.measures.get(measureKey{operation: d.Operation, area: string(d.Area), sunset: sunset}))
	if call, ok := ctx.Value(callKey{}).(*callScope); ok {
		attrs := []attribute.KeyValue{AttrOperation.String(d.Operation)}
		if sunset != "" {
			attrs = append(attrs, AttrSunset.String(sunset))
		}
		if d.Link != "" {
			attrs = append(attrs, AttrDeprecationLink.String(d.Link))
		}
		call.span.AddEvent(EventDeprecated, trace.WithAttributes(attrs...))
	}
}

// ObserveState reports the client's state through the gauges, one point
// per area, read with the other clients of the same meter (gauges.go). The
// state is held weakly, so clients built and dropped do not pile up.
func (in *instrumentation) ObserveState(state *observe.State) {
	// The client and its SigV4 token pipeline share one instrumentation
	// and the same budgets and pacers: the first state is enough.
	in.stateOnce.Do(func() {
		in.zeroCounters(state.Areas)
		in.observeGauges(state)
	})
}

// zeroCounters starts each counter of every area at 0, under the area
// alone, so the client's first collection exports them: a rate over a
// counter that does not exist yet is no value, not 0, so a healthy
// service's panels would read "No data", and a series born in an outage
// loses its first scrape's increase to rate(). The points of the area
// alone stay at 0 (the counts go to their operation's and error.type's).
func (in *instrumentation) zeroCounters(areas []memberplatform.Area) {
	ctx := context.Background()
	for _, area := range areas {
		attrs := in.measures.get(measureKey{area: string(area)})
		for _, c := range []metric.Int64Counter{in.callAttempts, in.callErrors, in.budgetRefused, in.shed, in.deprecated} {
			c.Add(ctx, 0, attrs)
		}
	}
}

// normalizeMethod returns method when the semantic conventions know it,
// else "_OTHER", as they ask (a method is not a free-form attribute).
func normalizeMethod(method string) string {
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch,
		http.MethodDelete, http.MethodOptions, http.MethodConnect, http.MethodTrace:
		return method
	}
	return "_OTHER"
}

// serverPort returns the port the request goes to: the URL's, or the
// scheme's default.
func serverPort(req *http.Request) int {
	if p := req.URL.Port(); p != "" {
		n, err := strconv.Atoi(p)
		if err == nil {
			return n
		}
		return 0
	}
	switch req.URL.Scheme {
	case "https":
		return 443
	case "http":
		return 80
	}
	return 0
}
