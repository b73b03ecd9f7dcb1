package client_test

import (
	"bytes"
	"context"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/memberplatform/memberplatform-go/accessmgmt"
	"github.com/memberplatform/memberplatform-go/client"
	"github.com/memberplatform/memberplatform-go/option"
)

// Helpers the black-box tests of package client share: a server that
// counts requests and connections, one UpdateUser call, and adapters.

// testUserID is the user every helper call updates.
const testUserID = "user_01E4ZCR3C56J083X43JQXF3JK5"

// updateFirstName calls UpdateUser, the operation most tests exercise.
func updateFirstName(ctx context.Context, c *client.Client, opts ...option.RequestOption) error {
	_, err := c.AccessMgmt.UpdateUser(ctx, testUserID, accessmgmt.UpdateUserParams{FirstName: new("Ada")}, opts...)
	return err
}

// countingServer answers through its handler and counts requests, new
// connections and closed ones; it keeps the last Authorization header and
// each request's X-Retry-Attempt header and body.
type countingServer struct {
	*httptest.Server
	reqs, conns, closed atomic.Int64
	auth                atomic.Value
	mu                  sync.Mutex
	tries               []string // X-Retry-Attempt of each request
	body                [][]byte // body of each request
}

// newCountingServer starts a countingServer closed when t ends.
func newCountingServer(t *testing.T, h http.HandlerFunc) *countingServer {
	t.Helper()
	return newRetryServer(t, func(w http.ResponseWriter, r *http.Request, _ int) { h(w, r) })
}

// newRetryServer starts a countingServer that answers with respond, told
// which request (1, 2, ...) it answers.
func newRetryServer(t *testing.T, respond func(w http.ResponseWriter, r *http.Request, hit int)) *countingServer {
	t.Helper()
	s := &countingServer{}
	s.Server = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.reqs.Add(1)
		s.auth.Store(r.Header.Get("Authorization"))
		b, _ := io.ReadAll(r.Body)
		s.mu.Lock()
		s.tries = append(s.tries, r.Header.Get("X-Retry-Attempt"))
		s.body = append(s.body, b)
		hit := len(s.tries)
		s.mu.Unlock()
		respond(w, r, hit)
	}))
	s.Config.ConnState = func(_ net.Conn, state http.ConnState) {
		switch state {
		case http.StateNew:
			s.conns.Add(1)
		case http.StateClosed:
			s.closed.Add(1)
		}
	}
	s.Config.ErrorLog = log.New(io.Discard, "", 0) // attempts the client abandons are expected
	s.Start()
	t.Cleanup(s.Close)
	return s
}

// hits is how many requests the server has answered or is answering.
func (s *countingServer) hits() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.tries)
}

// userJSON answers with the user updateFirstName updates.
func userJSON(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	_, _ = io.WriteString(w, `{"id":"`+testUserID+`","email":"ada@example.com","firstName":"Ada"}`)
}

// syncBuffer is a bytes.Buffer safe for the concurrent writes of a logger.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// deadAddr returns a loopback address nothing listens on.
func deadAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	_ = ln.Close()
	return addr
}

// roundTripFunc adapts a function to an http.RoundTripper. A func value is
// not comparable (== panics on it), and the pipeline does not compare
// transports: options say when they change one
// (TestPerCallOptionWithAnUncomparableTransport pins it).
type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// newClient is client.New for a test whose options are valid.
func newClient(t *testing.T, opts ...option.RequestOption) *client.Client {
	t.Helper()
	c, err := client.New(opts...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}
