package accessmgmt

import (
	"encoding/json"
	"testing"
)

// TestUpdateUserBodyIsMarshal: the body written without reflection is the
// one json.Marshal writes, for every field present or absent and strings
// that need escaping.
func TestUpdateUserBodyIsMarshal(t *testing.T) {
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
