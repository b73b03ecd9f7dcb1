package core

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"

	apierrors "github.com/memberplatform/memberplatform-go/errors"
)

// The caller's statuses change which answered statuses of an idempotent
// request are retried, and nothing else.
func TestRetriableWithStatuses(t *testing.T) {
	var p RetryPolicy
	p.Statuses.Retry(409)
	p.Statuses.DontRetry(503)
	p.Statuses.Retry(599)
	p.Statuses.Retry(400)
	answer := func(status int) *apierrors.Error { return &apierrors.Error{StatusCode: status} }
	for _, tt := range []struct {
		idempotent bool
		apiErr     *apierrors.Error
		err        error
		want       bool
	}{
		{true, answer(409), nil, true},
		{false, answer(409), nil, false}, // never makes a request safe to repeat
		{true, answer(503), nil, false},
		{true, answer(599), nil, true},
		{true, answer(400), nil, true},
		{true, answer(500), nil, true}, // the defaults stay
		{true, answer(404), nil, false},
		{true, nil, errors.New("x509: certificate signed by unknown authority"), false},
		{true, nil, nil, false},
	} {
		if got := p.retriable(tt.idempotent, tt.apiErr, tt.err); got != tt.want {
			t.Errorf("retriable(%v, %v, %v) = %v, want %v", tt.idempotent, tt.apiErr, tt.err, got, tt.want)
		}
	}
	p.Statuses.DontRetry(409)
	if p.retriable(true, answer(409), nil) || !p.Statuses.Off.Has(409) || p.Statuses.On.Has(409) {
		t.Error("DontRetry after Retry: 409 still retried")
	}
	for _, st := range []int{0, 200, 399, 600, -1} {
		if CheckErrorStatus("WithRetryOn", st) == nil || p.Statuses.On.Has(st) {
			t.Errorf("status %d accepted", st)
		}
	}
}

// Adding a status the provider-not-configured answer has (503, or any the
// platform gives it) does not make that answer retried: it is final by
// default, and WithRetryOn(503), which adds nothing to the defaults, must
// not change that.
func TestRetriableWithStatusesProviderNotConfigured(t *testing.T) {
	h := http.Header{"Content-Type": {"application/problem+json"}}
	notConfigured := func(status int) *apierrors.Error {
		return apierrors.Decode(status, h, []byte(`{"title":"Provider Not Configured","status":503,"serviceCode":"50300001",`+
			`"detail":"The access-management provider is not configured for this environment"}`))
	}
	var p RetryPolicy
	p.Statuses.Retry(503)
	p.Statuses.Retry(409)
	for _, status := range []int{503, 409} {
		if apiErr := notConfigured(status); apiErr.Kind() != apierrors.ErrProviderNotConfigured || p.retriable(true, apiErr, nil) {
			t.Errorf("provider not configured (%d, kind %v) is retried after Retry(%d)", status, apiErr.Kind(), status)
		}
	}
	ordinary := apierrors.Decode(503, h, []byte(`{"title":"Service Unavailable","status":503,"serviceCode":"50300002"}`))
	if !p.retriable(true, ordinary, nil) {
		t.Error("an ordinary 503 is not retried")
	}
}

// A status the caller added waits its Retry-After, as a 429 or 503 does:
// a 409 asking for 3 s was retried after the backoff (at most 250 ms), so
// the platform was asked again before it said it could answer. One
// asking longer than MaxRetryAfter is not retried, and is no throttle.
func TestRetryOnWaitsItsRetryAfter(t *testing.T) {
	p := DefaultRetryPolicy()
	p.Rand = func() float64 { return 0 } // a backoff of 0
	p.Statuses.Retry(http.StatusConflict)
	conflict := func(retryAfter string) *apierrors.Error {
		return &apierrors.Error{StatusCode: http.StatusConflict, Header: http.Header{"Retry-After": {retryAfter}}}
	}
	if d, wait := p.Decide(context.Background(), 1, true, conflict("3"), nil); d != Retry || wait != 3*time.Second {
		t.Errorf("409 with Retry-After: 3: %v after %v, want a retry after 3s", d, wait)
	}
	if d, _ := p.Decide(context.Background(), 1, true, conflict("60"), nil); d != StopRetryAfter {
		t.Errorf("409 with Retry-After: 60 (> MaxRetryAfter): %v, want StopRetryAfter", d)
	}
	if d, wait := p.Decide(context.Background(), 1, true, &apierrors.Error{StatusCode: http.StatusBadGateway, Header: http.Header{"Retry-After": {"3"}}}, nil); d != Retry || wait != 0 {
		t.Errorf("502 (a default status) with Retry-After: %v after %v, want the backoff", d, wait)
	}
	state := &callState{s: &Settings{Retry: p}, op: rtPutOp, scope: &Scope{}}
	state.attempts = 1
	e := conflict("60")
	if d, _ := state.decide(context.Background(), e, nil); d != StopRetryAfter || errors.Is(e, apierrors.ErrRateLimited) {
		t.Errorf("409 asking for 60 s: %v, matches ErrRateLimited %v; want StopRetryAfter, not a throttle", d, errors.Is(e, apierrors.ErrRateLimited))
	}
}
