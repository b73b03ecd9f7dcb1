package client

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"reflect"
	"strings"

	apierrors "github.com/memberplatform/memberplatform-go/errors"
	"github.com/memberplatform/memberplatform-go/internal/core"
	"github.com/memberplatform/memberplatform-go/option"
)

// Execute calls an endpoint the SDK does not wrap, such as the contract's
// createUser or listUsers, with everything the wrapped operations get: the
// client's token cache (and 401 refresh), SigV4 token source, retry
// policy, body limits, logging and error decoding. A non-2xx answer is the
// same *errors.Error, with both error formats decoded.
//
// method is the HTTP method ("POST"). path is relative to the base URL,
// whose path prefix is kept: "/auth/access-management/users" on base URL
// https://host/api calls https://host/api/auth/access-management/users. The
// caller escapes each path segment (url.PathEscape); an absolute URL, a
// path with a query or fragment (use option.WithQuery), and a ".." segment
// that would leave the base URL's path are refused before sending.
//
// body is sent as application/json. A []byte, a json.RawMessage, a string
// and any io.Reader (strings.Reader, *bytes.Buffer, *os.File, ...) are the
// JSON text itself and are sent as they are, unchecked: a string holding
// `{"email":"a@b.c"}` sends exactly those bytes (to send a JSON string
// value, pass json.Marshal's result or a struct field). Every other value
// is encoded with encoding/json. nil, or one of the raw kinds holding no
// bytes, sends no body. A reader is read to its end once, before the first
// attempt, so that a retry or the resend after a 401 carries the same
// bytes; it is closed afterwards when it is an io.Closer, as net/http
// closes a request body. A reader that fails, or a nil pointer inside the
// interface (a nil *bytes.Buffer), is refused before sending.
//
// out receives the decoded 2xx body: a non-nil pointer to a struct, map or
// any; a *[]byte gets the raw bytes; nil discards it. A method that is not
// an upper-case token, or an out that is not a pointer, is refused before
// sending.
//
// Log records name the operation "client.Execute" and show path as given.
//
// The call is retried only when method is idempotent by HTTP semantics
// (GET, HEAD, OPTIONS, PUT, DELETE, TRACE), or when opts include
// option.WithIdempotent.
func (c *Client) Execute(ctx context.Context, method, path string, body, out any, opts ...option.RequestOption) error {
	op := &core.Operation{Name: "client.Execute", Method: method, Path: path, Idempotent: idempotentMethod(method), Auth: true}
	if msg := checkMethod(method); msg != "" {
		return invalidExecute("method", msg)
	}
	clean, msg := checkRelativePath(path)
	if msg != "" {
		return invalidExecute("path", msg)
	}
	if out != nil {
		if v := reflect.ValueOf(out); v.Kind() != reflect.Pointer || v.IsNil() {
			// Found after the request was sent, this would report a
			// successful write as a bad response.
			return invalidExecute("out", "must be nil, a *[]byte, or a non-nil pointer to decode the 2xx body into")
		}
	}
	op.Path = clean
	call := &core.Call{Op: op, Result: out}
	if err := setExecuteBody(call, body); err != nil {
		return err
	}
	return core.Do(ctx, c.pipeline(), call, opts)
}

// setExecuteBody puts body on call: the raw kinds as EncodedBody, sent as
// they are, anything else as Body, for the pipeline to encode to JSON.
func setExecuteBody(call *core.Call, body any) error {
	var raw []byte
	switch b := body.(type) {
	case nil:
		return nil
	case []byte:
		raw = b
	case json.RawMessage:
		raw = b
	case string:
		raw = []byte(b)
	case io.Reader:
		if v := reflect.ValueOf(b); v.Kind() == reflect.Pointer && v.IsNil() {
			// Reading it would panic (a nil *bytes.Buffer does).
			return invalidExecute("body", fmt.Sprintf("a nil %T; pass nil itself to send no body", b))
		}
		read, err := io.ReadAll(b)
		if closer, ok := b.(io.Closer); ok {
			_ = closer.Close()
		}
		if err != nil {
			return invalidExecute("body", fmt.Sprintf("reading the %T: %v", b, err))
		}
		raw = read
	default:
		call.Body = body
		return nil
	}
	if len(raw) > 0 {
		call.EncodedBody = raw
	}
	return nil
}

// pipeline returns the client's pipeline; nil for a Client not built by
// New, which the pipeline reports as an error.
func (c *Client) pipeline() *core.Client {
	if c == nil {
		return nil
	}
	return c.core
}

func invalidExecute(field, msg string) error {
	return &apierrors.ValidationError{Operation: "client.Execute", Fields: []apierrors.FieldError{{Field: field, Message: msg}}}
}

// idempotentMethod reports whether RFC 9110 makes method idempotent.
func idempotentMethod(method string) bool {
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodOptions, http.MethodPut, http.MethodDelete, http.MethodTrace:
		return true
	}
	return false
}

// checkMethod returns why method cannot be sent, or "".
func checkMethod(method string) string {
	if method == "" {
		return "must not be empty, such as \"POST\""
	}
	for i := 0; i < len(method); i++ {
		c := method[i]
		if c <= ' ' || c >= 0x7f || strings.IndexByte(`"(),/:;<=>?@[\]{}`, c) >= 0 {
			return "must be an HTTP method token, such as \"POST\""
		}
		if c >= 'a' && c <= 'z' {
			// Methods are case-sensitive: "get" is not GET to a server.
			return "must be upper case, such as \"GET\""
		}
	}
	return ""
}

// checkRelativePath returns path with a leading "/", or why it is refused:
// it must stay under the base URL, so no scheme or host, no ".." segment
// (escaped or not, nor hidden behind an escaped '/' or '\\' that a server or
// proxy may decode before normalising), no query or fragment, and nothing a
// URL path cannot hold unescaped.
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
		case c == '%' && (i+2 >= len(path) || !isHex(path[i+1]) || !isHex(path[i+2])):
			return "", "has an invalid %-escape: escape each segment with url.PathEscape"
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

func isHex(c byte) bool { return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F' }
