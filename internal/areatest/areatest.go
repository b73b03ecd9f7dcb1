package areatest

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/url"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/jarcoal/httpmock"

	memberplatform "github.com/memberplatform/memberplatform-go"
	"github.com/memberplatform/memberplatform-go/client"
	apierrors "github.com/memberplatform/memberplatform-go/errors"
	"github.com/memberplatform/memberplatform-go/option"
)

// BaseURL is the base URL of the clients Mock.Client builds, and Token the
// static bearer token they send.
const (
	BaseURL = "https://api.example.com"
	Token   = "test-token"
)

// Request is one request as the Mock transport saw it.
type Request struct {
	Method string
	URL    *url.URL
	Header http.Header
	Body   []byte
	// HasDeadline reports whether the request's context had a deadline.
	HasDeadline bool
}

// Mock is a per-test httpmock.MockTransport that records every request.
// A request for which no responder was registered fails the test.
type Mock struct {
	t  *testing.T
	mt *httpmock.MockTransport

	mu   sync.Mutex
	reqs []Request
}

// NewMock returns a Mock for t.
func NewMock(t *testing.T) *Mock {
	t.Helper()
	m := &Mock{t: t, mt: httpmock.NewMockTransport()}
	m.mt.RegisterNoResponder(func(r *http.Request) (*http.Response, error) {
		m.record(r)
		t.Errorf("unexpected request %s %s", r.Method, r.URL.String())
		return nil, errors.New("no responder registered")
	})
	return m
}

func (m *Mock) record(r *http.Request) {
	var body []byte
	if r.Body != nil {
		b, err := io.ReadAll(r.Body)
		if err != nil {
			m.t.Errorf("reading request body: %v", err)
		}
		body = b
	}
	_, dl := r.Context().Deadline()
	u := *r.URL
	m.mu.Lock()
	m.reqs = append(m.reqs, Request{Method: r.Method, URL: &u, Header: r.Header.Clone(), Body: body, HasDeadline: dl})
	m.mu.Unlock()
}

// On answers method on rawURL (absolute, or a path relative to BaseURL) with
// resp, recording each request.
func (m *Mock) On(method, rawURL string, resp httpmock.Responder) {
	if rawURL != "" && rawURL[0] == '/' {
		rawURL = BaseURL + rawURL
	}
	m.mt.RegisterResponder(method, rawURL, func(r *http.Request) (*http.Response, error) {
		m.record(r)
		return resp(r)
	})
}

// Calls is how many requests reached the transport.
func (m *Mock) Calls() int { return m.mt.GetTotalCallCount() }

// Only returns the single recorded request, failing the test otherwise.
func (m *Mock) Only() Request {
	m.t.Helper()
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.reqs) != 1 {
		m.t.Fatalf("got %d requests, want 1", len(m.reqs))
	}
	return m.reqs[0]
}

// Requests returns the recorded requests, in order.
func (m *Mock) Requests() []Request {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.reqs)
}

// Client returns a client sending through the Mock, with a static Token and
// no retries unless opts say otherwise. Every option is explicit so the
// environment cannot leak in.
func (m *Mock) Client(opts ...option.RequestOption) *client.Client {
	m.t.Helper()
	all := append([]option.RequestOption{
		option.WithBaseURL(BaseURL),
		option.WithTransport(m.mt),
		option.WithTokenSource(client.StaticToken(Token)),
		option.WithMaxRetries(0),
	}, opts...)
	c, err := client.New(all...)
	if err != nil {
		m.t.Fatalf("client.New: %v", err)
	}
	return c
}

// Respond returns a responder answering status with body and, when the body
// is non-empty, contentType.
func Respond(status int, contentType, body string) httpmock.Responder {
	return func(*http.Request) (*http.Response, error) {
		r := httpmock.NewStringResponse(status, body)
		if body != "" && contentType != "" {
			r.Header.Set("Content-Type", contentType)
		}
		return r, nil
	}
}

// JSON answers status with an application/json body.
func JSON(status int, body string) httpmock.Responder {
	return Respond(status, "application/json", body)
}

// Problem answers status with an application/problem+json body.
func Problem(status int, body string) httpmock.Responder {
	return Respond(status, "application/problem+json", body)
}

// UserAgent is the User-Agent the SDK sends without WithAppInfo.
func UserAgent() string {
	return "memberplatform-go/" + memberplatform.Version + " (" + runtime.Version() + "; " + runtime.GOOS + "/" + runtime.GOARCH + ")"
}

// CheckHeaders asserts the headers every request carries. auth is the
// expected Authorization value, "" for none.
func CheckHeaders(t *testing.T, h http.Header, hasBody bool, auth string) {
	t.Helper()
	if got, want := h.Get("Accept"), "application/json, application/problem+json"; got != want {
		t.Errorf("Accept = %q, want %q", got, want)
	}
	if got, want := h.Get("User-Agent"), UserAgent(); got != want {
		t.Errorf("User-Agent = %q, want %q", got, want)
	}
	if hasBody {
		if got := h.Values("Content-Type"); len(got) != 1 || got[0] != "application/json" {
			t.Errorf("Content-Type = %q, want [application/json]", got)
		}
	}
	got := h.Values("Authorization")
	switch {
	case auth == "" && len(got) != 0:
		t.Errorf("Authorization = %q, want none", got)
	case auth != "" && (len(got) != 1 || got[0] != auth):
		t.Errorf("Authorization = %q, want [%q]", got, auth)
	}
}

// CheckRequest asserts method, escaped path, empty query and exact body.
func CheckRequest(t *testing.T, r Request, method, escapedPath, body string) {
	t.Helper()
	if r.Method != method {
		t.Errorf("method = %s, want %s", r.Method, method)
	}
	if got := r.URL.EscapedPath(); got != escapedPath {
		t.Errorf("escaped path = %q, want %q", got, escapedPath)
	}
	if r.URL.RawQuery != "" {
		t.Errorf("query = %q, want none", r.URL.RawQuery)
	}
	if string(r.Body) != body {
		t.Errorf("body = %s, want %s", r.Body, body)
	}
}

// FieldNames returns the field names of a *errors.ValidationError, failing
// the test if err is not one.
func FieldNames(t *testing.T, err error, op string) []string {
	t.Helper()
	var ve *apierrors.ValidationError
	if !errors.As(err, &ve) {
		t.Fatalf("err = %T %v, want *errors.ValidationError", err, err)
	}
	if !errors.Is(err, apierrors.ErrInvalidInput) {
		t.Errorf("errors.Is(err, ErrInvalidInput) = false")
	}
	if ve.Operation != op {
		t.Errorf("Operation = %q, want %q", ve.Operation, op)
	}
	names := make([]string, 0, len(ve.Fields))
	for _, f := range ve.Fields {
		if f.Message == "" {
			t.Errorf("field %q has no message", f.Field)
		}
		names = append(names, f.Field)
	}
	return names
}

// APIError asserts err is an *errors.Error and returns it.
func APIError(t *testing.T, err error) *apierrors.Error {
	t.Helper()
	var e *apierrors.Error
	if !errors.As(err, &e) {
		t.Fatalf("err = %T %v, want *errors.Error", err, err)
	}
	return e
}

// Hang answers only when the request's context ends.
func Hang(r *http.Request) (*http.Response, error) {
	<-r.Context().Done()
	return nil, r.Context().Err()
}

// BoundedCtx is t.Context() with a safety deadline, so that a per-call
// timeout that does not work fails the test instead of hanging it.
func BoundedCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// CheckTimedOut asserts err is the transport timeout of a call bounded by a
// per-call WithTimeout, and that the call ended well before BoundedCtx's
// safety deadline.
func CheckTimedOut(t *testing.T, err error, start time.Time) {
	t.Helper()
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("call took %v: WithTimeout did not bound it", d)
	}
	var te *apierrors.TransportError
	if !errors.As(err, &te) {
		t.Fatalf("err = %T %v, want *errors.TransportError", err, err)
	}
	if !errors.Is(err, context.DeadlineExceeded) || !te.Timeout() || !errors.Is(err, apierrors.ErrTransport) {
		t.Errorf("err = %v: want a timeout matching context.DeadlineExceeded and ErrTransport", err)
	}
}

// CheckValidation asserts the outcome of a call in a validation table.
// With wantFields nil the input was valid: the call succeeded (err nil and
// result non-nil, when the operation returns one) and sent one request.
// Otherwise it was refused before sending: err is a *errors.ValidationError
// for op listing exactly wantFields, in order, the result is nil, and no
// request reached the transport.
func (m *Mock) CheckValidation(op string, err error, resultNil bool, wantFields []string) {
	m.t.Helper()
	if wantFields == nil {
		if err != nil || resultNil {
			m.t.Fatalf("%s: err = %v, nil result = %v; want success", op, err, resultNil)
		}
		if n := m.Calls(); n != 1 {
			m.t.Errorf("requests = %d, want 1", n)
		}
		return
	}
	if !resultNil {
		m.t.Errorf("%s returned a result with a validation error", op)
	}
	if got := FieldNames(m.t, err, op); !slices.Equal(got, wantFields) {
		m.t.Errorf("fields = %q, want %q", got, wantFields)
	}
	if n := m.Calls(); n != 0 {
		m.t.Errorf("requests = %d, want 0: invalid input must not be sent", n)
	}
}
