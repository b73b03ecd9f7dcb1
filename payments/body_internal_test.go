package payments

import (
	"encoding/json"
	"reflect"
	"testing"
)

// TestUpdatePaymentMethodBodyIsMarshal: the body written without
// reflection is the one json.Marshal writes, for every field present or
// absent, false included.
func TestUpdatePaymentMethodBodyIsMarshal(t *testing.T) {
	// body() lists the fields by hand: a new one must be added there too.
	if n := reflect.TypeFor[UpdatePaymentMethodParams]().NumField(); n != 2 {
		t.Fatalf("UpdatePaymentMethodParams has %d fields; body() writes 2: add the new one to body() and here", n)
	}
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
