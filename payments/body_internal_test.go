package payments

import (
	"encoding/json"
	"testing"
)

// TestUpdatePaymentMethodBodyIsMarshal: the body written without
// reflection is the one json.Marshal writes, for every field present or
// absent, false included.
func TestUpdatePaymentMethodBodyIsMarshal(t *testing.T) {
	for _, p := range []UpdatePaymentMethodParams{
		{},
		{SetAsPrimary: new(true), ExpDate: new("08/2029")},
		{SetAsPrimary: new(false)},
		{ExpDate: new("<08>/2029 \"x\"")},
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
