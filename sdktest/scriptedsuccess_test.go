package sdktest_test

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/memberplatform/memberplatform-go/accessmgmt"
	"github.com/memberplatform/memberplatform-go/option"
	"github.com/memberplatform/memberplatform-go/sdktest"
)

// A 2xx Fault plays a platform newer than the fake, as Fault's doc says: its
// body and headers are served in place of the operation, which stores
// nothing, so a call with a WithJSONSet member the fake does not know
// succeeds and the new field reaches RawJSON.
func TestScriptedSuccessServedInPlaceOfTheOperation(t *testing.T) {
	t.Parallel()
	srv := sdktest.NewServer(t)
	srv.AddUser(sdktest.User{ID: "user_1", Email: "ada@example.com", FirstName: "Grace"})
	srv.FailNext(1, sdktest.Fault{Operation: sdktest.OpUpdateUser, Status: http.StatusOK,
		Body:   `{"id":"user_1","email":"ada@example.com","firstName":"Ada","department":"R&D"}`,
		Header: http.Header{"Sunset": {"Wed, 01 Jul 2026 00:00:00 GMT"}}})
	var resp *http.Response
	u, err := srv.Client().AccessMgmt.UpdateUser(t.Context(), "user_1", accessmgmt.UpdateUserParams{FirstName: new("Ada")},
		option.WithJSONSet("department", "R&D"), option.WithResponseInto(&resp))
	if err != nil {
		t.Fatal(err)
	}
	var extra struct {
		Department string `json:"department"`
	}
	if err := json.Unmarshal(u.RawJSON(), &extra); err != nil || extra.Department != "R&D" || u.FirstName != "Ada" {
		t.Errorf("user %+v, department %q (%v)", *u, extra.Department, err)
	}
	if got := resp.Header.Get("Sunset"); got != "Wed, 01 Jul 2026 00:00:00 GMT" {
		t.Errorf("Sunset = %q", got)
	}
	if stored, _ := srv.User("user_1"); stored.FirstName != "Grace" {
		t.Errorf("a scripted success changed the stored user: %+v", stored)
	}

	// Unscripted, the fake refuses the member it does not know.
	_, err = srv.Client().AccessMgmt.UpdateUser(t.Context(), "user_1", accessmgmt.UpdateUserParams{FirstName: new("Ada")},
		option.WithJSONSet("department", "R&D"))
	if err == nil {
		t.Error("the fake accepted a member it does not know")
	}
}

// A 2xx Fault without a Body answers no body: the SDK then builds the
// result from what was sent.
func TestScriptedSuccessWithoutBody(t *testing.T) {
	t.Parallel()
	srv := sdktest.NewServer(t)
	srv.FailNext(1, sdktest.Fault{Operation: sdktest.OpUpdateUser, Status: http.StatusNoContent})
	u, err := srv.Client().AccessMgmt.UpdateUser(t.Context(), "user_9", accessmgmt.UpdateUserParams{LastName: new("Hopper")})
	if err != nil {
		t.Fatal(err)
	}
	if u.ID != "user_9" || u.LastName != "Hopper" || u.RawJSON() != nil {
		t.Errorf("user %+v, RawJSON %q", *u, u.RawJSON())
	}
}
