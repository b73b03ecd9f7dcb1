package httpx

import (
	"net/http"
	"testing"
	"time"
)

func TestDeprecationOf(t *testing.T) {
	jan := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, tt := range []struct {
		name string
		h    http.Header
		ok   bool
		want Deprecation
	}{
		{"none", http.Header{"Link": {`<https://a>; rel="deprecation"`}}, false, Deprecation{}},
		{"RFC 9745", http.Header{"Deprecation": {" @1767225600 "}}, true, Deprecation{Deprecated: jan}},
		{"fraction", http.Header{"Deprecation": {"@1767225600.9"}}, true, Deprecation{Deprecated: jan}},
		{"huge", http.Header{"Deprecation": {"@99999999999999999999"}}, true, Deprecation{}},
		{"?1", http.Header{"Deprecation": {"?1"}}, true, Deprecation{}},
		{"?0", http.Header{"Deprecation": {"?0"}}, false, Deprecation{}},
		{"false with sunset", http.Header{"Deprecation": {"false"}, "Sunset": {"Thu, 01 Jan 2026 00:00:00 GMT"}}, true, Deprecation{Sunset: jan}},
		{"links", http.Header{"Deprecation": {"true"}, "Link": {
			`<https://x/a,b>; rel="next"; title="a, b"`,
			`<https://x/sunset>; rel=sunset, <https://x/dep>; REL="alternate Deprecation"`,
		}}, true, Deprecation{Link: "https://x/dep"}},
		{"sunset link only", http.Header{"Sunset": {"junk"}, "Link": {`<https://x/sunset>;rel="sunset"`}}, true, Deprecation{Link: "https://x/sunset"}},
		{"broken links", http.Header{"Deprecation": {"true"}, "Link": {`<https://x; rel="deprecation"`, `https://y; rel=deprecation`, `<>; rel`}}, true, Deprecation{}},
	} {
		got, ok := DeprecationOf(tt.h)
		if ok != tt.ok || !got.Deprecated.Equal(tt.want.Deprecated) || !got.Sunset.Equal(tt.want.Sunset) || got.Link != tt.want.Link {
			t.Errorf("%s: %+v, %v; want %+v, %v", tt.name, got, ok, tt.want, tt.ok)
		}
	}
}
