package core

import (
	"encoding/json"
	"net/http"
	"testing"

	memberplatform "github.com/memberplatform/memberplatform-go"
)

// rawThing is a list item that keeps its JSON, as the SDK's result types do.
type rawThing struct {
	memberplatform.Raw `json:"-"`
	ID                 string `json:"id"`
}

// Every item a list yields keeps its own JSON, as a single call's result
// does: a member the SDK does not know yet ("department") is read from it.
// The items were decoded straight into []T, so RawJSON was nil for all.
func TestPagesItemsKeepTheirJSON(t *testing.T) {
	srv := rtNewServer(t, func(w http.ResponseWriter, r *http.Request, hit int) {
		rtJSON(w, 200, `{"data":[{"id":"u1","department":"R&D"}, {"id":"u2"}, null],"nextCursor":null}`)
	})
	c := rtNewClient(t, srv.URL, nil)
	var got []rawThing
	for it, err := range Items(Pages[rawThing](t.Context(), c, Call{Op: listOp}, settingsOpts())) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, *it)
	}
	if len(got) != 3 || got[0].ID != "u1" || got[1].ID != "u2" {
		t.Fatalf("items %+v", got)
	}
	var extra struct{ Department string }
	if err := json.Unmarshal(got[0].RawJSON(), &extra); err != nil || extra.Department != "R&D" {
		t.Errorf("item 1's RawJSON %q decodes to %+v (%v), want its department", got[0].RawJSON(), extra, err)
	}
	if string(got[1].RawJSON()) != `{"id":"u2"}` || got[2].RawJSON() != nil {
		t.Errorf("RawJSON of items 2 and 3: %q, %q; want the item's JSON, and nil for null", got[1].RawJSON(), got[2].RawJSON())
	}
}
