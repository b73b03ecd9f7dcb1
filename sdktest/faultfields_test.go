package sdktest_test

import (
	"errors"
	"net/http"
	"slices"
	"testing"

	"github.com/memberplatform/memberplatform-go/accessmgmt"
	"github.com/memberplatform/memberplatform-go/customer"
	apierrors "github.com/memberplatform/memberplatform-go/errors"
	"github.com/memberplatform/memberplatform-go/option"
	"github.com/memberplatform/memberplatform-go/payments"
	"github.com/memberplatform/memberplatform-go/sdktest"
)

// faultFieldErrors names a field three ways: by readable path, by JSON
// pointer, and not at all (the whole body).
var faultFieldErrors = []apierrors.FieldError{
	{Field: "permissions[2]", Message: "unknown permission"},
	{Pointer: "/address/postcode", Message: "is required"},
	{Message: "body is incomplete"},
}

// TestFaultFieldsOnTheWire: a Fault's field errors are written in the
// faulted operation's own format.
func TestFaultFieldsOnTheWire(t *testing.T) {
	t.Parallel()
	srv, pm, m := newSeededServer(t)
	problemPointers := []string{"/permissions/2", "/address/postcode", ""}
	for _, tc := range []struct {
		op, method, path, body          string
		ctype, listKey, nameKey, msgKey string
		wantNames                       []string
	}{
		{sdktest.OpUpdateUser, "PUT", "/auth/access-management/users/u", `{"firstName":"A"}`,
			"application/problem+json", "serviceErrors", "pointer", "detail", problemPointers},
		{sdktest.OpReplaceRolePermissions, "PUT", "/auth/access-management/organizations/o/roles/org-a/permissions", `{"permissions":[]}`,
			"application/problem+json", "serviceErrors", "pointer", "detail", problemPointers},
		{sdktest.OpUpdatePaymentMethod, "PATCH", "/payment-methods/" + pm.ID, `{}`,
			"application/problem+json", "serviceErrors", "pointer", "detail", problemPointers},
		{sdktest.OpUpsertMemberAddress, "POST", "/customer/members/" + m + "/address", `{}`,
			"application/json", "errors", "field", "message", []string{"permissions[2]", "address.postcode", "body"}},
	} {
		t.Run(tc.op, func(t *testing.T) {
			srv.FailNext(1, sdktest.Fault{Operation: tc.op, Status: http.StatusBadRequest, Fields: faultFieldErrors})
			status, ctype, body := rawCall(t, srv, tc.method, tc.path, tc.body)
			if status != http.StatusBadRequest || ctype != tc.ctype {
				t.Fatalf("status %d %s, want 400 %s", status, ctype, tc.ctype)
			}
			if got := pointers(body, tc.listKey, tc.nameKey); !slices.Equal(got, tc.wantNames) {
				t.Errorf("%s[].%s = %q, want %q (body %v)", tc.listKey, tc.nameKey, got, tc.wantNames, body)
			}
			if got, want := pointers(body, tc.listKey, tc.msgKey), []string{"unknown permission", "is required", "body is incomplete"}; !slices.Equal(got, want) {
				t.Errorf("%s[].%s = %q, want %q", tc.listKey, tc.msgKey, got, want)
			}
		})
	}
}

// TestFaultFieldsThroughTheSDK: what a test scripts is what the caller's
// error reports, whichever format carried it.
func TestFaultFieldsThroughTheSDK(t *testing.T) {
	t.Parallel()
	srv, pm, m := newSeededServer(t)
	c := srv.Client(option.WithMaxRetries(0))
	ctx := t.Context()
	fields := []apierrors.FieldError{{Field: "email", Message: "is blocked"}, {Field: "permissions[1]", Message: "unknown"}}

	for _, tc := range []struct {
		op   string
		call func() error
	}{
		{sdktest.OpUpdateUser, func() error {
			_, err := c.AccessMgmt.UpdateUser(ctx, "u", accessmgmt.UpdateUserParams{FirstName: new("A")})
			return err
		}},
		{sdktest.OpReplaceRolePermissions, func() error { return c.AccessMgmt.ReplaceRolePermissions(ctx, "o", "org-a", nil) }},
		{sdktest.OpUpdatePaymentMethod, func() error {
			_, err := c.Payments.UpdatePaymentMethod(ctx, pm.ID, payments.UpdatePaymentMethodParams{})
			return err
		}},
		{sdktest.OpUpsertMemberAddress, func() error {
			_, err := c.Customer.UpsertMemberAddress(ctx, m, customer.UpsertMemberAddressParams{AddressLineOne: "1", State: "s", Suburb: "s", Postcode: "1", Country: "AU"})
			return err
		}},
	} {
		t.Run(tc.op, func(t *testing.T) {
			srv.FailNext(1, sdktest.Fault{Operation: tc.op, Status: http.StatusUnprocessableEntity, Fields: fields})
			err := tc.call()
			var apiErr *apierrors.Error
			if !errors.As(err, &apiErr) || !errors.Is(err, apierrors.ErrUnprocessableEntity) {
				t.Fatalf("err = %v", err)
			}
			var got []string
			for _, f := range apiErr.FieldErrors() {
				got = append(got, f.String())
			}
			if want := []string{"email: is blocked", "permissions[1]: unknown"}; !slices.Equal(got, want) {
				t.Errorf("field errors = %q, want %q", got, want)
			}
		})
	}
}

// TestFaultFieldsIgnoredWithARawBody: Body is the whole answer; Fields do
// not leak into it.
func TestFaultFieldsIgnoredWithARawBody(t *testing.T) {
	t.Parallel()
	srv := sdktest.NewServer(t)
	srv.AddUser(sdktest.User{ID: "u", Email: "u@example.com"})
	srv.FailNext(1, sdktest.Fault{Status: http.StatusBadRequest, Body: `{"code":"X","message":"raw"}`, Fields: faultFieldErrors})
	status, _, body := rawCall(t, srv, "PUT", "/auth/access-management/users/u", `{"firstName":"A"}`)
	if status != http.StatusBadRequest || body["code"] != "X" || body["serviceErrors"] != nil || body["errors"] != nil {
		t.Errorf("status %d body %v", status, body)
	}
}

// A field given only as a pointer into an array is named the way the SDK
// reads the pointer back.
func TestFaultFieldPointerIntoAnArray(t *testing.T) {
	t.Parallel()
	srv := sdktest.NewServer(t)
	m := srv.AddMember("")
	srv.FailNext(1, sdktest.Fault{Operation: sdktest.OpUpsertMemberAddress, Status: http.StatusBadRequest,
		Fields: []apierrors.FieldError{{Pointer: "/lines/2", Message: "too long"}}})
	_, _, body := rawCall(t, srv, "POST", "/customer/members/"+m+"/address", `{}`)
	if got := pointers(body, "errors", "field"); !slices.Equal(got, []string{"lines[2]"}) {
		t.Fatalf("errors[].field = %q, want [lines[2]]", got)
	}
}
