package sdktest_test

import (
	"errors"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/oapi-codegen/nullable"

	"github.com/memberplatform/memberplatform-go/accessmgmt"
	"github.com/memberplatform/memberplatform-go/customer"
	apierrors "github.com/memberplatform/memberplatform-go/errors"
	"github.com/memberplatform/memberplatform-go/payments"
	"github.com/memberplatform/memberplatform-go/sdktest"
)

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
