package errors

import (
	"net/http"
	"strconv"
	"strings"
	"time"
)

// ValidationError is returned, before any request is sent, when the SDK
// finds the input invalid. Fields lists every offending field, not only the
// first. It matches ErrInvalidInput with errors.Is.
type ValidationError struct {
	Operation string
	Fields    []FieldError
}

// Error returns "memberplatform: <operation>: invalid input: field: message; ...".
func (e *ValidationError) Error() string {
	var b strings.Builder
	b.WriteString("memberplatform: ")
	if e.Operation != "" {
		b.WriteString(e.Operation + ": ")
	}
	b.WriteString("invalid input")
	if len(e.Fields) > 0 {
		b.WriteString(": " + summarizeFields(e.Fields))
	}
	return b.String()
}

// Is matches ErrInvalidInput.
func (e *ValidationError) Is(target error) bool { return target == ErrInvalidInput }

// FieldErrors returns Fields, for symmetry with (*Error).FieldErrors.
func (e *ValidationError) FieldErrors() []FieldError { return e.Fields }

// TokenError is returned when the bearer token could not be obtained: the
// token endpoint failed, answered with a body that holds no usable token, or
// the token source returned an error. No API request is sent without a token.
// Err is the cause: an *Error for a non-2xx token response, a
// *TransportError, a context error, or the token source's own error.
// Neither Error nor GoString ever includes the token response body.
type TokenError struct {
	// Operation names the SDK call that needed the token ("" when the
	// token source was called directly).
	Operation string
	// StatusCode is the token endpoint's HTTP status, or 0 when there was
	// no response.
	StatusCode int
	// Body is a bounded snippet of an unusable 2xx token response. It may
	// hold secrets: it is never included in Error() or GoString().
	Body []byte
	// Reason says what was wrong with a 2xx response ("no token field").
	Reason string
	Err    error
	// Last is the decoded last error response of the call that needed the
	// token, when a token refresh failed between its retries (after a 429,
	// say); nil otherwise. errors.Is and errors.As reach it, so
	// errors.Is(err, ErrRateLimited) still tells that the platform
	// throttled the call.
	Last *Error
}

// Error returns one line naming the cause, without the response body.
func (e *TokenError) Error() string {
	var b strings.Builder
	b.WriteString("memberplatform: ")
	if e.Operation != "" {
		b.WriteString(e.Operation + ": ")
	}
	b.WriteString("obtaining bearer token")
	if e.StatusCode != 0 && (e.Err == nil || e.Reason != "") {
		b.WriteString(": status " + strconv.Itoa(e.StatusCode))
	}
	if e.Reason != "" {
		b.WriteString(": " + e.Reason)
	}
	if e.Err != nil {
		b.WriteString(": " + strings.TrimPrefix(e.Err.Error(), "memberplatform: "))
	}
	return b.String()
}

// GoString redacts Body, so %#v cannot print a token.
func (e *TokenError) GoString() string {
	return "&errors.TokenError{StatusCode:" + strconv.Itoa(e.StatusCode) + ", Body:<redacted " + strconv.Itoa(len(e.Body)) + " bytes>, Reason:" + strconv.Quote(e.Reason) + "}"
}

// Unwrap returns Err and, when set, Last.
func (e *TokenError) Unwrap() []error { return unwrapWithLast(e.Err, e.Last) }

// unwrapWithLast is the Unwrap list of an error that ended a call without a
// final response: its cause, then the server's last answer if there was one.
func unwrapWithLast(cause error, last *Error) []error {
	switch {
	case last == nil && cause == nil:
		return nil
	case last == nil:
		return []error{cause}
	case cause == nil:
		return []error{last}
	}
	return []error{cause, last}
}

// Is matches ErrTokenUnavailable.
func (e *TokenError) Is(target error) bool { return target == ErrTokenUnavailable }

// TransportError is returned when no HTTP response was received after all
// attempts: connection refused or reset, a per-attempt timeout, a cancelled
// or expired context. Err is the last cause (a *url.Error,
// context.Canceled, context.DeadlineExceeded...), reachable with errors.Is
// and errors.As.
type TransportError struct {
	// Operation, Method and Path name the call, as on *Error.
	Operation string
	Method    string
	Path      string
	// Attempts is how many HTTP attempts the call made; 0 when it ended
	// before the first (a context already cancelled).
	Attempts int
	// Waited is the total time spent in backoff between attempts.
	Waited time.Duration
	// LastStatus is the status of the last response seen before the
	// failure (for example a 503 whose retry was cut short by the context),
	// or 0 if none was received.
	LastStatus int
	// Last is the decoded last error response that was retried before
	// the failure (status, problem, request ID, Retry-After), or nil when
	// no response was received. It is in the Unwrap chain after Err, so
	// errors.Is(err, ErrRateLimited) holds for a call whose Retry-After
	// wait was cancelled, and errors.As(err, &apiErr) finds the answer.
	Last *Error
	Err  error
}

// Error returns one line: operation, attempts and cause.
func (e *TransportError) Error() string {
	var b strings.Builder
	b.WriteString("memberplatform: ")
	if e.Operation != "" {
		b.WriteString(e.Operation + ": ")
	}
	if e.Method != "" {
		b.WriteString(e.Method + " " + e.Path + ": ")
	}
	if e.Err != nil {
		b.WriteString(e.Err.Error())
	} else {
		b.WriteString("no response")
	}
	if e.LastStatus != 0 {
		b.WriteString(" (last status " + strconv.Itoa(e.LastStatus) + " " + http.StatusText(e.LastStatus) + ")")
	}
	if e.Attempts > 1 {
		b.WriteString(" (after " + strconv.Itoa(e.Attempts) + " attempts)")
	}
	return b.String()
}

// Unwrap returns Err and, when set, Last.
func (e *TransportError) Unwrap() []error { return unwrapWithLast(e.Err, e.Last) }

// Is matches ErrTransport.
func (e *TransportError) Is(target error) bool { return target == ErrTransport }

// Timeout reports whether the cause was a timeout or an expired deadline.
func (e *TransportError) Timeout() bool {
	type timeout interface{ Timeout() bool }
	for err := e.Err; err != nil; {
		if t, ok := err.(timeout); ok && t.Timeout() {
			return true
		}
		u, ok := err.(interface{ Unwrap() error })
		if !ok {
			return false
		}
		err = u.Unwrap()
	}
	return false
}
