package contracttest_test

import (
	"net/http"
	"time"

	"github.com/oapi-codegen/nullable"

	"github.com/memberplatform/memberplatform-go/accessmgmt"
	"github.com/memberplatform/memberplatform-go/customer"
	apierrors "github.com/memberplatform/memberplatform-go/errors"
	"github.com/memberplatform/memberplatform-go/payments"
	"github.com/memberplatform/memberplatform-go/sdktest"
)

// scenarios are TestContract's, one per declared operation, by name: each
// runs against a fixture of its own (newFixture's seed), so none depends
// on what another left. A scenario sends its operation's successes and
// the errors the fake answers, and tests what the fake's handler chose
// where the contract leaves it open.
var scenarios = map[string]func(f *fixture){
	// The client fetches its token with SigV4 before its first call.
	"auth.Token": func(f *fixture) {
		_, err := f.c.AccessMgmt.UpdateUser(f.ctx, "user_01", accessmgmt.UpdateUserParams{FirstName: new("Ada")})
		f.must(err)
		f.refused(http.MethodPost, "/auth/token", ``)
	},

	"accessmgmt.UpdateUser": func(f *fixture) {
		_, err := f.c.AccessMgmt.UpdateUser(f.ctx, "user_01", accessmgmt.UpdateUserParams{
			MobileNumber: new("+61412345678"), Email: new("ada.l@example.com"), FirstName: new("Ada"), LastName: new("Lovelace"),
		})
		f.must(err)
		_, err = f.c.AccessMgmt.UpdateUser(f.ctx, "user_missing", accessmgmt.UpdateUserParams{FirstName: new("X")})
		f.mustErr(err, apierrors.ErrNotFound)
		_, err = f.c.AccessMgmt.UpdateUser(f.ctx, "user_01", accessmgmt.UpdateUserParams{Email: new("grace@example.com")})
		f.mustErr(err, apierrors.ErrConflict)
		f.srv.FailNext(1, sdktest.Fault{Operation: sdktest.OpUpdateUser, Status: http.StatusInternalServerError})
		_, err = f.c.AccessMgmt.UpdateUser(f.ctx, "user_02", accessmgmt.UpdateUserParams{LastName: new("Murray Hopper")})
		f.must(err) // the 500 was retried
		f.srv.FailNext(1, sdktest.Fault{Operation: sdktest.OpUpdateUser, Status: http.StatusUnprocessableEntity,
			Fields: []apierrors.FieldError{{Field: "mobileNumber", Message: "not reachable"}, {Message: "whole body"}}})
		_, err = f.c.AccessMgmt.UpdateUser(f.ctx, "user_01", accessmgmt.UpdateUserParams{FirstName: new("Ada")})
		f.mustErr(err, apierrors.ErrUnprocessableEntity)
		f.srv.SetProviderConfigured(false)
		_, err = f.c.AccessMgmt.UpdateUser(f.ctx, "user_01", accessmgmt.UpdateUserParams{FirstName: new("Ada")})
		f.mustErr(err, apierrors.ErrProviderNotConfigured)
		f.srv.SetProviderConfigured(true)
		_, err = f.anon.AccessMgmt.UpdateUser(f.ctx, "user_01", accessmgmt.UpdateUserParams{FirstName: new("Ada")})
		f.mustErr(err, apierrors.ErrUnauthorized)
		f.refused(http.MethodPut, "/auth/access-management/users/user_01", `{"email":"not an email"}`)
		f.refused(http.MethodPut, "/auth/access-management/users/user_01", `{}`)
		f.refused(http.MethodPut, "/auth/access-management/users/user_01", `{"firstName":"A","nickname":"x"}`)
	},

	"accessmgmt.ReplaceRolePermissions": func(f *fixture) {
		f.must(f.c.AccessMgmt.ReplaceRolePermissions(f.ctx, "org_01", "org-admin", []string{"users:read", "users:write", "billing.*"}))
		f.must(f.c.AccessMgmt.ReplaceRolePermissions(f.ctx, "org_01", "org-admin", nil))
		f.mustErr(f.c.AccessMgmt.ReplaceRolePermissions(f.ctx, "org_01", "org-missing", []string{"a"}), apierrors.ErrNotFound)
		f.srv.FailNext(1, sdktest.Fault{Operation: sdktest.OpReplaceRolePermissions, Status: http.StatusTooManyRequests, RetryAfter: time.Hour})
		f.mustErr(f.c.AccessMgmt.ReplaceRolePermissions(f.ctx, "org_01", "org-admin", []string{"a"}), apierrors.ErrRateLimited)
		f.refused(http.MethodPut, "/auth/access-management/organizations/org_01/roles/org-admin/permissions", `{"permissions":["Users:Read"]}`)
		f.refused(http.MethodPut, "/auth/access-management/organizations/org_01/roles/org-admin/permissions", `{"permissions":"x"}`)
	},

	"payments.UpdatePaymentMethod": func(f *fixture) {
		_, err := f.c.Payments.UpdatePaymentMethod(f.ctx, f.pm.ID, payments.UpdatePaymentMethodParams{SetAsPrimary: new(false), ExpDate: new(payments.ExpDate(4, 2031))})
		f.must(err)
		_, err = f.c.Payments.UpdatePaymentMethod(f.ctx, f.pm.ID, payments.UpdatePaymentMethodParams{})
		f.must(err)
		_, err = f.c.Payments.UpdatePaymentMethod(f.ctx, "7d3c2a9e-3f1b-4c55-9a0e-1b2c3d4e5f60", payments.UpdatePaymentMethodParams{SetAsPrimary: new(true)})
		f.mustErr(err, apierrors.ErrNotImplemented)
		// The request format of expDate is open; the response must still be MM/YYYY.
		_, err = f.c.Payments.UpdatePaymentMethod(f.ctx, f.pm.ID, payments.UpdatePaymentMethodParams{ExpDate: new("2031-04")})
		f.must(err)
		_, err = f.c.Payments.UpdatePaymentMethod(f.ctx, f.pm.ID, payments.UpdatePaymentMethodParams{ExpDate: new("April 2031")})
		f.mustErr(err, apierrors.ErrBadRequest)
		f.refused(http.MethodPatch, "/payment-methods/"+f.pm.ID, `{"setAsPrimary":"yes"}`)
	},

	"customer.UpsertMemberAddress": func(f *fixture) {
		addr := customer.UpsertMemberAddressParams{AddressLineOne: "1 George St", AddressLineTwo: nullable.NewNullableWithValue("Level 2"),
			State: "NSW", Suburb: "Sydney", Postcode: "2000", Country: "AU"}
		_, err := f.c.Customer.UpsertMemberAddress(f.ctx, f.member, addr)
		f.must(err)
		addr.AddressFull = new("1 George St, Sydney NSW 2000")
		addr.AddressLineTwo = nullable.NewNullNullable[string]()
		_, err = f.c.Customer.UpsertMemberAddress(f.ctx, f.member, addr)
		f.must(err)
		_, err = f.c.Customer.UpsertMemberAddress(f.ctx, "9b2f6a1e-0c1d-4e2f-8a3b-4c5d6e7f8091", addr)
		f.mustErr(err, apierrors.ErrNotFound)
		f.srv.FailNext(1, sdktest.Fault{Operation: sdktest.OpUpsertMemberAddress, Status: http.StatusForbidden})
		_, err = f.c.Customer.UpsertMemberAddress(f.ctx, f.member, addr)
		f.mustErr(err, apierrors.ErrForbidden)
		// The validation error must carry errors, with or without field errors.
		f.srv.FailNext(1, sdktest.Fault{Operation: sdktest.OpUpsertMemberAddress, Status: http.StatusBadRequest,
			Fields: []apierrors.FieldError{{Pointer: "/postcode", Message: "unknown postcode"}}})
		_, err = f.c.Customer.UpsertMemberAddress(f.ctx, f.member, addr)
		f.mustErr(err, apierrors.ErrBadRequest)
		f.srv.FailNext(1, sdktest.Fault{Operation: sdktest.OpUpsertMemberAddress, Status: http.StatusBadRequest})
		_, err = f.c.Customer.UpsertMemberAddress(f.ctx, f.member, addr)
		f.mustErr(err, apierrors.ErrBadRequest)
		_, err = f.anon.Customer.UpsertMemberAddress(f.ctx, f.member, addr)
		f.mustErr(err, apierrors.ErrUnauthorized)
		f.refused(http.MethodPost, "/customer/members/"+f.member+"/address", `{"state":""}`)
		f.refused(http.MethodPost, "/customer/members/"+f.member+"/address", `not json`)
	},
}
