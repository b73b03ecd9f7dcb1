package oprows

import (
	"context"
	"time"

	"github.com/oapi-codegen/nullable"

	"github.com/memberplatform/memberplatform-go/accessmgmt"
	"github.com/memberplatform/memberplatform-go/client"
	"github.com/memberplatform/memberplatform-go/customer"
	apierrors "github.com/memberplatform/memberplatform-go/errors"
	"github.com/memberplatform/memberplatform-go/option"
	"github.com/memberplatform/memberplatform-go/payments"
)

// The rows' IDs.
const (
	UserID   = "user_01E4ZCR3C56J083X43JQXF3JK5"
	OrgID    = "org_01EHZNVPK3SFK441A1RGBFSHRT"
	RoleSlug = "org-billing-admin"
	PMID     = "6f1c2a4e-8b3d-4f5a-9c7e-2d1b0a9f8e7d"
	MemberID = "3b9d6c1e-2f4a-4e8b-a7c5-9d0e1f2a3b4c"
)

// Permissions is the permission set the ReplaceRolePermissions row sends.
var Permissions = []string{"billing:read", "billing:write", "invoices:read", "invoices:write", "members:read", "payment-methods:read", "payment-methods:write", "reports:read"}

// The rows' params, built once: a call allocates nothing of its own before
// the SDK's work, as the benchmarks' raw contender builds its request once.
var (
	userParams = accessmgmt.UpdateUserParams{FirstName: new("Ada"), LastName: new("Lovelace"), MobileNumber: new("+61412345678")}
	pmParams   = payments.UpdatePaymentMethodParams{SetAsPrimary: new(true), ExpDate: new("08/2029")}
	addrParams = customer.UpsertMemberAddressParams{
		AddressFull: new("Unit 4, 12 Example Street, Surry Hills NSW 2010, Australia"), AddressLineOne: "12 Example Street",
		AddressLineTwo: nullable.NewNullableWithValue("Unit 4"), State: "NSW", Suburb: "Surry Hills", Postcode: "2010", Country: "AU",
	}
)

// rows are the rows, by operation name. Their requests and answers are
// realistic ones (answers with members the contract does not list, which
// every client must skip): the benchmarks send and answer them.
var rows = map[string]Row{
	"accessmgmt.UpdateUser": {
		IDs:      []string{UserID},
		Body:     `{"mobileNumber":"+61412345678","firstName":"Ada","lastName":"Lovelace"}`,
		Response: `{"id":"` + UserID + `","email":"ada.lovelace@example.com","mobileNumber":"+61412345678","firstName":"Ada","lastName":"Lovelace","emailVerified":true,"createdAt":"2024-03-01T10:15:30.123Z","updatedAt":"2025-01-15T08:00:00Z"}`,
		Want:     &accessmgmt.ProviderUser{ID: UserID, Email: "ada.lovelace@example.com", MobileNumber: "+61412345678", FirstName: "Ada", LastName: "Lovelace"},
		Call: func(ctx context.Context, c *client.Client, opts ...option.RequestOption) (any, error) {
			return c.AccessMgmt.UpdateUser(ctx, UserID, userParams, opts...)
		},
		Retryable: Answer{503, `{"title":"Service Unavailable","status":503}`},
		Malformed: []string{`{not json`, `[]`, `{"id":5}`, `"user"`, `<html>oops</html>`},
		Refused: []Refusal{
			{"no field set", func(ctx context.Context, c *client.Client) error {
				_, err := c.AccessMgmt.UpdateUser(ctx, UserID, accessmgmt.UpdateUserParams{})
				return err
			}, []string{"params"}},
			{"empty user and bad email", func(ctx context.Context, c *client.Client) error {
				_, err := c.AccessMgmt.UpdateUser(ctx, "", accessmgmt.UpdateUserParams{Email: new("not an address")})
				return err
			}, []string{"userId", "email"}},
		},
	},
	"accessmgmt.ReplaceRolePermissions": {
		IDs:      []string{OrgID, RoleSlug},
		Body:     `{"permissions":["billing:read","billing:write","invoices:read","invoices:write","members:read","payment-methods:read","payment-methods:write","reports:read"]}`,
		Response: `{"organizationId":"` + OrgID + `","slug":"` + RoleSlug + `","permissions":["billing:read","billing:write","invoices:read","invoices:write","members:read","payment-methods:read","payment-methods:write","reports:read"]}`,
		Call: func(ctx context.Context, c *client.Client, opts ...option.RequestOption) (any, error) {
			return nil, c.AccessMgmt.ReplaceRolePermissions(ctx, OrgID, RoleSlug, Permissions, opts...)
		},
		Retryable: Answer{503, `{"title":"Service Unavailable","status":503}`},
		// Any 2xx body is success: none is malformed.
		Refused: []Refusal{
			{"bad slug and permission", func(ctx context.Context, c *client.Client) error {
				return c.AccessMgmt.ReplaceRolePermissions(ctx, OrgID, "admin", []string{"users:read", "Users Write"})
			}, []string{"slug", "permissions[1]"}},
		},
	},
	"payments.UpdatePaymentMethod": {
		IDs:      []string{PMID},
		Body:     `{"setAsPrimary":true,"expDate":"08/2029"}`,
		Response: `{"id":"` + PMID + `","billingAccountId":"0b7d3c2a-5e4f-4a1b-9c8d-7e6f5a4b3c2d","lastFourDigits":"4242","cardBrand":"visa","expDate":"08/2029","primary":true,"createdAt":"2024-06-11T04:22:10.512Z","updatedAt":"2025-02-03T21:09:44+10:00"}`,
		Want: &payments.PaymentMethod{ID: PMID, BillingAccountID: "0b7d3c2a-5e4f-4a1b-9c8d-7e6f5a4b3c2d", LastFourDigits: "4242", CardBrand: "visa", ExpDate: "08/2029", Primary: true,
			CreatedAt: time.Date(2024, 6, 11, 4, 22, 10, 512_000_000, time.UTC), UpdatedAt: time.Date(2025, 2, 3, 11, 9, 44, 0, time.UTC)},
		Call: func(ctx context.Context, c *client.Client, opts ...option.RequestOption) (any, error) {
			pm, err := c.Payments.UpdatePaymentMethod(ctx, PMID, pmParams, opts...)
			if pm != nil { // compared by instant
				pm.CreatedAt, pm.UpdatedAt = pm.CreatedAt.UTC(), pm.UpdatedAt.UTC()
			}
			return pm, err
		},
		Retryable: Answer{502, `{"title":"Bad Gateway","status":502}`},
		Malformed: []string{`{not json`, `[]`, `{"id":42}`, `{"id":"` + PMID + `","primary":"yes"}`, `{"id":"` + PMID + `","createdAt":"last tuesday"}`, `{"id":"` + PMID + `","updatedAt":true}`},
		Refused: []Refusal{
			{"bad id and empty expDate", func(ctx context.Context, c *client.Client) error {
				_, err := c.Payments.UpdatePaymentMethod(ctx, "42", payments.UpdatePaymentMethodParams{ExpDate: new("")})
				return err
			}, []string{"id", "expDate"}},
		},
		// Operation 3 names only "Not implemented", and its serviceCode is
		// free-form, not 8 digits.
		Errors: []ErrorCase{
			{Name: "Not implemented", Status: 501,
				Body: `{"type":"https://api.memberplatform.example/problems/not-implemented","title":"Not implemented","status":501,"detail":"Not implemented yet.","serviceCode":"PAYMENT_METHOD_UPDATE_NOT_IMPLEMENTED"}`,
				Kind: apierrors.ErrNotImplemented, Title: "Not implemented (PAYMENT_METHOD_UPDATE_NOT_IMPLEMENTED)", Detail: "Not implemented yet."},
			{Name: "not implemented by name", Status: 400,
				Body: `{"type":"https://errors.example.com/not-implemented","title":"Not Implemented","status":400,"serviceCode":"payments.not_implemented"}`,
				Kind: apierrors.ErrBadRequest, Also: []error{apierrors.ErrNotImplemented}, Title: "Not Implemented (payments.not_implemented)"},
			{Name: "free-form not found", Status: 404, Body: `{"type":"about:blank","title":"Not Found","status":404,"serviceCode":"PM-404"}`,
				Kind: apierrors.ErrNotFound, Title: "Not Found (PM-404)"},
			{Name: "numeric service code", Status: 409, Body: `{"type":"about:blank","title":"Conflict","status":409,"serviceCode":40900001}`,
				Kind: apierrors.ErrConflict, Title: "Conflict (40900001)"},
		},
	},
	"customer.UpsertMemberAddress": {
		IDs:      []string{MemberID},
		Body:     `{"addressFull":"Unit 4, 12 Example Street, Surry Hills NSW 2010, Australia","addressLineOne":"12 Example Street","addressLineTwo":"Unit 4","state":"NSW","suburb":"Surry Hills","postcode":"2010","country":"AU"}`,
		Status:   201,
		Response: `{"id":"a7e4c2d0-1b3f-4a5c-8e9d-0f1a2b3c4d5e","tenantId":"t_9f8e7d6c","addressFull":"Unit 4, 12 Example Street, Surry Hills NSW 2010, Australia","addressLineOne":"12 Example Street","addressLineTwo":"Unit 4","state":"NSW","suburb":"Surry Hills","postcode":"2010","country":"AU","createdDate":"2023-11-20T01:02:03Z","lastModifiedDate":null}`,
		Want: &customer.MemberAddress{ID: "a7e4c2d0-1b3f-4a5c-8e9d-0f1a2b3c4d5e", TenantID: "t_9f8e7d6c",
			AddressFull: new("Unit 4, 12 Example Street, Surry Hills NSW 2010, Australia"), AddressLineOne: new("12 Example Street"), AddressLineTwo: new("Unit 4"),
			State: new("NSW"), Suburb: new("Surry Hills"), Postcode: new("2010"), Country: new("AU"), CreatedDate: new("2023-11-20T01:02:03Z")},
		Call: func(ctx context.Context, c *client.Client, opts ...option.RequestOption) (any, error) {
			return c.Customer.UpsertMemberAddress(ctx, MemberID, addrParams, opts...)
		},
		Retryable: Answer{503, `{"code":"UNAVAILABLE","message":"try later"}`},
		Malformed: []string{`{not json`, `[]`, `{"id":1}`, `{"id":"a7e4c2d0-1b3f-4a5c-8e9d-0f1a2b3c4d5e","state":7}`, `<html></html>`},
		Refused: []Refusal{
			{"required fields missing", func(ctx context.Context, c *client.Client) error {
				_, err := c.Customer.UpsertMemberAddress(ctx, MemberID, customer.UpsertMemberAddressParams{AddressLineOne: "1 Main St", State: " "})
				return err
			}, []string{"state", "suburb", "postcode", "country"}},
		},
	},
}
