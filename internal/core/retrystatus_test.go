package core

import (
	"errors"
	"net/http"
	"testing"

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
