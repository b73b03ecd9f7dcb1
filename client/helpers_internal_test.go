package client

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/memberplatform/memberplatform-go/accessmgmt"
	"github.com/memberplatform/memberplatform-go/option"
)

// Helpers the white-box tests of package client share: a test API
// server, a client for it, one UpdateUser call, and adapters.

const userJSON = `{"id":"user_1","email":"ada@example.com","firstName":"Ada"}`

func writeJSON(w http.ResponseWriter, body string) {
	w.Header().Set("Content-Type", "application/json")
	_, _ = io.WriteString(w, body)
}

// newTestServer serves POST /auth/token with token (nil: any token request
// fails the test) and every other path with api.
func newTestServer(t *testing.T, token, api http.HandlerFunc) *httptest.Server {
	t.Helper()
	if token == nil {
		token = func(w http.ResponseWriter, r *http.Request) {
			t.Errorf("unexpected token request %s %s", r.Method, r.URL.Path)
			w.WriteHeader(http.StatusTeapot)
		}
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/auth/token", token)
	mux.HandleFunc("/", api)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

// newClientOpts builds a client for baseURL with a private transport whose
// idle connections are closed when the test ends, fast retries, and opts.
// It sets no token source: the environment decides unless opts do.
func newClientOpts(t *testing.T, baseURL string, opts ...option.RequestOption) *Client {
	t.Helper()
	tr := &http.Transport{MaxConnsPerHost: 64, MaxIdleConnsPerHost: 64}
	t.Cleanup(tr.CloseIdleConnections)
	all := append([]option.RequestOption{option.WithBaseURL(baseURL), option.WithTransport(tr), option.WithRetryBackoff(time.Millisecond, 2*time.Millisecond)}, opts...)
	c, err := New(all...)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return c
}

// newTestClient is newClientOpts with an explicit token source (nil: none).
func newTestClient(t *testing.T, baseURL string, ts TokenSource, opts ...option.RequestOption) *Client {
	t.Helper()
	return newClientOpts(t, baseURL, append([]option.RequestOption{option.WithTokenSource(ts)}, opts...)...)
}

func updateUser(ctx context.Context, c *Client, opts ...option.RequestOption) error {
	_, err := c.AccessMgmt.UpdateUser(ctx, "user_1", accessmgmt.UpdateUserParams{FirstName: new("Ada")}, opts...)
	return err
}

// countingSource returns "tok-1", "tok-2", ... valid for an hour.
type countingSource struct {
	n   atomic.Int64
	err atomic.Pointer[error]
}

func (s *countingSource) Token(context.Context) (Token, error) {
	if p := s.err.Load(); p != nil {
		return Token{}, *p
	}
	n := s.n.Add(1)
	return Token{Value: fmt.Sprintf("tok-%d", n), Expiry: time.Now().Add(time.Hour)}, nil
}

// recorder keeps the Authorization headers the API saw.
type recorder struct {
	mu   sync.Mutex
	auth []string
}

func (r *recorder) add(h string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.auth = append(r.auth, h)
	return len(r.auth)
}

func (r *recorder) get() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.auth)
}

func problem401(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "application/problem+json")
	w.WriteHeader(http.StatusUnauthorized)
	_, _ = io.WriteString(w, `{"type":"about:blank","title":"UNAUTHORIZED","status":401,"serviceCode":"40100001"}`)
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
