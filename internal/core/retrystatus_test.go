package core

import (
	"errors"
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
