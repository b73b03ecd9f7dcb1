package client_test

import (
	"encoding/json"
	"errors"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/memberplatform/memberplatform-go/accessmgmt"
	apierrors "github.com/memberplatform/memberplatform-go/errors"
	"github.com/memberplatform/memberplatform-go/internal/areatest"
	"github.com/memberplatform/memberplatform-go/internal/oprows"
	"github.com/memberplatform/memberplatform-go/option"
)

// sentMembers decodes the only request's body into its top-level members.
func sentMembers(t *testing.T, m *areatest.Mock) map[string]any {
	t.Helper()
	var got map[string]any
	if err := json.Unmarshal(m.Only().Body, &got); err != nil {
		t.Fatalf("the body sent %q is no JSON object: %v", m.Only().Body, err)
	}
	return got
}

// Figure 2 (issue 41): members set with WithJSONSet, a string and a list on
// UpdateUser and a field on UpsertMemberAddress, reach the server beside the
// typed fields.
func TestWithJSONSetReachesTheServer(t *testing.T) {
	t.Parallel()
	t.Run("UpdateUser", func(t *testing.T) {
		t.Parallel()
		op := operationNamed("accessmgmt.UpdateUser")
		m := areatest.NewMock(t)
		m.On(op.method, op.path, areatest.JSON(http.StatusOK, op.response))
		if err := op.run(t.Context(), t, m.Client(), option.WithJSONSet("department", "R&D"),
			option.WithJSONSet("groups", []string{"finance", "ops"})); err != nil {
			t.Fatal(err)
		}
		want := map[string]any{"mobileNumber": "+61412345678", "firstName": "Ada", "lastName": "Lovelace",
			"department": "R&D", "groups": []any{"finance", "ops"}}
		if got := sentMembers(t, m); !reflect.DeepEqual(got, want) {
			t.Errorf("sent %v, want %v", got, want)
		}
	})
	t.Run("UpsertMemberAddress", func(t *testing.T) {
		t.Parallel()
		op := operationNamed("customer.UpsertMemberAddress")
		m := areatest.NewMock(t)
		m.On(op.method, op.path, areatest.JSON(oprows.Rows()[op.name].SuccessStatus(), op.response))
		if err := op.run(t.Context(), t, m.Client(), option.WithJSONSet("deliveryNotes", map[string]any{"gate": 4})); err != nil {
			t.Fatal(err)
		}
		var want map[string]any
		if err := json.Unmarshal([]byte(op.body), &want); err != nil {
			t.Fatal(err)
		}
		want["deliveryNotes"] = map[string]any{"gate": 4.0}
		if got := sentMembers(t, m); !reflect.DeepEqual(got, want) {
			t.Errorf("sent %v, want %v", got, want)
		}
	})
}

// A member the SDK sends is replaced in its place; the last option for a
// key wins; an Execute body read from a reader gets members too.
func TestWithJSONSetReplaces(t *testing.T) {
	t.Parallel()
	op := operationNamed("accessmgmt.UpdateUser")
	m := areatest.NewMock(t)
	m.On(op.method, op.path, areatest.JSON(http.StatusOK, op.response))
	_, err := op.call(t.Context(), m.Client(), option.WithJSONSet("firstName", "Grace"), option.WithJSONSet("x", 1), option.WithJSONSet("x", nil))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(m.Only().Body), `{"mobileNumber":"+61412345678","firstName":"Grace","lastName":"Lovelace","x":null}`; got != want {
		t.Errorf("sent %s, want %s", got, want)
	}

	m = areatest.NewMock(t)
	m.On(http.MethodPost, "/auth/access-management/users", areatest.JSON(http.StatusCreated, `{}`))
	if err := m.Client().Execute(t.Context(), http.MethodPost, "/auth/access-management/users", strings.NewReader(` {"email":"a@example.com"} `), nil,
		option.WithJSONSet("department", "Ops")); err != nil {
		t.Fatal(err)
	}
	if got, want := string(m.Only().Body), `{"email":"a@example.com","department":"Ops"}`; got != want {
		t.Errorf("Execute sent %s, want %s", got, want)
	}
}

// WithJSONSet is refused, before anything is sent, where there is no JSON
// object to set a member in, for a value JSON cannot hold or an empty key,
// and the typed params' checks still run.
func TestWithJSONSetRefused(t *testing.T) {
	t.Parallel()
	m := areatest.NewMock(t)
	c := m.Client()
	for name, call := range map[string]func() error{
		"Execute without body": func() error {
			return c.Execute(t.Context(), http.MethodGet, "/auth/access-management/users", nil, nil, option.WithJSONSet("a", 1))
		},
		"Execute with an array": func() error {
			return c.Execute(t.Context(), http.MethodPost, "/auth/access-management/users", []byte(`[1]`), nil, option.WithJSONSet("a", 1))
		},
		"Execute with two objects": func() error {
			return c.Execute(t.Context(), http.MethodPost, "/auth/access-management/users", `{} {}`, nil, option.WithJSONSet("a", 1))
		},
		"a channel": func() error {
			_, err := c.AccessMgmt.UpdateUser(t.Context(), oprows.UserID, accessmgmt.UpdateUserParams{FirstName: new("Ada")}, option.WithJSONSet("a", make(chan int)))
			return err
		},
		"an empty key": func() error {
			_, err := c.AccessMgmt.UpdateUser(t.Context(), oprows.UserID, accessmgmt.UpdateUserParams{FirstName: new("Ada")}, option.WithJSONSet("", 1))
			return err
		},
		"typed params still checked": func() error {
			_, err := c.AccessMgmt.UpdateUser(t.Context(), oprows.UserID, accessmgmt.UpdateUserParams{Email: new("not an address")}, option.WithJSONSet("department", "R&D"))
			return err
		},
	} {
		err := call()
		var ve *apierrors.ValidationError
		if !errors.As(err, &ve) || !errors.Is(err, apierrors.ErrInvalidInput) {
			t.Errorf("%s: err = %v, want a *errors.ValidationError", name, err)
			continue
		}
		if name == "typed params still checked" {
			if len(ve.Fields) != 1 || ve.Fields[0].Field != "email" {
				t.Errorf("%s: fields %v, want email", name, ve.Fields)
			}
		} else if len(ve.Fields) != 1 || ve.Fields[0].Field != "options" || !strings.Contains(ve.Fields[0].Message, "WithJSONSet") {
			t.Errorf("%s: fields %v, want options naming WithJSONSet", name, ve.Fields)
		}
	}
	if n := m.Calls(); n != 0 {
		t.Errorf("%d requests sent, want none", n)
	}
}
