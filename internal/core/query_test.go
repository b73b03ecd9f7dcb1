package core

import (
	"math/rand/v2"
	"net/url"
	"testing"
	"time"

	"github.com/google/go-querystring/query"
)

// goQuerystring is what go-querystring and url.Values.Encode write for
// params, with cursor set as CursorParam.
func goQuerystring(t *testing.T, params any, cursor string) string {
	t.Helper()
	q, err := query.Values(params)
	if err != nil {
		t.Fatal(err)
	}
	if cursor != "" {
		q.Set(CursorParam, cursor)
	}
	return q.Encode()
}

type plainParams struct {
	Limit   int      `url:"limit,omitempty"`
	Cursor  string   `url:"cursor,omitempty"`
	Email   string   `url:"email,omitempty"`
	Active  bool     `url:"active"`
	Tags    []string `url:"tag,omitempty"`
	Page    uint16   `url:"page,omitempty"`
	Offset  int64    `url:"offset"`
	Zone    string   // untagged: its field name
	skipped string   // unexported: never sent
	Ignored string   `url:"-"`
	Byte    int8     `url:"b,omitempty"`
}

type level int

func (l level) String() string { return [...]string{"low", "high"}[l] }

// The plan writes exactly what go-querystring does, cursor or not, for
// plain structs, and leaves the others to it.
func TestPlannedQueryIsGoQuerystrings(t *testing.T) {
	rnd := rand.New(rand.NewPCG(1, 2))
	words := []string{"", "a", "a b&c/1", "ü=?#", "cursor", "x+y"}
	pick := func() string { return words[rnd.IntN(len(words))] }
	for i := range 2000 {
		p := plainParams{Limit: rnd.IntN(3) - 1, Cursor: pick(), Email: pick(), Active: rnd.IntN(2) == 0,
			skipped: pick(), Page: uint16(rnd.IntN(2)), Offset: int64(rnd.IntN(3)), Zone: pick(), Ignored: pick(), Byte: int8(rnd.IntN(2))}
		for range rnd.IntN(3) {
			p.Tags = append(p.Tags, pick())
		}
		cursor := pick()
		for _, params := range []any{p, &p} {
			got, ok := planned(params, cursor)
			if want := goQuerystring(t, params, cursor); !ok || got != want {
				t.Fatalf("case %d: planned(%+v, %q) = %q, %v; go-querystring writes %q", i, p, cursor, got, ok, want)
			}
		}
	}
	var nilParams *plainParams
	for _, cursor := range []string{"", "c 2"} {
		if got, ok := planned(nilParams, cursor); !ok || got != goQuerystring(t, nilParams, cursor) {
			t.Errorf("a nil pointer with cursor %q: %q, %v", cursor, got, ok)
		}
	}
	for name, params := range map[string]any{
		"a time":     struct{ At time.Time }{},
		"a Stringer": struct{ L level }{1},
		"a comma option": struct {
			IDs []string `url:"id,comma"`
		}{[]string{"a", "b"}},
		"an embedded one": struct{ plainParams }{},
		"a pointer field": struct{ N *int }{},
		"a shared key": struct {
			A, B string `url:"k"`
		}{"1", "2"},
		"no struct": 42,
	} {
		if q, ok := planned(params, ""); ok {
			t.Errorf("%s: planned %q, want go-querystring's", name, q)
		}
	}
}

// queryOf takes the plan when it can, go-querystring otherwise, and a
// url.Values as it is; the options' and the cursor apply to each.
func TestQueryOf(t *testing.T) {
	for name, tc := range map[string]struct {
		params any
		extra  url.Values
		cursor string
		want   string
	}{
		"plain":                 {plainParams{Limit: 5, Active: true}, nil, "", "Zone=&active=true&limit=5&offset=0"},
		"plain with a cursor":   {plainParams{Limit: 5, Cursor: "old"}, nil, "c2", "Zone=&active=false&cursor=c2&limit=5&offset=0"},
		"plain and an option":   {plainParams{Limit: 5, Cursor: "old"}, url.Values{"trace": {"1"}}, "c2", "Zone=&active=false&cursor=c2&limit=5&offset=0&trace=1"},
		"go-querystring's":      {struct{ L level }{1}, nil, "c2", "L=high&cursor=c2"},
		"url.Values":            {url.Values{"cursor": {"x"}, "a": {"1"}}, nil, "c2", "a=1&cursor=c2"},
		"none":                  {nil, nil, "", ""},
		"none with a cursor":    {nil, nil, "c2", "cursor=c2"},
		"url.Values, no cursor": {url.Values{"b": {"2"}, "a": {"1"}}, nil, "", "a=1&b=2"},
	} {
		got, err := queryOf(tc.params, tc.extra, tc.cursor)
		if err != nil || got != tc.want {
			t.Errorf("%s: %q, %v; want %q", name, got, err, tc.want)
		}
	}
}
