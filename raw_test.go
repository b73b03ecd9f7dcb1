package memberplatform_test

import (
	"reflect"
	"testing"

	memberplatform "github.com/memberplatform/memberplatform-go"
)

// Raw stays comparable, NewRaw copies, and Equal hides the body from
// go-cmp while == and reflect.DeepEqual see it.
func TestRaw(t *testing.T) {
	type result struct {
		ID string
		memberplatform.Raw
	}
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
