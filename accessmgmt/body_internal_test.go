package accessmgmt

import (
	"encoding/json"
	"reflect"
	"testing"
)

// TestUpdateUserBodyIsMarshal: the body written without reflection is the
// one json.Marshal writes, for every field present or absent and strings
// that need escaping.
func TestUpdateUserBodyIsMarshal(t *testing.T) {
	// body() lists the fields by hand: a new one must be added there too.
	if n := reflect.TypeFor[UpdateUserParams]().NumField(); n != 4 {
		t.Fatalf("UpdateUserParams has %d fields; body() writes 4: add the new one to body() and here", n)
	}
	for _, p := range []UpdateUserParams{
		{},
		{MobileNumber: new("+61412345678"), Email: new("ada@example.com"), FirstName: new("Ada"), LastName: new("Lovelace")},
		{FirstName: new(`Zoë "Z" <b>&`), LastName: new("")},
		{Email: new("a\u2028b\xff@example.com")},
	} {
		want, err := json.Marshal(p)
		if err != nil {
			t.Fatal(err)
		}
		if got := p.body(); string(got) != string(want) {
			t.Errorf("%+v: body %s, json.Marshal %s", p, got, want)
		}
	}
}
