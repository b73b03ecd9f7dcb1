package observe

import (
	"context"
	stderrors "errors"

	apierrors "github.com/memberplatform/memberplatform-go/errors"
	"github.com/memberplatform/memberplatform-go/internal/httpx"
)

// The values ErrorType returns: a short, stable, low-cardinality name for
// what went wrong, as OpenTelemetry's error.type attribute wants. An error
// response of a status the SDK gives no kind is named by its status class
// ("4xx", "5xx"), so a server's odd statuses add no attribute values.
const (
	// Rate limited: a 429, or a body saying the provider rate limited the
	// request (errors.ErrRateLimited), also when the call then ran out of
	// time, or was cancelled, waiting for its turn (its error matches the
	// context's error too).
	ErrorRateLimited = "rate_limited"
	// The call's context was cancelled.
	ErrorCanceled = "canceled"
	// A deadline passed: the call's context, option.WithTimeout or the
	// per-attempt timeout.
	ErrorTimeout = "timeout"
	// Refused before sending (*errors.ValidationError).
	ErrorInvalidInput = "invalid_input"
	// The bearer token could not be obtained (*errors.TokenError).
	ErrorTokenUnavailable = "token_unavailable"
	// No usable response: a refused or reset connection, a body cut short
	// (*errors.TransportError, or an attempt's raw failure).
	ErrorTransport = "transport"
	// The provider is not configured (errors.ErrProviderNotConfigured).
	ErrorProviderNotConfigured = "provider_not_configured"
	// The error responses, by kind (package errors).
	ErrorBadRequest          = "bad_request"          // 400
	ErrorUnauthorized        = "unauthorized"         // 401
	ErrorForbidden           = "forbidden"            // 403
	ErrorNotFound            = "not_found"            // 404
	ErrorConflict            = "conflict"             // 409
	ErrorUnprocessableEntity = "unprocessable_entity" // 422
	ErrorInternal            = "internal"             // 500
	ErrorNotImplemented      = "not_implemented"      // 501
	ErrorServiceUnavailable  = "service_unavailable"  // 502, 503, 504
	// A 2xx whose body could not be decoded or was too long
	// (errors.ErrUnexpectedResponseBody).
	ErrorUnexpectedResponseBody = "unexpected_response_body"
)

// ErrorType names err for telemetry with one of the Error* values above,
// or the status class of an error response of no known kind ("4xx"; "_OTHER"
// outside 100-599, OpenTelemetry's fallback value); "" for nil.
// The first that applies wins, in the order of the constants: a call that
// ran out of time waiting after a 429 is "rate_limited", a 503 after which
// the retry budget stopped the call is "service_unavailable" (the budget's
// refusal is an event of its own). It never returns text from the error
// itself.
func ErrorType(err error) string {
	if err == nil {
		return ""
	}
	switch {
	case stderrors.Is(err, apierrors.ErrRateLimited):
		return ErrorRateLimited
	case stderrors.Is(err, context.Canceled):
		return ErrorCanceled
	case stderrors.Is(err, context.DeadlineExceeded) || httpx.IsTimeout(err):
		return ErrorTimeout
	case stderrors.Is(err, apierrors.ErrInvalidInput):
		return ErrorInvalidInput
	case stderrors.Is(err, apierrors.ErrTokenUnavailable):
		return ErrorTokenUnavailable
	case stderrors.Is(err, apierrors.ErrTransport):
		return ErrorTransport
	}
	var apiErr *apierrors.Error
	if !stderrors.As(err, &apiErr) {
		// An attempt's raw failure: nothing but a transport failure
		// reaches an Observer untyped.
		return ErrorTransport
	}
	for _, k := range kindNames {
		if apiErr.Kind() == k.kind {
			return k.name
		}
	}
	return statusClass(apiErr.StatusCode)
}

// ErrorOther is error.type's fallback in the OpenTelemetry semantic
// conventions, for a status outside 100-599.
const ErrorOther = "_OTHER"

// statusClass returns "1xx" to "5xx" for status, else ErrorOther.
func statusClass(status int) string {
	if status < 100 || status > 599 {
		return ErrorOther
	}
	return [...]string{"1xx", "2xx", "3xx", "4xx", "5xx"}[status/100-1]
}

// kindNames maps the kinds of an error response to their names.
var kindNames = []struct {
	kind error
	name string
}{
	{apierrors.ErrProviderNotConfigured, ErrorProviderNotConfigured},
	{apierrors.ErrUnexpectedResponseBody, ErrorUnexpectedResponseBody},
	{apierrors.ErrBadRequest, ErrorBadRequest},
	{apierrors.ErrUnauthorized, ErrorUnauthorized},
	{apierrors.ErrForbidden, ErrorForbidden},
	{apierrors.ErrNotFound, ErrorNotFound},
	{apierrors.ErrConflict, ErrorConflict},
	{apierrors.ErrUnprocessableEntity, ErrorUnprocessableEntity},
	{apierrors.ErrInternal, ErrorInternal},
	{apierrors.ErrNotImplemented, ErrorNotImplemented},
	{apierrors.ErrServiceUnavailable, ErrorServiceUnavailable},
}
