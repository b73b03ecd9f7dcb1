package errors

import (
	"net/http"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Error is returned when the platform answers with a non-2xx status, or with
// a 2xx body the SDK could not decode (then StatusCode is that 2xx status and
// Err holds the decoding failure). Use errors.As to reach it and errors.Is
// with the Err* kinds to classify it.
type Error struct {
	// Operation names the SDK call, such as "accessmgmt.UpdateUser".
	Operation string
	// Method and Path are the request's HTTP method and URL path (never
	// the query string).
	Method string
	Path   string
	// StatusCode is the HTTP status of the last response; it is
	// authoritative over any status in the body.
	StatusCode int
	// Header is the last response's headers.
	Header http.Header
	// RequestID is the server's correlation ID, from X-Request-Id,
	// X-Amzn-RequestId, traceparent or similar headers; "" if none.
	RequestID string
	// Attempts is how many HTTP attempts the call made, retries included.
	Attempts int
	// Body is at most MaxBodySnippet bytes of the raw response body;
	// BodyTruncated reports whether the body was longer.
	Body          []byte
	BodyTruncated bool
	// Problem is the decoded RFC 9457 body, when the response was one.
	Problem *Problem
	// CodeMessage is the decoded code/message body, when the response was one.
	CodeMessage *CodeMessage
	// RetryAfter is how long the server asked the client to wait
	// (Retry-After or Retry-After-Ms), or 0 when it did not say.
	RetryAfter time.Duration
	// Err is an underlying cause, such as the JSON error for an undecodable
	// 2xx body; nil for ordinary error responses.
	Err error

	// summary is a readable message found in a body of neither format.
	summary string
}

// Error returns one line: operation, status, title or code, detail or
// message, a summary of the field errors, the attempt count and request ID.
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("memberplatform: ")
	if e.Operation != "" {
		b.WriteString(e.Operation)
		b.WriteString(": ")
	}
	b.WriteString(strconv.Itoa(e.StatusCode))
	if t := http.StatusText(e.StatusCode); t != "" {
		b.WriteString(" " + t)
	}
	title, detail := e.headline()
	if title != "" {
		b.WriteString(": " + oneLine(title, 200))
	}
	if detail != "" && detail != title {
		b.WriteString(": " + oneLine(detail, 300))
	}
	if e.Err != nil {
		b.WriteString(": " + oneLine(e.Err.Error(), 300))
	}
	if fs := e.FieldErrors(); len(fs) > 0 {
		b.WriteString(" [" + summarizeFields(fs) + "]")
	}
	if e.RetryAfter > 0 {
		b.WriteString(" (retry after " + e.RetryAfter.String() + ")")
	}
	if e.Attempts > 1 {
		b.WriteString(" (after " + strconv.Itoa(e.Attempts) + " attempts)")
	}
	if e.RequestID != "" {
		b.WriteString(" (request id " + oneLine(e.RequestID, 128) + ")")
	}
	return b.String()
}

func (e *Error) headline() (title, detail string) {
	switch {
	case e.Problem != nil:
		title = e.Problem.Title
		if e.Problem.ServiceCode != "" {
			title = strings.TrimSpace(title + " (" + e.Problem.ServiceCode + ")")
		}
		if title == "" && e.Problem.Type != "" && e.Problem.Type != "about:blank" {
			title = e.Problem.Type
		}
		return title, e.Problem.Detail
	case e.CodeMessage != nil:
		return e.CodeMessage.Code, e.CodeMessage.Message
	}
	return "", e.summary
}

// Unwrap returns Err.
func (e *Error) Unwrap() error { return e.Err }

// Is reports whether target is one of the kinds this error belongs to: the
// kind of its HTTP status, and the kind its body names, if any.
func (e *Error) Is(target error) bool {
	if target == nil {
		return false
	}
	if k := kindForStatus(e.StatusCode); k == target {
		return true
	}
	if e.StatusCode >= 200 && e.StatusCode < 300 && e.Err != nil && target == ErrUnexpectedResponseBody {
		return true
	}
	return e.bodyKind() == target
}

// Kind returns the most specific kind of the error: the kind its body names
// when there is one (so a provider-not-configured 503 is
// ErrProviderNotConfigured), else the kind of its status, else nil.
func (e *Error) Kind() error {
	if k := e.bodyKind(); k != nil {
		return k
	}
	if e.StatusCode >= 200 && e.StatusCode < 300 && e.Err != nil {
		return ErrUnexpectedResponseBody
	}
	return kindForStatus(e.StatusCode)
}

func (e *Error) bodyKind() error {
	if p := e.Problem; p != nil {
		for _, s := range []string{p.Type, p.Title, p.Detail} {
			if k := classifyText(s); k != nil {
				return k
			}
		}
		if k := kindForName(lastSegment(p.Type)); k != nil {
			return k
		}
		if k := kindForName(p.Title); k != nil {
			return k
		}
	}
	if c := e.CodeMessage; c != nil {
		if k := kindForName(c.Code); k != nil {
			return k
		}
		if k := classifyText(c.Message); k != nil {
			return k
		}
	}
	return nil
}

// FieldErrors returns the field-level details of the body, whichever format
// it was in, or nil.
func (e *Error) FieldErrors() []FieldError {
	if e.Problem != nil {
		return e.Problem.FieldErrors()
	}
	return e.CodeMessage.FieldErrors()
}

// Temporary reports whether the same request may succeed later: 408, 429,
// 500, 502, 503 and 504, except when the body says the provider is not
// configured (retrying cannot fix configuration).
func (e *Error) Temporary() bool {
	if e.bodyKind() == ErrProviderNotConfigured {
		return false
	}
	switch e.StatusCode {
	case http.StatusRequestTimeout, http.StatusTooManyRequests, http.StatusInternalServerError,
		http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return true
	}
	return false
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
