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
	}{
		{"nil", nil, "", 0, false},
		{"plain error", stderrors.New("boom"), "", 0, false},
		{"problem", problem, "email", 0, false},
		{"wrapped problem", fmt.Errorf("saving: %w", problem), "email", 0, false},
		{"validation", validation, "userId", 0, false},
		{"wrapped validation", fmt.Errorf("input: %w", validation), "userId", 0, false},
		{"429", throttled, "", 7 * time.Second, true},
		{"cancelled Retry-After wait", &apierrors.TransportError{Err: context.Canceled, Last: throttled}, "", 7 * time.Second, true},
		{"token refresh failed after a 429", &apierrors.TokenError{Err: stderrors.New("sts down"), Last: throttled}, "", 7 * time.Second, true},
		{"transport error after a 422", &apierrors.TransportError{Err: context.DeadlineExceeded, Last: problem}, "email", 0, false},
		{"transport error without an answer", &apierrors.TransportError{Err: context.Canceled}, "", 0, false},
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
		})
	}
}

func TestTransportAndTokenErrorsKeepTheirOwnKind(t *testing.T) {
	throttled := apierrors.Decode(http.StatusTooManyRequests, nil, nil)
	te := &apierrors.TransportError{Err: context.Canceled, Last: throttled}
	if !stderrors.Is(te, apierrors.ErrTransport) || !stderrors.Is(te, context.Canceled) {
		t.Fatal("a TransportError with Last must still be ErrTransport and wrap its cause")
	}
	var apiErr *apierrors.Error
	if !stderrors.As(te, &apiErr) || apiErr != throttled {
		t.Fatal("errors.As must find Last")
	}
	tok := &apierrors.TokenError{Err: context.DeadlineExceeded, Last: throttled}
	if !stderrors.Is(tok, apierrors.ErrTokenUnavailable) || !stderrors.Is(tok, context.DeadlineExceeded) || !stderrors.Is(tok, apierrors.ErrRateLimited) {
		t.Fatal("a TokenError with Last must be ErrTokenUnavailable, wrap its cause and reach Last")
	}
}

func TestRedactedIsTheSDKsReplacement(t *testing.T) {
	if apierrors.Redacted != redact.Redacted {
		t.Fatalf("errors.Redacted = %q, internal/redact writes %q", apierrors.Redacted, redact.Redacted)
	}
}
