package core

import (
	"context"
	stderrors "errors"
	"fmt"
	"net/http"
	"net/url"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"

	memberplatform "github.com/memberplatform/memberplatform-go"
	apierrors "github.com/memberplatform/memberplatform-go/errors"
)

// fakeList is a list of three pages fetched by cursor ("", "c2", "c3"),
// failing with err at the page whose cursor is failAt; it records the
// cursors asked for and the goroutine each fetch ran on.
type fakeList struct {
	failAt  string
	err     error
	fetched []string
	gids    []string
}

var fakePages = map[string]*memberplatform.Page[int]{
	"":   {Items: []int{1, 2}, NextCursor: "c2"},
	"c2": {Items: []int{3, 4}, NextCursor: "c3"},
	"c3": {Items: []int{5}},
}

func (f *fakeList) fetch(cursor string) (*memberplatform.Page[int], error) {
	f.fetched = append(f.fetched, cursor)
	f.gids = append(f.gids, goroutineID())
	if cursor == f.failAt && f.err != nil {
		return nil, f.err
	}
	p := *fakePages[cursor]
	p.Items = slices.Clone(p.Items)
	return &p, nil
}

// goroutineID is the running goroutine's number, from its stack's header.
func goroutineID() string {
	buf := make([]byte, 64)
	buf = buf[:runtime.Stack(buf, false)]
	id, _, _ := strings.Cut(strings.TrimPrefix(string(buf), "goroutine "), " ")
	return id
}

// The items of every page in order, and each page once, each fetched with
// the previous page's cursor; ranging again starts the list again.
func TestPagerRangesOverEveryPage(t *testing.T) {
	f := &fakeList{}
	var got []int
	for it, err := range Items(PagesOf(f.fetch)) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, *it)
	}
	if !slices.Equal(got, []int{1, 2, 3, 4, 5}) || !slices.Equal(f.fetched, []string{"", "c2", "c3"}) {
		t.Fatalf("items %v after fetching %q; want 1..5 after \"\", c2, c3", got, f.fetched)
	}
	var sizes []int
	for p, err := range PagesOf(f.fetch) {
		if err != nil {
			t.Fatal(err)
		}
		sizes = append(sizes, len(p.Items))
	}
	if !slices.Equal(sizes, []int{2, 2, 1}) || len(f.fetched) != 6 {
		t.Fatalf("pages of %v after %d fetches; want 2, 2, 1 after 6", sizes, len(f.fetched))
	}
}

// A range that breaks fetches nothing beyond the page it is in: not the
// next page, even at the last item of the current one.
func TestPagerBreakFetchesNoFurther(t *testing.T) {
	for _, tc := range []struct {
		stopAt  int // the item the range breaks at
		fetches int
	}{{1, 1}, {2, 1}, {3, 2}, {4, 2}, {5, 3}} {
		f := &fakeList{}
		for it, err := range Items(PagesOf(f.fetch)) {
			if err != nil {
				t.Fatal(err)
			}
			if *it == tc.stopAt {
				break
			}
		}
		if len(f.fetched) != tc.fetches {
			t.Errorf("break at item %d: %d fetches %q, want %d", tc.stopAt, len(f.fetched), f.fetched, tc.fetches)
		}
	}
	f := &fakeList{}
	for range PagesOf(f.fetch) {
		break
	}
	if len(f.fetched) != 1 {
		t.Errorf("a break at the first page: %d fetches, want 1", len(f.fetched))
	}
}

// The fetches and the range's body run on the ranging goroutine: the pager
// starts none (no prefetch, no iter.Pull).
func TestPagerStartsNoGoroutine(t *testing.T) {
	f := &fakeList{}
	own := goroutineID()
	for _, err := range Items(PagesOf(f.fetch)) {
		if err != nil {
			t.Fatal(err)
		}
		if id := goroutineID(); id != own {
			t.Fatalf("the range's body ran on goroutine %s, not the ranging %s", id, own)
		}
	}
	for i, id := range f.gids {
		if id != own {
			t.Errorf("fetch %d ran on goroutine %s, not the ranging %s", i+1, id, own)
		}
	}
}

// The first error is yielded once, with no item, and ends the range, even
// for a range that goes on after it.
func TestPagerEndsAtTheFirstError(t *testing.T) {
	boom := stderrors.New("page 2 failed")
	f := &fakeList{failAt: "c2", err: boom}
	var items []int
	var errs []error
	for it, err := range Items(PagesOf(f.fetch)) {
		if err != nil {
			if it != nil {
				t.Errorf("item %d with the error", *it)
			}
			errs = append(errs, err)
			continue // the range must end by itself
		}
		items = append(items, *it)
	}
	if !slices.Equal(items, []int{1, 2}) || len(errs) != 1 || errs[0] != boom || len(f.fetched) != 2 {
		t.Fatalf("items %v, errors %v after %d fetches; want 1, 2, then the error once after 2", items, errs, len(f.fetched))
	}
	errs = nil
	for p, err := range PagesOf(f.fetch) {
		if err != nil {
			if p != nil {
				t.Errorf("a page with the error")
			}
			errs = append(errs, err)
		}
	}
	if len(errs) != 1 {
		t.Fatalf("pages: %d errors, want 1", len(errs))
	}
}

// listServer answers GET /things with three pages, by the cursor query
// parameter, recording each request's query and X-Trace header.
func listServer(t *testing.T) (*rtServer, func() []url.Values, func() []string) {
	var mu sync.Mutex
	var queries []url.Values
	var traces []string
	srv := rtNewServer(t, func(w http.ResponseWriter, r *http.Request, hit int) {
		mu.Lock()
		queries, traces = append(queries, r.URL.Query()), append(traces, r.Header.Get("X-Trace"))
		mu.Unlock()
		p := fakePages[r.URL.Query().Get(CursorParam)]
		next := "null"
		if p.NextCursor != "" {
			next = fmt.Sprintf("%q", p.NextCursor)
		}
		rtJSON(w, 200, fmt.Sprintf(`{"%s":%s,"%s":%s,"total":5}`, PageItems, strings.Join(strings.Fields(fmt.Sprint(p.Items)), ","), PageNext, next))
	})
	return srv, func() []url.Values { mu.Lock(); defer mu.Unlock(); return slices.Clone(queries) },
		func() []string { mu.Lock(); defer mu.Unlock(); return slices.Clone(traces) }
}

var listOp = &Operation{Name: "test.List", Method: http.MethodGet, Path: "/things", Idempotent: true, ResultRequired: true, List: true}

type listParams struct {
	Limit  int    `url:"limit,omitempty"`
	Cursor string `url:"cursor,omitempty"`
}

func settingsOpts(opts ...func(*Settings) error) []settingsOption {
	out := make([]settingsOption, len(opts))
	for i, o := range opts {
		out[i] = o
	}
	return out
}

// Through the pipeline: every page is a call with the list's query (its
// params struct encoded by go-querystring) and the call's options, the
// pages after the first with the previous page's cursor.
func TestPagesSendsEachPageWithTheQueryAndOptions(t *testing.T) {
	srv, queries, traces := listServer(t)
	c := rtNewClient(t, srv.URL, nil)
	trace := func(s *Settings) error { s.MutableHeader().Set("X-Trace", "t-1"); return nil }
	var got []int
	for it, err := range Items(Pages[int](t.Context(), c, Call{Op: listOp, Query: listParams{Limit: 2}}, settingsOpts(trace))) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, *it)
	}
	want := []url.Values{{"limit": {"2"}}, {"limit": {"2"}, "cursor": {"c2"}}, {"limit": {"2"}, "cursor": {"c3"}}}
	if q := queries(); !slices.Equal(got, []int{1, 2, 3, 4, 5}) || fmt.Sprint(q) != fmt.Sprint(want) {
		t.Fatalf("items %v from queries %v; want 1..5 from %v", got, q, want)
	}
	if tr := traces(); !slices.Equal(tr, []string{"t-1", "t-1", "t-1"}) {
		t.Errorf("X-Trace per page = %q, want the option's on each", tr)
	}
	// A cursor in the params starts the list there.
	got = nil
	for it, err := range Items(Pages[int](t.Context(), c, Call{Op: listOp, Query: listParams{Cursor: "c3"}}, settingsOpts())) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, *it)
	}
	if q := queries(); !slices.Equal(got, []int{5}) || q[len(q)-1].Encode() != "cursor=c3" {
		t.Errorf("from cursor c3: items %v, query %v", got, q[len(q)-1])
	}
}

// A context that ends stops the list at the next page, with the context's
// error (a TransportError) yielded once; nothing more is sent.
func TestPagesHonoursTheContext(t *testing.T) {
	srv, _, _ := listServer(t)
	c := rtNewClient(t, srv.URL, nil)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var items []int
	var errs []error
	for it, err := range Items(Pages[int](ctx, c, Call{Op: listOp}, settingsOpts())) {
		if err != nil {
			errs = append(errs, err)
			continue
		}
		items = append(items, *it)
		cancel()
	}
	var te *apierrors.TransportError
	if !slices.Equal(items, []int{1, 2}) || len(errs) != 1 || !stderrors.Is(errs[0], context.Canceled) || !stderrors.As(errs[0], &te) {
		t.Fatalf("items %v, errors %v; want the first page's, then one TransportError matching context.Canceled", items, errs)
	}
	if srv.hits() != 1 {
		t.Errorf("%d requests, want 1", srv.hits())
	}
}

// A list refused before sending (its input, or a query go-querystring
// cannot encode), or answered with a body that is no page, yields that
// error once.
func TestPagesYieldsARefusalOrMalformedPageOnce(t *testing.T) {
	srv := rtNewServer(t, func(w http.ResponseWriter, r *http.Request, hit int) { rtJSON(w, 200, `{"data":"nope"}`) })
	c := rtNewClient(t, srv.URL, nil)
	invalid := &apierrors.ValidationError{Operation: listOp.Name, Fields: []apierrors.FieldError{{Field: "limit", Pointer: "?limit"}}}
	for name, tc := range map[string]struct {
		call Call
		want func(error) bool
	}{
		"invalid": {Call{Op: listOp, Invalid: invalid}, func(err error) bool { return err == invalid }},
		"bad query": {Call{Op: listOp, Query: 42}, func(err error) bool {
			ve, ok := stderrors.AsType[*apierrors.ValidationError](err)
			return ok && ve.Fields[0].Field == "query"
		}},
	} {
		n := 0
		for p, err := range Pages[int](t.Context(), c, tc.call, settingsOpts()) {
			n++
			if p != nil || !tc.want(err) {
				t.Errorf("%s: page %v, err %v", name, p, err)
			}
		}
		if n != 1 || srv.hits() != 0 {
			t.Errorf("%s: %d yields after %d requests, want 1 after none", name, n, srv.hits())
		}
	}
	n := 0
	for _, err := range Items(Pages[int](t.Context(), c, Call{Op: listOp}, settingsOpts())) {
		n++
		if !stderrors.Is(err, apierrors.ErrUnexpectedResponseBody) {
			t.Errorf("a malformed page: %v, want ErrUnexpectedResponseBody", err)
		}
	}
	if n != 1 {
		t.Errorf("a malformed page: %d yields, want 1", n)
	}
}

// A page whose next cursor is the one it answered would loop for ever: it
// is an undecodable body (ErrUnexpectedResponseBody), yielded once.
func TestPagesRefusesACursorThatDoesNotMove(t *testing.T) {
	srv := rtNewServer(t, func(w http.ResponseWriter, r *http.Request, hit int) {
		rtJSON(w, 200, `{"data":[1],"nextCursor":"c2"}`)
	})
	c := rtNewClient(t, srv.URL, nil)
	var items int
	var errs []error
	for _, err := range Items(Pages[int](t.Context(), c, Call{Op: listOp}, settingsOpts())) {
		if err != nil {
			errs = append(errs, err)
			continue
		}
		items++
	}
	if items != 1 || len(errs) != 1 || !stderrors.Is(errs[0], apierrors.ErrUnexpectedResponseBody) || !stderrors.Is(errs[0], errSameCursor) || srv.hits() != 2 {
		t.Fatalf("items %d, errors %v after %d requests; want 1, then one ErrUnexpectedResponseBody after 2", items, errs, srv.hits())
	}
}
