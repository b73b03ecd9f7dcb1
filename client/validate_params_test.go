package client_test

import (
	"context"
	"errors"
	"net/http"
	"reflect"
	"sync/atomic"
	"testing"

	"github.com/oapi-codegen/nullable"

	"github.com/memberplatform/memberplatform-go/accessmgmt"
	"github.com/memberplatform/memberplatform-go/client"
	"github.com/memberplatform/memberplatform-go/customer"
	apierrors "github.com/memberplatform/memberplatform-go/errors"
	"github.com/memberplatform/memberplatform-go/internal/areatest"
	"github.com/memberplatform/memberplatform-go/internal/oprows"
	"github.com/memberplatform/memberplatform-go/option"
	"github.com/memberplatform/memberplatform-go/payments"
)

// A params type's Validate reports exactly what its method refuses in it:
// the same *errors.ValidationError, the same fields and messages, in the
// same order; nil exactly when the method sends it.

// paramsCase is one params value, validated and passed to its method with
// a valid path ID.
type paramsCase struct {
	name     string
	validate func() error
	call     func(ctx context.Context, c *client.Client) error
	valid    bool // Validate must return nil and the method send
}

func updateUserCase(name string, p accessmgmt.UpdateUserParams, valid bool) paramsCase {
	return paramsCase{name, p.Validate, func(ctx context.Context, c *client.Client) error {
		_, err := c.AccessMgmt.UpdateUser(ctx, testUserID, p)
		return err
	}, valid}
}

func updatePaymentMethodCase(name string, p payments.UpdatePaymentMethodParams, valid bool) paramsCase {
	return paramsCase{name, p.Validate, func(ctx context.Context, c *client.Client) error {
		_, err := c.Payments.UpdatePaymentMethod(ctx, oprows.PMID, p)
		return err
	}, valid}
}

func upsertMemberAddressCase(name string, p customer.UpsertMemberAddressParams, valid bool) paramsCase {
	return paramsCase{name, p.Validate, func(ctx context.Context, c *client.Client) error {
		_, err := c.Customer.UpsertMemberAddress(ctx, oprows.MemberID, p)
		return err
	}, valid}
}

var address = customer.UpsertMemberAddressParams{AddressLineOne: "1 Main St", State: "NSW", Suburb: "Sydney", Postcode: "2000", Country: "AU"}

func withAddress(change func(p *customer.UpsertMemberAddressParams)) customer.UpsertMemberAddressParams {
	p := address
	change(&p)
	return p
}

var paramsCases = []paramsCase{
	updateUserCase("user: one field", accessmgmt.UpdateUserParams{FirstName: new("Ada")}, true),
	updateUserCase("user: every field", accessmgmt.UpdateUserParams{MobileNumber: new("+61412345678"), Email: new("ada@example.com"),
		FirstName: new("Ada"), LastName: new("Lovelace")}, true),
	updateUserCase("user: none", accessmgmt.UpdateUserParams{}, false),
	updateUserCase("user: every field bad", accessmgmt.UpdateUserParams{MobileNumber: new("0412"), Email: new("Ada <ada@example.com>"),
		FirstName: new(" "), LastName: new("")}, false),
	updateUserCase("user: bad email only", accessmgmt.UpdateUserParams{Email: new("ada@")}, false),

	updatePaymentMethodCase("payment: primary", payments.UpdatePaymentMethodParams{SetAsPrimary: new(false)}, true),
	updatePaymentMethodCase("payment: none", payments.UpdatePaymentMethodParams{}, true), // {} is allowed
	updatePaymentMethodCase("payment: empty expDate", payments.UpdatePaymentMethodParams{ExpDate: new("")}, false),

	upsertMemberAddressCase("address: complete", address, true),
	upsertMemberAddressCase("address: line two null", withAddress(func(p *customer.UpsertMemberAddressParams) {
		p.AddressLineTwo = nullable.NewNullNullable[string]()
	}), true),
	upsertMemberAddressCase("address: empty", customer.UpsertMemberAddressParams{}, false),
	upsertMemberAddressCase("address: blank postcode", withAddress(func(p *customer.UpsertMemberAddressParams) { p.Postcode = " \t" }), false),
}

// answered200 answers every request 200 with an empty JSON object, and counts them.
type answered200 struct{ n *atomic.Int64 }

func (a answered200) RoundTrip(r *http.Request) (*http.Response, error) {
	a.n.Add(1)
	return areatest.JSON(http.StatusOK, `{}`)(r)
}

func TestValidateReportsWhatTheMethodRefuses(t *testing.T) {
	var sent atomic.Int64
	c, err := client.New(option.WithBaseURL("https://api.example.com"), option.WithTokenSource(nil), option.WithTransport(answered200{&sent}))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range paramsCases {
		before := sent.Load()
		validateErr := tc.validate()
		callErr := tc.call(context.Background(), c)
		if tc.valid {
			if validateErr != nil || callErr != nil || sent.Load() != before+1 {
				t.Errorf("%s: Validate = %v, call = %v, %d requests; want nil, nil, 1", tc.name, validateErr, callErr, sent.Load()-before)
			}
			continue
		}
		var fromValidate, fromCall *apierrors.ValidationError
		if !errors.As(validateErr, &fromValidate) || !errors.As(callErr, &fromCall) {
			t.Errorf("%s: Validate = %v, call = %v; want a *errors.ValidationError from both", tc.name, validateErr, callErr)
			continue
		}
		if !reflect.DeepEqual(fromValidate, fromCall) {
			t.Errorf("%s: Validate = %#v\ncall = %#v; want the same", tc.name, fromValidate, fromCall)
		}
		if sent.Load() != before {
			t.Errorf("%s: the refused call was sent", tc.name)
		}
	}
}

// The path ID is the method's own check: Validate covers params alone, and
// the method lists the ID's field first, then the params'.
func TestValidateLeavesThePathIDToTheMethod(t *testing.T) {
	c, err := client.New(option.WithBaseURL("https://api.example.com"), option.WithTokenSource(nil), option.WithTransport(noNetwork{t}))
	if err != nil {
		t.Fatal(err)
	}
	params := payments.UpdatePaymentMethodParams{ExpDate: new("")}
	_, callErr := c.Payments.UpdatePaymentMethod(context.Background(), "not-a-uuid", params)
	want := []apierrors.FieldError{{Field: "id", Message: "must be a UUID (8-4-4-4-12 hexadecimal digits)"}}
	want = append(want, apierrors.FieldErrorsOf(params.Validate())...)
	if got := apierrors.FieldErrorsOf(callErr); !reflect.DeepEqual(got, want) {
		t.Errorf("call's fields %v; want %v", got, want)
	}
}
