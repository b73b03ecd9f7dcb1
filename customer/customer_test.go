package customer_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/oapi-codegen/nullable"

	"github.com/memberplatform/memberplatform-go/customer"
	"github.com/memberplatform/memberplatform-go/internal/areatest"
)

const (
	addrPath = "/customer/members/" + memberID + "/address"
	fullAddr = `{"id":"` + addrID + `","tenantId":"tenant-42","addressFull":"Unit 4, 1 Main St, Sydney NSW 2000","addressLineOne":"1 Main St","addressLineTwo":"Unit 4","state":"NSW","suburb":"Sydney","postcode":"2000","country":"AU","createdDate":"2024-05-06T07:08:09Z","lastModifiedDate":"2024-06-07T08:09:10.5+10:00"}`
	nullAddr = `{"id":"` + addrID + `","tenantId":"tenant-42","addressFull":null,"addressLineOne":null,"addressLineTwo":null,"state":null,"suburb":null,"postcode":null,"country":null,"createdDate":null,"lastModifiedDate":null}`
	// minBody is the JSON of minParams.
	minBody = `{"addressLineOne":"1 Main St","state":"NSW","suburb":"Sydney","postcode":"2000","country":"AU"}`
)

func minParams() customer.UpsertMemberAddressParams {
	return customer.UpsertMemberAddressParams{AddressLineOne: "1 Main St", State: "NSW", Suburb: "Sydney", Postcode: "2000", Country: "AU"}
}

// with returns minParams changed by f.
func with(f func(*customer.UpsertMemberAddressParams)) customer.UpsertMemberAddressParams {
	p := minParams()
	f(&p)
	return p
}

var fullAddrWant = customer.MemberAddress{
	ID: addrID, TenantID: "tenant-42",
	AddressFull: new("Unit 4, 1 Main St, Sydney NSW 2000"), AddressLineOne: new("1 Main St"), AddressLineTwo: new("Unit 4"),
	State: new("NSW"), Suburb: new("Sydney"), Postcode: new("2000"), Country: new("AU"),
	CreatedDate: new("2024-05-06T07:08:09Z"), LastModifiedDate: new("2024-06-07T08:09:10.5+10:00"),
}

// sameAddr compares addresses field by field, *string by value (nil apart).
func sameAddr(t *testing.T, got *customer.MemberAddress, want customer.MemberAddress) {
	t.Helper()
	if got == nil {
		t.Fatal("address is nil")
	}
	if got.ID != want.ID || got.TenantID != want.TenantID {
		t.Errorf("id, tenantId = %q, %q; want %q, %q", got.ID, got.TenantID, want.ID, want.TenantID)
	}
	for _, f := range []struct {
		name      string
		got, want *string
	}{
		{"addressFull", got.AddressFull, want.AddressFull},
		{"addressLineOne", got.AddressLineOne, want.AddressLineOne},
		{"addressLineTwo", got.AddressLineTwo, want.AddressLineTwo},
		{"state", got.State, want.State},
		{"suburb", got.Suburb, want.Suburb},
		{"postcode", got.Postcode, want.Postcode},
		{"country", got.Country, want.Country},
		{"createdDate", got.CreatedDate, want.CreatedDate},
		{"lastModifiedDate", got.LastModifiedDate, want.LastModifiedDate},
	} {
		switch {
		case f.want == nil && f.got != nil:
			t.Errorf("%s = %q, want nil", f.name, *f.got)
		case f.want != nil && f.got == nil:
			t.Errorf("%s = nil, want %q", f.name, *f.want)
		case f.want != nil && *f.got != *f.want:
			t.Errorf("%s = %q, want %q", f.name, *f.got, *f.want)
		}
	}
}

func TestUpsertMemberAddressRequest(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		params customer.UpsertMemberAddressParams
		body   string
	}{
		{"required only: addressLineTwo absent", minParams(), minBody},
		{
			"addressLineTwo null",
			with(func(p *customer.UpsertMemberAddressParams) { p.AddressLineTwo = nullable.NewNullNullable[string]() }),
			`{"addressLineOne":"1 Main St","addressLineTwo":null,"state":"NSW","suburb":"Sydney","postcode":"2000","country":"AU"}`,
		},
		{
			"addressLineTwo value",
			with(func(p *customer.UpsertMemberAddressParams) {
				p.AddressLineTwo = nullable.NewNullableWithValue("Unit 4")
			}),
			`{"addressLineOne":"1 Main St","addressLineTwo":"Unit 4","state":"NSW","suburb":"Sydney","postcode":"2000","country":"AU"}`,
		},
		{
			"addressLineTwo empty string is a value",
			with(func(p *customer.UpsertMemberAddressParams) { p.AddressLineTwo = nullable.NewNullableWithValue("") }),
			`{"addressLineOne":"1 Main St","addressLineTwo":"","state":"NSW","suburb":"Sydney","postcode":"2000","country":"AU"}`,
		},
		{
			"addressLineTwo set then unset",
			with(func(p *customer.UpsertMemberAddressParams) {
				p.AddressLineTwo = nullable.NewNullableWithValue("Unit 4")
				p.AddressLineTwo.SetUnspecified()
			}),
			minBody,
		},
		{
			"every field",
			with(func(p *customer.UpsertMemberAddressParams) {
				p.AddressFull = new("Unit 4, 1 Main St, Sydney NSW 2000")
				p.AddressLineTwo = nullable.NewNullableWithValue("Unit 4")
			}),
			`{"addressFull":"Unit 4, 1 Main St, Sydney NSW 2000","addressLineOne":"1 Main St","addressLineTwo":"Unit 4","state":"NSW","suburb":"Sydney","postcode":"2000","country":"AU"}`,
		},
		{
			"escaping in values",
			customer.UpsertMemberAddressParams{AddressLineOne: `1 "Main" St <&>`, State: "Île-de-France", Suburb: "Paris", Postcode: "75001", Country: "FR"},
			`{"addressLineOne":"1 \"Main\" St \u003c\u0026\u003e","state":"Île-de-France","suburb":"Paris","postcode":"75001","country":"FR"}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			m := areatest.NewMock(t)
			m.On(http.MethodPost, addrPath, areatest.JSON(http.StatusOK, fullAddr))
			a, err := m.Client().Customer.UpsertMemberAddress(t.Context(), memberID, tt.params)
			if err != nil {
				t.Fatalf("UpsertMemberAddress: %v", err)
			}
			r := m.Only()
			areatest.CheckRequest(t, r, http.MethodPost, addrPath, tt.body, "Bearer "+token)
			sameAddr(t, a, fullAddrWant)
		})
	}
}

func TestUpsertMemberAddressDecodes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		body string
		want customer.MemberAddress
	}{
		{"every field", fullAddr, fullAddrWant},
		{"every nullable field null", nullAddr, customer.MemberAddress{ID: addrID, TenantID: "tenant-42"}},
		{
			"nullable fields absent, some empty",
			`{"id":"` + addrID + `","tenantId":"tenant-42","addressLineOne":"","country":"AU"}`,
			customer.MemberAddress{ID: addrID, TenantID: "tenant-42", AddressLineOne: new(""), Country: new("AU")},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			m := areatest.NewMock(t)
			m.On(http.MethodPost, addrPath, areatest.JSON(http.StatusOK, tt.body))
			a, err := m.Client().Customer.UpsertMemberAddress(t.Context(), memberID, minParams())
			if err != nil {
				t.Fatalf("UpsertMemberAddress: %v", err)
			}
			sameAddr(t, a, tt.want)
		})
	}
}

func TestUpsertMemberAddressSuccessStatuses(t *testing.T) {
	t.Parallel()
	for _, status := range []int{http.StatusOK, http.StatusCreated} {
		t.Run(http.StatusText(status), func(t *testing.T) {
			t.Parallel()
			m := areatest.NewMock(t)
			m.On(http.MethodPost, addrPath, areatest.JSON(status, fullAddr))
			a, err := m.Client().Customer.UpsertMemberAddress(t.Context(), memberID, minParams())
			if err != nil {
				t.Fatalf("UpsertMemberAddress: %v", err)
			}
			sameAddr(t, a, fullAddrWant)
			if m.Calls() != 1 {
				t.Errorf("requests = %d, want 1", m.Calls())
			}
		})
	}
}

func TestUpsertMemberAddressEmptySuccessBody(t *testing.T) {
	t.Parallel()
	params := minParams()
	params.AddressFull = new("1 Main St, Sydney")
	params.AddressLineTwo = nullable.NewNullableWithValue("Unit 4")
	nullTwo := minParams()
	nullTwo.AddressLineTwo = nullable.NewNullNullable[string]()
	sent := customer.MemberAddress{
		AddressFull: new("1 Main St, Sydney"), AddressLineOne: new("1 Main St"), AddressLineTwo: new("Unit 4"),
		State: new("NSW"), Suburb: new("Sydney"), Postcode: new("2000"), Country: new("AU"),
	}
	sentMin := customer.MemberAddress{AddressLineOne: new("1 Main St"), State: new("NSW"), Suburb: new("Sydney"), Postcode: new("2000"), Country: new("AU")}
	tests := []struct {
		name   string
		status int
		body   string
		params customer.UpsertMemberAddressParams
		want   customer.MemberAddress
	}{
		{"200 empty", http.StatusOK, "", params, sent},
		{"201 empty", http.StatusCreated, "", params, sent},
		{"204 empty", http.StatusNoContent, "", params, sent},
		{"200 null", http.StatusOK, "null", params, sent},
		{"200 empty, addressLineTwo null", http.StatusOK, "", nullTwo, sentMin},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			m := areatest.NewMock(t)
			m.On(http.MethodPost, addrPath, areatest.JSON(tt.status, tt.body))
			a, err := m.Client().Customer.UpsertMemberAddress(t.Context(), memberID, tt.params)
			if err != nil {
				t.Fatalf("UpsertMemberAddress: %v", err)
			}
			sameAddr(t, a, tt.want)
			// The result does not alias the caller's params.
			*a.AddressLineOne = "changed"
			if tt.params.AddressLineOne != "1 Main St" {
				t.Error("result aliases params")
			}
			if a.AddressFull != nil {
				*a.AddressFull = "changed"
				if *params.AddressFull != "1 Main St, Sydney" {
					t.Error("result aliases params.AddressFull")
				}
			}
		})
	}
}

func TestMemberAddressDates(t *testing.T) {
	t.Parallel()
	at := time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC)
	tests := []struct {
		name string
		raw  *string
		want time.Time
		ok   bool
	}{
		{"null", nil, time.Time{}, false},
		{"RFC 3339", new("2024-05-06T07:08:09Z"), at, true},
		{"RFC 3339 offset", new("2024-05-06T17:08:09+10:00"), at, true},
		{"fractional", new("2024-05-06T07:08:09.250Z"), at.Add(250 * time.Millisecond), true},
		{"no zone", new("2024-05-06T07:08:09"), at, true},
		{"space separator", new("2024-05-06 07:08:09"), at, true},
		{"bare date", new("2024-05-06"), time.Date(2024, 5, 6, 0, 0, 0, 0, time.UTC), true},
		{"epoch seconds", new("1714979289"), at, true},
		{"epoch millis", new("1714979289000"), at, true},
		{"empty", new(""), time.Time{}, false},
		{"garbage", new("yesterday"), time.Time{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			a := customer.MemberAddress{CreatedDate: tt.raw, LastModifiedDate: tt.raw}
			for _, f := range []func() (time.Time, bool){a.Created, a.LastModified} {
				got, ok := f()
				if ok != tt.ok || !got.Equal(tt.want) {
					t.Errorf("= %v, %v; want %v, %v", got, ok, tt.want, tt.ok)
				}
			}
		})
	}
}

func TestUpsertMemberAddressValidation(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		id     string
		params customer.UpsertMemberAddressParams
		fields []string // nil: valid
	}{
		{"valid", memberID, minParams(), nil},
		{"valid upper-case uuid", "7C9E6679-7425-40DE-944B-E07FC1F90AE7", minParams(), nil},
		{"valid with optional fields", memberID, with(func(p *customer.UpsertMemberAddressParams) {
			p.AddressFull = new("")
			p.AddressLineTwo = nullable.NewNullableWithValue("")
		}), nil},
		{"valid with null line two", memberID, with(func(p *customer.UpsertMemberAddressParams) { p.AddressLineTwo = nullable.NewNullNullable[string]() }), nil},

		{"empty member id", "", minParams(), []string{"memberId"}},
		{"member id not a uuid", "member-1", minParams(), []string{"memberId"}},
		{"member id without hyphens", "7c9e6679742540de944be07fc1f90ae7", minParams(), []string{"memberId"}},
		{"member id with path", "../" + memberID, minParams(), []string{"memberId"}},

		{"addressLineOne missing", memberID, with(func(p *customer.UpsertMemberAddressParams) { p.AddressLineOne = "" }), []string{"addressLineOne"}},
		{"state missing", memberID, with(func(p *customer.UpsertMemberAddressParams) { p.State = "" }), []string{"state"}},
		{"suburb missing", memberID, with(func(p *customer.UpsertMemberAddressParams) { p.Suburb = "" }), []string{"suburb"}},
		{"postcode missing", memberID, with(func(p *customer.UpsertMemberAddressParams) { p.Postcode = "" }), []string{"postcode"}},
		{"country missing", memberID, with(func(p *customer.UpsertMemberAddressParams) { p.Country = "" }), []string{"country"}},
		{"blank counts as missing", memberID, with(func(p *customer.UpsertMemberAddressParams) { p.Suburb = " \t\n" }), []string{"suburb"}},
		{"two missing", memberID, with(func(p *customer.UpsertMemberAddressParams) { p.State, p.Country = "", "" }), []string{"state", "country"}},
		{"everything missing", "nope", customer.UpsertMemberAddressParams{AddressFull: new("x"), AddressLineTwo: nullable.NewNullableWithValue("y")},
			[]string{"memberId", "addressLineOne", "state", "suburb", "postcode", "country"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			m := areatest.NewMock(t)
			m.On(http.MethodPost, `=~^`+baseURL+`/customer/members/[^/]+/address$`, areatest.JSON(http.StatusOK, fullAddr))
			a, err := m.Client().Customer.UpsertMemberAddress(t.Context(), tt.id, tt.params)
			m.CheckValidation("customer.UpsertMemberAddress", err, a == nil, tt.fields)
		})
	}
}
