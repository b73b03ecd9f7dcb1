package core

import (
	"context"
	stderrors "errors"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"
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
