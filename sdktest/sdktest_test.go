package sdktest_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/oapi-codegen/nullable"

	"github.com/memberplatform/memberplatform-go/accessmgmt"
	"github.com/memberplatform/memberplatform-go/client"
	"github.com/memberplatform/memberplatform-go/customer"
	apierrors "github.com/memberplatform/memberplatform-go/errors"
	"github.com/memberplatform/memberplatform-go/option"
	"github.com/memberplatform/memberplatform-go/payments"
	"github.com/memberplatform/memberplatform-go/sdktest"
)

var fixed = time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)

func fixedClock() time.Time { return fixed }

func TestUpdateUser(t *testing.T) {
	t.Parallel()
	srv := sdktest.NewServer(t)
	srv.AddUser(sdktest.User{ID: "user_1", Email: "ada@example.com"})
	srv.AddUser(sdktest.User{ID: "user_2", Email: "grace@example.com"})
	c := srv.Client()
	ctx := t.Context()

	u, err := c.AccessMgmt.UpdateUser(ctx, "user_1", accessmgmt.UpdateUserParams{FirstName: new("Ada"), MobileNumber: new("+61412345678")})
	if err != nil {
		t.Fatal(err)
	}
	if u.ID != "user_1" || u.FirstName != "Ada" || u.Email != "ada@example.com" || u.MobileNumber != "+61412345678" {
		t.Errorf("returned user = %+v", u)
	}
	if got, _ := srv.User("user_1"); got.FirstName != "Ada" {
		t.Errorf("stored user = %+v", got)
	}

	_, err = c.AccessMgmt.UpdateUser(ctx, "user_404", accessmgmt.UpdateUserParams{FirstName: new("X")})
	var apiErr *apierrors.Error
	if !errors.As(err, &apiErr) || apiErr.StatusCode != 404 || !errors.Is(err, apierrors.ErrNotFound) {
		t.Fatalf("unknown user: err = %v", err)
	}
	if p := apiErr.Problem; p == nil || len(p.ServiceCode) != 8 || p.Type != sdktest.ProblemTypeBase+"not-found" || apiErr.RequestID == "" {
		t.Errorf("problem = %+v, request id %q", apiErr.Problem, apiErr.RequestID)
	}

	// Same email, different case: conflict; own email: fine.
	_, err = c.AccessMgmt.UpdateUser(ctx, "user_1", accessmgmt.UpdateUserParams{Email: new("Grace@example.com")})
	if !errors.Is(err, apierrors.ErrConflict) {
		t.Errorf("email conflict: err = %v", err)
	}
	if _, err := c.AccessMgmt.UpdateUser(ctx, "user_2", accessmgmt.UpdateUserParams{Email: new("grace@example.com")}); err != nil {
		t.Errorf("own email: %v", err)
	}
}

// rawCall sends body to path with a valid bearer token, bypassing SDK
// validation, and decodes the JSON answer.
func rawCall(t *testing.T, srv *sdktest.Server, method, path, body string) (int, string, map[string]any) {
	t.Helper()
	req, _ := http.NewRequestWithContext(t.Context(), method, srv.URL+path, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+srv.IssueToken())
	resp, err := srv.HTTPClient().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var m map[string]any
	_ = json.Unmarshal(b, &m)
	return resp.StatusCode, resp.Header.Get("Content-Type"), m
}

func pointers(m map[string]any, key, field string) []string {
	var out []string
	items, _ := m[key].([]any)
	for _, it := range items {
		out = append(out, fmt.Sprint(it.(map[string]any)[field]))
	}
	return out
}

// newSeededServer returns a fake holding one of each resource: user "u",
// role "org-a" of organisation "o", a payment method and a member.
func newSeededServer(t *testing.T) (srv *sdktest.Server, pm sdktest.PaymentMethod, memberID string) {
	t.Helper()
	srv = sdktest.NewServer(t)
	srv.AddUser(sdktest.User{ID: "u", Email: "u@example.com"})
	srv.AddRole("o", "org-a")
	return srv, srv.AddPaymentMethod(sdktest.PaymentMethod{}), srv.AddMember("")
}

func TestServerSideValidation(t *testing.T) {
	t.Parallel()
	srv, pm, m := newSeededServer(t)
	users := "/auth/access-management/users/u"
	role := "/auth/access-management/organizations/o/roles/org-a/permissions"
	for _, tc := range []struct {
		name, method, path, body string
		status                   int
		ctype, listKey, ptrKey   string
		want                     []string
	}{
		{"no field", "PUT", users, `{}`, 422, "application/problem+json", "serviceErrors", "pointer", []string{""}},
		{"bad formats", "PUT", users, `{"mobileNumber":"0412","email":"Ada <a@x.io>","lastName":" "}`, 422, "application/problem+json", "serviceErrors", "pointer", []string{"/mobileNumber", "/email", "/lastName"}},
		{"unknown field", "PUT", users, `{"firstName":"A","nick":"x"}`, 400, "application/problem+json", "serviceErrors", "pointer", []string{"/nick"}},
		{"wrong type", "PUT", users, `{"firstName":7}`, 400, "application/problem+json", "serviceErrors", "pointer", []string{"/firstName"}},
		{"not json", "PUT", users, `nope`, 400, "application/problem+json", "serviceErrors", "pointer", nil},
		{"bad permission", "PUT", role, `{"permissions":["ok","Not Ok"]}`, 422, "application/problem+json", "serviceErrors", "pointer", []string{"/permissions/1"}},
		{"missing permissions", "PUT", role, `{}`, 400, "application/problem+json", "serviceErrors", "pointer", []string{"/permissions"}},
		{"bad slug", "PUT", "/auth/access-management/organizations/o/roles/admin/permissions", `{"permissions":[]}`, 400, "application/problem+json", "serviceErrors", "pointer", nil},
		{"bad expDate", "PATCH", "/payment-methods/" + pm.ID, `{"expDate":"13/2030"}`, 400, "application/problem+json", "serviceErrors", "pointer", []string{"/expDate"}},
		{"address fields", "POST", "/customer/members/" + m + "/address", `{"addressLineOne":"1","state":"","suburb":null,"country":"AU","addressLineTwo":null}`, 400, "application/json", "errors", "field", []string{"state", "suburb", "postcode"}},
		{"member id", "POST", "/customer/members/42/address", `{}`, 400, "application/json", "errors", "field", []string{"memberId"}},
		{"unknown route", "GET", "/nothing", ``, 404, "application/problem+json", "serviceErrors", "pointer", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status, ctype, body := rawCall(t, srv, tc.method, tc.path, tc.body)
			if status != tc.status || ctype != tc.ctype {
				t.Fatalf("status %d %s, want %d %s (body %v)", status, ctype, tc.status, tc.ctype, body)
			}
			if got := pointers(body, tc.listKey, tc.ptrKey); !slices.Equal(got, tc.want) {
				t.Errorf("%s = %q, want %q (body %v)", tc.listKey, got, tc.want, body)
			}
		})
	}
	if u, _ := srv.User("u"); u.LastName != "" || u.FirstName != "" {
		t.Errorf("invalid requests changed the user: %+v", u)
	}
}

func TestReplaceRolePermissions(t *testing.T) {
	t.Parallel()
	srv := sdktest.NewServer(t)
	srv.AddRole("org_1", "org-admin", "users:read")
	srv.AddProviderPermissions("billing:read")
	c := srv.Client()
	ctx := t.Context()

	if err := c.AccessMgmt.ReplaceRolePermissions(ctx, "org_1", "org-admin", []string{"users:write", "billing:read", "users:write", "reports.*"}); err != nil {
		t.Fatal(err)
	}
	got, ok := srv.RolePermissions("org_1", "org-admin")
	if want := []string{"billing:read", "reports.*", "users:write"}; !ok || !slices.Equal(got, want) {
		t.Errorf("role permissions = %v, want %v (replaced, not merged)", got, want)
	}
	if got, want := srv.CreatedPermissions(), []string{"users:write", "reports.*"}; !slices.Equal(got, want) {
		t.Errorf("created = %v, want %v", got, want)
	}
	if got, want := srv.ProviderPermissions(), []string{"billing:read", "reports.*", "users:read", "users:write"}; !slices.Equal(got, want) {
		t.Errorf("provider permissions = %v, want %v", got, want)
	}
	if err := c.AccessMgmt.ReplaceRolePermissions(ctx, "org_1", "org-admin", nil); err != nil {
		t.Fatal(err)
	}
	if got, _ := srv.RolePermissions("org_1", "org-admin"); len(got) != 0 {
		t.Errorf("after clearing: %v", got)
	}
	for _, tc := range []struct{ org, slug string }{{"org_2", "org-admin"}, {"org_1", "org-viewer"}} {
		err := c.AccessMgmt.ReplaceRolePermissions(ctx, tc.org, tc.slug, []string{"a"})
		if !errors.Is(err, apierrors.ErrNotFound) {
			t.Errorf("%s/%s: err = %v, want not found", tc.org, tc.slug, err)
		}
	}
	if _, ok := srv.RolePermissions("org_1", "org-viewer"); ok {
		t.Error("unknown role was created")
	}
}

func TestUpdatePaymentMethod(t *testing.T) {
	t.Parallel()
	now := fixed.Add(time.Hour)
	srv := sdktest.NewServer(t, sdktest.WithClock(func() time.Time { return now }))
	a := srv.AddPaymentMethod(sdktest.PaymentMethod{Primary: true, CreatedAt: fixed})
	b := srv.AddPaymentMethod(sdktest.PaymentMethod{BillingAccountID: a.BillingAccountID, CardBrand: "mastercard", LastFourDigits: "4444", CreatedAt: fixed})
	c := srv.Client()

	got, err := c.Payments.UpdatePaymentMethod(t.Context(), b.ID, payments.UpdatePaymentMethodParams{SetAsPrimary: new(true), ExpDate: new(payments.ExpDate(time.April, 2031))})
	if err != nil {
		t.Fatal(err)
	}
	if !got.Primary || got.ExpDate != "04/2031" || got.CardBrand != "mastercard" || !got.CreatedAt.Equal(fixed) || !got.UpdatedAt.Equal(now) || got.BillingAccountID != a.BillingAccountID {
		t.Errorf("updated = %+v", got)
	}
	if old, _ := srv.PaymentMethod(a.ID); old.Primary {
		t.Error("the previous primary method is still primary")
	}

	_, err = c.Payments.UpdatePaymentMethod(t.Context(), "3f2b8c1a-9d4e-4f6a-8b7c-1d2e3f4a5b6c", payments.UpdatePaymentMethodParams{SetAsPrimary: new(true)})
	var apiErr *apierrors.Error
	if !errors.As(err, &apiErr) || !errors.Is(err, apierrors.ErrNotImplemented) || apiErr.Problem == nil || apiErr.Problem.ServiceCode != "NOT_IMPLEMENTED" {
		t.Errorf("unknown payment method: err = %v", err)
	}
}

func TestUpsertMemberAddress(t *testing.T) {
	t.Parallel()
	srv := sdktest.NewServer(t, sdktest.WithClock(fixedClock), sdktest.WithTenantID("tenant_42"))
	m := srv.AddMember("6f1c2d3e-4a5b-4c6d-8e7f-9a0b1c2d3e4f")
	c := srv.Client()
	p := customer.UpsertMemberAddressParams{AddressLineOne: "1 George St", AddressLineTwo: nullable.NewNullableWithValue("Level 2"),
		State: "NSW", Suburb: "Sydney", Postcode: "2000", Country: "AU"}

	a, err := c.Customer.UpsertMemberAddress(t.Context(), m, p)
	if err != nil {
		t.Fatal(err)
	}
	if a.TenantID != "tenant_42" || *a.AddressLineTwo != "Level 2" || a.AddressFull != nil || *a.CreatedDate != "2025-01-02T03:04:05Z" {
		t.Errorf("created = %+v", a)
	}
	reqs := srv.Requests()
	if last := reqs[len(reqs)-1]; last.Status != http.StatusCreated {
		t.Errorf("first upsert answered %d, want 201", last.Status)
	}

	p.AddressLineTwo = nullable.NewNullNullable[string]()
	p.Postcode = "2001"
	a2, err := c.Customer.UpsertMemberAddress(t.Context(), m, p)
	if err != nil {
		t.Fatal(err)
	}
	if a2.ID != a.ID || a2.AddressLineTwo != nil || *a2.Postcode != "2001" {
		t.Errorf("updated = %+v", a2)
	}
	reqs = srv.Requests()
	if last := reqs[len(reqs)-1]; last.Status != http.StatusOK {
		t.Errorf("second upsert answered %d, want 200", last.Status)
	}
	if stored, ok := srv.MemberAddress(m); !ok || *stored.Postcode != "2001" {
		t.Errorf("stored = %+v", stored)
	}

	_, err = c.Customer.UpsertMemberAddress(t.Context(), "00000000-0000-4000-8000-0000000000ff", p)
	var apiErr *apierrors.Error
	if !errors.As(err, &apiErr) || !errors.Is(err, apierrors.ErrNotFound) || apiErr.CodeMessage == nil || apiErr.CodeMessage.Code != "MEMBER_NOT_FOUND" {
		t.Errorf("unknown member: err = %v", err)
	}
}

func TestAuthentication(t *testing.T) {
	t.Parallel()
	srv := sdktest.NewServer(t)
	srv.AddUser(sdktest.User{ID: "u", Email: "u@example.com"})
	m := srv.AddMember("")
	ctx := t.Context()
	p := customer.UpsertMemberAddressParams{AddressLineOne: "1", State: "s", Suburb: "s", Postcode: "1", Country: "AU"}

	t.Run("token is fetched once and reused", func(t *testing.T) {
		c := srv.Client()
		for range 3 {
			if _, err := c.AccessMgmt.UpdateUser(ctx, "u", accessmgmt.UpdateUserParams{FirstName: new("A")}); err != nil {
				t.Fatal(err)
			}
		}
		if n := srv.TokensIssued(); n != 1 {
			t.Errorf("tokens issued = %d, want 1", n)
		}
		var authz string
		for _, r := range srv.Requests() {
			if r.Operation == sdktest.OpUpdateUser {
				authz = r.Header.Get("Authorization")
			}
		}
		if !strings.HasPrefix(authz, "Bearer ey") {
			t.Errorf("recorded Authorization = %q", authz)
		}
	})
	t.Run("no token", func(t *testing.T) {
		c := srv.Client(option.WithTokenSource(nil))
		_, err := c.AccessMgmt.UpdateUser(ctx, "u", accessmgmt.UpdateUserParams{FirstName: new("A")})
		var apiErr *apierrors.Error
		if !errors.As(err, &apiErr) || apiErr.StatusCode != 401 || apiErr.Problem == nil {
			t.Errorf("problem 401: err = %v", err)
		}
		_, err = c.Customer.UpsertMemberAddress(ctx, m, p)
		if !errors.As(err, &apiErr) || apiErr.StatusCode != 401 || apiErr.CodeMessage == nil || apiErr.CodeMessage.Code != "UNAUTHENTICATED" {
			t.Errorf("code/message 401: err = %v", err)
		}
	})
	t.Run("expired and forged tokens", func(t *testing.T) {
		expired := sdktest.NewServer(t, sdktest.WithTokenLifetime(-time.Minute))
		for _, tok := range []string{expired.IssueToken(), srv.IssueToken() + "x", "not-a-jwt"} {
			c := srv.Client(option.WithTokenSource(client.StaticToken(tok)))
			_, err := c.AccessMgmt.UpdateUser(ctx, "u", accessmgmt.UpdateUserParams{FirstName: new("A")})
			if !errors.Is(err, apierrors.ErrUnauthorized) {
				t.Errorf("token %.12q...: err = %v", tok, err)
			}
		}
		c := srv.Client(option.WithTokenSource(client.StaticToken(srv.IssueToken())))
		if _, err := c.AccessMgmt.UpdateUser(ctx, "u", accessmgmt.UpdateUserParams{FirstName: new("A")}); err != nil {
			t.Errorf("valid static token: %v", err)
		}
	})
	t.Run("local development mode", func(t *testing.T) {
		dev := sdktest.NewServer(t, sdktest.WithoutAuth())
		dev.AddUser(sdktest.User{ID: "u", Email: "u@example.com"})
		if _, err := dev.Client().AccessMgmt.UpdateUser(ctx, "u", accessmgmt.UpdateUserParams{FirstName: new("A")}); err != nil {
			t.Fatal(err)
		}
		if n := dev.TokenRequests(); n != 0 {
			t.Errorf("token requests = %d, want 0", n)
		}
		if h := dev.Requests()[0].Header.Get("Authorization"); h != "" {
			t.Errorf("Authorization sent in local development mode: %q", h)
		}
	})
}

func TestSigV4Verification(t *testing.T) {
	t.Parallel()
	srv := sdktest.NewServer(t, sdktest.WithCredentials("AKIDEXAMPLE", "right-secret", ""), sdktest.WithRegion("ap-southeast-2"))
	srv.AddUser(sdktest.User{ID: "u", Email: "u@example.com"})
	ctx := t.Context()
	call := func(src client.TokenSource) error {
		c := srv.Client(option.WithTokenSource(src), option.WithMaxRetries(0))
		_, err := c.AccessMgmt.UpdateUser(ctx, "u", accessmgmt.UpdateUserParams{FirstName: new("A")})
		return err
	}
	source := func(id, secret, region, service string) client.TokenSource {
		src, err := client.NewSigV4TokenSource(client.SigV4Config{Credentials: credentials.NewStaticCredentialsProvider(id, secret, ""), Region: region, Service: service})
		if err != nil {
			t.Fatal(err)
		}
		return src
	}
	if err := call(source("AKIDEXAMPLE", "right-secret", "ap-southeast-2", "")); err != nil {
		t.Fatalf("valid signature: %v", err)
	}
	for _, tc := range []struct{ name, id, secret, region, service string }{
		{"wrong secret", "AKIDEXAMPLE", "wrong-secret", "ap-southeast-2", ""},
		{"unknown key", "AKIDOTHER", "right-secret", "ap-southeast-2", ""},
		{"wrong region", "AKIDEXAMPLE", "right-secret", "us-west-2", ""},
		{"wrong service", "AKIDEXAMPLE", "right-secret", "ap-southeast-2", "lambda"},
	} {
		err := call(source(tc.id, tc.secret, tc.region, tc.service))
		var te *apierrors.TokenError
		if !errors.As(err, &te) || te.StatusCode != http.StatusForbidden || !errors.Is(err, apierrors.ErrTokenUnavailable) {
			t.Errorf("%s: err = %v, want a 403 token error", tc.name, err)
		}
	}

	// Signing times: within the 5-minute skew passes, beyond it fails.
	signer := v4.NewSigner()
	creds, _ := credentials.NewStaticCredentialsProvider("AKIDEXAMPLE", "right-secret", "").Retrieve(ctx)
	emptyHash := "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
	for _, tc := range []struct {
		skew time.Duration
		want int
	}{{-4 * time.Minute, 200}, {4 * time.Minute, 200}, {-6 * time.Minute, 403}, {6 * time.Minute, 403}} {
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL+"/auth/token", nil)
		if err := signer.SignHTTP(ctx, creds, req, emptyHash, client.DefaultSigV4Service, "ap-southeast-2", time.Now().Add(tc.skew)); err != nil {
			t.Fatal(err)
		}
		resp, err := srv.HTTPClient().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_ = resp.Body.Close()
		if resp.StatusCode != tc.want {
			t.Errorf("signed %v from now: status %d, want %d", tc.skew, resp.StatusCode, tc.want)
		}
	}
	// A signed request whose body was changed after signing fails.
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL+"/auth/token", strings.NewReader("tampered"))
	_ = signer.SignHTTP(ctx, creds, req, emptyHash, client.DefaultSigV4Service, "ap-southeast-2", time.Now())
	resp, err := srv.HTTPClient().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("tampered body: status %d, want 403", resp.StatusCode)
	}
	if n := srv.TokenRequests(); n != 10 {
		t.Errorf("token requests = %d, want 10", n)
	}
}

func TestSessionToken(t *testing.T) {
	t.Parallel()
	srv := sdktest.NewServer(t, sdktest.WithCredentials("AKIDEXAMPLE", "secret", "session-1"))
	srv.AddUser(sdktest.User{ID: "u", Email: "u@example.com"})
	if _, err := srv.Client().AccessMgmt.UpdateUser(t.Context(), "u", accessmgmt.UpdateUserParams{FirstName: new("A")}); err != nil {
		t.Fatalf("with the session token: %v", err)
	}
	src, _ := client.NewSigV4TokenSource(client.SigV4Config{Credentials: credentials.NewStaticCredentialsProvider("AKIDEXAMPLE", "secret", ""), Region: sdktest.DefaultRegion})
	_, err := srv.Client(option.WithTokenSource(src), option.WithMaxRetries(0)).AccessMgmt.UpdateUser(t.Context(), "u", accessmgmt.UpdateUserParams{FirstName: new("A")})
	if !errors.Is(err, apierrors.ErrTokenUnavailable) {
		t.Errorf("without the session token: err = %v", err)
	}
}

func TestFaults(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	params := accessmgmt.UpdateUserParams{FirstName: new("A")}
	setup := func(t *testing.T, opts ...option.RequestOption) (*sdktest.Server, *client.Client) {
		srv := sdktest.NewServer(t)
		srv.AddUser(sdktest.User{ID: "u", Email: "u@example.com"})
		return srv, srv.Client(opts...)
	}
	t.Run("retried 503s then success", func(t *testing.T) {
		t.Parallel()
		srv, c := setup(t)
		srv.FailNext(2, sdktest.Fault{Status: http.StatusServiceUnavailable})
		if _, err := c.AccessMgmt.UpdateUser(ctx, "u", params); err != nil {
			t.Fatal(err)
		}
		var statuses []int
		for _, r := range srv.Requests() {
			if r.Operation == sdktest.OpUpdateUser {
				statuses = append(statuses, r.Status)
			}
		}
		if !slices.Equal(statuses, []int{503, 503, 200}) || srv.PendingFaults() != 0 {
			t.Errorf("statuses = %v, pending %d", statuses, srv.PendingFaults())
		}
		if srv.TokenRequests() != 1 {
			t.Errorf("the fault was used on the token endpoint")
		}
	})
	t.Run("429 with Retry-After-Ms is honoured", func(t *testing.T) {
		t.Parallel()
		srv, c := setup(t)
		srv.FailNext(1, sdktest.Fault{Operation: sdktest.OpUpdateUser, Status: 429, Header: http.Header{"Retry-After-Ms": {"30"}}})
		start := time.Now()
		if _, err := c.AccessMgmt.UpdateUser(ctx, "u", params); err != nil {
			t.Fatal(err)
		}
		if d := time.Since(start); d < 30*time.Millisecond {
			t.Errorf("retried after %v, before the asked 30ms", d)
		}
	})
	t.Run("long Retry-After is returned to the caller", func(t *testing.T) {
		t.Parallel()
		srv, c := setup(t)
		srv.FailNext(1, sdktest.Fault{Status: 429, RetryAfter: 90 * time.Second})
		_, err := c.AccessMgmt.UpdateUser(ctx, "u", params)
		var apiErr *apierrors.Error
		if !errors.As(err, &apiErr) || apiErr.RetryAfter != 90*time.Second || !errors.Is(err, apierrors.ErrRateLimited) {
			t.Fatalf("err = %v", err)
		}
		if !strings.Contains(apiErr.Problem.Detail, "access provider rate limited") {
			t.Errorf("detail = %q", apiErr.Problem.Detail)
		}
	})
	t.Run("scripted body and operation filter", func(t *testing.T) {
		t.Parallel()
		srv, c := setup(t)
		m := srv.AddMember("")
		srv.FailNext(1, sdktest.Fault{Operation: sdktest.OpUpsertMemberAddress, Status: 500, Body: `{"code":"DB_DOWN","message":"database unavailable"}`})
		if _, err := c.AccessMgmt.UpdateUser(ctx, "u", params); err != nil {
			t.Fatalf("fault for another operation was used: %v", err)
		}
		_, err := c.Customer.UpsertMemberAddress(ctx, m, customer.UpsertMemberAddressParams{AddressLineOne: "1", State: "s", Suburb: "s", Postcode: "1", Country: "AU"}, option.WithMaxRetries(0))
		var apiErr *apierrors.Error
		if !errors.As(err, &apiErr) || apiErr.CodeMessage == nil || apiErr.CodeMessage.Code != "DB_DOWN" {
			t.Errorf("err = %v", err)
		}
	})
	t.Run("connection reset", func(t *testing.T) {
		t.Parallel()
		srv, c := setup(t)
		srv.FailNext(1, sdktest.Fault{Reset: true})
		_, err := c.AccessMgmt.UpdateUser(ctx, "u", params, option.WithMaxRetries(0))
		if !errors.Is(err, apierrors.ErrTransport) {
			t.Fatalf("err = %v, want a transport error", err)
		}
		srv.FailNext(1, sdktest.Fault{Reset: true})
		if _, err := c.AccessMgmt.UpdateUser(ctx, "u", params); err != nil {
			t.Errorf("idempotent call not retried after a reset: %v", err)
		}
	})
	t.Run("latency", func(t *testing.T) {
		t.Parallel()
		srv, c := setup(t)
		if _, err := c.AccessMgmt.UpdateUser(ctx, "u", params); err != nil { // fetch the token first
			t.Fatal(err)
		}
		srv.SetLatency(200 * time.Millisecond)
		_, err := c.AccessMgmt.UpdateUser(ctx, "u", params, option.WithTimeout(40*time.Millisecond))
		var te *apierrors.TransportError
		if !errors.As(err, &te) || !te.Timeout() {
			t.Errorf("err = %v, want a timeout", err)
		}
		srv.SetLatency(0)
		srv.FailNext(1, sdktest.Fault{Delay: 20 * time.Millisecond})
		start := time.Now()
		if _, err := c.AccessMgmt.UpdateUser(ctx, "u", params); err != nil || time.Since(start) < 20*time.Millisecond {
			t.Errorf("delay-only fault: err %v after %v", err, time.Since(start))
		}
	})
	t.Run("provider not configured", func(t *testing.T) {
		t.Parallel()
		srv, c := setup(t)
		srv.AddRole("o", "org-a")
		srv.SetProviderConfigured(false)
		_, err := c.AccessMgmt.UpdateUser(ctx, "u", params)
		err2 := c.AccessMgmt.ReplaceRolePermissions(ctx, "o", "org-a", nil)
		for _, e := range []error{err, err2} {
			var apiErr *apierrors.Error
			if !errors.As(e, &apiErr) || apiErr.StatusCode != 503 || !errors.Is(e, apierrors.ErrProviderNotConfigured) || apiErr.Attempts != 1 {
				t.Errorf("err = %v, want one 503 provider-not-configured attempt", e)
			}
		}
		pm := srv.AddPaymentMethod(sdktest.PaymentMethod{})
		if _, err := c.Payments.UpdatePaymentMethod(ctx, pm.ID, payments.UpdatePaymentMethodParams{}); err != nil {
			t.Errorf("payments affected by the access provider: %v", err)
		}
		srv.SetProviderConfigured(true)
		if _, err := c.AccessMgmt.UpdateUser(ctx, "u", params); err != nil {
			t.Error(err)
		}
	})
	t.Run("rate limit", func(t *testing.T) {
		t.Parallel()
		srv, c := setup(t, option.WithMaxRetries(0))
		srv.SetRateLimit(2, time.Minute)
		for i := range 2 {
			if _, err := c.AccessMgmt.UpdateUser(ctx, "u", params); err != nil {
				t.Fatalf("request %d: %v", i+1, err)
			}
		}
		_, err := c.AccessMgmt.UpdateUser(ctx, "u", params)
		var apiErr *apierrors.Error
		if !errors.As(err, &apiErr) || apiErr.StatusCode != 429 || apiErr.RetryAfter < 50*time.Second || apiErr.RetryAfter > time.Minute {
			t.Fatalf("third request: err = %v", err)
		}
		srv.SetRateLimit(0, 0)
		if _, err := c.AccessMgmt.UpdateUser(ctx, "u", params); err != nil {
			t.Errorf("after removing the limit: %v", err)
		}
	})
	t.Run("token endpoint fault", func(t *testing.T) {
		t.Parallel()
		srv, c := setup(t, option.WithMaxRetries(0))
		srv.FailNext(1, sdktest.Fault{Operation: sdktest.OpToken, Status: 500})
		_, err := c.AccessMgmt.UpdateUser(ctx, "u", params)
		if !errors.Is(err, apierrors.ErrTokenUnavailable) || srv.RequestCount(sdktest.OpUpdateUser) != 0 {
			t.Errorf("err = %v; API requests sent without a token: %d", err, srv.RequestCount(sdktest.OpUpdateUser))
		}
	})
}

// TestParallelUse hammers one server from many goroutines (run with -race).
func TestParallelUse(t *testing.T) {
	t.Parallel()
	srv := sdktest.NewServer(t)
	c := srv.Client()
	const n = 16
	for i := range n {
		srv.AddUser(sdktest.User{ID: fmt.Sprintf("u%d", i), Email: fmt.Sprintf("u%d@example.com", i)})
	}
	srv.AddRole("o", "org-a")
	pms, members := make([]string, n), make([]string, n)
	for i := range n {
		pms[i] = srv.AddPaymentMethod(sdktest.PaymentMethod{}).ID
		members[i] = srv.AddMember("")
	}
	// Every sub-client of one Client, from many goroutines at once.
	var wg sync.WaitGroup
	errs := make(chan error, 4*n)
	for i := range n {
		wg.Go(func() {
			ctx := context.Background()
			_, err := c.AccessMgmt.UpdateUser(ctx, fmt.Sprintf("u%d", i), accessmgmt.UpdateUserParams{LastName: new(fmt.Sprint("L", i))})
			errs <- err
			errs <- c.AccessMgmt.ReplaceRolePermissions(ctx, "o", "org-a", []string{fmt.Sprintf("p:%d", i)})
			_, err = c.Payments.UpdatePaymentMethod(ctx, pms[i], payments.UpdatePaymentMethodParams{ExpDate: new(payments.ExpDate(time.Month(i%12+1), 2030+i))})
			errs <- err
			_, err = c.Customer.UpsertMemberAddress(ctx, members[i], customer.UpsertMemberAddressParams{
				AddressLineOne: fmt.Sprint(i, " George St"), State: "NSW", Suburb: "Sydney", Postcode: "2000", Country: "AU"})
			errs <- err
		})
		wg.Go(func() { _ = srv.Requests() })
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	if got := len(srv.CreatedPermissions()); got != n {
		t.Errorf("created permissions = %d, want %d", got, n)
	}
	for i := range n {
		if pm, _ := srv.PaymentMethod(pms[i]); pm.ExpDate != payments.ExpDate(time.Month(i%12+1), 2030+i) {
			t.Errorf("payment method %d: expDate %q", i, pm.ExpDate)
		}
	}
	if got := srv.RequestCount(""); got != 4*n+srv.TokenRequests() {
		t.Errorf("recorded %d requests, want %d", got, 4*n+srv.TokenRequests())
	}
	if srv.TokensIssued() != 1 {
		t.Errorf("tokens issued = %d, want 1 (shared by all goroutines)", srv.TokensIssued())
	}
}

func TestStartAndClose(t *testing.T) {
	srv := sdktest.Start(sdktest.WithoutAuth())
	srv.AddUser(sdktest.User{ID: "u", Email: "u@example.com"})
	c, err := srv.NewClient()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.AccessMgmt.UpdateUser(t.Context(), "u", accessmgmt.UpdateUserParams{FirstName: new("A")}); err != nil {
		t.Fatal(err)
	}
	srv.Close()
	srv.Close() // idempotent
	_, err = c.AccessMgmt.UpdateUser(t.Context(), "u", accessmgmt.UpdateUserParams{FirstName: new("A")}, option.WithMaxRetries(0))
	if !errors.Is(err, apierrors.ErrTransport) {
		t.Errorf("after Close: err = %v, want a transport error", err)
	}
}

func TestEnvironmentDoesNotLeak(t *testing.T) {
	t.Setenv("MEMBERPLATFORM_BASE_URL", "https://elsewhere.invalid")
	t.Setenv("MEMBERPLATFORM_TOKEN", "env-token")
	srv := sdktest.NewServer(t)
	srv.AddUser(sdktest.User{ID: "u", Email: "u@example.com"})
	if _, err := srv.Client().AccessMgmt.UpdateUser(t.Context(), "u", accessmgmt.UpdateUserParams{FirstName: new("A")}); err != nil {
		t.Fatal(err)
	}
	if srv.TokensIssued() != 1 {
		t.Error("client did not use the server's SigV4 token flow")
	}
}

// Requests keep each request's query, so a test sees what its code sent.
func TestRequestsKeepTheQuery(t *testing.T) {
	srv := sdktest.NewServer(t)
	srv.AddUser(sdktest.User{ID: "user_1", Email: "ada@example.com"})
	if _, err := srv.Client().AccessMgmt.UpdateUser(t.Context(), "user_1", accessmgmt.UpdateUserParams{FirstName: new("Ada")},
		option.WithQuery(url.Values{"trace": {"a b"}})); err != nil {
		t.Fatal(err)
	}
	reqs := srv.Requests()
	if last := reqs[len(reqs)-1]; last.Operation != sdktest.OpUpdateUser || last.Query != "trace=a+b" {
		t.Fatalf("last request %s ?%s, want %s ?trace=a+b", last.Operation, last.Query, sdktest.OpUpdateUser)
	}
}
