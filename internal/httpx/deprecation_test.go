package httpx

import (
	"net/http"
	"strings"
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

// A link goes into a Warn record and a metric's attribute: no credential
// of a pre-signed URL or user information in it, no scheme but http(s), no
// unbounded length. Before, each was kept as the server sent it.
func TestDeprecationLinkIsSafe(t *testing.T) {
	long := "https://x/" + strings.Repeat("a", 4096)
	for _, tt := range []struct{ link, want string }{
		{"https://docs.example/deprecations/v1?page=2#users", "https://docs.example/deprecations/v1?page=2#users"},
		{"/docs/deprecations", "/docs/deprecations"},
		{"https://d.example/x?access_token=abcdefgh123&lang=en", "https://d.example/x?access_token=%5BREDACTED%5D&lang=en"},
		{"https://s3.example/d.html?X-Amz-Credential=AKIA%2F1&X-Amz-Signature=deadbeef&X-Amz-Security-Token=FwoG",
			"https://s3.example/d.html?X-Amz-Credential=%5BREDACTED%5D&X-Amz-Signature=%5BREDACTED%5D&X-Amz-Security-Token=%5BREDACTED%5D"},
		{"https://d.example/x?apiKey=k1&sig=s1&code=c1", "https://d.example/x?apiKey=%5BREDACTED%5D&sig=%5BREDACTED%5D&code=%5BREDACTED%5D"},
		{"https://ada:hunter22@d.example/x", "https://d.example/x"},
		{"https://d.example/cb#access_token=eyJhbGciOi&state=1", "https://d.example/cb"},
		{"javascript:alert(1)", ""},
		{"data:text/html,hi", ""},
		{"https://d.example/\x1b[2J", ""},
		{long, ""},
	} {
		h := http.Header{"Deprecation": {"true"}, "Link": {"<" + tt.link + `>; rel="deprecation"`}}
		got, ok := DeprecationOf(h)
		if !ok || got.Link != tt.want {
			t.Errorf("link %.60q: %q, %v; want %q", tt.link, got.Link, ok, tt.want)
		}
	}
}
