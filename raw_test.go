package memberplatform_test

import (
	"bytes"
	"encoding/gob"
	"encoding/json"
	"reflect"
	"testing"

	memberplatform "github.com/memberplatform/memberplatform-go"
)

// result is a result type as the SDK's are declared.
type result struct {
	ID                 string `json:"id"`
	memberplatform.Raw `json:"-"`
}

// Raw stays comparable, NewRaw copies, and Equal hides the body from
// go-cmp while == and reflect.DeepEqual see it.
func TestRaw(t *testing.T) {
	body := []byte(`{"id":"1","new":true}`)
	a := result{ID: "1", Raw: memberplatform.NewRaw(body)}
	body[0] = 'X'
	if string(a.RawJSON()) != `{"id":"1","new":true}` {
		t.Errorf("RawJSON() = %s: NewRaw did not copy", a.RawJSON())
	}
	b := result{ID: "1", Raw: memberplatform.NewRaw([]byte(`{"id":"1","new":true}`))}
	if a != b || !reflect.DeepEqual(a, b) {
		t.Error("two results with the same fields and body differ")
	}
	byHand := result{ID: "1"}
	if a == byHand || byHand.RawJSON() != nil {
		t.Error("== does not see the body, or a value built by hand has one")
	}
	if !a.Equal(byHand.Raw) {
		t.Error("Equal (for go-cmp) sees the body")
	}
	if (memberplatform.NewRaw(nil)).RawJSON() != nil {
		t.Error("NewRaw(nil).RawJSON() is not nil")
	}
}

// A result embedding Raw as the SDK does encodes to the same JSON as
// without it, a "raw" member does not decode into it, and encoding/gob
// carries it.
func TestRawEncodings(t *testing.T) {
	r := result{ID: "1", Raw: memberplatform.NewRaw([]byte(`{"id":"1"}`))}
	b, err := json.Marshal(r)
	if err != nil || string(b) != `{"id":"1"}` {
		t.Errorf("json.Marshal = %s, %v; want the id alone", b, err)
	}
	var back result
	if err := json.Unmarshal([]byte(`{"id":"2","Raw":"x","raw":"y"}`), &back); err != nil || back.Raw != "" {
		t.Errorf("json.Unmarshal: %v, Raw %q; want it untouched", err, back.Raw)
	}
	var buf bytes.Buffer
	if err := gob.NewEncoder(&buf).Encode(r); err != nil {
		t.Fatal(err)
	}
	var decoded result
	if err := gob.NewDecoder(&buf).Decode(&decoded); err != nil || decoded != r {
		t.Errorf("gob: %+v, %v; want %+v", decoded, err, r)
	}
}
