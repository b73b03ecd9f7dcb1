package otelmemberplatform_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/memberplatform/memberplatform-go/accessmgmt"
	"github.com/memberplatform/memberplatform-go/client"
	apierrors "github.com/memberplatform/memberplatform-go/errors"
	"github.com/memberplatform/memberplatform-go/option"
	"github.com/memberplatform/memberplatform-go/otelmemberplatform"
	"github.com/memberplatform/memberplatform-go/sdktest"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

const (
	userSpan    = "accessmgmt.UpdateUser"
	userAttempt = "PUT /auth/access-management/users/{userId}"
	tokenSpan   = "auth.Token"
	tokenTry    = "POST /auth/token"
	userID      = "user_01HSECRETPATHID"
)

// newServer returns a fake platform with one user, and a client wired to it
// and to tel.
func newServer(t *testing.T, tel *telemetry, extra ...option.RequestOption) (*sdktest.Server, *client.Client) {
	t.Helper()
	srv := sdktest.NewServer(t)
	srv.AddUser(sdktest.User{ID: userID, Email: "ada@example.com"})
	return srv, srv.Client(append(append([]option.RequestOption{}, tel.opts...), extra...)...)
}

func updateUser(t *testing.T, c *client.Client) error {
	t.Helper()
	_, err := c.AccessMgmt.UpdateUser(t.Context(), userID, accessmgmt.UpdateUserParams{FirstName: new("Ada")})
	return err
}

// TestRetriedCall: 503, 503, 200 is one operation span with three attempt
// spans under it (resend counts 0, 1, 2), two retry events, and an
// attempts counter of 3.
func TestRetriedCall(t *testing.T) {
	tel := newTelemetry(t)
	srv, c := newServer(t, tel)
	srv.FailNext(2, sdktest.Fault{Operation: sdktest.OpUpdateUser, Status: http.StatusServiceUnavailable})
	if err := updateUser(t, c); err != nil {
		t.Fatal(err)
	}

	op := tel.only(t, userSpan)
	if op.SpanKind() != trace.SpanKindInternal || op.Status().Code == codes.Error {
		t.Errorf("operation span: kind %v, status %v; want internal, not Error", op.SpanKind(), op.Status())
	}
	if v, _ := attr(op, "memberplatform.operation"); v.AsString() != userSpan {
		t.Errorf("memberplatform.operation = %q", v.AsString())
	}
	var attempts []sdktrace.ReadOnlySpan
	for _, s := range tel.children(op) {
		if s.Name() == userAttempt {
			attempts = append(attempts, s)
		}
	}
	if len(attempts) != 3 {
		t.Fatalf("%d attempt spans under the operation, want 3; all spans: %v", len(attempts), tel.names())
	}
	for i, s := range attempts {
		wantStatus := []int64{503, 503, 200}[i]
		if s.SpanKind() != trace.SpanKindClient {
			t.Errorf("attempt %d: kind %v, want client", i, s.SpanKind())
		}
		resend, set := attr(s, "http.request.resend_count")
		if got := resend.AsInt64(); got != int64(i) || set != (i > 0) {
			t.Errorf("attempt %d: http.request.resend_count = %d (set %v), want %d (set only on a resend)", i, got, set, i)
		}
		if v, _ := attr(s, "http.response.status_code"); v.AsInt64() != wantStatus {
			t.Errorf("attempt %d: status %d, want %d", i, v.AsInt64(), wantStatus)
		}
		errType, hasErr := attr(s, "error.type")
		if wantStatus == 503 && (errType.AsString() != "503" || s.Status().Code != codes.Error) {
			t.Errorf("attempt %d: error.type %q, status %v; want 503 and Error", i, errType.AsString(), s.Status())
		}
		if wantStatus == 200 && (hasErr || s.Status().Code == codes.Error) {
			t.Errorf("attempt %d: error.type %q, status %v on the 200", i, errType.AsString(), s.Status())
		}
		for key, want := range map[string]string{"http.request.method": "PUT", "url.template": "/auth/access-management/users/{userId}", "server.address": "127.0.0.1"} {
			if v, _ := attr(s, key); v.AsString() != want {
				t.Errorf("attempt %d: %s = %q, want %q", i, key, v.AsString(), want)
			}
		}
		if v, _ := attr(s, "server.port"); v.AsInt64() <= 0 {
			t.Errorf("attempt %d: server.port = %d", i, v.AsInt64())
		}
	}
	retries := events(op, otelmemberplatform.EventRetry)
	if len(retries) != 2 {
		t.Fatalf("%d retry events, want 2", len(retries))
	}
	for i, e := range retries {
		if v, _ := eventAttr(e, "memberplatform.retry.reason"); v.AsString() != "service_unavailable" {
			t.Errorf("retry %d: reason %q", i, v.AsString())
		}
		if v, _ := eventAttr(e, "memberplatform.retry.attempt"); v.AsInt64() != int64(i+1) {
			t.Errorf("retry %d: attempt %d", i, v.AsInt64())
		}
		if v, ok := eventAttr(e, "memberplatform.retry.delay"); !ok || v.AsFloat64() < 0 || v.AsFloat64() > 1 {
			t.Errorf("retry %d: delay %v s (set %v), want the backoff, 1ms to 20ms", i, v.AsFloat64(), ok)
		}
	}

	rm := tel.collect(t)
	if n := counterSum(t, rm, "memberplatform.client.call.attempts", map[string]string{"memberplatform.operation": userSpan}); n != 3 {
		t.Errorf("memberplatform.client.call.attempts{UpdateUser} = %d, want 3", n)
	}
	if n, _ := histogram(t, rm, "memberplatform.client.call.duration", map[string]string{"memberplatform.operation": userSpan}); n != 1 {
		t.Errorf("memberplatform.client.call.duration{UpdateUser} count %d, want 1", n)
	}
	if n := counterSum(t, rm, "memberplatform.client.call.errors", nil); n != 0 {
		t.Errorf("memberplatform.client.call.errors = %d after a call that succeeded", n)
	}
	if n, _ := histogram(t, rm, "http.client.request.duration", map[string]string{"url.template": "/auth/access-management/users/{userId}", "error.type": "503", "http.response.status_code": "503"}); n != 2 {
		t.Errorf("http.client.request.duration{503} count %d, want 2", n)
	}
	if n, _ := histogram(t, rm, "http.client.request.duration", map[string]string{"url.template": "/auth/access-management/users/{userId}", "http.response.status_code": "200"}); n != 1 {
		t.Errorf("http.client.request.duration{200} count %d, want 1", n)
	}
}

// TestSigV4TokenFetchSpan: the first call's token fetch is a span under
// the call, with the token call's attempts under it; a retried token
// attempt carries a new traceparent and its SigV4 signature still holds.
func TestSigV4TokenFetchSpan(t *testing.T) {
	tel := newTelemetry(t)
	srv, c := newServer(t, tel)
	srv.FailNext(1, sdktest.Fault{Operation: sdktest.OpToken, Status: http.StatusServiceUnavailable})
	if err := updateUser(t, c); err != nil {
		t.Fatal(err) // the fake verifies the signature: a broken one is a 403
	}
	op := tel.only(t, userSpan)
	fetch := tel.only(t, tokenSpan)
	if fetch.Parent().SpanID() != op.SpanContext().SpanID() {
		t.Errorf("the token fetch span's parent is %v, want the operation span", fetch.Parent().SpanID())
	}
	if fetch.Status().Code == codes.Error {
		t.Errorf("token fetch status %v", fetch.Status())
	}
	kids := tel.children(fetch)
	if len(kids) != 2 || kids[0].Name() != tokenTry || kids[1].Name() != tokenTry {
		t.Fatalf("spans under the token fetch: %v, want two %q", spanNames(kids), tokenTry)
	}
	if v, _ := attr(kids[1], "http.request.resend_count"); v.AsInt64() != 1 {
		t.Errorf("the token call's retry has resend_count %d", v.AsInt64())
	}
	if n := len(events(fetch, otelmemberplatform.EventRetry)); n != 1 {
		t.Errorf("%d retry events on the token fetch span, want 1", n)
	}
	var tokenReqs []sdktest.Request
	for _, r := range srv.Requests() {
		if r.Operation == sdktest.OpToken {
			tokenReqs = append(tokenReqs, r)
		}
	}
	if len(tokenReqs) != 2 {
		t.Fatalf("%d token requests, want 2", len(tokenReqs))
	}
	for i, r := range tokenReqs {
		if got, want := r.Header.Get("Traceparent"), traceparent(kids[i]); got != want {
			t.Errorf("token request %d: traceparent %q, want the attempt span's %q", i, got, want)
		}
		if !strings.Contains(strings.ToLower(r.Header.Get("Authorization")), "traceparent") {
			t.Errorf("token request %d: traceparent is not among the signed headers: %q", i, r.Header.Get("Authorization"))
		}
	}

	rm := tel.collect(t)
	if n, _ := histogram(t, rm, "memberplatform.client.token.fetch.duration", nil); n != 1 {
		t.Errorf("memberplatform.client.token.fetch.duration count %d, want 1", n)
	}
	if n := counterSum(t, rm, "memberplatform.client.call.attempts", map[string]string{"memberplatform.operation": tokenSpan}); n != 2 {
		t.Errorf("memberplatform.client.call.attempts{auth.Token} = %d, want 2", n)
	}
}

// TestTraceparentSeenByServer: each API request carries the context of the
// attempt span that sent it.
func TestTraceparentSeenByServer(t *testing.T) {
	tel := newTelemetry(t)
	srv, c := newServer(t, tel)
	srv.FailNext(1, sdktest.Fault{Operation: sdktest.OpUpdateUser, Status: http.StatusBadGateway})
	if err := updateUser(t, c); err != nil {
		t.Fatal(err)
	}
	attempts := tel.named(userAttempt)
	sortByStart(attempts)
	var seen []string
	for _, r := range srv.Requests() {
		if r.Operation == sdktest.OpUpdateUser {
			seen = append(seen, r.Header.Get("Traceparent"))
		}
	}
	if len(seen) != 2 || len(attempts) != 2 {
		t.Fatalf("%d requests, %d attempt spans; want 2 of each", len(seen), len(attempts))
	}
	for i := range seen {
		if want := traceparent(attempts[i]); seen[i] != want {
			t.Errorf("request %d: traceparent %q, want %q", i, seen[i], want)
		}
	}
	if seen[0] == seen[1] {
		t.Error("the retry carried the first attempt's traceparent")
	}
}

// TestUnauthorizedRefresh: a 401 drops the token; a fresh one is fetched
// (a span under the call) and the request resent (resend count 1).
func TestUnauthorizedRefresh(t *testing.T) {
	tel := newTelemetry(t)
	srv, c := newServer(t, tel)
	srv.FailNext(1, sdktest.Fault{Operation: sdktest.OpUpdateUser, Status: http.StatusUnauthorized})
	if err := updateUser(t, c); err != nil {
		t.Fatal(err)
	}
	op := tel.only(t, userSpan)
	kids := tel.children(op)
	want := []string{tokenSpan, userAttempt, tokenSpan, userAttempt}
	if got := spanNames(kids); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("spans under the operation: %v, want %v", got, want)
	}
	if v, _ := attr(kids[1], "http.response.status_code"); v.AsInt64() != 401 {
		t.Errorf("first attempt status %d, want 401", v.AsInt64())
	}
	if v, _ := attr(kids[1], "error.type"); v.AsString() != "401" {
		t.Errorf("first attempt error.type %q, want 401", v.AsString())
	}
	if v, _ := attr(kids[3], "http.request.resend_count"); v.AsInt64() != 1 {
		t.Errorf("the resend's resend_count %d, want 1", v.AsInt64())
	}
	if op.Status().Code == codes.Error {
		t.Errorf("operation status %v after a successful resend", op.Status())
	}
	if n := len(events(op, otelmemberplatform.EventRetry)); n != 0 {
		t.Errorf("%d retry events: a 401 resend is not a retry of the policy", n)
	}
	rm := tel.collect(t)
	if n, _ := histogram(t, rm, "memberplatform.client.token.fetch.duration", nil); n != 2 {
		t.Errorf("memberplatform.client.token.fetch.duration count %d, want 2", n)
	}
	if n := counterSum(t, rm, "memberplatform.client.call.attempts", map[string]string{"memberplatform.operation": userSpan}); n != 2 {
		t.Errorf("call.attempts{UpdateUser} = %d, want 2", n)
	}
}

// TestFailingCall: a call that fails has status Error with its error type,
// on the span and in the call metrics.
func TestFailingCall(t *testing.T) {
	tel := newTelemetry(t)
	_, c := newServer(t, tel)
	_, err := c.AccessMgmt.UpdateUser(t.Context(), "user_unknown", accessmgmt.UpdateUserParams{FirstName: new("Ada")})
	if !errors.Is(err, apierrors.ErrNotFound) {
		t.Fatalf("err = %v, want not found", err)
	}
	op := tel.only(t, userSpan)
	if op.Status().Code != codes.Error || op.Status().Description != "not_found" {
		t.Errorf("operation status %v, want Error not_found", op.Status())
	}
	if v, _ := attr(op, "error.type"); v.AsString() != "not_found" {
		t.Errorf("error.type = %q", v.AsString())
	}
	rm := tel.collect(t)
	failed := map[string]string{"memberplatform.operation": userSpan, "error.type": "not_found"}
	if n := counterSum(t, rm, "memberplatform.client.call.errors", failed); n != 1 {
		t.Errorf("memberplatform.client.call.errors{not_found} = %d, want 1", n)
	}
	if n, _ := histogram(t, rm, "memberplatform.client.call.duration", failed); n != 1 {
		t.Errorf("memberplatform.client.call.duration{not_found} count %d, want 1", n)
	}
}

// TestBudgetRefusal: a retry the budget cannot pay for is an event on the
// operation span, and the gauge shows what is left.
func TestBudgetRefusal(t *testing.T) {
	tel := newTelemetry(t)
	srv, c := newServer(t, tel, option.WithRetryBudget(option.RetryBudget{Capacity: 5}))
	srv.FailNext(1, sdktest.Fault{Operation: sdktest.OpUpdateUser, Status: http.StatusServiceUnavailable})
	err := updateUser(t, c)
	if !errors.Is(err, apierrors.ErrRetryBudgetExhausted) {
		t.Fatalf("err = %v, want the budget's refusal", err)
	}
	op := tel.only(t, userSpan)
	refusals := events(op, otelmemberplatform.EventBudgetRefused)
	if len(refusals) != 1 {
		t.Fatalf("%d refusal events, want 1; events: %v", len(refusals), op.Events())
	}
	if v, _ := eventAttr(refusals[0], "memberplatform.retry.reason"); v.AsString() != "service_unavailable" {
		t.Errorf("refusal reason %q", v.AsString())
	}
	if n := len(events(op, otelmemberplatform.EventRetry)); n != 0 {
		t.Errorf("%d retry events, want none", n)
	}
	if op.Status().Code != codes.Error || op.Status().Description != "service_unavailable" {
		t.Errorf("operation status %v", op.Status())
	}
	rm := tel.collect(t)
	if v, ok := gauge(t, rm, "memberplatform.client.retry_budget.available", option.AreaAccessMgmt); !ok || v != 5 {
		t.Errorf("memberplatform.client.retry_budget.available = %v (reported %v), want 5: nothing was spent", v, ok)
	}
}

// TestThrottledCallWaitsOnPacer: after a 429 the pacer engages; the retry
// waits for its slot, which is an event on the operation span and a
// ratelimit.wait.duration point, and the rate gauge leaves 0.
func TestThrottledCallWaitsOnPacer(t *testing.T) {
	tel := newTelemetry(t)
	srv, c := newServer(t, tel, option.WithAdaptiveRateLimit())
	// The pacer starts from the rate the provider admitted. In the first
	// second of answers a throttle engages it only after 20 answers, and a
	// lone throttle in an area of 6 calls a second or more is presumed one
	// resource's (a hot key), which does not engage it: a few calls, then a
	// quiet second, and the throttle is the area's. The calls come early in
	// a second of the clock, so that the throttle 1.1 s later falls in the
	// next one, whose meter still holds them: the pacer engages at the rate
	// admitted. (Two seconds on, it would find nothing admitted, engage as
	// for a lone call, and its admitted retry would release it: a flake in
	// about 1 run in 10.)
	if ns := time.Now().Nanosecond(); ns > 500_000_000 {
		time.Sleep(time.Duration(1_000_000_000-ns) + 10*time.Millisecond)
	}
	for range 4 {
		if err := updateUser(t, c); err != nil {
			t.Fatal(err)
		}
	}
	rm := tel.collect(t)
	if v, ok := gauge(t, rm, "memberplatform.client.ratelimit.rate", option.AreaAccessMgmt); !ok || v != 0 {
		t.Errorf("memberplatform.client.ratelimit.rate = %v (reported %v) before any throttle, want 0", v, ok)
	}
	if n, _ := histogram(t, rm, "memberplatform.client.ratelimit.wait.duration", nil); n != 0 {
		t.Errorf("%d waits recorded while the pacer was dormant", n)
	}
	tel.spans.Reset()
	time.Sleep(1100 * time.Millisecond)

	srv.FailNext(1, sdktest.Fault{Operation: sdktest.OpUpdateUser, Status: http.StatusTooManyRequests})
	if err := updateUser(t, c); err != nil {
		t.Fatal(err)
	}
	op := tel.only(t, userSpan)
	if v, _ := attr(tel.children(op)[0], "error.type"); v.AsString() != "429" {
		t.Errorf("first attempt error.type %q, want 429", v.AsString())
	}
	retries := events(op, otelmemberplatform.EventRetry)
	if len(retries) != 1 {
		t.Fatalf("%d retry events, want 1", len(retries))
	}
	if v, _ := eventAttr(retries[0], "memberplatform.retry.reason"); v.AsString() != "rate_limited" {
		t.Errorf("retry reason %q, want rate_limited", v.AsString())
	}
	waits := events(op, otelmemberplatform.EventRateLimitWait)
	if len(waits) != 1 {
		t.Fatalf("%d wait events, want 1 (the retry's turn on the engaged pacer)", len(waits))
	}
	if v, _ := eventAttr(waits[0], "memberplatform.ratelimit.wait.duration"); v.AsFloat64() <= 0 {
		t.Errorf("wait of %v s, want > 0: the pacer holds the retry for its slot", v.AsFloat64())
	}
	rm = tel.collect(t)
	if n, sum := histogram(t, rm, "memberplatform.client.ratelimit.wait.duration", map[string]string{"memberplatform.area": "accessmgmt"}); n != 1 || sum <= 0 {
		t.Errorf("ratelimit.wait.duration{accessmgmt}: %d points summing %v s, want 1 > 0", n, sum)
	}
	if v, _ := eventAttr(waits[0], "memberplatform.area"); v.AsString() != "accessmgmt" {
		t.Errorf("wait event area %q, want accessmgmt", v.AsString())
	}
	if v, ok := gauge(t, rm, "memberplatform.client.ratelimit.rate", option.AreaAccessMgmt); !ok || v <= 0 {
		t.Errorf("memberplatform.client.ratelimit.rate{accessmgmt} = %v (reported %v) after a throttle, want > 0", v, ok)
	}
	// The other areas' pacers stay dormant: their calls are not paced.
	for _, a := range []option.Area{option.AreaPayments, option.AreaCustomer, option.AreaToken, option.AreaOther} {
		if v, _ := gauge(t, rm, "memberplatform.client.ratelimit.rate", a); v != 0 {
			t.Errorf("memberplatform.client.ratelimit.rate{%s} = %v after access management's throttle, want 0", a, v)
		}
	}
}

// TestPerCallOptionRefused: the instrumentation is client-wide.
func TestPerCallOptionRefused(t *testing.T) {
	tel := newTelemetry(t)
	_, c := newServer(t, tel)
	_, err := c.AccessMgmt.UpdateUser(t.Context(), userID, accessmgmt.UpdateUserParams{FirstName: new("Ada")}, otelmemberplatform.WithTracerProvider(nil))
	if !errors.Is(err, apierrors.ErrInvalidInput) || !strings.Contains(err.Error(), "client.New") {
		t.Errorf("err = %v, want a validation error naming client.New", err)
	}
}

// TestOptionsBuildOneInstrumentation: the three options given together make
// one set of spans, not one per option, and option values reused for a
// second client instrument it separately.
func TestOptionsBuildOneInstrumentation(t *testing.T) {
	tel := newTelemetry(t)
	srv, c := newServer(t, tel)
	if err := updateUser(t, c); err != nil {
		t.Fatal(err)
	}
	c2 := srv.Client(tel.opts...)
	if err := updateUser(t, c2); err != nil {
		t.Fatal(err)
	}
	if n := len(tel.named(userSpan)); n != 2 {
		t.Errorf("%d operation spans for two calls, want 2", n)
	}
	if n := len(tel.named(tokenSpan)); n != 2 {
		t.Errorf("%d token fetch spans for two clients, want 2", n)
	}
}

func spanNames(spans []sdktrace.ReadOnlySpan) []string {
	var out []string
	for _, s := range spans {
		out = append(out, s.Name())
	}
	return out
}

// traceparent is the W3C header for s's context.
func traceparent(s sdktrace.ReadOnlySpan) string {
	carrier := propagation.MapCarrier{}
	propagation.TraceContext{}.Inject(trace.ContextWithSpanContext(context.Background(), s.SpanContext()), carrier)
	return carrier.Get("traceparent")
}

// TestFailedTokenFetch: a token call the platform refuses fails the fetch
// span and the call, with token_unavailable.
func TestFailedTokenFetch(t *testing.T) {
	tel := newTelemetry(t)
	srv, c := newServer(t, tel)
	srv.FailNext(1, sdktest.Fault{Operation: sdktest.OpToken, Status: http.StatusForbidden})
	if err := updateUser(t, c); !errors.Is(err, apierrors.ErrTokenUnavailable) {
		t.Fatalf("err = %v, want a token error", err)
	}
	fetch := tel.only(t, tokenSpan)
	if fetch.Status().Code != codes.Error || fetch.Status().Description != "token_unavailable" {
		t.Errorf("fetch span status %v, want Error token_unavailable", fetch.Status())
	}
	op := tel.only(t, userSpan)
	if op.Status().Description != "token_unavailable" {
		t.Errorf("operation status %v", op.Status())
	}
	if n := len(tel.named(userAttempt)); n != 0 {
		t.Errorf("%d API attempts without a token", n)
	}
	rm := tel.collect(t)
	if n, _ := histogram(t, rm, "memberplatform.client.token.fetch.duration", map[string]string{"error.type": "token_unavailable"}); n != 1 {
		t.Errorf("token.fetch.duration{token_unavailable} count %d, want 1", n)
	}
}

// TestFailingTokenSourceIsTokenUnavailable: a token source that fails made
// no HTTP request, so the fetch span and memberplatform.client.token.fetch.duration
// say token_unavailable, as the call does, not transport.
func TestFailingTokenSourceIsTokenUnavailable(t *testing.T) {
	tel := newTelemetry(t)
	failing := client.TokenSourceFunc(func(context.Context) (client.Token, error) { return client.Token{}, errors.New("vault: sealed") })
	_, c := newServer(t, tel, option.WithTokenSource(failing))
	if err := updateUser(t, c); !errors.Is(err, apierrors.ErrTokenUnavailable) {
		t.Fatalf("err = %v, want a token error", err)
	}
	fetch := tel.only(t, tokenSpan)
	if v, _ := attr(fetch, "error.type"); fetch.Status().Description != "token_unavailable" || v.AsString() != "token_unavailable" {
		t.Errorf("fetch span: status %v, error.type %q; want token_unavailable", fetch.Status(), v.AsString())
	}
	if v, _ := attr(tel.only(t, userSpan), "error.type"); v.AsString() != "token_unavailable" {
		t.Errorf("operation span error.type %q, want token_unavailable", v.AsString())
	}
	rm := tel.collect(t)
	if n, _ := histogram(t, rm, "memberplatform.client.token.fetch.duration", map[string]string{"error.type": "token_unavailable"}); n != 1 {
		t.Errorf("token.fetch.duration{token_unavailable} count %d, want 1", n)
	}
	if n, _ := histogram(t, rm, "memberplatform.client.token.fetch.duration", map[string]string{"error.type": "transport"}); n != 0 {
		t.Errorf("token.fetch.duration{transport} count %d, want 0", n)
	}
}

// TestUnknownStatusIsItsClass: an error response of a status the SDK has
// no kind for is named by its class (4xx) on the call's span and metrics,
// which must stay low-cardinality, and by its code on the attempt's, as
// the HTTP conventions ask.
func TestUnknownStatusIsItsClass(t *testing.T) {
	tel := newTelemetry(t)
	srv, c := newServer(t, tel)
	srv.FailNext(1, sdktest.Fault{Operation: sdktest.OpUpdateUser, Status: http.StatusTeapot})
	if err := updateUser(t, c); err == nil {
		t.Fatal("want the 418")
	}
	if v, _ := attr(tel.only(t, userSpan), "error.type"); v.AsString() != "4xx" {
		t.Errorf("operation span error.type %q, want 4xx", v.AsString())
	}
	if v, _ := attr(tel.only(t, userAttempt), "error.type"); v.AsString() != "418" {
		t.Errorf("attempt span error.type %q, want 418", v.AsString())
	}
	rm := tel.collect(t)
	if n := counterSum(t, rm, "memberplatform.client.call.errors", map[string]string{"error.type": "4xx"}); n != 1 {
		t.Errorf("call.errors{4xx} = %d, want 1", n)
	}
	if n, _ := histogram(t, rm, "http.client.request.duration", map[string]string{"error.type": "418"}); n != 1 {
		t.Errorf("http.client.request.duration{418} count %d, want 1", n)
	}
}

// TestEveryMetricCarriesArea: every point of every metric, the attempt
// histogram and the token fetch histogram included, carries
// memberplatform.area with one of the areas' values: the token fetch's is
// token, an attempt's that of its call.
func TestEveryMetricCarriesArea(t *testing.T) {
	tel := newTelemetry(t)
	srv, c := newServer(t, tel, option.WithRetryBudget(option.RetryBudget{Capacity: 5}))
	srv.FailNext(1, sdktest.Fault{Operation: sdktest.OpToken, Status: http.StatusServiceUnavailable})
	if err := updateUser(t, c); !errors.Is(err, apierrors.ErrTokenUnavailable) { // the token area's budget refuses the retry
		t.Fatalf("err = %v, want the token error", err)
	}
	srv.FailNext(1, sdktest.Fault{Operation: sdktest.OpUpdateUser, Status: http.StatusTooManyRequests})
	if err := updateUser(t, c); err != nil { // a fresh token; the 429 retried after the pacer's wait
		t.Fatal(err)
	}

	rm := tel.collect(t)
	areas := map[string]bool{}
	for _, a := range []option.Area{option.AreaAccessMgmt, option.AreaPayments, option.AreaCustomer, option.AreaToken, option.AreaOther} {
		areas[string(a)] = true
	}
	seen := map[string]bool{}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			sets := metricAttributeSets(m.Data)
			for _, set := range sets {
				if v, ok := set.Value("memberplatform.area"); !ok || !areas[v.AsString()] {
					t.Errorf("%s: a point without a known memberplatform.area: %v", m.Name, set.ToSlice())
				}
			}
			seen[m.Name] = len(sets) > 0
		}
	}
	for _, name := range []string{
		"memberplatform.client.call.duration", "memberplatform.client.call.attempts", "memberplatform.client.call.errors",
		"http.client.request.duration", "memberplatform.client.token.fetch.duration", "memberplatform.client.ratelimit.wait.duration",
		"memberplatform.client.retry_budget.refused", "memberplatform.client.retry_budget.available", "memberplatform.client.ratelimit.rate",
	} {
		if !seen[name] {
			t.Errorf("%s has no point: the test no longer covers it", name)
		}
	}
	if n, _ := histogram(t, rm, "memberplatform.client.token.fetch.duration", map[string]string{"memberplatform.area": "token"}); n != 2 {
		t.Errorf("token.fetch.duration{area=token} count %d, want 2", n)
	}
	if n, _ := histogram(t, rm, "http.client.request.duration", map[string]string{"memberplatform.area": "token", "url.template": "/auth/token"}); n != 2 {
		t.Errorf("http.client.request.duration{area=token} count %d, want the token call's 2 attempts", n)
	}
	if n, _ := histogram(t, rm, "http.client.request.duration", map[string]string{"memberplatform.area": "accessmgmt", "error.type": "429"}); n != 1 {
		t.Errorf("http.client.request.duration{area=accessmgmt, error.type=429} count %d, want 1", n)
	}
	if n := counterSum(t, rm, "memberplatform.client.retry_budget.refused", map[string]string{"memberplatform.area": "token", "error.type": "service_unavailable"}); n != 1 {
		t.Errorf("retry_budget.refused{token, service_unavailable} = %d, want 1", n)
	}
}
