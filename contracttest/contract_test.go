package contracttest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"
	"github.com/oapi-codegen/nullable"

	"github.com/memberplatform/memberplatform-go/accessmgmt"
	"github.com/memberplatform/memberplatform-go/customer"
	apierrors "github.com/memberplatform/memberplatform-go/errors"
	"github.com/memberplatform/memberplatform-go/internal/core"
	"github.com/memberplatform/memberplatform-go/option"
	"github.com/memberplatform/memberplatform-go/payments"
	"github.com/memberplatform/memberplatform-go/sdktest"
)

const openAPIPath = "../api/openapi.yaml"

// defineFormats registers the string formats the document uses; kin-openapi
// validates only formats it knows. Called once from TestMain.
func defineFormats() {
	openapi3.DefineStringFormatValidator("email", openapi3.NewRegexpFormatValidator(openapi3.FormatOfStringForEmail))
	openapi3.DefineStringFormatValidator("uuid", openapi3.NewRegexpFormatValidator(openapi3.FormatOfStringForUUIDOfRFC9562))
	openapi3.DefineStringFormatValidator("uri", openapi3.NewCallbackValidator(func(s string) error {
		u, err := url.Parse(s)
		if err != nil || u.Scheme == "" {
			return fmt.Errorf("not an absolute URI: %q", s)
		}
		return nil
	}))
}

// exchange is one request/response pair seen on the wire.
type exchange struct {
	req      *http.Request
	reqBody  []byte
	status   int
	header   http.Header
	respBody []byte
	viaSDK   bool
}

// recorder is a RoundTripper that captures every exchange. mutate, if set,
// rewrites request bodies before they are sent (for negative tests).
type recorder struct {
	base   http.RoundTripper
	viaSDK bool
	mutate func(path string, body []byte) []byte

	mu        sync.Mutex
	exchanges []exchange
}

func (r *recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	var body []byte
	if req.Body != nil {
		b, err := io.ReadAll(req.Body)
		_ = req.Body.Close()
		if err != nil {
			return nil, err
		}
		body = b
	}
	if r.mutate != nil && body != nil {
		body = r.mutate(req.URL.Path, body)
	}
	out := req.Clone(req.Context())
	setBody(out, body)
	resp, err := r.base.RoundTrip(out)
	if err != nil {
		return nil, err
	}
	respBody, err := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if err != nil {
		return nil, err
	}
	resp.Body = io.NopCloser(bytes.NewReader(respBody))
	r.mu.Lock()
	r.exchanges = append(r.exchanges, exchange{req: out, reqBody: body, status: resp.StatusCode, header: resp.Header.Clone(), respBody: respBody, viaSDK: r.viaSDK})
	r.mu.Unlock()
	return resp, nil
}

// setBody makes body the request's body, GetBody included (validators and
// transports may read either).
func setBody(req *http.Request, body []byte) {
	req.ContentLength = int64(len(body))
	req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	req.Body = io.NopCloser(bytes.NewReader(body))
	if body == nil {
		req.Body, req.GetBody = nil, nil
	}
}

func (r *recorder) all() []exchange {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]exchange(nil), r.exchanges...)
}

// contract loads the document and a router whose server is base.
func contract(t *testing.T, base string) (*openapi3.T, routers.Router) {
	t.Helper()
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromFile(openAPIPath)
	if err != nil {
		t.Fatalf("loading %s: %v", openAPIPath, err)
	}
	if err := doc.Validate(loader.Context); err != nil {
		t.Fatalf("%s is not a valid OpenAPI document: %v", openAPIPath, err)
	}
	doc.Servers = openapi3.Servers{{URL: base}}
	router, err := gorillamux.NewRouter(doc)
	if err != nil {
		t.Fatalf("router: %v", err)
	}
	return doc, router
}

func requestInput(ctx context.Context, router routers.Router, ex exchange) (*openapi3filter.RequestValidationInput, error) {
	req := ex.req.Clone(ctx)
	setBody(req, ex.reqBody)
	route, params, err := router.FindRoute(req)
	if err != nil {
		return nil, fmt.Errorf("no route for %s %s: %w", req.Method, req.URL.Path, err)
	}
	return &openapi3filter.RequestValidationInput{
		Request: req, PathParams: params, Route: route,
		Options: &openapi3filter.Options{AuthenticationFunc: openapi3filter.NoopAuthenticationFunc, MultiError: true},
	}, nil
}

func validateRequest(ctx context.Context, router routers.Router, ex exchange) error {
	in, err := requestInput(ctx, router, ex)
	if err != nil {
		return err
	}
	return openapi3filter.ValidateRequest(ctx, in)
}

func validateResponse(ctx context.Context, router routers.Router, ex exchange) error {
	in, err := requestInput(ctx, router, ex)
	if err != nil {
		return err
	}
	out := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: in,
		Status:                 ex.status,
		Header:                 ex.header,
		Options:                &openapi3filter.Options{IncludeResponseStatus: true, MultiError: true},
	}
	out.SetBodyBytes(ex.respBody)
	return openapi3filter.ValidateResponse(ctx, out)
}

// TestContract runs every operation, successes and errors, through the SDK
// against sdktest and validates every request the SDK sent and every
// response the fake returned against api/openapi.yaml.
func TestContract(t *testing.T) {
	srv := sdktest.NewServer(t, sdktest.WithClock(func() time.Time { return time.Date(2025, 3, 4, 5, 6, 7, 0, time.UTC) }))
	_, router := contract(t, srv.URL)
	ctx := t.Context()

	rec := &recorder{base: srv.HTTPClient().Transport, viaSDK: true}
	c := srv.Client(option.WithTransport(rec))

	srv.AddUser(sdktest.User{ID: "user_01", Email: "ada@example.com"})
	srv.AddUser(sdktest.User{ID: "user_02", Email: "grace@example.com", MobileNumber: "+61400000000", FirstName: "Grace", LastName: "Hopper"})
	srv.AddRole("org_01", "org-admin", "users:read")
	pm := srv.AddPaymentMethod(sdktest.PaymentMethod{Primary: true})
	member := srv.AddMember("")

	mustErr := func(err error, kind error) {
		t.Helper()
		if !errors.Is(err, kind) {
			t.Errorf("err = %v, want %v", err, kind)
		}
	}
	// Operation 1.
	if _, err := c.AccessMgmt.UpdateUser(ctx, "user_01", accessmgmt.UpdateUserParams{
		MobileNumber: new("+61412345678"), Email: new("ada.l@example.com"), FirstName: new("Ada"), LastName: new("Lovelace"),
	}); err != nil {
		t.Fatal(err)
	}
	_, err := c.AccessMgmt.UpdateUser(ctx, "user_missing", accessmgmt.UpdateUserParams{FirstName: new("X")})
	mustErr(err, apierrors.ErrNotFound)
	_, err = c.AccessMgmt.UpdateUser(ctx, "user_01", accessmgmt.UpdateUserParams{Email: new("grace@example.com")})
	mustErr(err, apierrors.ErrConflict)
	srv.FailNext(1, sdktest.Fault{Operation: sdktest.OpUpdateUser, Status: http.StatusInternalServerError})
	if _, err := c.AccessMgmt.UpdateUser(ctx, "user_02", accessmgmt.UpdateUserParams{LastName: new("Murray Hopper")}); err != nil {
		t.Fatalf("retried 500: %v", err)
	}
	srv.FailNext(1, sdktest.Fault{Operation: sdktest.OpUpdateUser, Status: http.StatusUnprocessableEntity,
		Fields: []apierrors.FieldError{{Field: "mobileNumber", Message: "not reachable"}, {Message: "whole body"}}})
	_, err = c.AccessMgmt.UpdateUser(ctx, "user_01", accessmgmt.UpdateUserParams{FirstName: new("Ada")})
	mustErr(err, apierrors.ErrUnprocessableEntity)
	srv.SetProviderConfigured(false)
	_, err = c.AccessMgmt.UpdateUser(ctx, "user_01", accessmgmt.UpdateUserParams{FirstName: new("Ada")})
	mustErr(err, apierrors.ErrProviderNotConfigured)
	srv.SetProviderConfigured(true)

	// Operation 2.
	if err := c.AccessMgmt.ReplaceRolePermissions(ctx, "org_01", "org-admin", []string{"users:read", "users:write", "billing.*"}); err != nil {
		t.Fatal(err)
	}
	if err := c.AccessMgmt.ReplaceRolePermissions(ctx, "org_01", "org-admin", nil); err != nil {
		t.Fatal(err)
	}
	mustErr(c.AccessMgmt.ReplaceRolePermissions(ctx, "org_01", "org-missing", []string{"a"}), apierrors.ErrNotFound)
	srv.FailNext(1, sdktest.Fault{Operation: sdktest.OpReplaceRolePermissions, Status: http.StatusTooManyRequests, RetryAfter: time.Hour})
	mustErr(c.AccessMgmt.ReplaceRolePermissions(ctx, "org_01", "org-admin", []string{"a"}), apierrors.ErrRateLimited)

	// Operation 3.
	if _, err := c.Payments.UpdatePaymentMethod(ctx, pm.ID, payments.UpdatePaymentMethodParams{SetAsPrimary: new(false), ExpDate: new(payments.ExpDate(4, 2031))}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Payments.UpdatePaymentMethod(ctx, pm.ID, payments.UpdatePaymentMethodParams{}); err != nil {
		t.Fatal(err)
	}
	_, err = c.Payments.UpdatePaymentMethod(ctx, "7d3c2a9e-3f1b-4c55-9a0e-1b2c3d4e5f60", payments.UpdatePaymentMethodParams{SetAsPrimary: new(true)})
	mustErr(err, apierrors.ErrNotImplemented)
	// The request format of expDate is open; the response must still be MM/YYYY.
	if _, err := c.Payments.UpdatePaymentMethod(ctx, pm.ID, payments.UpdatePaymentMethodParams{ExpDate: new("2031-04")}); err != nil {
		t.Fatal(err)
	}
	_, err = c.Payments.UpdatePaymentMethod(ctx, pm.ID, payments.UpdatePaymentMethodParams{ExpDate: new("April 2031")})
	mustErr(err, apierrors.ErrBadRequest)

	// Operation 4.
	addr := customer.UpsertMemberAddressParams{AddressLineOne: "1 George St", AddressLineTwo: nullable.NewNullableWithValue("Level 2"),
		State: "NSW", Suburb: "Sydney", Postcode: "2000", Country: "AU"}
	if _, err := c.Customer.UpsertMemberAddress(ctx, member, addr); err != nil {
		t.Fatal(err)
	}
	addr.AddressFull = new("1 George St, Sydney NSW 2000")
	addr.AddressLineTwo = nullable.NewNullNullable[string]()
	if _, err := c.Customer.UpsertMemberAddress(ctx, member, addr); err != nil {
		t.Fatal(err)
	}
	_, err = c.Customer.UpsertMemberAddress(ctx, "9b2f6a1e-0c1d-4e2f-8a3b-4c5d6e7f8091", addr)
	mustErr(err, apierrors.ErrNotFound)
	srv.FailNext(1, sdktest.Fault{Operation: sdktest.OpUpsertMemberAddress, Status: http.StatusForbidden})
	_, err = c.Customer.UpsertMemberAddress(ctx, member, addr)
	mustErr(err, apierrors.ErrForbidden)
	// The validation error must carry errors, with or without field errors.
	srv.FailNext(1, sdktest.Fault{Operation: sdktest.OpUpsertMemberAddress, Status: http.StatusBadRequest,
		Fields: []apierrors.FieldError{{Pointer: "/postcode", Message: "unknown postcode"}}})
	_, err = c.Customer.UpsertMemberAddress(ctx, member, addr)
	mustErr(err, apierrors.ErrBadRequest)
	srv.FailNext(1, sdktest.Fault{Operation: sdktest.OpUpsertMemberAddress, Status: http.StatusBadRequest})
	_, err = c.Customer.UpsertMemberAddress(ctx, member, addr)
	mustErr(err, apierrors.ErrBadRequest)

	// Unauthenticated calls (no token source): problem and code/message 401s.
	anon := srv.Client(option.WithTransport(rec), option.WithTokenSource(nil))
	_, err = anon.AccessMgmt.UpdateUser(ctx, "user_01", accessmgmt.UpdateUserParams{FirstName: new("Ada")})
	mustErr(err, apierrors.ErrUnauthorized)
	_, err = anon.Customer.UpsertMemberAddress(ctx, member, addr)
	mustErr(err, apierrors.ErrUnauthorized)

	// Server-side validation, reached only by requests the SDK would refuse
	// to send: only their responses are checked against the document.
	raw := &recorder{base: srv.HTTPClient().Transport}
	hc := &http.Client{Transport: raw}
	tok := srv.IssueToken()
	for _, rr := range []struct{ method, path, body string }{
		{http.MethodPut, "/auth/access-management/users/user_01", `{"email":"not an email"}`},
		{http.MethodPut, "/auth/access-management/users/user_01", `{}`},
		{http.MethodPut, "/auth/access-management/users/user_01", `{"firstName":"A","nickname":"x"}`},
		{http.MethodPut, "/auth/access-management/organizations/org_01/roles/org-admin/permissions", `{"permissions":["Users:Read"]}`},
		{http.MethodPut, "/auth/access-management/organizations/org_01/roles/org-admin/permissions", `{"permissions":"x"}`},
		{http.MethodPatch, "/payment-methods/" + pm.ID, `{"setAsPrimary":"yes"}`},
		{http.MethodPost, "/customer/members/" + member + "/address", `{"state":""}`},
		{http.MethodPost, "/customer/members/" + member + "/address", `not json`},
		{http.MethodPost, "/auth/token", ``},
	} {
		req, _ := http.NewRequestWithContext(ctx, rr.method, srv.URL+rr.path, strings.NewReader(rr.body))
		req.Header.Set("Content-Type", "application/json")
		if rr.path != "/auth/token" {
			req.Header.Set("Authorization", "Bearer "+tok)
		}
		resp, err := hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_ = resp.Body.Close()
		if resp.StatusCode < 400 {
			t.Errorf("%s %s %s: status %d, want an error", rr.method, rr.path, rr.body, resp.StatusCode)
		}
	}

	sdkEx, rawEx := rec.all(), raw.all()
	seen := map[string]bool{}
	for _, ex := range append(sdkEx, rawEx...) {
		name := ex.req.Method + " " + ex.req.URL.Path + " → " + fmt.Sprint(ex.status)
		seen[fmt.Sprint(ex.status)] = true
		if ex.viaSDK {
			if err := validateRequest(ctx, router, ex); err != nil {
				t.Errorf("SDK request %s body %s violates the contract:\n%v", name, ex.reqBody, err)
			}
		}
		if err := validateResponse(ctx, router, ex); err != nil {
			t.Errorf("sdktest response %s body %s violates the contract:\n%v", name, ex.respBody, err)
		}
	}
	// The scenario must have exercised what it claims to.
	for _, st := range []string{"200", "201", "400", "401", "403", "404", "409", "422", "429", "500", "501", "503"} {
		if !seen[st] {
			t.Errorf("scenario produced no %s response", st)
		}
	}
	if n := len(sdkEx); n < 20 {
		t.Errorf("only %d SDK exchanges recorded", n)
	}
	// Every operation the SDK declares went through the check.
	sent := map[string]bool{}
	for _, r := range srv.Requests() {
		sent[r.Operation] = sent[r.Operation] || strings.HasPrefix(r.Header.Get("User-Agent"), "memberplatform-go/")
	}
	for _, op := range core.Operations() {
		if !sent[op.Name] {
			t.Errorf("the scenario sends no %s through the SDK: its requests go unchecked", op.Name)
		}
	}
}

// TestContractRejectsUndocumentedFields proves the validator would catch an
// SDK change that sends a field the document does not allow.
func TestContractRejectsUndocumentedFields(t *testing.T) {
	srv := sdktest.NewServer(t)
	_, router := contract(t, srv.URL)
	ctx := t.Context()

	t.Run("hand-built request", func(t *testing.T) {
		for _, tc := range []struct{ method, path, body string }{
			{http.MethodPut, "/auth/access-management/users/user_01", `{"firstName":"Ada","nickname":"ada"}`},
			{http.MethodPut, "/auth/access-management/organizations/o/roles/org-admin/permissions", `{"permissions":["a"],"replace":true}`},
			{http.MethodPatch, "/payment-methods/7d3c2a9e-3f1b-4c55-9a0e-1b2c3d4e5f60", `{"setAsPrimary":true,"cvv":"123"}`},
			{http.MethodPost, "/customer/members/7d3c2a9e-3f1b-4c55-9a0e-1b2c3d4e5f60/address", `{"addressLineOne":"1","state":"s","suburb":"s","postcode":"1","country":"AU","unit":"4"}`},
		} {
			req, _ := http.NewRequestWithContext(ctx, tc.method, srv.URL+tc.path, strings.NewReader(tc.body))
			req.Header.Set("Content-Type", "application/json")
			err := validateRequest(ctx, router, exchange{req: req, reqBody: []byte(tc.body)})
			if err == nil {
				t.Errorf("%s %s with %s: validator accepted an undocumented field", tc.method, tc.path, tc.body)
			}
			// The same body without the extra field passes, so the failure is
			// the extra field and nothing else.
			var m map[string]any
			_ = json.Unmarshal([]byte(tc.body), &m)
			for _, k := range []string{"nickname", "replace", "cvv", "unit"} {
				delete(m, k)
			}
			clean, _ := json.Marshal(m)
			req2, _ := http.NewRequestWithContext(ctx, tc.method, srv.URL+tc.path, bytes.NewReader(clean))
			req2.Header.Set("Content-Type", "application/json")
			if err := validateRequest(ctx, router, exchange{req: req2, reqBody: clean}); err != nil {
				t.Errorf("%s %s with %s: clean body rejected: %v", tc.method, tc.path, clean, err)
			}
		}
	})

	t.Run("SDK request with an injected field", func(t *testing.T) {
		srv.AddUser(sdktest.User{ID: "user_01", Email: "ada@example.com"})
		// Simulates an SDK change that adds a field to the UpdateUser body.
		rec := &recorder{base: srv.HTTPClient().Transport, viaSDK: true, mutate: func(path string, body []byte) []byte {
			if !strings.HasPrefix(path, "/auth/access-management/users/") {
				return body
			}
			var m map[string]any
			_ = json.Unmarshal(body, &m)
			m["displayName"] = "Ada L."
			b, _ := json.Marshal(m)
			return b
		}}
		c := srv.Client(option.WithTransport(rec))
		_, err := c.AccessMgmt.UpdateUser(ctx, "user_01", accessmgmt.UpdateUserParams{FirstName: new("Ada")})
		if !errors.Is(err, apierrors.ErrBadRequest) {
			t.Errorf("sdktest accepted an unknown field: err = %v", err)
		}
		failures := 0
		for _, ex := range rec.all() {
			if ex.req.URL.Path == "/auth/token" {
				if err := validateRequest(ctx, router, ex); err != nil {
					t.Errorf("token request: %v", err)
				}
				continue
			}
			err := validateRequest(ctx, router, ex)
			if err == nil {
				t.Errorf("request %s passed validation with an undocumented field", ex.reqBody)
				continue
			}
			if !strings.Contains(err.Error(), "displayName") {
				t.Errorf("validation error does not name the field: %v", err)
			}
			failures++
		}
		if failures != 1 {
			t.Errorf("%d UpdateUser requests failed validation, want 1", failures)
		}
	})

	t.Run("response with a non 8-digit serviceCode", func(t *testing.T) {
		req, _ := http.NewRequestWithContext(ctx, http.MethodPut, srv.URL+"/auth/access-management/users/u", strings.NewReader(`{"firstName":"A"}`))
		req.Header.Set("Content-Type", "application/json")
		ex := exchange{req: req, reqBody: []byte(`{"firstName":"A"}`), status: 404,
			header:   http.Header{"Content-Type": {"application/problem+json"}},
			respBody: []byte(`{"type":"https://x.invalid/not-found","title":"Not Found","status":404,"serviceCode":"NOT_FOUND"}`)}
		if err := validateResponse(ctx, router, ex); err == nil {
			t.Error("a problem with serviceCode NOT_FOUND passed validation for operation 1")
		}
		ex.respBody = []byte(`{"type":"https://x.invalid/not-found","title":"Not Found","status":404,"serviceCode":"40400001"}`)
		if err := validateResponse(ctx, router, ex); err != nil {
			t.Errorf("valid problem rejected: %v", err)
		}
	})
}
