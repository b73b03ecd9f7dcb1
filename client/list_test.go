package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"slices"
	"testing"

	"github.com/memberplatform/memberplatform-go/internal/areatest"
	"github.com/memberplatform/memberplatform-go/internal/core"
	"github.com/memberplatform/memberplatform-go/internal/oprows"
	"github.com/memberplatform/memberplatform-go/option"
)

// The iteration checks every list operation (core.Operation.List) passes,
// through its two methods, on two pages: its row's Response (a first page
// with a next cursor) and NextPage (the last).

// list is a list operation's row with its declaration's method and path
// and what its two pages hold.
type list struct {
	oprows.Row
	name, method, path string
	sizes              [2]int // the items of each page
	cursor             string // the first page's next cursor
}

// lists are the declared list operations with a row; TestEveryListIterates
// fails for one whose row has no second page or iterators.
func lists(t *testing.T) []list {
	var out []list
	for _, d := range core.Operations() {
		r, ok := oprows.Rows()[d.Name]
		if !d.List {
			continue
		}
		if !ok || r.NextPage == "" || r.Items == nil || r.Pages == nil {
			t.Errorf("%s is a list: its row in internal/oprows/rows.go needs a NextPage (the page its Response's cursor answers) and is built with oprows.List(row, items, pages)", d.Name)
			continue
		}
		l := list{Row: r, name: d.Name, method: d.Method, path: r.Path(d)}
		var next *string
		l.sizes[0], next = pageOf(t, d.Name, r.Response)
		l.sizes[1], _ = pageOf(t, d.Name, r.NextPage)
		if next == nil || *next == "" || l.sizes[0] == 0 {
			t.Errorf("%s: its row's Response must be a first page with items and a %s", d.Name, core.PageNext)
			continue
		}
		l.cursor = *next
		out = append(out, l)
	}
	return out
}

// pageOf reads a page's item count and next cursor.
func pageOf(t *testing.T, name, body string) (int, *string) {
	var p map[string]json.RawMessage
	var items []json.RawMessage
	var next *string
	if err := json.Unmarshal([]byte(body), &p); err != nil || json.Unmarshal(p[core.PageItems], &items) != nil {
		t.Errorf("%s: %s is no page (%v)", name, body, err)
	}
	_ = json.Unmarshal(p[core.PageNext], &next)
	return len(items), next
}

// mock answers the first page, and the second to a request with the first
// page's cursor (second, if set, instead).
func (l list) mock(t *testing.T, second func(*http.Request) (*http.Response, error)) *areatest.Mock {
	m := areatest.NewMock(t)
	if second == nil {
		second = areatest.JSON(l.SuccessStatus(), l.NextPage)
	}
	first := areatest.JSON(l.SuccessStatus(), l.Response)
	m.On(l.method, l.path, func(r *http.Request) (*http.Response, error) {
		if r.URL.Query().Get(core.CursorParam) == l.cursor {
			return second(r)
		}
		return first(r)
	})
	return m
}

func TestEveryListIterates(t *testing.T) {
	t.Parallel()
	for _, l := range lists(t) {
		t.Run(l.name+"/every item of every page", func(t *testing.T) { t.Parallel(); checkEveryItem(t, l) })
		t.Run(l.name+"/break fetches no further", func(t *testing.T) { t.Parallel(); checkBreak(t, l) })
		t.Run(l.name+"/first error yielded once", func(t *testing.T) { t.Parallel(); checkFirstError(t, l) })
		t.Run(l.name+"/context ends it", func(t *testing.T) { t.Parallel(); checkListContext(t, l) })
	}
}

// count ranges over seq, returning its values and errors; it goes on
// after an error, which must end the range by itself.
func count(seq func(yield func(any, error) bool)) (values int, errs []error) {
	for v, err := range seq {
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if v != nil {
			values++
		}
	}
	return values, errs
}

// checkEveryItem: the items of both pages and both pages, each page
// requested with the list's query and the call's options, the second with
// the first's cursor.
func checkEveryItem(t *testing.T, l list) {
	m := l.mock(t, nil)
	c := m.Client()
	trace := option.WithHeader("X-Trace-Id", "list-1")
	if n, errs := count(l.Items(t.Context(), c, trace)); n != l.sizes[0]+l.sizes[1] || errs != nil {
		t.Errorf("items: %d and errors %v, want %d and none", n, errs, l.sizes[0]+l.sizes[1])
	}
	if n, errs := count(l.Pages(t.Context(), c, trace)); n != 2 || errs != nil {
		t.Errorf("pages: %d and errors %v, want 2 and none", n, errs)
	}
	reqs := m.Requests()
	if len(reqs) != 4 {
		t.Fatalf("%d requests, want 2 per range", len(reqs))
	}
	for i, r := range reqs {
		want := url.Values{}
		for k, v := range l.Query {
			want[k] = slices.Clone(v)
		}
		if i%2 == 1 {
			want.Set(core.CursorParam, l.cursor)
		}
		if r.URL.Query().Encode() != want.Encode() || r.Header.Get("X-Trace-Id") != "list-1" {
			t.Errorf("request %d: query %s, X-Trace-Id %q; want %s and the call's option", i+1, r.URL.RawQuery, r.Header.Get("X-Trace-Id"), want.Encode())
		}
	}
}

// checkBreak: a range that breaks in the first page sends no second
// request, through either method.
func checkBreak(t *testing.T, l list) {
	m := l.mock(t, nil)
	c := m.Client()
	for range l.Items(t.Context(), c) {
		break
	}
	for range l.Pages(t.Context(), c) {
		break
	}
	if n := m.Calls(); n != 2 {
		t.Errorf("%d requests, want 1 per range", n)
	}
}

// checkFirstError: the second page's failure comes after the first page's
// items, once, and ends the range.
func checkFirstError(t *testing.T, l list) {
	m := l.mock(t, areatest.Problem(l.Retryable.Status, l.Retryable.Body))
	if l.Retryable.Status == 0 {
		t.Fatal("the row has no Retryable answer")
	}
	n, errs := count(l.Items(t.Context(), m.Client()))
	if n != l.sizes[0] || len(errs) != 1 {
		t.Errorf("items %d, errors %v; want %d, then one error", n, errs, l.sizes[0])
	}
	if m.Calls() != 2 {
		t.Errorf("%d requests, want 2", m.Calls())
	}
}

// checkListContext: a context ended in the first page ends the list at
// the second, with one error matching it and nothing more sent.
func checkListContext(t *testing.T, l list) {
	m := l.mock(t, nil)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var errs []error
	for _, err := range l.Items(ctx, m.Client()) {
		if err != nil {
			errs = append(errs, err)
		}
		cancel()
	}
	if len(errs) != 1 || !errors.Is(errs[0], context.Canceled) || m.Calls() != 1 {
		t.Errorf("errors %v after %d requests; want one matching context.Canceled after 1", errs, m.Calls())
	}
}
