package client

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"reflect"
	"slices"
	"strings"
	"sync"

	apierrors "github.com/memberplatform/memberplatform-go/errors"
	"github.com/memberplatform/memberplatform-go/internal/core"
	"github.com/memberplatform/memberplatform-go/option"
)

// MaxRequestBodyBytes bounds an io.Reader body of Execute: a longer one
// fails with an *errors.ValidationError before anything is sent, after
// reading at most this many bytes and one more. A []byte, json.RawMessage
// or string body, already in memory, is sent whatever its length.
const MaxRequestBodyBytes = 8 << 20

// Execute calls an endpoint the SDK does not wrap, such as the contract's
// createUser, through the operations' pipeline (token cache
// and 401 refresh, retries, body limits, logging as "client.Execute",
// errors decoded into *errors.Error).
//
// path is relative to the base URL, whose path prefix is kept, with each
// segment escaped by the caller (url.PathEscape); an absolute URL, a query
// or fragment (use option.WithQuery) and a ".." segment are refused.
//
// body is sent as application/json: a []byte, json.RawMessage, string or
// io.Reader is the JSON text itself, unchecked (for a JSON string, pass
// json.Marshal's result); anything else is encoded with encoding/json; nil
// or an empty raw body sends none. A reader is read, and closed if an
// io.Closer, once before the first attempt, so retries resend its bytes.
// It is read under the call's deadline (ctx's, or option.WithTimeout's):
// when that passes or ctx is cancelled first, Execute returns at once with
// the *errors.TransportError of a call that ran out of time, and closes
// the reader, which ends a Read blocked on a pipe, file or connection (as
// net/http closes a cancelled request's body; do not reuse the reader). A
// reader longer than MaxRequestBodyBytes, or one that fails, is refused.
//
// out receives the decoded 2xx body: a non-nil pointer, a *[]byte for the
// raw bytes, or nil to discard it. A method that is no upper-case token, an
// out that is no pointer, and a failing, too long or nil-pointer reader
// are refused before sending. Only idempotent methods (GET, HEAD, OPTIONS, PUT, DELETE,
// TRACE) are retried, unless option.WithIdempotent.
//
// Admission control judges Execute calls as operations keyed by method and
// path shape, a segment that is not a plain lower-case word standing for a
// parameter (PUT /auth/access-management/users/{}): see
// option.WithoutAdmissionControl.
func (c *Client) Execute(ctx context.Context, method, path string, body, out any, opts ...option.RequestOption) error {
	clean, pathMsg := checkRelativePath(path)
	var invalid error // handed to core.Do, which tells the observer of the refused call
	if msg := checkMethod(method); msg != "" {
		invalid, method = invalidExecute("method", msg), "" // not the caller's text in telemetry
	} else if pathMsg != "" {
		invalid = invalidExecute("path", pathMsg)
	} else if out != nil {
		if v := reflect.ValueOf(out); v.Kind() != reflect.Pointer || v.IsNil() {
			// Found after sending, this would report a write as a failure.
			invalid = invalidExecute("out", "must be nil, a *[]byte, or a non-nil pointer to decode the 2xx body into")
		}
	}
	op := &core.Operation{Name: "client.Execute", Method: method, Path: clean, Area: core.AreaOfPath(clean), Auth: true,
		Idempotent: slices.Contains([]string{http.MethodGet, http.MethodHead, http.MethodOptions, http.MethodPut, http.MethodDelete, http.MethodTrace}, method)}
	call := &core.Call{Op: op, Result: out, Invalid: invalid}
	if invalid == nil {
		call.Invalid = setExecuteBody(call, body)
	}
	var pipeline *core.Client // nil for a Client not built by New, which core.Do reports
	if c != nil {
		pipeline = c.core
	}
	if r, ok := body.(io.Reader); ok && !nilPointer(r) {
		body := &onceCloser{Reader: r}
		defer body.close() // also when the call is refused, before or after reading it, as net/http does
		if call.Invalid == nil {
			call.ReadBody = func(ctx context.Context) ([]byte, error) { return readBody(ctx, body) }
		}
	}
	return core.Do(ctx, pipeline, call, opts)
}

// readBody reads r, at most MaxRequestBodyBytes, in a goroutine, so that
// the call ends with ctx even when a Read blocks; it closes r either way,
// when ctx ends too, which unblocks a Read of a pipe, file or connection,
// as net/http closes the body of a cancelled request.
func readBody(ctx context.Context, r *onceCloser) ([]byte, error) {
	type result struct {
		b   []byte
		err error
	}
	done := make(chan result, 1) // the goroutine never blocks on it
	go func() {
		b, err := io.ReadAll(io.LimitReader(ctxReader{ctx, r.Reader}, MaxRequestBodyBytes+1))
		r.close()
		done <- result{b, err}
	}()
	var b []byte
	var err error
	select {
	case res := <-done:
		b, err = res.b, res.err
	case <-ctx.Done():
		r.close()
		return nil, ctx.Err() // core reports the call as out of time
	}
	if err != nil {
		return nil, invalidExecute("body", fmt.Sprintf("reading the %T: %v", r.Reader, err))
	}
	if len(b) > MaxRequestBodyBytes {
		return nil, invalidExecute("body", fmt.Sprintf("a %T longer than client.MaxRequestBodyBytes (%d bytes)", r.Reader, MaxRequestBodyBytes))
	}
	if len(b) == 0 {
		return nil, nil
	}
	return b, nil
}

// ctxReader reads r until ctx ends.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}

// nilPointer reports whether r is a nil pointer, refused as a body: its
// Read or Close may panic.
func nilPointer(r io.Reader) bool {
	v := reflect.ValueOf(r)
	return v.Kind() == reflect.Pointer && v.IsNil()
}

// onceCloser closes its Reader once, if it is an io.Closer, as net/http
// closes a request body: when it is read, when the call runs out of time
// reading it, or when the call is refused before.
type onceCloser struct {
	io.Reader
	once sync.Once
}

func (r *onceCloser) close() {
	r.once.Do(func() {
		if closer, ok := r.Reader.(io.Closer); ok {
			_ = closer.Close()
		}
	})
}

// setExecuteBody puts raw JSON on call as EncodedBody, anything else but
// a reader (Execute's to read) as Body.
func setExecuteBody(call *core.Call, body any) error {
	var raw []byte
	switch b := body.(type) { // nil goes to Body, which it leaves nil
	case []byte:
		raw = b
	case json.RawMessage:
		raw = b
	case string:
		raw = []byte(b)
	case io.Reader:
		if nilPointer(b) { // reading it would panic (a nil *bytes.Buffer does)
			return invalidExecute("body", fmt.Sprintf("a nil %T; pass nil itself to send no body", b))
		}
		return nil // Execute reads it in the pipeline, under the call's deadline
	default:
		call.Body = body
		return nil
	}
	if len(raw) > 0 {
		call.EncodedBody = raw
	}
	return nil
}

func invalidExecute(field, msg string) error {
	return &apierrors.ValidationError{Operation: "client.Execute", Fields: []apierrors.FieldError{{Field: field, Message: msg}}}
}

// checkMethod returns why method cannot be sent, or "".
func checkMethod(method string) string {
	if method == "" {
		return "must not be empty, such as \"POST\""
	}
	for i := 0; i < len(method); i++ {
		c := method[i]
		switch {
		case c <= ' ' || c >= 0x7f || strings.IndexByte(`"(),/:;<=>?@[\]{}`, c) >= 0:
			return "must be an HTTP method token, such as \"POST\""
		case c >= 'a' && c <= 'z': // methods are case-sensitive: "get" is not GET to a server
			return "must be upper case, such as \"GET\""
		}
	}
	return ""
}

// checkRelativePath returns path with a leading "/", or why it would leave
// the base URL (a scheme or host, a ".." segment even escaped or behind an
// escaped '/' or '\\' a proxy may decode) or is no escaped URL path.
func checkRelativePath(path string) (string, string) {
	if path == "" {
		return "", "must not be empty, such as \"/auth/access-management/users\""
	}
	if strings.HasPrefix(path, "//") || strings.Contains(path, "://") {
		return "", "must be relative to the base URL, not an absolute URL"
	}
	for i := 0; i < len(path); i++ {
		c := path[i]
		switch {
		case c == '?' || c == '#':
			return "", "must not hold a query or fragment; use option.WithQuery"
		case c <= ' ' || c >= 0x7f || c == '{' || c == '}' || c == '\\':
			return "", "must be escaped: escape each segment with url.PathEscape"
		}
	}
	decoded, err := url.PathUnescape(path)
	if err != nil {
		return "", "has an invalid %-escape: escape each segment with url.PathEscape"
	}
	for segment := range strings.FieldsFuncSeq(decoded, func(r rune) bool { return r == '/' || r == '\\' }) {
		if segment == ".." || strings.HasPrefix(segment, "..;") {
			return "", "must not hold a \"..\" segment: it would leave the base URL's path"
		}
		if strings.ContainsRune(segment, 0) {
			return "", "must not hold an escaped NUL"
		}
	}
	if !strings.HasPrefix(path, "/") {
		path = "/" + path
	}
	return path, ""
}
