package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jarcoal/httpmock"

	"github.com/memberplatform/memberplatform-go/client"
	apierrors "github.com/memberplatform/memberplatform-go/errors"
	"github.com/memberplatform/memberplatform-go/internal/areatest"
	"github.com/memberplatform/memberplatform-go/option"
)

// createUserRequest and createdUser are a createUser-style call, an
// endpoint the contract names without showing its shape.
type createUserRequest struct {
	Email     string `json:"email"`
	FirstName string `json:"firstName"`
}

type createdUser struct {
	ID    string `json:"id"`
	Email string `json:"email"`
}

const usersPath = "/auth/access-management/users"

func TestExecuteSendsThroughThePipeline(t *testing.T) {
	t.Parallel()
	m := areatest.NewMock(t)
	m.On(http.MethodPost, usersPath, areatest.JSON(http.StatusCreated, `{"id":"user_new","email":"ada@example.com"}`))
	c := m.Client()
	var out createdUser
	if err := c.Execute(t.Context(), http.MethodPost, usersPath, createUserRequest{Email: "ada@example.com", FirstName: "Ada"}, &out); err != nil {
		t.Fatal(err)
	}
	if out.ID != "user_new" || out.Email != "ada@example.com" {
		t.Fatalf("out = %+v", out)
	}
	req := m.Only()
	var sent createUserRequest
	if err := json.Unmarshal(req.Body, &sent); err != nil || sent.FirstName != "Ada" {
		t.Fatalf("body = %s (%v)", req.Body, err)
	}
	areatest.CheckRequest(t, req, http.MethodPost, usersPath, `{"email":"ada@example.com","firstName":"Ada"}`, "Bearer "+areatest.Token)
}

func TestExecuteKeepsTheBasePathPrefixAndRawBytes(t *testing.T) {
	t.Parallel()
	m := areatest.NewMock(t)
	m.On(http.MethodGet, "https://api.example.com/api/v2"+usersPath+"/user%2F1", areatest.JSON(http.StatusOK, `{"id":"user/1"}`))
	c := m.Client(option.WithBaseURL("https://api.example.com/api/v2/"))
	var raw []byte
	if err := c.Execute(t.Context(), http.MethodGet, "auth/access-management/users/user%2F1", nil, &raw); err != nil {
		t.Fatal(err)
	}
	if string(raw) != `{"id":"user/1"}` {
		t.Fatalf("raw = %q", raw)
	}
	if req := m.Only(); len(req.Body) != 0 {
		t.Fatalf("a nil body sent %q", req.Body)
	}
}

func TestExecuteDecodesBothErrorFormats(t *testing.T) {
	t.Parallel()
	m := areatest.NewMock(t)
	m.On(http.MethodGet, usersPath+"/missing", areatest.Problem(http.StatusNotFound,
		`{"type":"about:blank","title":"Not Found","status":404,"serviceCode":"40400001","detail":"user missing not found"}`))
	m.On(http.MethodPost, usersPath, areatest.JSON(http.StatusUnprocessableEntity,
		`{"code":"VALIDATION_ERROR","message":"Validation failed","errors":[{"field":"email","message":"is invalid"},{"field":"firstName","message":"is required"}]}`))
	c := m.Client()

	err := c.Execute(t.Context(), http.MethodGet, usersPath+"/missing", nil, nil)
	var apiErr *apierrors.Error
	if !errors.Is(err, apierrors.ErrNotFound) || !errors.As(err, &apiErr) || apiErr.Problem == nil || apiErr.Problem.ServiceCode != "40400001" {
		t.Fatalf("404: err = %v, want the decoded problem", err)
	}
	if apiErr.Operation != "client.Execute" || apiErr.Method != http.MethodGet || apiErr.Path != usersPath+"/missing" {
		t.Fatalf("404: operation %q method %q path %q", apiErr.Operation, apiErr.Method, apiErr.Path)
	}

	err = c.Execute(t.Context(), http.MethodPost, usersPath, createUserRequest{}, nil)
	fields := apierrors.FieldErrorsOf(err)
	if !errors.Is(err, apierrors.ErrUnprocessableEntity) || len(fields) != 2 || fields[0].Field != "email" || fields[1].Message != "is required" {
		t.Fatalf("422: err = %v, fields = %+v", err, fields)
	}
}

func TestExecuteRetriesAndMiddlewareSeesEachAttempt(t *testing.T) {
	t.Parallel()
	m := areatest.NewMock(t)
	var hits atomic.Int32
	m.On(http.MethodPut, usersPath+"/user_1", func(r *http.Request) (*http.Response, error) {
		if hits.Add(1) <= 2 {
			return httpmock.NewStringResponse(http.StatusServiceUnavailable, ""), nil
		}
		return httpmock.NewStringResponse(http.StatusOK, `{"id":"user_1"}`), nil
	})
	var fetches atomic.Int32
	tokens := client.TokenSourceFunc(func(context.Context) (client.Token, error) {
		fetches.Add(1)
		return client.Token{Value: "fresh-token-value"}, nil
	})
	var seen []string
	record := func(req *http.Request, next option.MiddlewareNext) (*http.Response, error) {
		seen = append(seen, req.Header.Get("Authorization")+" retry="+req.Header.Get("X-Retry-Attempt"))
		return next(req)
	}
	c := m.Client(option.WithTokenSource(tokens), option.WithMaxRetries(3), option.WithRetryBackoff(time.Millisecond, time.Millisecond),
		option.WithMiddleware(record))
	var out createdUser
	if err := c.Execute(t.Context(), http.MethodPut, usersPath+"/user_1", map[string]string{"firstName": "Ada"}, &out); err != nil {
		t.Fatal(err)
	}
	want := []string{"Bearer fresh-token-value retry=", "Bearer fresh-token-value retry=1", "Bearer fresh-token-value retry=2"}
	if strings.Join(seen, "|") != strings.Join(want, "|") {
		t.Fatalf("middleware saw %q, want %q", seen, want)
	}
	if n := fetches.Load(); n != 1 {
		t.Fatalf("token fetched %d times, want 1", n)
	}
}

func TestExecuteRetriesAPostOnlyWhenToldItIsIdempotent(t *testing.T) {
	t.Parallel()
	m := areatest.NewMock(t)
	m.On(http.MethodPost, usersPath, areatest.JSON(http.StatusServiceUnavailable, ""))
	c := m.Client(option.WithMaxRetries(2), option.WithRetryBackoff(time.Millisecond, time.Millisecond))
	if err := c.Execute(t.Context(), http.MethodPost, usersPath, createUserRequest{}, nil); !errors.Is(err, apierrors.ErrServiceUnavailable) || m.Calls() != 1 {
		t.Fatalf("POST: err = %v after %d calls, want one 503", err, m.Calls())
	}
	err := c.Execute(t.Context(), http.MethodPost, usersPath, createUserRequest{}, nil, option.WithIdempotent())
	var apiErr *apierrors.Error
	if !errors.As(err, &apiErr) || apiErr.Attempts != 3 || m.Calls() != 4 {
		t.Fatalf("POST with WithIdempotent: err = %v after %d calls, want 3 attempts", err, m.Calls())
	}
}

func TestExecuteRefreshesTheTokenAfter401(t *testing.T) {
	t.Parallel()
	m := areatest.NewMock(t)
	m.On(http.MethodGet, usersPath, func(r *http.Request) (*http.Response, error) {
		if r.Header.Get("Authorization") != "Bearer second-token" {
			return httpmock.NewStringResponse(http.StatusUnauthorized, ""), nil
		}
		return httpmock.NewStringResponse(http.StatusOK, `[]`), nil
	})
	var fetches atomic.Int32
	tokens := client.TokenSourceFunc(func(context.Context) (client.Token, error) {
		if fetches.Add(1) == 1 {
			return client.Token{Value: "first-token"}, nil
		}
		return client.Token{Value: "second-token"}, nil
	})
	c := m.Client(option.WithTokenSource(tokens))
	var users []createdUser
	if err := c.Execute(t.Context(), http.MethodGet, usersPath, nil, &users); err != nil {
		t.Fatal(err)
	}
	if fetches.Load() != 2 || m.Calls() != 2 {
		t.Fatalf("%d fetches and %d requests, want 2 and 2", fetches.Load(), m.Calls())
	}
}

func TestExecuteRefusesBadInputBeforeSending(t *testing.T) {
	t.Parallel()
	m := areatest.NewMock(t)
	c := m.Client()
	for _, tc := range []struct{ method, path string }{
		{"GET", "https://evil.example.com/steal"},
		{"GET", "//evil.example.com/steal"},
		{"GET", "/auth/../../admin"},
		{"GET", "/auth/%2e%2E/admin"},
		{"GET", "/..%2fadmin"},
		{"GET", "/%2e%2e%2fadmin"},
		{"GET", "/a/..;/admin"},
		{"GET", "/a/..%5cadmin"},
		{"GET", "/a%00b"},
		{"GET", "/a%zz"},
		{"GET", "/a%2"},
		{"GET", ".."},
		{"GET", "/users?limit=1"},
		{"GET", "/users#frag"},
		{"GET", "/users/a b"},
		{"GET", "/users/{id}"},
		{"GET", ""},
		{"", "/users"},
		{"GE T", "/users"},
		{"get", "/users"},
	} {
		err := c.Execute(t.Context(), tc.method, tc.path, nil, nil)
		var ve *apierrors.ValidationError
		if !errors.As(err, &ve) || ve.Operation != "client.Execute" {
			t.Errorf("Execute(%q, %q) = %v, want a ValidationError", tc.method, tc.path, err)
		}
	}
	var notAPointer createdUser
	var nilPointer *createdUser
	for _, out := range []any{notAPointer, nilPointer, []byte(nil)} {
		if err := c.Execute(t.Context(), http.MethodPost, usersPath, createUserRequest{}, out); !errors.Is(err, apierrors.ErrInvalidInput) {
			t.Errorf("Execute with out %T = %v, want ErrInvalidInput before sending", out, err)
		}
	}
	if m.Calls() != 0 {
		t.Fatalf("%d requests sent, want none", m.Calls())
	}
}

func TestExecuteOnAClientNotBuiltByNew(t *testing.T) {
	t.Parallel()
	var nilClient *client.Client
	for _, c := range []*client.Client{nilClient, {}} {
		if err := c.Execute(t.Context(), http.MethodGet, usersPath, nil, nil); !errors.Is(err, apierrors.ErrInvalidInput) {
			t.Errorf("Execute on %#v = %v, want ErrInvalidInput", c, err)
		}
	}
}

func TestWithResponseInto(t *testing.T) {
	t.Parallel()
	m := areatest.NewMock(t)
	m.On(http.MethodGet, usersPath+"/ok", func(*http.Request) (*http.Response, error) {
		r := httpmock.NewStringResponse(http.StatusOK, `{"id":"user_1"}`)
		r.Header.Set("X-Request-Id", "req-200")
		return r, nil
	})
	m.On(http.MethodPut, usersPath+"/taken", func(*http.Request) (*http.Response, error) {
		r := httpmock.NewStringResponse(http.StatusConflict, `{"type":"about:blank","title":"Conflict","status":409}`)
		r.Header.Set("Content-Type", "application/problem+json")
		r.Header.Set("X-Request-Id", "req-409")
		return r, nil
	})
	c := m.Client()

	var resp *http.Response
	if err := c.Execute(t.Context(), http.MethodGet, usersPath+"/ok", nil, nil, option.WithResponseInto(&resp)); err != nil {
		t.Fatal(err)
	}
	if resp == nil || resp.StatusCode != 200 || resp.Header.Get("X-Request-Id") != "req-200" {
		t.Fatalf("200: response = %+v", resp)
	}
	if got := resp.Request.Header.Get("Authorization"); got != "[REDACTED]" {
		t.Fatalf("the handed-over request's Authorization = %q, want it redacted", got)
	}
	if n, err := resp.Body.Read(make([]byte, 1)); n != 0 || err == nil {
		t.Fatalf("body read = %d, %v; want an already consumed body", n, err)
	}

	err := c.Execute(t.Context(), http.MethodPut, usersPath+"/taken", map[string]string{}, nil, option.WithResponseInto(&resp))
	if !errors.Is(err, apierrors.ErrConflict) || resp == nil || resp.StatusCode != 409 || resp.Header.Get("X-Request-Id") != "req-409" {
		t.Fatalf("409: err = %v, response = %+v", err, resp)
	}

	// A call refused before sending leaves no stale response behind.
	_ = c.Execute(t.Context(), http.MethodGet, "https://elsewhere.example.com/", nil, nil, option.WithResponseInto(&resp))
	if resp != nil {
		t.Fatalf("after a refused call, response = %+v, want nil", resp)
	}
	if _, err := client.New(option.WithBaseURL(areatest.BaseURL), option.WithResponseInto(&resp)); !errors.Is(err, apierrors.ErrInvalidInput) {
		t.Fatalf("client-wide WithResponseInto: %v, want ErrInvalidInput", err)
	}
}

func TestMiddlewareOrderAndScope(t *testing.T) {
	t.Parallel()
	m := areatest.NewMock(t)
	m.On(http.MethodGet, usersPath, areatest.JSON(http.StatusOK, `[]`))
	var order []string
	named := func(name string) option.Middleware {
		return func(req *http.Request, next option.MiddlewareNext) (*http.Response, error) {
			order = append(order, name)
			return next(req)
		}
	}
	c := m.Client(option.WithMiddleware(named("client-1"), named("client-2")))
	if err := c.Execute(t.Context(), http.MethodGet, usersPath, nil, nil, option.WithMiddleware(named("call"))); err != nil {
		t.Fatal(err)
	}
	if err := c.Execute(t.Context(), http.MethodGet, usersPath, nil, nil); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(order, ","); got != "client-1,client-2,call,client-1,client-2" {
		t.Fatalf("order = %s", got)
	}

	// A middleware may answer itself; its error is the call's transport error.
	refuse := func(*http.Request, option.MiddlewareNext) (*http.Response, error) {
		return nil, errors.New("blocked by policy")
	}
	err := c.Execute(t.Context(), http.MethodGet, usersPath, nil, nil, option.WithMiddleware(refuse))
	if !errors.Is(err, apierrors.ErrTransport) || !strings.Contains(err.Error(), "blocked by policy") {
		t.Fatalf("refusing middleware: %v", err)
	}
	if _, err := client.New(option.WithBaseURL(areatest.BaseURL), option.WithMiddleware(nil)); !errors.Is(err, apierrors.ErrInvalidInput) {
		t.Fatalf("nil middleware: %v, want ErrInvalidInput", err)
	}
}
