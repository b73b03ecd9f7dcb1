package errors

import (
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/memberplatform/memberplatform-go/internal/httpx"
)

// ValidationError is returned, before any request is sent, for invalid
// input: Fields lists every offending field, not only the first.
type ValidationError struct {
	Operation string
	Fields    []FieldError
}

// Error returns "memberplatform: <operation>: invalid input: field: message; ...".
func (e *ValidationError) Error() string {
	s := prefix(e.Operation) + "invalid input"
	if len(e.Fields) > 0 {
		s += ": " + summarizeFields(e.Fields)
	}
	return s
}

// Is matches ErrInvalidInput.
func (e *ValidationError) Is(target error) bool { return target == ErrInvalidInput }

// FieldErrors returns Fields.
func (e *ValidationError) FieldErrors() []FieldError { return e.Fields }

// TokenError is returned when no bearer token could be obtained (the token
// endpoint or source failed, or gave no usable token); no request is sent.
type TokenError struct {
	Operation  string // the SDK call that needed the token; "" when the token source was called directly
	StatusCode int    // the token endpoint's HTTP status, or 0 when there was no response
	Body       []byte // a bounded snippet of an unusable 2xx token response; may hold secrets, so Error and GoString leave it out
	Reason     string // what was wrong with a 2xx response ("no token field")
	Err        error  // the cause: an *Error for a non-2xx, a *TransportError, a context error or the token source's
	Last       *Error // the call's last error response when a token refresh between its retries failed, or nil
}

// Error returns one line naming the cause, without the response body.
func (e *TokenError) Error() string {
	s := prefix(e.Operation) + "obtaining bearer token"
	if e.StatusCode != 0 && (e.Err == nil || e.Reason != "") {
		s += ": status " + strconv.Itoa(e.StatusCode)
	}
	if e.Reason != "" {
		s += ": " + e.Reason
	}
	if e.Err != nil {
		s += ": " + strings.TrimPrefix(e.Err.Error(), "memberplatform: ")
	}
	return s
}

// GoString redacts Body, so %#v cannot print a token.
func (e *TokenError) GoString() string {
	return "&errors.TokenError{StatusCode:" + strconv.Itoa(e.StatusCode) + ", Body:<redacted " + strconv.Itoa(len(e.Body)) + " bytes>, Reason:" + strconv.Quote(e.Reason) + "}"
}

// Unwrap returns Err and, when set, Last.
func (e *TokenError) Unwrap() []error { return unwrapWithLast(e.Err, e.Last) }

// Is matches ErrTokenUnavailable.
func (e *TokenError) Is(target error) bool { return target == ErrTokenUnavailable }

// TransportError is returned when no HTTP response was received (refused
// or reset connection, attempt timeout, cancelled or expired context), or a
// rate limiter refused to wait: the adaptive one's refusal matches
// ErrRateLimited, and context.DeadlineExceeded when the deadline was why.
// Admission control's refusal of a call whose operation's attempts got no
// answer is one too, matching ErrLoadShed (and a timeout, Timeout() true,
// when they timed out).
type TransportError struct {
	Operation  string        // as on *Error
	Method     string        // as on *Error
	Path       string        // as on *Error
	Attempts   int           // HTTP attempts made; 0 when the call ended before the first
	Waited     time.Duration // the total time spent in backoff between attempts
	LastStatus int           // the status of the last response seen before the failure, or 0
	// Last is the last error response, retried before the failure, or nil;
	// unwrapped after Err, so errors.Is(err, ErrRateLimited) holds for a
	// call whose Retry-After wait was cancelled.
	Last *Error
	Err  error // the last cause: a *url.Error, context.Canceled, context.DeadlineExceeded...
}

// Error returns one line: operation, method and path, cause, last status and attempts.
func (e *TransportError) Error() string {
	s := prefix(e.Operation)
	if e.Method != "" {
		s += e.Method + " " + e.Path + ": "
	}
	if e.Err != nil {
		s += e.Err.Error()
	} else {
		s += "no response"
	}
	if e.LastStatus != 0 {
		s += " (last status " + strconv.Itoa(e.LastStatus) + " " + http.StatusText(e.LastStatus) + ")"
	}
	if e.Attempts > 1 {
		s += " (after " + strconv.Itoa(e.Attempts) + " attempts)"
	}
	return s
}

// Unwrap returns Err and, when set, Last.
func (e *TransportError) Unwrap() []error { return unwrapWithLast(e.Err, e.Last) }

// Is matches ErrTransport.
func (e *TransportError) Is(target error) bool { return target == ErrTransport }

// Timeout reports whether the cause was a timeout or an expired deadline.
func (e *TransportError) Timeout() bool { return httpx.IsTimeout(e.Err) }

// prefix starts every error line: the package, then the operation, if any.
func prefix(operation string) string {
	if operation == "" {
		return "memberplatform: "
	}
	return "memberplatform: " + operation + ": "
}

// unwrapWithLast is the Unwrap list of the cause, then the last answer, each if set.
func unwrapWithLast(cause error, last *Error) []error {
	var errs []error
	if cause != nil {
		errs = append(errs, cause)
	}
	if last != nil {
		errs = append(errs, last)
	}
	return errs
}
