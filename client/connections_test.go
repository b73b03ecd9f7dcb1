package client_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/memberplatform/memberplatform-go/client"
	apierrors "github.com/memberplatform/memberplatform-go/errors"
	"github.com/memberplatform/memberplatform-go/option"
)

// The client's connection pool is its own: CloseIdleConnections and giving
// up close only the pool the client built, never a user's transport.

func TestCloseIdleConnectionsClosesOnlyTheClientsOwnPool(t *testing.T) {
	t.Parallel()
	srv := newCountingServer(t, userJSON)
	c := newClient(t, option.WithBaseURL(srv.URL), option.WithTokenSource(nil))
	if err := updateFirstName(t.Context(), c); err != nil {
		t.Fatal(err)
	}
	// net/http returns a connection to the pool on its own goroutine after
	// the body is read: close idle connections until that has happened.
	deadline := time.Now().Add(10 * time.Second) // polled: a generous bound costs nothing when it passes
	for srv.closed.Load() != 1 && time.Now().Before(deadline) {
		c.CloseIdleConnections()
		time.Sleep(time.Millisecond)
	}
	if srv.closed.Load() != 1 {
		t.Fatalf("closed connections = %d, want 1", srv.closed.Load())
	}

	// With the user's transport, the user's pool is left alone.
	user := newCountingServer(t, userJSON)
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	c2 := newClient(t, option.WithBaseURL(user.URL), option.WithTokenSource(nil), option.WithTransport(tr))
	if err := updateFirstName(t.Context(), c2); err != nil {
		t.Fatal(err)
	}
	c2.CloseIdleConnections()
	time.Sleep(20 * time.Millisecond)
	if n := user.closed.Load(); n != 0 {
		t.Fatalf("the user's pool lost %d connections", n)
	}
}

// idleRecorder is a user transport that records CloseIdleConnections.
type idleRecorder struct {
	*http.Transport
	closes atomic.Int32
}

func (r *idleRecorder) CloseIdleConnections() { r.closes.Add(1); r.Transport.CloseIdleConnections() }

func TestPublicGivingUpKeepsUserPool(t *testing.T) {
	srv := newRetryServer(t, func(w http.ResponseWriter, r *http.Request, hit int) {
		conn, _, err := http.NewResponseController(w).Hijack()
		if err == nil {
			_ = conn.Close() // no response at all
		}
	})
	for _, viaHTTPClient := range []bool{false, true} {
		rec := &idleRecorder{Transport: &http.Transport{}}
		opt := option.WithTransport(rec)
		if viaHTTPClient {
			opt = option.WithHTTPClient(&http.Client{Transport: rec})
		}
		c := newRetryClient(t, srv.URL, opt)
		_, err := updatePM(context.Background(), c)
		if !errors.Is(err, apierrors.ErrTransport) || attemptsOf(t, err) != 4 {
			t.Fatalf("err = %v, want a TransportError after 4 attempts", err)
		}
		if n := rec.closes.Load(); n != 0 {
			t.Fatalf("viaHTTPClient=%v: the SDK closed the user's idle connections %d times", viaHTTPClient, n)
		}
		rec.Transport.CloseIdleConnections()
	}
}

// The client's own pool keeps a connection for every call in flight (up to
// 100 per host): concurrent callers reuse connections instead of opening
// one, and a TLS handshake, per call. 0.4.0's pool kept GOMAXPROCS+1 idle
// and opened hundreds here.

// poolServer answers after a millisecond, as a real backend would, and
// counts the connections opened and the requests made over HTTP/2.
type poolServer struct {
	*httptest.Server
	conns, http2 atomic.Int64
}

// newPoolServer starts a poolServer over plain HTTP, TLS with HTTP/1.1
// only (httptest.NewTLSServer's default), or TLS offering HTTP/2.
func newPoolServer(t *testing.T, scheme string) *poolServer {
	t.Helper()
	s := &poolServer{}
	s.Server = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.ProtoMajor == 2 {
			s.http2.Add(1)
		}
		time.Sleep(time.Millisecond)
		userJSON(w, r)
	}))
	s.Config.ConnState = func(_ net.Conn, state http.ConnState) {
		if state == http.StateNew {
			s.conns.Add(1)
		}
	}
	switch scheme {
	case "http":
		s.Start()
	case "https":
		s.StartTLS()
	case "h2":
		s.EnableHTTP2 = true
		s.StartTLS()
	}
	t.Cleanup(s.Close)
	return s
}

// newPoolClient starts a poolServer and returns it with a client of it on
// the client's own pool, with opts, closed when t ends.
func newPoolClient(t *testing.T, scheme string, opts ...option.RequestOption) (*poolServer, *client.Client) {
	t.Helper()
	srv := newPoolServer(t, scheme)
	c := newClient(t, append([]option.RequestOption{option.WithBaseURL(srv.URL), option.WithTokenSource(nil)}, opts...)...)
	t.Cleanup(c.CloseIdleConnections)
	return srv, c
}

// callConcurrently makes calls UpdateUser calls from each of goroutines
// goroutines through c, and fails t on any error.
func callConcurrently(t *testing.T, c *client.Client, goroutines, calls int) {
	t.Helper()
	var wg sync.WaitGroup
	errs := make(chan error, goroutines)
	for range goroutines {
		wg.Go(func() {
			for range calls {
				if err := updateFirstName(t.Context(), c); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}

func TestPoolKeepsAConnectionPerConcurrentCall(t *testing.T) {
	for _, scheme := range []string{"http", "https", "h2"} {
		t.Run(scheme, func(t *testing.T) {
			srv, c := newPoolClient(t, scheme)
			const goroutines, calls = 32, 25
			// The first round fills the pool: a call in flight holds a
			// connection (an HTTP/1.1 one) at a time, and the few beyond 32
			// are dials a call started and a returning connection beat
			// (more on a busy machine, where handshakes are slow), which the
			// pool keeps. The second round finds them all idle.
			callConcurrently(t, c, goroutines, calls)
			warm := srv.conns.Load()
			callConcurrently(t, c, goroutines, calls)
			if n := srv.conns.Load(); n-warm > goroutines/2 {
				t.Errorf("%d goroutines × %d calls, twice: opened %d connections, then %d more; want ≤ %d in the second round",
					goroutines, calls, warm, n-warm, goroutines/2)
			}
			if scheme == "h2" {
				if n := srv.http2.Load(); n != 2*goroutines*calls {
					t.Errorf("%d of %d requests came over HTTP/2, want all", n, 2*goroutines*calls)
				}
			}
		})
	}
}

func TestPoolUsesOneConnectionForSerialCalls(t *testing.T) {
	for _, scheme := range []string{"http", "https", "h2"} {
		t.Run(scheme, func(t *testing.T) {
			srv, c := newPoolClient(t, scheme)
			callConcurrently(t, c, 1, 20)
			if n := srv.conns.Load(); n != 1 {
				t.Errorf("20 calls one at a time opened %d connections, want 1", n)
			}
		})
	}
}

func TestMaxConnsPerHostBoundsThePool(t *testing.T) {
	srv, c := newPoolClient(t, "http", option.WithMaxConnsPerHost(4))
	callConcurrently(t, c, 16, 10)
	if n := srv.conns.Load(); n > 4 {
		t.Errorf("16 goroutines with WithMaxConnsPerHost(4) opened %d connections, want ≤ 4", n)
	}
}

func TestMaxConnsPerHostRefusedMisuse(t *testing.T) {
	tr := &http.Transport{}
	for name, opts := range map[string][]option.RequestOption{
		"negative":       {option.WithMaxConnsPerHost(-1)},
		"own transport":  {option.WithMaxConnsPerHost(4), option.WithTransport(tr)},
		"own HTTPClient": {option.WithMaxConnsPerHost(4), option.WithHTTPClient(&http.Client{Transport: tr})},
	} {
		opts = append(opts, option.WithBaseURL("http://127.0.0.1:1"), option.WithTokenSource(nil))
		if _, err := client.New(opts...); err == nil || !strings.Contains(err.Error(), "WithMaxConnsPerHost") {
			t.Errorf("%s: client.New error = %v, want one naming WithMaxConnsPerHost", name, err)
		}
	}
	c := newClient(t, option.WithBaseURL("http://127.0.0.1:1"), option.WithTokenSource(nil))
	if err := updateFirstName(t.Context(), c, option.WithMaxConnsPerHost(4)); err == nil || !strings.Contains(err.Error(), "client.New") {
		t.Errorf("per call: error = %v, want one saying it applies to client.New", err)
	}
}
