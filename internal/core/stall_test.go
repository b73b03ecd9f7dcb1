package core

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// stallServer answers each request with handle and counts the connections
// it accepted.
func stallServer(t *testing.T, handle http.HandlerFunc) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var conns atomic.Int32
	srv := httptest.NewUnstartedServer(handle)
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	t.Cleanup(srv.Close)
	return srv, &conns
}

func stallClient(t *testing.T, idle time.Duration) *http.Client {
	t.Helper()
	tr := newPooledTransport(idle)
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr}
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// A server that stops sending, before the headers or in the body, ends the
// attempt with a timeout once the connection has been quiet for the bound.
func TestStallEndsAQuietAttempt(t *testing.T) {
	const idle = 300 * time.Millisecond
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	stall := func(r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}
	tests := []struct {
		name   string
		handle http.HandlerFunc
	}{
		{"no answer", func(_ http.ResponseWriter, r *http.Request) { stall(r) }},
		{"headers, then a stalled body", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Length", "100")
			w.WriteHeader(http.StatusOK)
			_, _ = w.Write([]byte(`{"partial":`))
			w.(http.Flusher).Flush()
			stall(r)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, _ := stallServer(t, tt.handle)
			start := time.Now()
			resp, err := stallClient(t, idle).Get(srv.URL)
			if err == nil {
				_, err = io.ReadAll(resp.Body)
				_ = resp.Body.Close()
			}
			if !isTimeout(err) {
				t.Fatalf("err = %v, want a timeout", err)
			}
			// Generous upper bound for a busy machine; the point is that
			// the call ends at all.
			if took := time.Since(start); took < idle*7/8 || took > 20*idle {
				t.Fatalf("ended after %v, want about %v", took, idle)
			}
		})
	}
}

// The idle bound is on quiet time: a body that keeps coming slowly for
// longer than it (within the overall bound, twice as long) is read whole,
// and a connection reused after pauses adding up to more than both bounds
// keeps serving: each request begins the overall bound anew. Every gap is
// an eighth or a quarter of the idle bound, so a starved machine has most
// of it to spare before a gap turns into a quiet connection.
func TestStallAllowsSlowButSteadyTraffic(t *testing.T) {
	t.Parallel()
	const idle = 2 * time.Second
	const chunks = 10 // 10 × idle/8: longer than idle, never quiet for it, well within 2 × idle
	srv, conns := stallServer(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/slow" {
			_, _ = w.Write([]byte("ok"))
			return
		}
		for range chunks {
			_, _ = w.Write([]byte("x"))
			w.(http.Flusher).Flush()
			time.Sleep(idle / 8)
		}
	})
	hc := stallClient(t, idle)
	start := time.Now()
	resp, err := hc.Get(srv.URL + "/slow")
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if err != nil || string(body) != strings.Repeat("x", chunks) {
		t.Fatalf("body %q, err %v; want the whole slow body", body, err)
	}
	if took := time.Since(start); took <= idle {
		t.Fatalf("the slow body took %v, want longer than the bound %v", took, idle)
	}
	for range 5 { // 5 × idle/4: longer than idle in all, and the connection lives longer than 2 × idle
		time.Sleep(idle / 4)
		resp, err := hc.Get(srv.URL)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		_ = resp.Body.Close()
	}
	if n := conns.Load(); n != 1 {
		t.Fatalf("%d connections, want 1 reused after pauses shorter than the bound", n)
	}
}

// The client's own transport bounds a stalled read with the default, which
// is at most a minute (issue: a call without a deadline never waits forever).
func TestPooledTransportBoundsStalls(t *testing.T) {
	if DefaultAttemptTimeout <= 0 || DefaultAttemptTimeout > time.Minute {
		t.Fatalf("DefaultAttemptTimeout %v, want (0, 60 s]", DefaultAttemptTimeout)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	for name, tr := range map[string]*http.Transport{
		"NewPooledTransport":              NewPooledTransport(),
		"buildHTTPClient's own transport": buildHTTPClient(&Settings{}, nil).Transport.(attemptTransport).next.(*http.Transport),
	} {
		conn, err := tr.DialContext(context.Background(), "tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		if _, plain := conn.(*net.TCPConn); plain {
			t.Errorf("%s dials plain TCP connections, with no bound on a stalled read", name)
		}
		_ = conn.Close()
	}
}

// A hung attempt, before the headers or in the body, times out and is
// retried like any timeout, charged to the budget as one.
func TestHungAttemptIsRetriedAsATimeout(t *testing.T) {
	for _, stallBody := range []bool{false, true} {
		t.Run(map[bool]string{false: "no answer", true: "stalled body"}[stallBody], func(t *testing.T) {
			testHungAttempt(t, stallBody)
		})
	}
}

func testHungAttempt(t *testing.T, stallBody bool) {
	release := make(chan struct{})
	srv := rtNewServer(t, func(w http.ResponseWriter, r *http.Request, hit int) {
		if hit == 1 {
			if stallBody {
				w.Header().Set("Content-Length", "100")
				w.WriteHeader(http.StatusOK)
				_, _ = w.Write([]byte(`{"partial":`))
				w.(http.Flusher).Flush()
			}
			select { // never finishes (until the test ends)
			case <-release:
			case <-r.Context().Done():
			}
			return
		}
		rtJSON(w, 200, `{}`)
	})
	defer close(release)
	tr := newPooledTransport(200 * time.Millisecond) // DefaultAttemptTimeout, shortened
	defer tr.CloseIdleConnections()
	var spent []int
	c := rtNewClient(t, srv.URL, func(s *Settings) {
		s.Transport = tr
		s.Retry.BaseDelay = time.Millisecond
		s.Retry.OnRetry = func(int, time.Duration) { spent = append(spent, other(s).Budget.Tokens()) }
	})
	if err := c.do(context.Background(), rtCall(rtPutOp, nil)); err != nil || srv.hits() != 2 {
		t.Fatalf("err = %v after %d attempts; want the hung attempt retried", err, srv.hits())
	}
	if want := 500 - DefaultBudgetConfig().TimeoutCost; len(spent) != 1 || spent[0] != want {
		t.Fatalf("tokens at the retry %v, want [%d]: a timeout's cost", spent, want)
	}
}

// A server that trickles, never quiet for the idle bound, is still cut
// off: on the client's own pool an attempt's reads end twice the idle
// bound after its request began (headers and body included).
func TestStallBoundsATrickleOverall(t *testing.T) {
	t.Parallel()
	const idle = 400 * time.Millisecond
	const overall = 2 * idle // the default ratio
	const chunks = 20        // 20 × idle/2 = 4 s: far past the overall bound
	for _, beforeHeaders := range []bool{false, true} {
		t.Run(map[bool]string{false: "body", true: "before the headers"}[beforeHeaders], func(t *testing.T) {
			t.Parallel()
			srv, _ := stallServer(t, func(w http.ResponseWriter, r *http.Request) {
				if beforeHeaders { // the status line, a byte at a time
					conn, rw, err := w.(http.Hijacker).Hijack()
					if err != nil {
						t.Error(err)
						return
					}
					defer conn.Close()
					for _, c := range []byte("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n") { // 39 × idle/2
						if rw.WriteByte(c) != nil || rw.Flush() != nil {
							return
						}
						time.Sleep(idle / 2)
					}
					return
				}
				w.Header().Set("Content-Length", "100")
				for range chunks {
					if _, err := w.Write([]byte("x")); err != nil {
						return
					}
					w.(http.Flusher).Flush()
					time.Sleep(idle / 2)
				}
			})
			start := time.Now()
			resp, err := stallClient(t, idle).Get(srv.URL)
			if err == nil {
				_, err = io.ReadAll(resp.Body)
				_ = resp.Body.Close()
			}
			took := time.Since(start)
			// (net/http reports a status line cut short as malformed,
			// not as the read's timeout.)
			if err == nil || !beforeHeaders && !isTimeout(err) {
				t.Fatalf("err = %v after %v, want a timeout", err, took)
			}
			// The trickle would have lasted chunks × idle/2 (4 s).
			if took < overall*7/8 || took > chunks*idle/2*3/4 {
				t.Fatalf("ended after %v, want about %v", took, overall)
			}
		})
	}
}
