package errors

import (
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Error is returned when the platform answers with a non-2xx status, or
// with a 2xx body the SDK could not decode (then Err holds the decoding
// failure). One whose Err matches ErrLoadShed is the client's own refusal
// of a call whose operation's (or area's) 5xx answers made its admission
// control refuse it: nothing was sent by that attempt, StatusCode is the
// operation's last 5xx's, no Header or body, and RetryAfterOf(err), not
// the RetryAfter field, says when to come back.
type Error struct {
	Operation  string      // the SDK call, such as "accessmgmt.UpdateUser"
	Method     string      // the request's HTTP method
	Path       string      // the request's URL path, never the query
	StatusCode int         // the last response's status, authoritative over one in the body
	Header     http.Header // the last response's headers
	RequestID  string      // from X-Request-Id, X-Amzn-RequestId, traceparent or the like
	Attempts   int         // HTTP attempts the call made, retries included
	// Body is at most MaxBodySnippet (for a 2xx too large,
	// option.WithMaxResponseBytes) bytes of the raw body, the request's
	// secrets Redacted.
	Body          []byte
	BodyTruncated bool          // the body was longer, or its reading failed
	Problem       *Problem      // the decoded RFC 9457 body, if it was one
	CodeMessage   *CodeMessage  // the decoded code/message body, if it was one
	RetryAfter    time.Duration // the wait a 429 or 503 asked for with Retry-After or Retry-After-Ms, or 0
	Err           error         // the cause, if any: an undecodable 2xx body's JSON error, ErrRetryBudgetExhausted or ErrLoadShed

	bodyKind      error // textKind's answer, kept by Decode: the retry policy, Is and Kind ask
	bodyKindKnown bool
}

// Error returns one line: operation (or method and path), status, title or
// code, detail or message, field errors, Retry-After wait, attempts and
// request ID, with server text made printable and bounded; never headers,
// other body members or the raw body.
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(prefix(e.Operation))
	if e.Operation == "" && e.Method != "" {
		b.WriteString(oneLine(e.Method, 16) + " " + oneLine(e.Path, 200) + ": ")
	}
	b.WriteString(strconv.Itoa(e.StatusCode))
	if t := http.StatusText(e.StatusCode); t != "" {
		b.WriteString(" " + t)
	}
	title, detail := oneLine(e.Title(), 200), oneLine(e.Detail(), 300)
	if title != "" && !e.restatesStatus(title) {
		b.WriteString(": " + title)
	}
	if detail != "" && detail != title && !e.restatesStatus(detail) {
		b.WriteString(": " + detail)
	}
	if e.Err != nil {
		b.WriteString(": " + oneLine(e.Err.Error(), 300))
	}
	// The list is left out when it only repeats the detail.
	if fs := e.FieldErrors(); len(fs) > 0 {
		if sum := summarizeFields(fs); sum != detail && (len(fs) > 1 || oneLine(fs[0].Message, 300) != detail) {
			b.WriteString(" [" + sum + "]")
		}
	}
	if e.RetryAfter > 0 {
		d := e.RetryAfter.Round(time.Second)
		if e.RetryAfter < 10*time.Second {
			d = e.RetryAfter.Round(time.Millisecond)
		}
		b.WriteString(" (retry after " + d.String() + ")")
	}
	if e.Attempts > 1 {
		b.WriteString(" (after " + strconv.Itoa(e.Attempts) + " attempts)")
	}
	if e.RequestID != "" {
		b.WriteString(" (request id " + oneLine(e.RequestID, 128) + ")")
	}
	return b.String()
}

// restatesStatus reports whether s only repeats the status line ("Not Found", "502 Bad Gateway").
func (e *Error) restatesStatus(s string) bool {
	n := normalizeName(s)
	code := strconv.Itoa(e.StatusCode)
	text := normalizeName(http.StatusText(e.StatusCode))
	return n == code || (text != "" && (n == text || n == code+"_"+text))
}

// GoString leaves out the raw body and headers, so %#v cannot print a secret.
func (e *Error) GoString() string {
	return "&errors.Error{Operation:" + strconv.Quote(e.Operation) + ", StatusCode:" + strconv.Itoa(e.StatusCode) +
		", RequestID:" + strconv.Quote(e.RequestID) + ", Body:<" + strconv.Itoa(len(e.Body)) + " bytes>, Message:" + strconv.Quote(e.Error()) + "}"
}

// texts returns a problem's type, the title or code, and the detail or message.
func (e *Error) texts() (typ, title, detail string) {
	switch {
	case e.Problem != nil:
		return e.Problem.Type, e.Problem.Title, e.Problem.Detail
	case e.CodeMessage != nil:
		return "", e.CodeMessage.Code, e.CodeMessage.Message
	}
	return "", "", ""
}

// Title returns the problem's title (else its type) and service code, or
// the code/message body's code; "" for a body of neither format.
func (e *Error) Title() string {
	typ, title, _ := e.texts()
	if title == "" && typ != "about:blank" {
		title = typ
	}
	if e.Problem != nil && e.Problem.ServiceCode != "" {
		title = strings.TrimSpace(title + " (" + e.Problem.ServiceCode + ")")
	}
	return title
}

// Detail returns the problem's detail or the code/message body's message;
// "" for a body of neither format (its text is in Body).
func (e *Error) Detail() string { _, _, d := e.texts(); return d }

// Unwrap returns Err.
func (e *Error) Unwrap() error { return e.Err }

// Is reports whether target is a kind of e: its status's or its body's.
func (e *Error) Is(target error) bool {
	return target != nil && (statusKinds[e.StatusCode] == target ||
		target == ErrUnexpectedResponseBody && e.undecodable() ||
		e.textKind() == target || e.nameKind() == target)
}

// Kind returns the most specific kind of e: ErrProviderNotConfigured or
// ErrRateLimited when the body's wording says so; else
// ErrUnexpectedResponseBody for an undecodable 2xx body; else the status's
// kind; else the kind the body names; else nil.
func (e *Error) Kind() error {
	if k := e.textKind(); k != nil {
		return k
	}
	if e.undecodable() {
		return ErrUnexpectedResponseBody
	}
	if k := statusKinds[e.StatusCode]; k != nil {
		return k
	}
	return e.nameKind()
}

func (e *Error) undecodable() bool { return e.StatusCode >= 200 && e.StatusCode < 300 && e.Err != nil }

// textKind is the kind the body's wording names (see the Err* kinds), kept
// by Decode, or worked out now for an Error built by hand.
func (e *Error) textKind() error {
	if e.bodyKindKnown {
		return e.bodyKind
	}
	typ, title, detail := e.texts()
	if k := classifyText(typ); k != nil {
		return k
	}
	if k := classifyText(title); k != nil || e.StatusCode != http.StatusTooManyRequests && e.StatusCode < 500 {
		return k
	}
	return classifyText(detail)
}

// nameKind is the kind named by a problem's type URI's last segment, the title or the code.
func (e *Error) nameKind() error {
	typ, title, _ := e.texts()
	if k := kindForName(lastSegment(typ)); k != nil {
		return k
	}
	return kindForName(title)
}

// FieldErrors returns the body's field-level details, in either format, or nil.
func (e *Error) FieldErrors() []FieldError {
	if e.Problem != nil {
		return e.Problem.FieldErrors()
	}
	return e.CodeMessage.FieldErrors()
}

// RetryAfterError is an error that knows when to try again: the SDK's
// adaptive pacer's refusal and fleet's *WaitError implement it, and so may
// the errors of a limiter of your own (option.WithRateLimiter).
type RetryAfterError interface {
	error
	RetryAfter() time.Duration // how long to wait before trying again; 0 when unknown
}

// RetryAfterOf returns the first wait err's chain knows, in errors.As order:
// an *Error's RetryAfter (the platform asked for it) or a RetryAfterError's
// (a rate limiter's next turn). ok is false when nothing in the chain knows
// one. Every failure matching ErrRateLimited that a wait would cure has one.
func RetryAfterOf(err error) (wait time.Duration, ok bool) {
	switch e := err.(type) {
	case *Error:
		if e.RetryAfter > 0 {
			return e.RetryAfter, true
		}
	case RetryAfterError:
		if d := e.RetryAfter(); d > 0 {
			return d, true
		}
	}
	switch u := err.(type) {
	case interface{ Unwrap() error }:
		return RetryAfterOf(u.Unwrap())
	case interface{ Unwrap() []error }:
		for _, e := range u.Unwrap() {
			if d, ok := RetryAfterOf(e); ok {
				return d, true
			}
		}
	}
	return 0, false
}

// Temporary reports whether the same request may succeed later: 408, 429,
// 500, 502, 503 and 504, except when the body says the provider is not
// configured.
func (e *Error) Temporary() bool {
	switch e.StatusCode {
	case http.StatusRequestTimeout, http.StatusTooManyRequests, http.StatusInternalServerError,
		http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return e.textKind() != ErrProviderNotConfigured
	}
	return false
}
