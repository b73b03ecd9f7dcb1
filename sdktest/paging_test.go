package sdktest

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
)

// The fake's paging: pages in ID order of at most limit records (20
// without one), each the cursor's next; a record removed between pages
// moves no other; a limit out of range is a 400 naming "?limit".
func TestPage(t *testing.T) {
	type rec struct{ ID string }
	records := map[string]*rec{}
	for _, id := range []string{"u05", "u01", "u03", "u02", "u04"} {
		records[id] = &rec{id}
	}
	get := func(query string) (int, []string, string, *apiError) {
		status, body, e := page(httptest.NewRequest(http.MethodGet, "/x?"+query, nil), records)
		if e != nil {
			return 0, nil, "", e
		}
		b, _ := json.Marshal(body)
		var p struct {
			Data       []rec
			NextCursor *string
		}
		if err := json.Unmarshal(b, &p); err != nil || p.Data == nil {
			t.Fatalf("%s: body %s (%v), want data as an array", query, b, err)
		}
		var ids []string
		for _, r := range p.Data {
			ids = append(ids, r.ID)
		}
		next := ""
		if p.NextCursor != nil {
			next = *p.NextCursor
		}
		return status, ids, next, nil
	}
	for _, tc := range []struct {
		query, next string
		ids         []string
	}{
		{"limit=2", "u02", []string{"u01", "u02"}},
		{"limit=2&cursor=u02", "u04", []string{"u03", "u04"}},
		{"limit=2&cursor=u04", "", []string{"u05"}},
		{"", "", []string{"u01", "u02", "u03", "u04", "u05"}},
		{"cursor=u05", "", nil},
		{"limit=100&cursor=u025", "", []string{"u03", "u04", "u05"}}, // removed: the next after it
	} {
		status, ids, next, e := get(tc.query)
		if e != nil || status != 200 || !slices.Equal(ids, tc.ids) || next != tc.next {
			t.Errorf("%q: %d %v next %q (%v); want %v next %q", tc.query, status, ids, next, e, tc.ids, tc.next)
		}
	}
	for _, q := range []string{"limit=0", "limit=101", "limit=ten", "limit=-1"} {
		_, _, _, e := get(q)
		if e == nil || e.kind.status != 400 || len(e.fields) != 1 || e.fields[0].pointer != "?limit" || !strings.Contains(e.fields[0].message, "100") {
			t.Errorf("%q: %+v, want a 400 naming ?limit", q, e)
		}
	}
}
