package client_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/jarcoal/httpmock"

	"github.com/memberplatform/memberplatform-go/client"
	"github.com/memberplatform/memberplatform-go/internal/areatest"
	"github.com/memberplatform/memberplatform-go/option"
)

// Each attempt owns its headers: a middleware that writes header values in
// place (legal http.Header use) changes only its own request. In 0.2.0
// every request shared the token cache's Authorization slice (and the
// User-Agent, Accept and Content-Type ones), so one call's write reached
// every later call on every goroutine, and raced with them.
func TestMiddlewareWritingHeadersInPlaceChangesOnlyItsRequest(t *testing.T) {
	t.Parallel()
	const token = "tok-shared"
	var wrong atomic.Int32
	m := areatest.NewMock(t)
	m.On(http.MethodPost, usersPath, func(r *http.Request) (*http.Response, error) {
		if r.Header.Get("X-Tamper") != "" {
			return httpmock.NewStringResponse(http.StatusOK, `{}`), nil
		}
		// A call whose middleware left the headers alone sees the SDK's.
		if r.Header.Get("Authorization") != "Bearer "+token ||
			!strings.HasPrefix(r.Header.Get("User-Agent"), "memberplatform-go/") ||
			r.Header.Get("Accept") != "application/json, application/problem+json" ||
			r.Header.Get("Content-Type") != "application/json" ||
			r.Header.Get("X-Tenant") != "acme" {
			wrong.Add(1)
		}
		return httpmock.NewStringResponse(http.StatusOK, `{}`), nil
	})
	c := m.Client(option.WithTokenSource(client.StaticToken(token)), option.WithHeader("X-Tenant", "acme"))
	tamper := func(req *http.Request, next option.MiddlewareNext) (*http.Response, error) {
		for _, k := range []string{"Authorization", "User-Agent", "Accept", "Content-Type", "X-Tenant"} {
			req.Header[k][0] = "tampered"
		}
		req.Header["X-Tamper"] = []string{"1"}
		return next(req)
	}
	const calls = 200
	var wg sync.WaitGroup
	for i := range calls {
		wg.Go(func() {
			var opts []option.RequestOption
			if i%2 == 0 {
				opts = append(opts, option.WithMiddleware(tamper))
			}
			if err := c.Execute(t.Context(), http.MethodPost, usersPath, map[string]int{"i": i}, nil, opts...); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if n := wrong.Load(); n != 0 {
		t.Fatalf("%d of %d untouched calls carried another call's in-place edits", n, calls/2)
	}
}

// A 401 still drops the token when a middleware rewrote the header's bytes
// in place (here "Bearer" to "bearer", which servers accept): the SDK
// invalidates the token it attached, not the one it reads back. In 0.2.0
// the bytes differed from the cached token's, nothing was invalidated and
// the call failed with the rejected token resent.
func TestA401InvalidatesTheTokenAMiddlewareRewroteInPlace(t *testing.T) {
	t.Parallel()
	m := areatest.NewMock(t)
	var seen sync.Map // Authorization values the server received
	m.On(http.MethodGet, usersPath, func(r *http.Request) (*http.Response, error) {
		auth := r.Header.Get("Authorization")
		seen.Store(auth, true)
		if auth == "bearer tok-1" { // expired
			return httpmock.NewStringResponse(http.StatusUnauthorized, ""), nil
		}
		return httpmock.NewStringResponse(http.StatusOK, `{}`), nil
	})
	var fetches atomic.Int32
	src := client.TokenSourceFunc(func(context.Context) (client.Token, error) {
		return client.Token{Value: fmt.Sprintf("tok-%d", fetches.Add(1))}, nil
	})
	lower := func(req *http.Request, next option.MiddlewareNext) (*http.Response, error) {
		if v := req.Header["Authorization"]; len(v) == 1 {
			v[0] = "bearer " + strings.TrimPrefix(v[0], "Bearer ")
		}
		return next(req)
	}
	c := m.Client(option.WithTokenSource(src), option.WithMiddleware(lower))
	for i := range 3 {
		if err := c.Execute(t.Context(), http.MethodGet, usersPath, nil, nil); err != nil {
			t.Fatalf("call %d: %v", i+1, err)
		}
	}
	if n := fetches.Load(); n != 2 {
		t.Fatalf("%d token fetches, want 2 (the first token rejected once, the second kept)", n)
	}
	if _, ok := seen.Load("bearer tok-2"); !ok {
		t.Fatal("the fresh token was never sent")
	}
}
