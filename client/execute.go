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

	apierrors "github.com/memberplatform/memberplatform-go/errors"
	"github.com/memberplatform/memberplatform-go/internal/core"
	"github.com/memberplatform/memberplatform-go/option"
)

// Execute calls an endpoint the SDK does not wrap, such as the contract's
// createUser or listUsers, through the operations' pipeline (token cache
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
//
// out receives the decoded 2xx body: a non-nil pointer, a *[]byte for the
// raw bytes, or nil to discard it. A method that is no upper-case token, an
// out that is no pointer, and a failing or nil-pointer reader are refused
// before sending. Only idempotent methods (GET, HEAD, OPTIONS, PUT, DELETE,
// TRACE) are retried, unless option.WithIdempotent.
func (c *Client) Execute(ctx context.Context, method, path string, body, out any, opts ...option.RequestOption) error {
	if msg := checkMethod(method); msg != "" {
		return invalidExecute("method", msg)
	}
	clean, msg := checkRelativePath(path)
	if msg != "" {
		return invalidExecute("path", msg)
	}
	if out != nil {
		if v := reflect.ValueOf(out); v.Kind() != reflect.Pointer || v.IsNil() {
			// Found after sending, this would report a write as a failure.
			return invalidExecute("out", "must be nil, a *[]byte, or a non-nil pointer to decode the 2xx body into")
		}
	}
	op := &core.Operation{Name: "client.Execute", Method: method, Path: clean, Area: core.AreaOfPath(clean), Auth: true,
		Idempotent: slices.Contains([]string{http.MethodGet, http.MethodHead, http.MethodOptions, http.MethodPut, http.MethodDelete, http.MethodTrace}, method)}
	call := &core.Call{Op: op, Result: out}
	if err := setExecuteBody(call, body); err != nil {
		return err
	}
	var pipeline *core.Client // nil for a Client not built by New, which core.Do reports
	if c != nil {
		pipeline = c.core
	}
	return core.Do(ctx, pipeline, call, opts)
}

// setExecuteBody puts raw JSON on call as EncodedBody, anything else as Body.
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
