package areatest

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jarcoal/httpmock"

	"github.com/memberplatform/memberplatform-go/client"
	apierrors "github.com/memberplatform/memberplatform-go/errors"
	"github.com/memberplatform/memberplatform-go/option"
)

// Op is one operation of an area package, called through the public client,
// for the checks every operation shares (CheckOperations).
type Op struct {
	Name      string // subtest name, such as "UpdateUser"
	Operation string // as errors name it, such as "accessmgmt.UpdateUser"
	Method    string
	Path      string // escaped path below the base URL
	Body      string // the JSON body the call sends
	Response  string // a 2xx body the server answers with
	// Problem says the operation's errors are RFC 9457 problems; otherwise
	// they are code/message bodies.
	Problem bool
	// ServerError is a retryable 5xx answer in the operation's error format.
	ServerError httpmock.Responder
	// Call runs the operation with opts. When it succeeds it also checks
	// the decoded result against Response; when it fails, that there is no
	// result.
	Call func(ctx context.Context, t *testing.T, c *client.Client, opts ...option.RequestOption) error
}

// CheckOperations runs, for each op, the checks every operation of every
// area must pass: client options, per-call options that do not leak into
// the next call, a per-call timeout that ends a hung call, and a retry
// after a 5xx that resends the same request.
func CheckOperations(t *testing.T, ops ...Op) {
	t.Helper()
	for _, op := range ops {
		t.Run(op.Name+"/client options", func(t *testing.T) { t.Parallel(); checkClientOptions(t, op) })
		t.Run(op.Name+"/per-call options", func(t *testing.T) { t.Parallel(); checkPerCallOptions(t, op) })
		t.Run(op.Name+"/per-call timeout expires", func(t *testing.T) { t.Parallel(); checkPerCallTimeoutExpires(t, op) })
		t.Run(op.Name+"/retried on server error", func(t *testing.T) { t.Parallel(); checkRetriedOnServerError(t, op) })
	}
}

// checkClientOptions: the token source decides the Authorization header,
// and a base URL's host and path prefix (with or without a trailing slash)
// come before the operation's path.
func checkClientOptions(t *testing.T, op Op) {
	const otherHost = "https://host.example"
	tests := []struct {
		name string
		opts []option.RequestOption
		url  string // where the request must go
		auth string
	}{
		{"no token source", []option.RequestOption{option.WithTokenSource(nil)}, BaseURL + op.Path, ""},
		{"token source", nil, BaseURL + op.Path, "Bearer " + Token},
		{"base path prefix", []option.RequestOption{option.WithBaseURL(otherHost + "/api/v2")}, otherHost + "/api/v2" + op.Path, "Bearer " + Token},
		{"base path prefix with slash", []option.RequestOption{option.WithBaseURL(otherHost + "/api/v2/")}, otherHost + "/api/v2" + op.Path, "Bearer " + Token},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			m := NewMock(t)
			m.On(op.Method, tt.url, JSON(http.StatusOK, op.Response))
			if err := op.Call(t.Context(), t, m.Client(tt.opts...)); err != nil {
				t.Fatal(err)
			}
			r := m.Only()
			want, _ := url.Parse(tt.url)
			if r.URL.Scheme != want.Scheme || r.URL.Host != want.Host {
				t.Errorf("URL = %s, want %s", r.URL, tt.url)
			}
			CheckRequest(t, r, op.Method, want.EscapedPath(), op.Body)
			CheckHeaders(t, r.Header, true, tt.auth)
		})
	}
}

// perCallQuery has the field kinds go-querystring encodes: an escaped
// string, a number, a repeated value, a bool, and empty omitted fields.
type perCallQuery struct {
	Trace  string   `url:"trace"`
	Limit  int      `url:"limit,omitempty"`
	Tags   []string `url:"tag,omitempty"`
	DryRun bool     `url:"dryRun,omitempty"`
	Skip   string   `url:"skip,omitempty"`
}

// checkPerCallOptions: headers, a query and a timeout given to one call
// reach that call, add to the client's own headers, and are gone on the
// next call.
func checkPerCallOptions(t *testing.T, op Op) {
	m := NewMock(t)
	m.On(op.Method, op.Path, JSON(http.StatusOK, op.Response))
	c := m.Client(option.WithHeader("X-Client", "wide"))
	q := perCallQuery{Trace: "a b&c/1", Limit: 5, Tags: []string{"roles", "orgs"}, DryRun: true}
	if err := op.Call(t.Context(), t, c, option.WithHeader("X-Client", "per-call"), option.WithHeader("X-Trace-Id", "abc123"),
		option.WithHeader("Idempotency-Key", "k-1"), option.WithQuery(q), option.WithTimeout(time.Minute)); err != nil {
		t.Fatal(err)
	}
	if err := op.Call(t.Context(), t, c); err != nil {
		t.Fatal(err)
	}
	reqs := m.Requests()
	if len(reqs) != 2 {
		t.Fatalf("requests = %d, want 2", len(reqs))
	}
	first, second := reqs[0], reqs[1]
	for _, h := range [][2]string{{"X-Trace-Id", "abc123"}, {"Idempotency-Key", "k-1"}} {
		if got := first.Header.Values(h[0]); !slices.Equal(got, []string{h[1]}) {
			t.Errorf("first call %s = %q, want [%s]", h[0], got, h[1])
		}
		if got := second.Header.Values(h[0]); len(got) != 0 {
			t.Errorf("second call %s = %q, want none", h[0], got)
		}
	}
	want := url.Values{"trace": {"a b&c/1"}, "limit": {"5"}, "tag": {"roles", "orgs"}, "dryRun": {"true"}}
	if got := first.URL.Query(); len(got) != len(want) || got.Encode() != want.Encode() {
		t.Errorf("first query = %v, want %v", got, want)
	}
	if first.URL.EscapedPath() != op.Path || string(first.Body) != op.Body {
		t.Errorf("first request = %s %s, want %s %s", first.URL.EscapedPath(), first.Body, op.Path, op.Body)
	}
	if !first.HasDeadline || second.HasDeadline {
		t.Errorf("deadlines: first %v, second %v; want true, false (WithTimeout on the first call only)", first.HasDeadline, second.HasDeadline)
	}
	CheckRequest(t, second, op.Method, op.Path, op.Body)
	for i, want := range [][]string{{"wide", "per-call"}, {"wide"}} {
		if got := reqs[i].Header.Values("X-Client"); !slices.Equal(got, want) {
			t.Errorf("call %d: X-Client = %q, want %q", i+1, got, want)
		}
		CheckHeaders(t, reqs[i].Header, true, "Bearer "+Token)
	}
}

// checkPerCallTimeoutExpires: a per-call WithTimeout ends a call the server
// never answers, retries allowed or not, with a TransportError that names
// the call.
func checkPerCallTimeoutExpires(t *testing.T, op Op) {
	m := NewMock(t)
	m.On(op.Method, op.Path, Hang)
	start := time.Now()
	err := op.Call(BoundedCtx(t), t, m.Client(option.WithMaxRetries(3)), option.WithTimeout(250*time.Millisecond)) // room for the first token fetch on a busy machine
	CheckTimedOut(t, err, start)
	var te *apierrors.TransportError
	if errors.As(err, &te) && (te.Operation != op.Operation || te.Method != op.Method || te.Path != op.Path) {
		t.Errorf("error = %+v", te)
	}
}

// checkRetriedOnServerError: after a 5xx the same request is sent again,
// body and headers alike, and the second answer is decoded.
func checkRetriedOnServerError(t *testing.T, op Op) {
	m := NewMock(t)
	var n atomic.Int32
	m.On(op.Method, op.Path, func(r *http.Request) (*http.Response, error) {
		if n.Add(1) == 1 {
			return op.ServerError(r)
		}
		return JSON(http.StatusOK, op.Response)(r)
	})
	c := m.Client(option.WithMaxRetries(2), option.WithRetryBackoff(time.Millisecond, time.Millisecond))
	if err := op.Call(t.Context(), t, c); err != nil {
		t.Fatal(err)
	}
	reqs := m.Requests()
	if len(reqs) != 2 {
		t.Fatalf("requests = %d, want 2", len(reqs))
	}
	for _, r := range reqs {
		CheckRequest(t, r, op.Method, op.Path, op.Body)
		CheckHeaders(t, r.Header, true, "Bearer "+Token)
	}
}

// CheckMalformedSuccessBody checks that a status answer whose body does not
// decode fails op with an *errors.Error matching ErrUnexpectedResponseBody
// that names the call and keeps the cause and the raw body.
func CheckMalformedSuccessBody(t *testing.T, op Op, status int, bodies ...string) {
	t.Helper()
	for _, body := range bodies {
		t.Run(body, func(t *testing.T) {
			t.Parallel()
			m := NewMock(t)
			m.On(op.Method, op.Path, JSON(status, body))
			err := op.Call(t.Context(), t, m.Client())
			e := APIError(t, err)
			if !errors.Is(err, apierrors.ErrUnexpectedResponseBody) {
				t.Errorf("errors.Is(err, ErrUnexpectedResponseBody) = false; err = %v", err)
			}
			if e.StatusCode != status || e.Operation != op.Operation || e.Method != op.Method || e.Path != op.Path || e.Err == nil {
				t.Errorf("error = %+v", e)
			}
			if string(e.Body) != body {
				t.Errorf("Body = %q, want the raw body %q", e.Body, body)
			}
		})
	}
}

// ErrorCase is an error answer in an operation's own format and what the
// SDK's error must report about it.
type ErrorCase struct {
	Name   string
	Status int
	Body   string
	Kinds  []error // errors.Is must match each
	Code   string  // the problem's serviceCode, or the code of a code/message body
	Fields []apierrors.FieldError
}

// CheckErrorResponses checks that each answer fails op after one request
// with an *errors.Error that matches the case's kinds (and not
// ErrUnexpectedResponseBody), names the call, and decodes the body in the
// operation's format: its code, a title or message, its field errors, and
// for a problem the status in the body.
func CheckErrorResponses(t *testing.T, op Op, cases ...ErrorCase) {
	t.Helper()
	respond, contentType := JSON, "code/message"
	if op.Problem {
		respond, contentType = Problem, "problem"
	}
	for _, tc := range cases {
		t.Run(op.Name+"/"+tc.Name, func(t *testing.T) {
			t.Parallel()
			m := NewMock(t)
			m.On(op.Method, op.Path, respond(tc.Status, tc.Body))
			err := op.Call(t.Context(), t, m.Client())
			e := APIError(t, err)
			for _, k := range tc.Kinds {
				if !errors.Is(err, k) {
					t.Errorf("errors.Is(err, %v) = false; err = %v", k, err)
				}
			}
			if errors.Is(err, apierrors.ErrUnexpectedResponseBody) {
				t.Errorf("an error response matched ErrUnexpectedResponseBody")
			}
			if e.StatusCode != tc.Status || e.Operation != op.Operation || e.Method != op.Method || e.Path != op.Path {
				t.Errorf("error = %+v", e)
			}
			switch {
			case op.Problem && (e.Problem == nil || e.CodeMessage != nil):
				t.Fatalf("decoded as problem %+v, code/message %+v; want a %s", e.Problem, e.CodeMessage, contentType)
			case op.Problem && (e.Problem.Status != tc.Status || e.Problem.ServiceCode != tc.Code || e.Problem.Title == ""):
				t.Errorf("problem = %+v, want status %d and serviceCode %q", e.Problem, tc.Status, tc.Code)
			case !op.Problem && (e.Problem != nil || e.CodeMessage == nil):
				t.Fatalf("decoded as problem %+v, code/message %+v; want a %s", e.Problem, e.CodeMessage, contentType)
			case !op.Problem && (e.CodeMessage.Code != tc.Code || e.CodeMessage.Message == ""):
				t.Errorf("code/message = %+v, want code %q and a message", e.CodeMessage, tc.Code)
			}
			if got := e.FieldErrors(); !slices.Equal(got, tc.Fields) {
				t.Errorf("FieldErrors = %+v, want %+v", got, tc.Fields)
			}
			if m.Calls() != 1 {
				t.Errorf("requests = %d, want 1", m.Calls())
			}
		})
	}
}
