package core

import (
	stderrors "errors"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	apierrors "github.com/memberplatform/memberplatform-go/errors"
)

var (
	rtPutOp  = &Operation{Name: "test.Put", Method: http.MethodPut, Path: "/things/{id}", Idempotent: true}
	rtPostOp = &Operation{Name: "test.Post", Method: http.MethodPost, Path: "/things/{id}", Idempotent: false}
)

// rtBody is a request body with bytes that a careless replay would mangle.
var rtBody = map[string]any{"name": "Zoë <&> \u2028", "n": 42, "list": []string{"a", "b"}}

// rtRecorded is one request as the server saw it.
type rtRecorded struct {
	Header http.Header
	Body   []byte
	CL     int64
}

// rtServer is a loopback server that records requests and counts new TCP
// connections.
type rtServer struct {
	*httptest.Server
	conns atomic.Int32
	mu    sync.Mutex
	reqs  []rtRecorded
}

func (s *rtServer) hits() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.reqs)
}

func (s *rtServer) recorded() []rtRecorded {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]rtRecorded(nil), s.reqs...)
}

// rtNewServer starts a server whose handler h is called with the 1-based
// hit number, after the request body has been read and recorded.
func rtNewServer(t *testing.T, h func(w http.ResponseWriter, r *http.Request, hit int)) *rtServer {
	t.Helper()
	s := &rtServer{}
	s.Server = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		s.mu.Lock()
		s.reqs = append(s.reqs, rtRecorded{Header: r.Header.Clone(), Body: b, CL: r.ContentLength})
		n := len(s.reqs)
		s.mu.Unlock()
		h(w, r, n)
	}))
	s.Config.ConnState = func(_ net.Conn, st http.ConnState) {
		if st == http.StateNew {
			s.conns.Add(1)
		}
	}
	s.Config.ErrorLog = log.New(io.Discard, "", 0)
	s.Start()
	t.Cleanup(s.Close)
	return s
}

// rtNewTransport returns a transport whose idle connections are closed
// when the test ends (the SDK itself never closes them).
func rtNewTransport(t *testing.T) *http.Transport {
	tr := &http.Transport{MaxIdleConnsPerHost: 4, DisableCompression: true}
	t.Cleanup(tr.CloseIdleConnections)
	return tr
}

// rtNewClient returns a core client for baseURL with 1ms..4ms backoff, a
// test-owned transport, and mut applied.
func rtNewClient(t *testing.T, baseURL string, mut func(*Settings)) *Client {
	t.Helper()
	s := DefaultSettings()
	u, err := url.Parse(baseURL)
	if err != nil {
		t.Fatal(err)
	}
	s.BaseURL = u
	s.Transport = rtNewTransport(t)
	s.Retry.BaseDelay, s.Retry.MaxDelay = time.Millisecond, 4*time.Millisecond
	if mut != nil {
		mut(&s)
	}
	c, err := New(s, nil)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func rtJSON(w http.ResponseWriter, status int, body string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = io.WriteString(w, body)
}

func rtCall(op *Operation, out any) *Call {
	return &Call{Op: op, PathParams: [2]string{"t-1"}, Body: rtBody, Result: out}
}

func rtWantAPIError(t *testing.T, err error, status, attempts int) *apierrors.Error {
	t.Helper()
	var ae *apierrors.Error
	if !stderrors.As(err, &ae) {
		t.Fatalf("err = %T %v, want *errors.Error", err, err)
	}
	if ae.StatusCode != status || ae.Attempts != attempts {
		t.Fatalf("status %d, attempts %d; want %d, %d (%v)", ae.StatusCode, ae.Attempts, status, attempts, err)
	}
	return ae
}

func rtWantTransportError(t *testing.T, err error, attempts int) *apierrors.TransportError {
	t.Helper()
	var te *apierrors.TransportError
	if !stderrors.As(err, &te) {
		t.Fatalf("err = %T %v, want *errors.TransportError", err, err)
	}
	if te.Attempts != attempts {
		t.Fatalf("Attempts = %d, want %d (%v)", te.Attempts, attempts, err)
	}
	if !stderrors.Is(err, apierrors.ErrTransport) {
		t.Fatalf("errors.Is(err, ErrTransport) = false")
	}
	return te
}

// rtWantReuse checks that the attempts shared connections. Draining itself
// is asserted on the bodies (rtBodyTracker); the connection count only
// confirms it, and loosely: net/http gives up a connection when its writer
// goroutine has not confirmed the request written within 50 ms of the
// response (transport.go, maxWriteWaitBeforeConnReuse), which CPU
// starvation alone causes. An undrained body costs a connection per
// request, so only conns == requests (no reuse at all) fails.
func rtWantReuse(t *testing.T, conns int32, requests int) {
	t.Helper()
	switch {
	case int(conns) >= requests:
		t.Errorf("%d TCP connections for %d requests, want 1: no connection was reused", conns, requests)
	case conns > 1:
		t.Logf("%d TCP connections for %d requests: net/http dropped a connection under load", conns, requests)
	}
}

// rtWantDrained checks that every response body was read to EOF and closed.
func rtWantDrained(t *testing.T, tr *rtBodyTracker, responses int) {
	t.Helper()
	tr.mu.Lock()
	defer tr.mu.Unlock()
	if len(tr.bodies) != responses {
		t.Fatalf("%d responses, want %d", len(tr.bodies), responses)
	}
	for i, b := range tr.bodies {
		if !b.eof.Load() || !b.closed.Load() {
			t.Errorf("response %d: read to EOF %v, closed %v; want both", i+1, b.eof.Load(), b.closed.Load())
		}
	}
}
