package customer_test

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
)

const (
	baseURL  = "https://api.example.com"
	token    = "test-token"
	memberID = "7c9e6679-7425-40de-944b-e07fc1f90ae7"
	addrID   = "1b4e28ba-2fa1-41d2-883f-0016d3cca427"
)

// captured is one request as the mock transport saw it.
type captured struct {
	Method string
	URL    *url.URL
	Header http.Header
	Body   []byte
	// HasDeadline reports whether the request's context had a deadline.
	HasDeadline bool
}

// mock is a per-test httpmock.MockTransport that records every request.
// A request for which no responder was registered fails the test.
type mock struct {
	t  *testing.T
	mt *httpmock.MockTransport

	mu   sync.Mutex
	reqs []captured
}

func newMock(t *testing.T) *mock {
	t.Helper()
	m := &mock{t: t, mt: httpmock.NewMockTransport()}
	m.mt.RegisterNoResponder(func(r *http.Request) (*http.Response, error) {
		m.record(r)
		t.Errorf("unexpected request %s %s", r.Method, r.URL.String())
		return nil, errors.New("no responder registered")
	})
	return m
}

func (m *mock) record(r *http.Request) {
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
	m.reqs = append(m.reqs, captured{Method: r.Method, URL: &u, Header: r.Header.Clone(), Body: body, HasDeadline: dl})
	m.mu.Unlock()
}

// on answers method on rawURL (absolute, or a path relative to baseURL) with
// resp, recording each request.
func (m *mock) on(method, rawURL string, resp httpmock.Responder) {
	if rawURL != "" && rawURL[0] == '/' {
		rawURL = baseURL + rawURL
	}
	m.mt.RegisterResponder(method, rawURL, func(r *http.Request) (*http.Response, error) {
		m.record(r)
		return resp(r)
	})
}

// calls is how many requests reached the transport.
func (m *mock) calls() int { return m.mt.GetTotalCallCount() }

// only returns the single recorded request, failing the test otherwise.
func (m *mock) only() captured {
	m.t.Helper()
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.reqs) != 1 {
		m.t.Fatalf("got %d requests, want 1", len(m.reqs))
	}
	return m.reqs[0]
}

func (m *mock) requests() []captured {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.reqs)
}

// client returns a client sending through the mock, with a static token and
// no retries unless opts say otherwise. Every option is explicit so the
// environment cannot leak in.
func (m *mock) client(opts ...client.Option) *client.Client {
	m.t.Helper()
	all := append([]client.Option{
		client.WithBaseURL(baseURL),
		client.WithTransport(m.mt),
		client.WithTokenSource(client.StaticToken(token)),
		client.WithMaxRetries(0),
	}, opts...)
	c, err := client.New(all...)
	if err != nil {
		m.t.Fatalf("client.New: %v", err)
	}
	return c
}

// respond returns a responder answering status with body and, when the body
// is non-empty, contentType.
func respond(status int, contentType, body string) httpmock.Responder {
	return func(*http.Request) (*http.Response, error) {
		r := httpmock.NewStringResponse(status, body)
		if body != "" && contentType != "" {
			r.Header.Set("Content-Type", contentType)
		}
		return r, nil
	}
}

func jsonResp(status int, body string) httpmock.Responder {
	return respond(status, "application/json", body)
}

func wantUserAgent() string {
	return "memberplatform-go/" + memberplatform.Version + " (" + runtime.Version() + "; " + runtime.GOOS + "/" + runtime.GOARCH + ")"
}

// checkHeaders asserts the headers every request carries. auth is the
// expected Authorization value, "" for none.
func checkHeaders(t *testing.T, h http.Header, hasBody bool, auth string) {
	t.Helper()
	if got, want := h.Get("Accept"), "application/json, application/problem+json"; got != want {
		t.Errorf("Accept = %q, want %q", got, want)
	}
	if got, want := h.Get("User-Agent"), wantUserAgent(); got != want {
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

// checkRequest asserts method, escaped path, empty query and exact body.
func checkRequest(t *testing.T, r captured, method, escapedPath, body string) {
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

// fieldNames returns the field names of a *errors.ValidationError, failing
// the test if err is not one.
func fieldNames(t *testing.T, err error, op string) []string {
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

// apiError asserts err is an *errors.Error and returns it.
func apiError(t *testing.T, err error) *apierrors.Error {
	t.Helper()
	var e *apierrors.Error
	if !errors.As(err, &e) {
		t.Fatalf("err = %T %v, want *errors.Error", err, err)
	}
	return e
}

// hang answers only when the request's context ends.
func hang(r *http.Request) (*http.Response, error) {
	<-r.Context().Done()
	return nil, r.Context().Err()
}

// boundedCtx is t.Context() with a safety deadline, so that a per-call
// timeout that does not work fails the test instead of hanging it.
func boundedCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// checkTimedOut asserts err is the transport timeout of a call bounded by a
// per-call WithTimeout, and that the call ended well before boundedCtx's
// safety deadline.
func checkTimedOut(t *testing.T, err error, start time.Time) {
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
