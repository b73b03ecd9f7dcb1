package core

import (
	"bufio"
	"context"
	stderrors "errors"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
)

// addrConn is a connection that only reports its remote address.
type addrConn struct {
	net.Conn
	remote net.Addr
	closed bool
}

func (c *addrConn) RemoteAddr() net.Addr { return c.remote }
func (c *addrConn) Close() error         { c.closed = true; return nil }

// A loopback name reaches only a loopback address: a resolver mapping
// api.localhost elsewhere gets its connection closed unused, and a name
// the resolver does not know is dialled as "localhost".
func TestDirectLoopbackDial(t *testing.T) {
	var dialled []string
	var conns []*addrConn
	resolve := map[string]string{"api.localhost": "203.0.113.9", "localhost": "127.0.0.1", "example.com": "203.0.113.10"}
	dial := directLoopbackDial(func(_ context.Context, _, addr string) (net.Conn, error) {
		dialled = append(dialled, addr)
		host, _, _ := net.SplitHostPort(addr)
		ip, ok := resolve[host]
		if !ok {
			return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
		}
		c := &addrConn{remote: &net.TCPAddr{IP: net.ParseIP(ip), Port: 80}}
		conns = append(conns, c)
		return c, nil
	})
	if _, err := dial(context.Background(), "tcp", "api.localhost:80"); err == nil || !strings.Contains(err.Error(), "not a loopback address") || !conns[0].closed {
		t.Fatalf("api.localhost resolved elsewhere: %v, want refused and closed", err)
	}
	if c, err := dial(context.Background(), "tcp", "other.localhost:80"); err != nil || c == nil {
		t.Fatalf("unknown *.localhost: %v, want dialled as localhost", err)
	}
	if got := dialled[len(dialled)-1]; got != "localhost:80" {
		t.Fatalf("dialled %q, want localhost:80", got)
	}
	if _, err := dial(context.Background(), "tcp", "example.com:80"); err != nil {
		t.Fatalf("example.com: %v, want left alone", err)
	}
	if _, err := dial(context.Background(), "tcp", "unknown.example:80"); !stderrors.As(err, new(*net.DNSError)) {
		t.Fatalf("unknown.example: %v, want the resolver's error", err)
	}
}

// checkDirect lets a credential over plain http go only directly to a
// loopback host; requests without one, or over https, are not its concern.
func TestCheckDirect(t *testing.T) {
	proxy, _ := url.Parse("http://user:secret@proxy.example:3128")
	viaProxy := &http.Transport{Proxy: http.ProxyURL(proxy)}
	own := NewPooledTransport()
	for _, tc := range []struct {
		name    string
		rt      http.RoundTripper
		url     string
		header  string
		refused bool
	}{
		{"own pool, LOCALHOST", own, "http://LOCALHOST:8080/x", "Authorization", false},
		{"own pool, api.localhost", own, "http://api.localhost:8080/x", "X-Amz-Security-Token", false},
		{"proxying transport, localhost.", viaProxy, "http://localhost.:8080/x", "Authorization", true},
		{"proxying transport, SigV4 session token", viaProxy, "http://127.0.0.1:8080/x", "X-Amz-Security-Token", true},
		{"proxying transport, no credential", viaProxy, "http://api.localhost:8080/x", "", false},
		{"proxying transport, https", viaProxy, "https://api.localhost:8080/x", "Authorization", false},
		{"direct transport, non-loopback", &http.Transport{}, "http://api.example.com/x", "Authorization", true},
	} {
		req, _ := http.NewRequest(http.MethodGet, tc.url, nil)
		if tc.header != "" {
			req.Header.Set(tc.header, "s3cr3t")
		}
		err := checkDirect(tc.rt, req)
		if (err != nil) != tc.refused {
			t.Errorf("%s: %v, want refused %v", tc.name, err, tc.refused)
		}
		if err != nil && (strings.Contains(err.Error(), "secret") || strings.Contains(err.Error(), "s3cr3t")) {
			t.Errorf("%s: %q names a secret", tc.name, err)
		}
		if err != nil && Retriable(true, nil, &url.Error{Op: "Get", URL: tc.url, Err: err}) {
			t.Errorf("%s: the refusal would be retried", tc.name)
		}
	}
}

// pipeConn is one end of a net.Pipe that reports remote as its peer.
type pipeConn struct {
	net.Conn
	remote net.Addr
}

func (c pipeConn) RemoteAddr() net.Addr { return c.remote }

// A user's own transport, without a proxy, whose resolver maps a loopback
// name elsewhere (api.localhost -> 203.0.113.9, as a hostile DNS server or
// /etc/hosts entry may): the connection is closed before the request is
// written, so the credential never leaves the host, and the call fails
// with a refusal, unretried. The same transport to an address that is
// loopback carries the token.
func TestCredentialNeverWrittenToANonLoopbackPeer(t *testing.T) {
	for _, tc := range []struct {
		base    string
		remote  string
		refused bool
	}{
		{"http://api.localhost:8080", "203.0.113.9", true},
		{"http://api.localhost:8080", "::ffff:203.0.113.9", true},
		{"http://api.localhost:8080", "127.0.0.2", false},
		{"http://api.localhost:8080", "::1", false},
		// An address, and a dialer of the user's own that goes elsewhere
		// (a SOCKS proxy from ALL_PROXY, through golang.org/x/net/proxy).
		{"http://127.0.0.1:8080", "203.0.113.9", true},
		{"http://[::1]:8080", "203.0.113.9", true},
		{"http://127.0.0.1:8080", "127.0.0.1", false},
	} {
		received := make(chan string, 8)
		dials := 0
		rt := &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			dials++
			client, server := net.Pipe()
			go func() { // the peer: reads a request, answers 200
				defer server.Close()
				req, err := http.ReadRequest(bufio.NewReader(server))
				if err != nil {
					return
				}
				received <- req.Header.Get("Authorization")
				_, _ = io.WriteString(server, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 11\r\nConnection: close\r\n\r\n{\"ok\":true}")
			}()
			return pipeConn{client, &net.TCPAddr{IP: net.ParseIP(tc.remote), Port: 8080}}, nil
		}}
		s := DefaultSettings()
		s.BaseURL, _ = url.Parse(tc.base)
		s.Transport = rt
		c, err := New(s, NewTokenCache(func(context.Context) (string, time.Time, error) { return "tok-s3cr3t", time.Time{}, nil }))
		if err != nil {
			t.Fatal(err)
		}
		op := &Operation{Name: "test.AuthPut", Method: http.MethodPut, Path: "/things/{id}", Idempotent: true, Auth: true}
		var out struct{ OK bool }
		err = c.do(context.Background(), &Call{Op: op, PathParams: [2]string{"t-1"}, Result: &out})
		rt.CloseIdleConnections()
		if !tc.refused {
			if err != nil || !out.OK || <-received != "Bearer tok-s3cr3t" {
				t.Fatalf("%s, peer %s: %v, want the call carried to a loopback peer", tc.base, tc.remote, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), "not a loopback address") || strings.Contains(err.Error(), "s3cr3t") {
			t.Fatalf("%s, peer %s: %v, want a refusal naming no secret", tc.base, tc.remote, err)
		}
		select {
		case got := <-received:
			t.Fatalf("%s: peer %s received a request with Authorization %q", tc.base, tc.remote, got)
		default:
		}
		if dials != 1 {
			t.Fatalf("%s, peer %s: %d dials, want 1 (the refusal is not retried)", tc.base, tc.remote, dials)
		}
	}
}

// A middleware that moves a request off https (a downgrade, or a test
// harness pointing it at a plain-http server elsewhere) does not take the
// credential with it: the request as sent is checked like one to a
// plain-http base URL.
func TestMiddlewareCannotDowngradeACredentialToPlainHTTP(t *testing.T) {
	for _, target := range []string{"http://api.example.test/things/t-1", "http://10.0.0.5:8080/things/t-1"} {
		var sent []string
		s := DefaultSettings()
		s.BaseURL, _ = url.Parse("https://api.example.test")
		s.Transport = roundTripperFunc(func(r *http.Request) (*http.Response, error) {
			sent = append(sent, r.URL.Scheme+" "+r.Header.Get("Authorization"))
			return okTransport.RoundTrip(r)
		})
		s.Middleware = []Middleware{func(req *http.Request, next func(*http.Request) (*http.Response, error)) (*http.Response, error) {
			r := req.Clone(req.Context())
			r.URL, _ = url.Parse(target)
			return next(r)
		}}
		c, err := New(s, NewTokenCache(func(context.Context) (string, time.Time, error) { return "tok-s3cr3t", time.Time{}, nil }))
		if err != nil {
			t.Fatal(err)
		}
		op := &Operation{Name: "test.AuthPut", Method: http.MethodPut, Path: "/things/{id}", Idempotent: true, Auth: true}
		var out struct{ OK bool }
		err = c.do(context.Background(), &Call{Op: op, PathParams: [2]string{"t-1"}, Result: &out})
		if err == nil || !strings.Contains(err.Error(), "plain http") || strings.Contains(err.Error(), "s3cr3t") {
			t.Fatalf("%s: %v, want a refusal naming no secret", target, err)
		}
		if len(sent) != 0 {
			t.Fatalf("%s: the transport was given %q", target, sent)
		}
	}
}
