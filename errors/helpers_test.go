package errors_test

import (
	"context"
	stderrors "errors"
	"fmt"
	"net/http"
	"testing"
	"time"

	apierrors "github.com/memberplatform/memberplatform-go/errors"
	"github.com/memberplatform/memberplatform-go/internal/redact"
)

// turnIn is a rate limiter's refusal whose next turn is that far away.
type turnIn time.Duration

func (d turnIn) Error() string             { return "next turn in " + time.Duration(d).String() }
func (d turnIn) RetryAfter() time.Duration { return time.Duration(d) }

var _ apierrors.RetryAfterError = turnIn(0)

// TestFieldErrorsOfAndRetryAfterOf also pins that a *TransportError or
// *TokenError keeps its own kind and cause while reaching Last.
func TestFieldErrorsOfAndRetryAfterOf(t *testing.T) {
	problem := apierrors.Decode(http.StatusUnprocessableEntity, http.Header{"Content-Type": {"application/problem+json"}},
		[]byte(`{"title":"Unprocessable","status":422,"serviceErrors":[{"detail":"is required","pointer":"/email"}]}`))
	throttled := apierrors.Decode(http.StatusTooManyRequests, http.Header{"Retry-After": {"7"}}, nil)
	validation := &apierrors.ValidationError{Fields: []apierrors.FieldError{{Field: "userId", Message: "is required"}}}
	cases := []struct {
		name      string
		err       error
		field     string // "" when no field errors are expected
		wait      time.Duration
		rateLimit bool
		is        []error          // further targets errors.Is must match
		last      *apierrors.Error // what errors.As must find, if set
	}{
		{"nil", nil, "", 0, false, nil, nil},
		{"plain error", stderrors.New("boom"), "", 0, false, nil, nil},
		{"problem", problem, "email", 0, false, nil, problem},
		{"wrapped problem", fmt.Errorf("saving: %w", problem), "email", 0, false, nil, problem},
		{"validation", validation, "userId", 0, false, nil, nil},
		{"wrapped validation", fmt.Errorf("input: %w", validation), "userId", 0, false, nil, nil},
		{"429", throttled, "", 7 * time.Second, true, nil, throttled},
		{"cancelled Retry-After wait", &apierrors.TransportError{Err: context.Canceled, Last: throttled}, "", 7 * time.Second, true,
			[]error{apierrors.ErrTransport, context.Canceled}, throttled},
		{"token refresh failed after a 429", &apierrors.TokenError{Err: context.DeadlineExceeded, Last: throttled}, "", 7 * time.Second, true,
			[]error{apierrors.ErrTokenUnavailable, context.DeadlineExceeded}, throttled},
		{"transport error after a 422", &apierrors.TransportError{Err: context.DeadlineExceeded, Last: problem}, "email", 0, false,
			[]error{apierrors.ErrTransport, context.DeadlineExceeded}, problem},
		{"transport error without an answer", &apierrors.TransportError{Err: context.Canceled}, "", 0, false, []error{apierrors.ErrTransport}, nil},
		// A limiter's refusal that knows its wait is read before the
		// answer retried earlier (errors.As order); one that knows none
		// leaves the answer's.
		{"limiter's wait before the last answer's", &apierrors.TransportError{Err: turnIn(3 * time.Second), Last: throttled}, "", 3 * time.Second, true,
			[]error{apierrors.ErrTransport}, throttled},
		{"limiter knowing no wait", &apierrors.TransportError{Err: turnIn(0), Last: throttled}, "", 7 * time.Second, true,
			[]error{apierrors.ErrTransport}, throttled},
		{"limiter's wait alone", fmt.Errorf("waiting: %w", turnIn(time.Second)), "", time.Second, false, nil, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			fields := apierrors.FieldErrorsOf(tc.err)
			if (tc.field == "") != (len(fields) == 0) || (tc.field != "" && fields[0].Field != tc.field) {
				t.Errorf("FieldErrorsOf = %+v, want field %q", fields, tc.field)
			}
			wait, ok := apierrors.RetryAfterOf(tc.err)
			if wait != tc.wait || ok != (tc.wait > 0) {
				t.Errorf("RetryAfterOf = %v, %v; want %v", wait, ok, tc.wait)
			}
			if got := stderrors.Is(tc.err, apierrors.ErrRateLimited); got != tc.rateLimit {
				t.Errorf("errors.Is(err, ErrRateLimited) = %v, want %v", got, tc.rateLimit)
			}
			for _, target := range tc.is {
				if !stderrors.Is(tc.err, target) {
					t.Errorf("errors.Is(err, %v) = false", target)
				}
			}
			var apiErr *apierrors.Error
			if found := stderrors.As(tc.err, &apiErr); found != (tc.last != nil) || found && apiErr != tc.last {
				t.Errorf("errors.As found %v, want %v", apiErr, tc.last)
			}
		})
	}
}

func TestRedactedIsTheSDKsReplacement(t *testing.T) {
	if apierrors.Redacted != redact.Redacted {
		t.Fatalf("errors.Redacted = %q, internal/redact writes %q", apierrors.Redacted, redact.Redacted)
	}
}
