package errors

import (
	stderrors "errors"
	"time"
)

// FieldErrorsOf returns the field-level details of err: those of an *Error
// (decoded from either error format), or of a *ValidationError, found
// anywhere in err's chain (a *TransportError or *TokenError reaches the
// server's last answer). It returns nil when there are none.
func FieldErrorsOf(err error) []FieldError {
	var withFields interface{ FieldErrors() []FieldError }
	if stderrors.As(err, &withFields) {
		return withFields.FieldErrors()
	}
	return nil
}

// RetryAfterOf returns how long the platform asked the caller to wait
// (Retry-After or Retry-After-Ms on a 429 or 503), from the *Error found in
// err's chain. ok is false when no answer in the chain asked for a wait.
func RetryAfterOf(err error) (wait time.Duration, ok bool) {
	var apiErr *Error
	if stderrors.As(err, &apiErr) && apiErr.RetryAfter > 0 {
		return apiErr.RetryAfter, true
	}
	return 0, false
}
