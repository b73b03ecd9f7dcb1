package customer

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/oapi-codegen/nullable"
)

// TestUpsertMemberAddressBodyIsMarshal: the body written without
// reflection is the one json.Marshal writes, for AddressLineTwo unset, null
// and set, AddressFull absent and present, and strings that need escaping.
func TestUpsertMemberAddressBodyIsMarshal(t *testing.T) {
	// body() lists the fields by hand: a new one must be added there too.
	if n := reflect.TypeFor[UpsertMemberAddressParams]().NumField(); n != 7 {
		t.Fatalf("UpsertMemberAddressParams has %d fields; body() writes 7: add the new one to body() and here", n)
	}
	base := UpsertMemberAddressParams{AddressLineOne: "12 Example Street", State: "NSW", Suburb: "Surry Hills", Postcode: "2010", Country: "AU"}
	for _, edit := range []func(p *UpsertMemberAddressParams){
		func(p *UpsertMemberAddressParams) {},
		func(p *UpsertMemberAddressParams) { p.AddressLineTwo = nullable.NewNullNullable[string]() },
		func(p *UpsertMemberAddressParams) { p.AddressLineTwo = nullable.NewNullableWithValue("Unit 4") },
		func(p *UpsertMemberAddressParams) { p.AddressLineTwo = nullable.NewNullableWithValue("") },
		func(p *UpsertMemberAddressParams) { p.AddressFull = new("Unit 4, 12 Example Street") },
		func(p *UpsertMemberAddressParams) { p.Suburb, p.AddressFull = "Bondi\tJunction <&>", new("\u2028\xff") },
	} {
		p := base
		edit(&p)
		want, err := json.Marshal(p)
		if err != nil {
			t.Fatal(err)
		}
		if got := p.body(); string(got) != string(want) {
			t.Errorf("%+v: body %s, json.Marshal %s", p, got, want)
		}
	}
}
