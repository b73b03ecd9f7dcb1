package core

import (
	"context"
	"net/http"
	"net/url"
	"testing"
	"time"
)

// The guard for docs/performance.md's "a cached token costs no allocation per call":
// a call that attaches the cached bearer token, in a header slice of its
// own, allocates exactly what the same call without a token allocates.
func TestCachedTokenAddsNoAllocationPerCall(t *testing.T) {
	authOp := &Operation{Name: "test.AuthPut", Method: http.MethodPut, Path: "/things/{id}", Idempotent: true, Auth: true}
	build := func(withToken bool) *Client {
		s := DefaultSettings()
		s.BaseURL, _ = url.Parse("http://127.0.0.1")
		s.Transport = okTransport
		var tokens *TokenCache
		if withToken {
			tokens = NewTokenCache(func(context.Context) (string, time.Time, error) { return "tok-abc", time.Time{}, nil })
		}
		c, err := New(s, tokens)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	call := func(c *Client) func() {
		return func() {
			var out struct{ OK bool }
			if err := c.do(context.Background(), &Call{Op: authOp, PathParams: [2]string{"t-1"}, Result: &out}); err != nil {
				t.Fatal(err)
			}
		}
	}
	withToken := build(true)
	call(withToken)() // warm the cache: the fetch is not per call
	without := testing.AllocsPerRun(200, call(build(false)))
	with := testing.AllocsPerRun(200, call(withToken))
	if with != without {
		t.Fatalf("%v allocations per call with a cached token, %v without: attaching it must not allocate", with, without)
	}
}

// A middleware that edits the SDK's header values in place changes only
// its own request: the next call carries the SDK's values again.
func TestHeaderValuesAreOwnedPerRequest(t *testing.T) {
	s := DefaultSettings()
	s.BaseURL, _ = url.Parse("http://127.0.0.1")
	var seen []http.Header
	s.Transport = roundTripperFunc(func(r *http.Request) (*http.Response, error) {
		seen = append(seen, r.Header.Clone())
		return okTransport.RoundTrip(r)
	})
	s.Header = http.Header{"X-Tenant": {"acme"}}
	tokens := NewTokenCache(func(context.Context) (string, time.Time, error) { return "tok-abc", time.Time{}, nil })
	c, err := New(s, tokens)
	if err != nil {
		t.Fatal(err)
	}
	op := &Operation{Name: "test.AuthPost", Method: http.MethodPost, Path: "/things", Auth: true}
	tamper := func(s *Settings) error {
		s.Middleware = append(s.Middleware, func(req *http.Request, next func(*http.Request) (*http.Response, error)) (*http.Response, error) {
			for _, k := range []string{"Authorization", "User-Agent", "Accept", "Content-Type", "X-Tenant"} {
				req.Header[k][0] = "tampered"
				req.Header[k] = append(req.Header[k], "appended") // must not write into a neighbour's slot
			}
			return next(req)
		})
		return nil
	}
	if err := c.do(context.Background(), &Call{Op: op, Body: map[string]int{"a": 1}}, tamper); err != nil {
		t.Fatal(err)
	}
	if err := c.do(context.Background(), &Call{Op: op, Body: map[string]int{"a": 1}}); err != nil {
		t.Fatal(err)
	}
	want := http.Header{
		"Authorization": {"Bearer tok-abc"}, "User-Agent": {UserAgent("")}, "Accept": {acceptHeader},
		"Content-Type": {jsonContentType}, "X-Tenant": {"acme"},
	}
	for k, v := range want {
		if got := seen[1][k]; len(got) != 1 || got[0] != v[0] {
			t.Errorf("second call's %s = %q, want %q", k, got, v)
		}
	}
}

type roundTripperFunc func(*http.Request) (*http.Response, error)

func (f roundTripperFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// The Call an area builds for each request, path parameters included,
// stays on the area's stack: building a new one per call allocates no more
// than reusing one built once. The attempts copy what they read of it.
func TestCallStaysOnTheCallersStack(t *testing.T) {
	s := DefaultSettings()
	s.BaseURL, _ = url.Parse("http://127.0.0.1")
	s.Transport = okTransport
	c, err := New(s, nil)
	if err != nil {
		t.Fatal(err)
	}
	var out struct{ OK bool }
	op := &Operation{Name: "test.Put", Method: http.MethodPut, Path: "/orgs/{org}/things/{id}", Idempotent: true}
	id := "t-1"
	reused := &Call{Op: op, PathParams: [2]string{"org-1", id}, Result: &out}
	once := testing.AllocsPerRun(200, func() {
		if err := c.do(context.Background(), reused); err != nil {
			t.Fatal(err)
		}
	})
	fresh := testing.AllocsPerRun(200, func() {
		if err := c.do(context.Background(), &Call{Op: op, PathParams: [2]string{"org-1", id}, Result: &out}); err != nil {
			t.Fatal(err)
		}
	})
	if fresh != once {
		t.Fatalf("%v allocations per call with a new Call, %v reusing one: the Call escapes to the heap", fresh, once)
	}
}
