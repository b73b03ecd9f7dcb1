package observe_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"testing"

	apierrors "github.com/memberplatform/memberplatform-go/errors"
	"github.com/memberplatform/memberplatform-go/observe"
)

type timeoutErr struct{}

func (timeoutErr) Error() string { return "i/o timeout" }
func (timeoutErr) Timeout() bool { return true }

func TestErrorType(t *testing.T) {
	status := func(code int) *apierrors.Error { return apierrors.Decode(code, http.Header{}, nil) }
	problem := func(code int, title string) *apierrors.Error {
		return apierrors.Decode(code, http.Header{"Content-Type": {"application/problem+json"}}, []byte(`{"title":"`+title+`"}`))
	}
	throttled := &apierrors.TransportError{Err: fmt.Errorf("waiting: %w", context.DeadlineExceeded), Last: status(429)}
	tests := []struct {
		name string
		err  error
		want string
	}{
		{"nil", nil, ""},
		{"429", status(429), observe.ErrorRateLimited},
		{"a rate-limited problem on a 503", problem(503, "Rate limit exceeded"), observe.ErrorRateLimited},
		{"deadline while waiting after a 429", throttled, observe.ErrorRateLimited},
		{"provider not configured", problem(503, "Provider not configured"), observe.ErrorProviderNotConfigured},
		{"503", status(503), observe.ErrorServiceUnavailable},
		{"502", status(502), observe.ErrorServiceUnavailable},
		{"404", status(404), observe.ErrorNotFound},
		{"400", status(400), observe.ErrorBadRequest},
		{"401", status(401), observe.ErrorUnauthorized},
		{"403", status(403), observe.ErrorForbidden},
		{"409", status(409), observe.ErrorConflict},
		{"422", status(422), observe.ErrorUnprocessableEntity},
		{"500", status(500), observe.ErrorInternal},
		{"501", status(501), observe.ErrorNotImplemented},
		{"418, no kind: its class", status(418), "4xx"},
		{"599, no kind", status(599), "5xx"},
		{"307 not followed", status(307), "3xx"},
		{"a status out of range", status(999), "_OTHER"},
		{"undecodable 2xx", &apierrors.Error{StatusCode: 200, Err: errors.New("bad json")}, observe.ErrorUnexpectedResponseBody},
		{"cancelled", &apierrors.TransportError{Err: context.Canceled, Last: status(503)}, observe.ErrorCanceled},
		{"deadline", &apierrors.TransportError{Err: context.DeadlineExceeded}, observe.ErrorTimeout},
		{"attempt timeout", &apierrors.TransportError{Err: timeoutErr{}}, observe.ErrorTimeout},
		{"reset after a 503", &apierrors.TransportError{Err: io.ErrUnexpectedEOF, Last: status(503)}, observe.ErrorTransport},
		{"raw attempt failure", &net.OpError{Op: "read", Err: errors.New("connection reset")}, observe.ErrorTransport},
		{"raw attempt timeout", &net.OpError{Op: "read", Err: timeoutErr{}}, observe.ErrorTimeout},
		{"token", &apierrors.TokenError{Err: status(403)}, observe.ErrorTokenUnavailable},
		{"validation", &apierrors.ValidationError{}, observe.ErrorInvalidInput},
	}
	for _, tt := range tests {
		if got := observe.ErrorType(tt.err); got != tt.want {
			t.Errorf("%s: ErrorType = %q, want %q", tt.name, got, tt.want)
		}
	}
}
