package client_test

import (
	"encoding/json"
	"net/http"
	"reflect"
	"testing"

	memberplatform "github.com/memberplatform/memberplatform-go"
	"github.com/memberplatform/memberplatform-go/accessmgmt"
	"github.com/memberplatform/memberplatform-go/customer"
	"github.com/memberplatform/memberplatform-go/internal/areatest"
	"github.com/memberplatform/memberplatform-go/internal/oprows"
	"github.com/memberplatform/memberplatform-go/payments"
)

// Figure 1 (issue 41): a response with members the SDK does not know
// (yet): RawJSON() of each of the three results holds them, and they
// decode into a struct of the caller's own.
func TestRawJSONKeepsUnknownFields(t *testing.T) {
	t.Parallel()
	type extra struct {
		Department string   `json:"department"`
		Tags       []string `json:"tags"`
	}
	const unknown = `"department":"R&D","tags":["a","b"]`
	for _, op := range operations {
		if op.want == nil {
			continue // no result
		}
		t.Run(op.name, func(t *testing.T) {
			t.Parallel()
			body := op.response[:len(op.response)-1] + "," + unknown + "}"
			m := areatest.NewMock(t)
			m.On(op.method, op.path+op.queryPart(), areatest.JSON(oprows.Rows()[op.name].SuccessStatus(), body))
			got, err := op.call(t.Context(), m.Client())
			if err != nil {
				t.Fatal(err)
			}
			raw := got.(interface{ RawJSON() []byte }).RawJSON()
			if string(raw) != body {
				t.Fatalf("RawJSON() = %s, want %s", raw, body)
			}
			var e extra
			if err := json.Unmarshal(raw, &e); err != nil || e.Department != "R&D" || !reflect.DeepEqual(e.Tags, []string{"a", "b"}) {
				t.Errorf("decoded %+v (err %v), want department R&D and tags [a b]", e, err)
			}
			if !reflect.DeepEqual(withoutRaw(got), op.want) {
				t.Errorf("typed fields %+v, want %+v", got, op.want)
			}
			raw[0] = 'X' // a copy: the result keeps its body
			if string(got.(interface{ RawJSON() []byte }).RawJSON()) != body {
				t.Error("writing to RawJSON's slice changed the result's body")
			}
		})
	}
}

// The result types stay comparable with ==, as before they had a body
// (this file would not compile otherwise), and compare their bodies.
func TestResultsStayComparable(t *testing.T) {
	t.Parallel()
	raw := memberplatform.NewRaw([]byte(`{"id":"1"}`))
	u1, u2 := accessmgmt.ProviderUser{ID: "1", Raw: raw}, accessmgmt.ProviderUser{ID: "1", Raw: memberplatform.NewRaw([]byte(`{"id":"1"}`))}
	p1, p2 := payments.PaymentMethod{ID: "1"}, payments.PaymentMethod{ID: "1"}
	a1, a2 := customer.MemberAddress{ID: "1"}, customer.MemberAddress{ID: "1"}
	if u1 != u2 || p1 != p2 || a1 != a2 {
		t.Error("equal results differ")
	}
	if u2.Raw = ""; u1 == u2 {
		t.Error("== does not see the body")
	}
}

// A result with no body behind it has no RawJSON: one built by hand, and
// one the SDK built from what was sent after an empty or null 2xx body.
// A body without the user is kept, with the user built from what was sent.
func TestRawJSONNilWithoutBody(t *testing.T) {
	t.Parallel()
	if (accessmgmt.ProviderUser{ID: "u"}).RawJSON() != nil {
		t.Error("a user built by hand has a RawJSON")
	}
	op := operationNamed("accessmgmt.UpdateUser")
	for body, want := range map[string]string{"": "", "null": "", " null\n": "", `{"department":"R&D"}`: `{"department":"R&D"}`} {
		m := areatest.NewMock(t)
		m.On(op.method, op.path, areatest.JSON(http.StatusOK, body))
		got, err := op.call(t.Context(), m.Client())
		if err != nil {
			t.Fatalf("body %q: %v", body, err)
		}
		u := got.(*accessmgmt.ProviderUser)
		if string(u.RawJSON()) != want || (want == "") != (u.RawJSON() == nil) {
			t.Errorf("body %q: RawJSON() = %q, want %q", body, u.RawJSON(), want)
		}
		if u.ID != oprows.UserID || u.FirstName != "Ada" {
			t.Errorf("body %q: user %+v, want the one sent", body, u)
		}
	}
}

// A caller's own type given to Execute gets RawJSON by embedding
// memberplatform.Raw, as the SDK's result types do.
func TestRawJSONOfExecuteResult(t *testing.T) {
	t.Parallel()
	type user struct {
		ID                 string `json:"id"`
		memberplatform.Raw `json:"-"`
	}
	const body = `{"id":"user_new","department":"R&D"}`
	m := areatest.NewMock(t)
	m.On(http.MethodPost, "/auth/access-management/users", areatest.JSON(http.StatusCreated, body))
	var u user
	if err := m.Client().Execute(t.Context(), http.MethodPost, "/auth/access-management/users", map[string]string{"email": "ada@example.com"}, &u); err != nil {
		t.Fatal(err)
	}
	if u.ID != "user_new" || string(u.RawJSON()) != body {
		t.Errorf("user %q, RawJSON() %s; want user_new and the body", u.ID, u.RawJSON())
	}
}
