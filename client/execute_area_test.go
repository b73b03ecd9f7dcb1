package client_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/memberplatform/memberplatform-go/option"
)

// waitCounter is a rate limiter that admits everything and counts its waits.
type waitCounter struct{ n atomic.Int32 }

func (w *waitCounter) Wait(context.Context) error {
	w.n.Add(1)
	return nil
}

// Execute takes the area of its path as a server routes it: an escaped
// letter, a "." segment or a doubled slash does not move a call out of
// access management, so its limiter still paces it.
func TestExecuteAreaFromTheCleanedDecodedPath(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{}`))
	}))
	defer srv.Close()
	limiter := &waitCounter{}
	c := newRetryClient(t, srv.URL, option.WithRateLimiter(limiter, option.AreaAccessMgmt))
	for _, path := range []string{
		"/auth/access-management/users",
		"/auth/access%2Dmanagement/users",
		"/./auth/access-management/users",
		"/auth//access-management/users",
		"auth/access-management/users",
	} {
		before := limiter.n.Load()
		if err := c.Execute(context.Background(), http.MethodGet, path, nil, nil); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if limiter.n.Load() == before {
			t.Errorf("Execute(%q) skipped access management's limiter", path)
		}
	}
	before := limiter.n.Load()
	if err := c.Execute(context.Background(), http.MethodGet, "/customer/members", nil, nil); err != nil {
		t.Fatal(err)
	}
	if limiter.n.Load() != before {
		t.Error("a customer path waited on access management's limiter")
	}
}
