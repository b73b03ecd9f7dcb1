package areatest

import (
	"errors"
	"io"
	"net/http"
	"net/url"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/jarcoal/httpmock"

	memberplatform "github.com/memberplatform/memberplatform-go"
	"github.com/memberplatform/memberplatform-go/client"
	apierrors "github.com/memberplatform/memberplatform-go/errors"
	"github.com/memberplatform/memberplatform-go/option"
)

// BaseURL and Token are those of the clients Mock.Client builds.
const (
	BaseURL = "https://api.example.com"
	Token   = "test-token"
)

// Request is one request as the Mock saw it; HasDeadline says whether its
// context had a deadline.
type Request struct {
	Method      string
	URL         *url.URL
	Header      http.Header
	Body        []byte
	HasDeadline bool
}

// Mock is a transport that records requests and answers those On registered;
// any other fails the test.
type Mock struct {
	t    *testing.T
	mt   *httpmock.MockTransport
	mu   sync.Mutex
	reqs []Request
}

// NewMock returns a Mock for t.
func NewMock(t *testing.T) *Mock {
	m := &Mock{t: t, mt: httpmock.NewMockTransport()}
	m.mt.RegisterNoResponder(func(r *http.Request) (*http.Response, error) {
		t.Errorf("unexpected request %s %s", r.Method, r.URL)
		return nil, errors.New("no responder registered")
	})
	return m
}

// RoundTrip records r and answers it. The responders never read the body.
func (m *Mock) RoundTrip(r *http.Request) (*http.Response, error) {
	var body []byte
	if r.Body != nil {
		var err error
		if body, err = io.ReadAll(r.Body); err != nil {
			m.t.Errorf("reading request body: %v", err)
		}
	}
	_, deadline := r.Context().Deadline()
	u := *r.URL
	m.mu.Lock()
	m.reqs = append(m.reqs, Request{Method: r.Method, URL: &u, Header: r.Header.Clone(), Body: body, HasDeadline: deadline})
	m.mu.Unlock()
	return m.mt.RoundTrip(r)
}

// On answers method on rawURL (absolute, or a path below BaseURL) with resp.
func (m *Mock) On(method, rawURL string, resp httpmock.Responder) {
	if strings.HasPrefix(rawURL, "/") {
		rawURL = BaseURL + rawURL
	}
	m.mt.RegisterResponder(method, rawURL, resp)
}

// Requests returns the recorded requests, in order.
func (m *Mock) Requests() []Request {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.reqs)
}

// Calls is how many requests reached the Mock.
func (m *Mock) Calls() int { return len(m.Requests()) }

// Only returns the single recorded request, failing the test otherwise.
func (m *Mock) Only() Request {
	m.t.Helper()
	reqs := m.Requests()
	if len(reqs) != 1 {
		m.t.Fatalf("got %d requests, want 1", len(reqs))
	}
	return reqs[0]
}

// Client returns a client of the Mock with Token, no retries, then opts;
// every setting explicit, so the environment cannot leak in.
func (m *Mock) Client(opts ...option.RequestOption) *client.Client {
	m.t.Helper()
	c, err := client.New(append([]option.RequestOption{option.WithBaseURL(BaseURL), option.WithTransport(m),
		option.WithTokenSource(client.StaticToken(Token)), option.WithMaxRetries(0)}, opts...)...)
	if err != nil {
		m.t.Fatalf("client.New: %v", err)
	}
	return c
}

// Respond answers status with body, typed contentType when it is not empty.
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
func JSON(code int, body string) httpmock.Responder { return Respond(code, "application/json", body) }

// Problem answers status with an application/problem+json body.
func Problem(code int, body string) httpmock.Responder {
	return Respond(code, "application/problem+json", body)
}

// CheckRequest asserts method, target (the escaped path and its raw query,
// if any: "/users?limit=5"), body, the SDK's headers, and auth as the only
// Authorization value ("" for none). A call without a body (body "", such
// as a read) must send no Content-Type; one with a body, application/json.
func CheckRequest(t testing.TB, r Request, method, target, body, auth string) {
	t.Helper()
	path, query, _ := strings.Cut(target, "?")
	contentType := ""
	if body != "" {
		contentType = "application/json"
	}
	h := r.Header
	got := []string{r.Method, r.URL.EscapedPath(), r.URL.RawQuery, string(r.Body), h.Get("Accept"), h.Get("User-Agent"),
		strings.Join(h.Values("Content-Type"), " | "), strings.Join(h.Values("Authorization"), " | ")}
	want := []string{method, path, query, body, "application/json, application/problem+json",
		"memberplatform-go/" + memberplatform.Version + " (" + runtime.Version() + "; " + runtime.GOOS + "/" + runtime.GOARCH + ")",
		contentType, auth}
	if !slices.Equal(got, want) {
		t.Errorf("method, path, query, body, Accept, User-Agent, Content-Type, Authorization =\n%q, want\n%q", got, want)
	}
}

// CheckValidation asserts a call of a validation table: with wantFields nil,
// success after one request; else no request, no result, and a
// *errors.ValidationError of op listing exactly wantFields, with messages.
func (m *Mock) CheckValidation(op string, err error, resultNil bool, wantFields []string) {
	m.t.Helper()
	if wantFields == nil {
		if err != nil || resultNil || m.Calls() != 1 {
			m.t.Fatalf("%s: err = %v, nil result = %v, requests = %d; want success after 1", op, err, resultNil, m.Calls())
		}
		return
	}
	ve, ok := errors.AsType[*apierrors.ValidationError](err)
	if !ok || !errors.Is(err, apierrors.ErrInvalidInput) || ve.Operation != op {
		m.t.Fatalf("err = %T %v, want an *errors.ValidationError of %s matching ErrInvalidInput", err, err, op)
	}
	var names []string
	for _, f := range ve.Fields {
		if names = append(names, f.Field); f.Message == "" {
			m.t.Errorf("field %q has no message", f.Field)
		}
	}
	if !resultNil || !slices.Equal(names, wantFields) || m.Calls() != 0 {
		m.t.Errorf("fields = %q, nil result = %v, requests = %d; want %q, true, 0", names, resultNil, m.Calls(), wantFields)
	}
}
