package customer

import (
	"context"
	"net/http"
	"time"

	"github.com/oapi-codegen/nullable"

	memberplatform "github.com/memberplatform/memberplatform-go"
	"github.com/memberplatform/memberplatform-go/internal/core"
	"github.com/memberplatform/memberplatform-go/internal/flextime"
	"github.com/memberplatform/memberplatform-go/internal/validate"
	"github.com/memberplatform/memberplatform-go/option"
)

// Service calls the customer operations; get it from
// client.Client.Customer. It is safe for concurrent use.
type Service struct{ client *core.Client }

func init() { core.NewCustomer = func(c *core.Client) any { return &Service{c} } }

// pipeline is nil for a Service not built by client.New, which core.Do
// reports as an error.
func (s *Service) pipeline() *core.Client {
	if s == nil {
		return nil
	}
	return s.client
}

// MemberAddress is a member's address. Every field but ID and TenantID may
// be null, which decodes to nil.
type MemberAddress struct {
	ID             string  `json:"id"`
	TenantID       string  `json:"tenantId"`
	AddressFull    *string `json:"addressFull"`
	AddressLineOne *string `json:"addressLineOne"`
	AddressLineTwo *string `json:"addressLineTwo"`
	State          *string `json:"state"`
	Suburb         *string `json:"suburb"`
	Postcode       *string `json:"postcode"`
	Country        *string `json:"country"`
	// CreatedDate and LastModifiedDate are kept as the server sent them:
	// the contract does not give their format. Created and LastModified
	// parse them.
	CreatedDate      *string `json:"createdDate"`
	LastModifiedDate *string `json:"lastModifiedDate"`
	// Raw holds the response body the address was decoded from: RawJSON()
	// returns it, for fields the SDK does not know yet.
	memberplatform.Raw `json:"-"`
}

// Created parses CreatedDate (RFC 3339, with or without zone or fractional
// seconds, a bare date, or epoch seconds/milliseconds). ok is false when the
// date is null or in none of these shapes.
func (a *MemberAddress) Created() (t time.Time, ok bool) { return parseDate(a.CreatedDate) }

// LastModified parses LastModifiedDate like Created.
func (a *MemberAddress) LastModified() (t time.Time, ok bool) { return parseDate(a.LastModifiedDate) }

func parseDate(s *string) (time.Time, bool) {
	if s == nil {
		return time.Time{}, false
	}
	t, err := flextime.Parse(*s)
	return t, err == nil
}

// UpsertMemberAddressParams is the address to store. AddressLineOne, State,
// Suburb, Postcode and Country are required. AddressLineTwo has three
// states: unset (the zero value: not sent), null
// (nullable.NewNullNullable[string]()) and a value
// (nullable.NewNullableWithValue("Unit 4")).
type UpsertMemberAddressParams struct {
	AddressFull    *string                   `json:"addressFull,omitempty"`
	AddressLineOne string                    `json:"addressLineOne"`
	AddressLineTwo nullable.Nullable[string] `json:"addressLineTwo,omitempty"`
	State          string                    `json:"state"`
	Suburb         string                    `json:"suburb"`
	Postcode       string                    `json:"postcode"`
	Country        string                    `json:"country"`
}

// Validate reports what UpsertMemberAddress refuses in p before sending,
// as the same *errors.ValidationError (operation
// customer.UpsertMemberAddress) naming the same fields: each of
// addressLineOne, state, suburb, postcode and country that is blank. It
// covers p alone: the memberID that UpsertMemberAddress takes beside it is
// checked by UpsertMemberAddress (a UUID). nil when UpsertMemberAddress
// would send p.
func (p UpsertMemberAddressParams) Validate() error {
	v := validate.Errors{Operation: upsertMemberAddressOp.Name}
	p.check(&v)
	return v.Err()
}

// check adds to v what is wrong with p: the one list of
// UpsertMemberAddress's checks of its params, which Validate runs too.
func (p *UpsertMemberAddressParams) check(v *validate.Errors) {
	for _, f := range []struct{ name, val string }{
		{"addressLineOne", p.AddressLineOne}, {"state", p.State}, {"suburb", p.Suburb},
		{"postcode", p.Postcode}, {"country", p.Country},
	} {
		if validate.Blank(f.val) {
			v.Add(f.name, "is required")
		}
	}
}

// An upsert stores the same address whether sent once or twice: safe to retry.
var upsertMemberAddressOp = core.Declare(core.Operation{
	Name: "customer.UpsertMemberAddress", Method: http.MethodPost, Path: "/customer/members/{memberId}/address",
	Area: memberplatform.AreaCustomer, Errors: core.CodeMessageErrors, Idempotent: true, Auth: true,
})

// UpsertMemberAddress creates or updates the address of member memberID (a
// UUID) and returns the stored address. Success is any 2xx (200 updated,
// 201 created). The SDK checks memberID and the required fields before
// sending and reports every missing one.
//
// If the platform answers 2xx with an empty body, the returned address holds
// only the fields that were sent (ID, TenantID and the dates are unknown:
// empty and nil), like the other operations of the SDK.
func (s *Service) UpsertMemberAddress(ctx context.Context, memberID string, params UpsertMemberAddressParams, opts ...option.RequestOption) (*MemberAddress, error) {
	v := validate.Errors{Operation: upsertMemberAddressOp.Name}
	validate.UUIDParam(&v, "memberId", memberID)
	params.check(&v)
	var a MemberAddress
	call := &core.Call{Op: upsertMemberAddressOp, Invalid: v.Err(), PathParams: [2]string{memberID}, Body: &params, Result: &a}
	if err := core.Do(ctx, s.pipeline(), call, opts); err != nil {
		return nil, err
	}
	if a == (MemberAddress{Raw: a.Raw}) { // empty (or null) 2xx body, or one without the address
		a = MemberAddress{Raw: a.Raw,
			AddressLineOne: new(params.AddressLineOne), State: new(params.State), Suburb: new(params.Suburb),
			Postcode: new(params.Postcode), Country: new(params.Country),
		}
		if params.AddressFull != nil {
			a.AddressFull = new(*params.AddressFull)
		}
		if v, err := params.AddressLineTwo.Get(); err == nil {
			a.AddressLineTwo = new(v)
		}
	}
	return &a, nil
}
