package httpx

import (
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
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
	tr := &http.Transport{}
	BoundStalls(tr, idle)
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr}
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// A server that stops sending, before the headers or in the body, ends the
// attempt with a timeout once the connection has been quiet for the bound.
func TestBoundStallsEndsAQuietAttempt(t *testing.T) {
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

// The bound is on quiet time, not on the attempt: a body that keeps coming
// slowly for longer than the bound is read whole, and a connection reused
// after pauses shorter than the bound keeps serving.
func TestBoundStallsAllowsSlowButSteadyTraffic(t *testing.T) {
	const idle = 400 * time.Millisecond
	srv, conns := stallServer(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/slow" {
			_, _ = w.Write([]byte("ok"))
			return
		}
		for range 6 { // 6 × 100 ms: longer than idle, never quiet for it
			_, _ = w.Write([]byte("x"))
			w.(http.Flusher).Flush()
			time.Sleep(idle / 4)
		}
	})
	hc := stallClient(t, idle)
	resp, err := hc.Get(srv.URL + "/slow")
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if err != nil || string(body) != "xxxxxx" {
		t.Fatalf("body %q, err %v; want the whole slow body", body, err)
	}
	for range 3 {
		time.Sleep(idle / 2)
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
