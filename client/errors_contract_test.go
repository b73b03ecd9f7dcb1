package client_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/memberplatform/memberplatform-go/accessmgmt"
	"github.com/memberplatform/memberplatform-go/client"
	"github.com/memberplatform/memberplatform-go/customer"
	apierrors "github.com/memberplatform/memberplatform-go/errors"
	"github.com/memberplatform/memberplatform-go/option"
	"github.com/memberplatform/memberplatform-go/payments"
)

// ecOp is one contract operation, called through the public SDK.
type ecOp struct {
	name, method, path string
	call               func(ctx context.Context, c *client.Client) error
}

const (
	ecPaymentID = "3f2c8f0e-9a4b-4c1e-8d2f-5b6a7c8d9e0f"
	ecMemberID  = "8f3b2c1a-0000-4000-8000-000000000001"
)

var (
	ecUpdateUser = ecOp{"accessmgmt.UpdateUser", http.MethodPut, "/auth/access-management/users/user_01",
		func(ctx context.Context, c *client.Client) error {
			first := "Ada"
			_, err := c.AccessMgmt.UpdateUser(ctx, "user_01", accessmgmt.UpdateUserParams{FirstName: &first})
			return err
		}}
	ecReplaceRolePermissions = ecOp{"accessmgmt.ReplaceRolePermissions", http.MethodPut, "/auth/access-management/organizations/org_01/roles/org-admin/permissions",
		func(ctx context.Context, c *client.Client) error {
			return c.AccessMgmt.ReplaceRolePermissions(ctx, "org_01", "org-admin", []string{"users:read", "users:write"})
		}}
	ecUpdatePaymentMethod = ecOp{"payments.UpdatePaymentMethod", http.MethodPatch, "/payment-methods/" + ecPaymentID,
		func(ctx context.Context, c *client.Client) error {
			primary := true
			_, err := c.Payments.UpdatePaymentMethod(ctx, ecPaymentID, payments.UpdatePaymentMethodParams{SetAsPrimary: &primary})
			return err
		}}
	ecUpsertMemberAddress = ecOp{"customer.UpsertMemberAddress", http.MethodPost, "/customer/members/" + ecMemberID + "/address",
		func(ctx context.Context, c *client.Client) error {
			_, err := c.Customer.UpsertMemberAddress(ctx, ecMemberID, customer.UpsertMemberAddressParams{
				AddressLineOne: "1 Main St", State: "NSW", Suburb: "Sydney", Postcode: "2000", Country: "AU"})
			return err
		}}
)

// ecResponse is one named error response of the contract.
type ecResponse struct {
	name     string
	status   int
	ct       string
	header   map[string]string
	body     string
	kind     error   // Kind()
	also     []error // further kinds errors.Is matches
	title    string  // Title()
	detail   string  // Detail()
	fields   []apierrors.FieldError
	requests int // requests the server sees (a 401 refreshes the token and resends once)
	check    func(t *testing.T, e *apierrors.Error)
}

func ecProblem(title string, status int, code, detail string, extra string) string {
	return fmt.Sprintf(`{"type":"https://api.memberplatform.example/problems/%s","title":%q,"status":%d,"detail":%q,"instance":"/i/1","serviceCode":%q%s}`,
		strings.ToLower(strings.ReplaceAll(title, "_", "-")), title, status, detail, code, extra)
}

// The contract names these responses but not their numeric statuses; the
// statuses here are the conventional ones, and the provider-not-configured
// response is assumed to be a 503 (as documented in package errors).
var ecProblemResponses = []ecResponse{
	{name: "BAD_REQUEST", status: 400, body: ecProblem("BAD_REQUEST", 400, "40000001", "The request is malformed.", `,"serviceErrors":[{"detail":"must not be empty","pointer":"/firstName"}]`),
		kind: apierrors.ErrBadRequest, title: "BAD_REQUEST (40000001)", detail: "The request is malformed.",
		fields: []apierrors.FieldError{{Field: "firstName", Pointer: "/firstName", Message: "must not be empty"}}},
	{name: "UNAUTHORIZED", status: 401, body: ecProblem("UNAUTHORIZED", 401, "40100001", "The service JWT is invalid.", ""),
		kind: apierrors.ErrUnauthorized, title: "UNAUTHORIZED (40100001)", detail: "The service JWT is invalid.", requests: 2},
	{name: "FORBIDDEN", status: 403, body: ecProblem("FORBIDDEN", 403, "40300001", "Not allowed.", `,"serviceMeta":{"organizationId":"org_01"}`),
		kind: apierrors.ErrForbidden, title: "FORBIDDEN (40300001)", detail: "Not allowed.",
		check: func(t *testing.T, e *apierrors.Error) {
			if e.Problem.ServiceMeta["organizationId"] != "org_01" {
				t.Errorf("serviceMeta = %v", e.Problem.ServiceMeta)
			}
		}},
	{name: "NOT_FOUND", status: 404, body: ecProblem("NOT_FOUND", 404, "40400001", "No such resource.", ""),
		kind: apierrors.ErrNotFound, title: "NOT_FOUND (40400001)", detail: "No such resource."},
	{name: "CONFLICT", status: 409, body: ecProblem("CONFLICT", 409, "40900001", "Already exists.", ""),
		kind: apierrors.ErrConflict, title: "CONFLICT (40900001)", detail: "Already exists."},
	{name: "UNPROCESSABLE_ENTITY", status: 422, body: ecProblem("UNPROCESSABLE_ENTITY", 422, "42200001", "Invalid values.", `,"serviceErrors":[{"detail":"unknown permission","pointer":"/permissions/1"},{"detail":"not E.164","pointer":"/mobileNumber"}]`),
		kind: apierrors.ErrUnprocessableEntity, title: "UNPROCESSABLE_ENTITY (42200001)", detail: "Invalid values.",
		fields: []apierrors.FieldError{{Field: "permissions[1]", Pointer: "/permissions/1", Message: "unknown permission"}, {Field: "mobileNumber", Pointer: "/mobileNumber", Message: "not E.164"}}},
	{name: "provider rate limited", status: 429, header: map[string]string{"Retry-After": "30"},
		body: ecProblem("Provider rate limited", 429, "42900001", "The configured access provider rate limited the request.", `,"serviceMeta":{"provider":"workos"}`),
		kind: apierrors.ErrRateLimited, title: "Provider rate limited (42900001)", detail: "The configured access provider rate limited the request.",
		check: func(t *testing.T, e *apierrors.Error) {
			if e.RetryAfter != 30*time.Second {
				t.Errorf("RetryAfter = %v, want 30s", e.RetryAfter)
			}
			if !strings.Contains(e.Error(), "(retry after 30s)") {
				t.Errorf("Error() = %q lacks the wait", e.Error())
			}
		}},
	{name: "INTERNAL_SERVER_ERROR", status: 500, body: ecProblem("INTERNAL_SERVER_ERROR", 500, "50000001", "Unexpected provider response.", ""),
		kind: apierrors.ErrInternal, title: "INTERNAL_SERVER_ERROR (50000001)", detail: "Unexpected provider response."},
	{name: "provider not configured", status: 503,
		body: ecProblem("Provider not configured", 503, "50300001", "The access-management provider is not configured for this environment.", ""),
		kind: apierrors.ErrProviderNotConfigured, also: []error{apierrors.ErrServiceUnavailable},
		title: "Provider not configured (50300001)", detail: "The access-management provider is not configured for this environment.",
		check: func(t *testing.T, e *apierrors.Error) {
			if e.Temporary() {
				t.Error("provider not configured reported as Temporary")
			}
		}},
}

var ecNotImplemented = ecResponse{name: "Not implemented", status: 501,
	body: `{"type":"https://api.memberplatform.example/problems/not-implemented","title":"Not implemented","status":501,"detail":"Not implemented yet.","serviceCode":"PAYMENT_METHOD_UPDATE_NOT_IMPLEMENTED"}`,
	kind: apierrors.ErrNotImplemented, title: "Not implemented (PAYMENT_METHOD_UPDATE_NOT_IMPLEMENTED)", detail: "Not implemented yet.",
	check: func(t *testing.T, e *apierrors.Error) {
		if e.Problem.ServiceCode != "PAYMENT_METHOD_UPDATE_NOT_IMPLEMENTED" {
			t.Errorf("free-form serviceCode = %q", e.Problem.ServiceCode)
		}
	}}

// Code/message responses of operation 4. The contract gives neither the
// statuses nor the code values; these are plausible ones.
var ecCodeMessageResponses = []ecResponse{
	{name: "validation error", status: 400, ct: "application/json",
		body: `{"code":"VALIDATION_ERROR","message":"Request validation failed","errors":[{"field":"postcode","message":"must be 4 digits"},{"field":"country","message":"unsupported"}]}`,
		kind: apierrors.ErrBadRequest, also: []error{apierrors.ErrUnprocessableEntity}, title: "VALIDATION_ERROR", detail: "Request validation failed",
		fields: []apierrors.FieldError{{Field: "postcode", Message: "must be 4 digits"}, {Field: "country", Message: "unsupported"}},
		check: func(t *testing.T, e *apierrors.Error) {
			if len(e.CodeMessage.Errors) != 2 || e.CodeMessage.Errors[0].Field != "postcode" {
				t.Errorf("errors = %+v", e.CodeMessage.Errors)
			}
		}},
	{name: "unauthenticated", status: 401, ct: "application/json", body: `{"code":"UNAUTHENTICATED","message":"Missing or invalid auth context"}`,
		kind: apierrors.ErrUnauthorized, title: "UNAUTHENTICATED", detail: "Missing or invalid auth context", requests: 2},
	{name: "forbidden", status: 403, ct: "application/json", body: `{"code":"FORBIDDEN","message":"The caller lacks the required permission"}`,
		kind: apierrors.ErrForbidden, title: "FORBIDDEN", detail: "The caller lacks the required permission"},
	{name: "member not found", status: 404, ct: "application/json", body: `{"code":"MEMBER_NOT_FOUND","message":"Member not found"}`,
		kind: apierrors.ErrNotFound, title: "MEMBER_NOT_FOUND", detail: "Member not found"},
	{name: "internal error", status: 500, ct: "application/json", body: `{"code":"INTERNAL_ERROR","message":"database failure"}`,
		kind: apierrors.ErrInternal, title: "INTERNAL_ERROR", detail: "database failure"},
}

// ecAllKinds are the kinds an API error may match; each case must match
// exactly its own.
var ecAllKinds = []error{
	apierrors.ErrBadRequest, apierrors.ErrUnauthorized, apierrors.ErrForbidden, apierrors.ErrNotFound, apierrors.ErrConflict,
	apierrors.ErrUnprocessableEntity, apierrors.ErrRateLimited, apierrors.ErrInternal, apierrors.ErrNotImplemented,
	apierrors.ErrServiceUnavailable, apierrors.ErrProviderNotConfigured, apierrors.ErrInvalidInput, apierrors.ErrTokenUnavailable,
	apierrors.ErrTransport, apierrors.ErrUnexpectedResponseBody,
}

// ecClient builds a client for base with an explicit token source that
// hands out a new token on every fetch (so a 401 is answered by a refresh
// and one resend), no retries and a transport whose idle connections are
// closed at cleanup.
func ecClient(t *testing.T, base string) *client.Client {
	t.Helper()
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	var n atomic.Int64
	rotating := client.TokenSourceFunc(func(context.Context) (client.Token, error) {
		return client.Token{Value: "t" + strconv.FormatInt(n.Add(1), 10)}, nil
	})
	return newClient(t, option.WithBaseURL(base), option.WithTokenSource(rotating),
		option.WithMaxRetries(0), option.WithTransport(tr))
}

func TestErrorContract(t *testing.T) {
	type opCase struct {
		op        ecOp
		responses []ecResponse
	}
	cases := []opCase{
		{ecUpdateUser, ecProblemResponses},
		{ecReplaceRolePermissions, ecProblemResponses},
		// Operation 3 names only "Not implemented"; it shares the problem
		// format, so the nine problem responses are checked for it too.
		{ecUpdatePaymentMethod, append([]ecResponse{ecNotImplemented}, ecProblemResponses...)},
		{ecUpsertMemberAddress, ecCodeMessageResponses},
	}
	for _, oc := range cases {
		for _, rc := range oc.responses {
			t.Run(oc.op.name+"/"+rc.name, func(t *testing.T) {
				var hits atomic.Int32
				var badAuth, badRoute atomic.Value
				srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					hits.Add(1)
					if got := r.Header.Get("Authorization"); !strings.HasPrefix(got, "Bearer t") || len(got) < len("Bearer t1") {
						badAuth.Store(got)
					}
					if r.Method != oc.op.method || r.URL.EscapedPath() != oc.op.path {
						badRoute.Store(r.Method + " " + r.URL.EscapedPath())
					}
					ct := rc.ct
					if ct == "" {
						ct = "application/problem+json"
					}
					w.Header().Set("Content-Type", ct)
					w.Header().Set("X-Request-Id", "req-"+rc.name)
					for k, v := range rc.header {
						w.Header().Set(k, v)
					}
					w.WriteHeader(rc.status)
					_, _ = io.WriteString(w, rc.body)
				}))
				defer srv.Close()
				c := ecClient(t, srv.URL)

				err := oc.op.call(context.Background(), c)
				if err == nil {
					t.Fatal("no error")
				}
				if v := badAuth.Load(); v != nil {
					t.Errorf("Authorization = %q", v)
				}
				if v := badRoute.Load(); v != nil {
					t.Errorf("request went to %s", v)
				}
				var e *apierrors.Error
				if !errors.As(err, &e) {
					t.Fatalf("errors.As(*errors.Error) failed for %T: %v", err, err)
				}
				want := map[error]bool{rc.kind: true}
				for _, k := range rc.also {
					want[k] = true
				}
				for _, k := range ecAllKinds {
					if got := errors.Is(err, k); got != want[k] {
						t.Errorf("errors.Is(err, %v) = %v, want %v", k, got, want[k])
					}
				}
				if e.Kind() != rc.kind {
					t.Errorf("Kind() = %v, want %v", e.Kind(), rc.kind)
				}
				wantReq := max(rc.requests, 1)
				if int(hits.Load()) != wantReq || e.Attempts != wantReq {
					t.Errorf("server saw %d requests, Attempts = %d, want %d", hits.Load(), e.Attempts, wantReq)
				}
				if e.Operation != oc.op.name || e.Method != oc.op.method || e.Path != oc.op.path || e.StatusCode != rc.status {
					t.Errorf("got %s %s %s %d", e.Operation, e.Method, e.Path, e.StatusCode)
				}
				if e.RequestID != "req-"+rc.name || string(e.Body) != rc.body {
					t.Errorf("RequestID %q, Body %q", e.RequestID, e.Body)
				}
				if rc.ct == "" && (e.Problem == nil || e.Problem.Status != rc.status) {
					t.Errorf("Problem = %+v", e.Problem)
				}
				if rc.ct != "" && e.CodeMessage == nil {
					t.Error("CodeMessage not decoded")
				}
				if e.Title() != rc.title || e.Detail() != rc.detail {
					t.Errorf("Title %q Detail %q, want %q %q", e.Title(), e.Detail(), rc.title, rc.detail)
				}
				fs := e.FieldErrors()
				if fmt.Sprint(fs) != fmt.Sprint(rc.fields) {
					t.Errorf("FieldErrors() = %+v, want %+v", fs, rc.fields)
				}
				msg := err.Error()
				if !strings.HasPrefix(msg, "memberplatform: "+oc.op.name+": "+fmt.Sprint(rc.status)+" ") || strings.Contains(msg, "Bearer") ||
					!strings.Contains(msg, rc.detail) || !strings.HasSuffix(msg, "(request id req-"+rc.name+")") || strings.ContainsAny(msg, "\r\n") {
					t.Errorf("Error() = %q", msg)
				}
				if rc.check != nil {
					rc.check(t, e)
				}
			})
		}
	}
}

// TestConnectionReusedAfterErrorResponse: after an error response with a
// body larger than the decoder's 64 KiB snippet, the next call is served on
// the same TCP connection, because the SDK reads the body to its end (the
// pipeline buffers it, and errors.FromResponse drains what is left) before
// closing it. errors.TestConnectionReusedAfterError covers FromResponse on
// its own, with a control showing an unread body costs a new connection.
func TestConnectionReusedAfterErrorResponse(t *testing.T) {
	pad := strings.Repeat("x", 100<<10)
	var conns, hits atomic.Int32
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if hits.Add(1) == 1 {
			w.Header().Set("Content-Type", "application/problem+json")
			w.WriteHeader(http.StatusConflict)
			_, _ = io.WriteString(w, `{"title":"CONFLICT","status":409,"serviceCode":"40900001","detail":"taken","pad":"`+pad+`"}`)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"id":"user_01","email":"ada@example.com","firstName":"Ada"}`)
	}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	defer srv.Close()
	c := ecClient(t, srv.URL)

	err := ecUpdateUser.call(context.Background(), c)
	var e *apierrors.Error
	if !errors.As(err, &e) || !errors.Is(err, apierrors.ErrConflict) || !e.BodyTruncated || e.Detail() != "taken" {
		t.Fatalf("first call: %v", err)
	}
	if err := ecUpdateUser.call(context.Background(), c); err != nil {
		t.Fatalf("second call: %v", err)
	}
	if hits.Load() != 2 || conns.Load() != 1 {
		t.Errorf("%d requests over %d TCP connections, want 2 over 1", hits.Load(), conns.Load())
	}
}

// TestRealBodiesThroughSDK serves each file of testdata/error-bodies (at
// the module root) to a real UpdateUser call: every one must come back as a
// typed *errors.Error carrying the status and the body.
func TestRealBodiesThroughSDK(t *testing.T) {
	dir := filepath.Join("..", "testdata", "error-bodies")
	if _, err := os.Stat(filepath.Join(dir, "README.md")); err != nil {
		t.Fatalf("real error bodies missing from the repository: %v", err)
	}
	serve := map[string]struct {
		status int
		ct     string
		kind   error
	}{
		"01": {403, "application/problem+json", apierrors.ErrForbidden}, "03": {400, "application/problem+json", apierrors.ErrBadRequest},
		"05": {422, "application/problem+json; charset=utf-8", apierrors.ErrUnprocessableEntity}, "07": {422, "application/problem+json", apierrors.ErrUnprocessableEntity},
		"09": {500, "application/problem+json", apierrors.ErrInternal}, "11": {401, "application/json", apierrors.ErrUnauthorized},
		"13": {400, "application/problem+json; charset=utf-8", apierrors.ErrBadRequest}, "15": {400, "application/problem+json; charset=utf-8", apierrors.ErrBadRequest},
		"17": {422, "application/problem+json", apierrors.ErrUnprocessableEntity}, "19": {403, "application/problem+json", apierrors.ErrForbidden},
		"21": {404, "application/problem+json; charset=utf-8", apierrors.ErrNotFound}, "23": {406, "application/problem+json", nil},
		"25": {500, "application/problem+json", apierrors.ErrInternal}, "27": {403, "application/problem+json", apierrors.ErrForbidden},
		"29": {400, "text/plain; charset=utf-8", apierrors.ErrBadRequest}, "31": {400, "application/json", apierrors.ErrBadRequest},
		"32": {422, "application/json", apierrors.ErrUnprocessableEntity}, "33": {400, "application/json", apierrors.ErrBadRequest},
		"35": {422, "application/json; charset=utf-8", apierrors.ErrUnprocessableEntity}, "37": {503, "text/plain", apierrors.ErrServiceUnavailable},
		"39": {403, "text/html; charset=UTF-8", apierrors.ErrForbidden}, "41": {403, "", apierrors.ErrForbidden},
		"43": {400, "application/json", apierrors.ErrBadRequest}, "45": {404, "application/json", apierrors.ErrNotFound},
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, en := range entries {
		s, ok := serve[en.Name()[:min(2, len(en.Name()))]]
		if !ok {
			continue
		}
		n++
		body, err := os.ReadFile(filepath.Join(dir, en.Name()))
		if err != nil {
			t.Fatal(err)
		}
		t.Run(en.Name(), func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if s.ct != "" {
					w.Header().Set("Content-Type", s.ct)
				}
				w.WriteHeader(s.status)
				_, _ = w.Write(body)
			}))
			defer srv.Close()
			err := ecUpdateUser.call(context.Background(), ecClient(t, srv.URL))
			var e *apierrors.Error
			if !errors.As(err, &e) {
				t.Fatalf("%T %v", err, err)
			}
			if e.StatusCode != s.status || string(e.Body) != string(body) || e.Kind() != s.kind || (s.kind != nil && !errors.Is(err, s.kind)) {
				t.Errorf("status %d kind %v body %d bytes: %v", e.StatusCode, e.Kind(), len(e.Body), err)
			}
			if strings.ContainsAny(err.Error(), "\r\n") {
				t.Errorf("Error() spans lines: %q", err.Error())
			}
		})
	}
	if n != len(serve) {
		t.Errorf("served %d files, want %d", n, len(serve))
	}
}

// TestFieldErrorsInAnyCase: member names match as encoding/json matches
// them ({"Detail", "Pointer"}, {"FIELD", "Message"}), so such items still
// give field errors through both formats.
func TestFieldErrorsInAnyCase(t *testing.T) {
	for _, tc := range []struct {
		op   ecOp
		ct   string
		body string
	}{
		{ecUpdateUser, "application/problem+json", `{"Type":"about:blank","Title":"UNPROCESSABLE_ENTITY","Status":422,"serviceCode":"42200001",` +
			`"ServiceErrors":[{"Detail":"must be an email address","Pointer":"/email"}]}`},
		{ecUpsertMemberAddress, "application/json", `{"Code":"VALIDATION_ERROR","Message":"invalid","Errors":[{"FIELD":"email","Message":"must be an email address"}]}`},
	} {
		t.Run(tc.op.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				w.Header().Set("Content-Type", tc.ct)
				w.WriteHeader(http.StatusUnprocessableEntity)
				_, _ = io.WriteString(w, tc.body)
			}))
			defer srv.Close()
			err := tc.op.call(context.Background(), ecClient(t, srv.URL))
			fs := apierrors.FieldErrorsOf(err)
			if len(fs) != 1 || fs[0].Field != "email" || fs[0].Message != "must be an email address" {
				t.Fatalf("FieldErrorsOf = %+v (%v)", fs, err)
			}
			if !strings.Contains(err.Error(), "[email: must be an email address]") || !errors.Is(err, apierrors.ErrUnprocessableEntity) {
				t.Errorf("Error() = %q", err.Error())
			}
		})
	}
}

func TestTransportErrorKeepsTheLastResponse(t *testing.T) {
	t.Parallel()
	srv := newCountingServer(t, func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/problem+json")
		w.Header().Set("X-Request-Id", "req-503")
		w.WriteHeader(http.StatusServiceUnavailable)
		_, _ = io.WriteString(w, `{"type":"about:blank","title":"Busy","status":503,"serviceCode":"50300001","detail":"try later"}`)
	})
	// Cancel when the retry is announced, that is after the 503 was read
	// and before the hour-long backoff: an event, not a guess at how long
	// the first attempt takes (a timer fired mid-attempt on a busy machine).
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	c := newClient(t, option.WithBaseURL(srv.URL), option.WithTokenSource(nil), option.WithRetryBackoff(time.Hour, time.Hour),
		option.WithLogger(slog.New(cancelOnRetry{cancel})))
	err := updateFirstName(ctx, c)
	var te *apierrors.TransportError
	if !errors.As(err, &te) || !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want a TransportError wrapping context.Canceled", err)
	}
	if te.Last == nil || te.Last.StatusCode != 503 || te.Last.RequestID != "req-503" || te.Last.Problem == nil || te.Last.Problem.ServiceCode != "50300001" {
		t.Fatalf("Last = %+v, want the decoded 503", te.Last)
	}
}

// cancelOnRetry is a slog.Handler that cancels a context when the SDK logs
// that it is about to retry.
type cancelOnRetry struct{ cancel context.CancelFunc }

func (h cancelOnRetry) Enabled(_ context.Context, l slog.Level) bool { return l >= slog.LevelWarn }

func (h cancelOnRetry) Handle(_ context.Context, r slog.Record) error {
	if strings.HasSuffix(r.Message, "retrying") {
		h.cancel()
	}
	return nil
}

func (h cancelOnRetry) WithAttrs([]slog.Attr) slog.Handler { return h }

func (h cancelOnRetry) WithGroup(string) slog.Handler { return h }

// A call that ends without a final response after the platform throttled
// it still answers errors.Is(err, ErrRateLimited) and errors.As(&apiErr).
func TestThrottledCallEndingWithoutAResponseKeepsTheAnswer(t *testing.T) {
	t.Parallel()
	throttle := func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Retry-After-Ms", "600")
		w.Header().Set("X-Request-Id", "req-429")
		w.WriteHeader(http.StatusTooManyRequests)
	}

	t.Run("cancelled Retry-After wait", func(t *testing.T) {
		t.Parallel()
		srv := newCountingServer(t, throttle)
		c := newClient(t, option.WithBaseURL(srv.URL), option.WithTokenSource(nil))
		ctx, cancel := context.WithCancel(t.Context())
		time.AfterFunc(100*time.Millisecond, cancel)
		err := updateFirstName(ctx, c)
		var apiErr *apierrors.Error
		if !errors.Is(err, apierrors.ErrTransport) || !errors.Is(err, context.Canceled) || !errors.Is(err, apierrors.ErrRateLimited) ||
			!errors.As(err, &apiErr) || apiErr.RequestID != "req-429" || apiErr.RetryAfter != 600*time.Millisecond {
			t.Fatalf("err = %v (%#v), want a transport error that still reaches the 429", err, apiErr)
		}
	})

	t.Run("token refresh failed after a 429", func(t *testing.T) {
		t.Parallel()
		srv := newCountingServer(t, throttle)
		var fetches atomic.Int32
		tokens := client.TokenSourceFunc(func(context.Context) (client.Token, error) {
			if fetches.Add(1) == 1 {
				// Expires during the Retry-After wait: the retry must fetch.
				return client.Token{Value: "short-lived-token", Expiry: time.Now().Add(400 * time.Millisecond)}, nil
			}
			return client.Token{}, errors.New("token service down")
		})
		c := newClient(t, option.WithBaseURL(srv.URL), option.WithTokenSource(tokens))
		err := updateFirstName(t.Context(), c)
		var apiErr *apierrors.Error
		if !errors.Is(err, apierrors.ErrTokenUnavailable) || !errors.Is(err, apierrors.ErrRateLimited) ||
			!errors.As(err, &apiErr) || apiErr.StatusCode != http.StatusTooManyRequests || apiErr.RequestID != "req-429" {
			t.Fatalf("err = %v, want a token error that still reaches the 429", err)
		}
		if n := srv.reqs.Load(); n != 1 {
			t.Fatalf("%d API requests, want 1 (no request without a token)", n)
		}
	})
}
