package core

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"sync"

	"github.com/memberplatform/memberplatform-go/internal/httpx"
)

// A bearer token or SigV4 material goes over plain http only to a loopback
// address, directly: Go's proxy lookup (http.ProxyFromEnvironment) bypasses
// only "localhost" and loopback IPs, so with HTTP_PROXY set a request to
// http://LOCALHOST, http://api.localhost or http://localhost. would hand
// the credentials to the proxy in clear text. The client's own pool goes
// direct to every loopback name and dials only loopback addresses for them
// (directLoopback*); another transport is asked where it would send the
// request, at New (checkDirectAtNew) and before every request that carries
// a credential (checkDirect). And whatever the transport, a request that
// carries a credential over plain http to a loopback name is watched
// (directWatch): a connection whose peer is not a loopback address (a
// resolver mapping api.localhost elsewhere, a proxy the SDK cannot see) is
// closed before the request is written.

// directLoopbackProxy wraps a transport's Proxy func: loopback names go direct.
func directLoopbackProxy(proxy func(*http.Request) (*url.URL, error)) func(*http.Request) (*url.URL, error) {
	return func(req *http.Request) (*url.URL, error) {
		if req.URL != nil && httpx.IsLoopbackHost(req.URL.Hostname()) {
			return nil, nil
		}
		if proxy == nil {
			return nil, nil
		}
		return proxy(req)
	}
}

// dialFunc is http.Transport.DialContext.
type dialFunc = func(ctx context.Context, network, addr string) (net.Conn, error)

// directLoopbackDial wraps a dialer: a loopback name (not an IP) reaches
// only a loopback address. A *.localhost name the resolver does not know
// is "localhost" (RFC 6761), and a connection to any other address is
// closed unused: a resolver may map such a name anywhere.
func directLoopbackDial(dial dialFunc) dialFunc {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		host, port, err := net.SplitHostPort(addr)
		if err != nil || isIPLiteral(host) || !httpx.IsLoopbackHost(host) {
			return dial(ctx, network, addr)
		}
		conn, err := dial(ctx, network, addr)
		var dnsErr *net.DNSError
		if errors.As(err, &dnsErr) && dnsErr.IsNotFound {
			conn, err = dial(ctx, network, net.JoinHostPort("localhost", port))
		}
		if err != nil {
			return nil, err
		}
		if tcp, ok := conn.RemoteAddr().(*net.TCPAddr); ok && !tcp.IP.IsLoopback() {
			_ = conn.Close()
			return nil, &net.OpError{Op: "dial", Net: network, Addr: tcp,
				Err: &directError{fmt.Errorf("%q resolved to %s, not a loopback address; refused", host, tcp.IP)}}
		}
		return conn, nil
	}
}

// effectiveTransport is the transport a client built from s sends with;
// nil for the client's own pool, built later.
func effectiveTransport(s *Settings) http.RoundTripper {
	switch {
	case s.Transport != nil:
		return s.Transport
	case s.HTTPClient != nil && s.HTTPClient.Transport != nil:
		return s.HTTPClient.Transport
	}
	return s.DefaultTransport
}

// proxyOf returns the proxy rt would send req through, or nil for direct:
// an *http.Transport's Proxy tells; of a transport the SDK cannot see
// into, the environment's proxy settings are assumed (it may wrap
// http.DefaultTransport). The client's own pool goes direct to loopback.
func proxyOf(rt http.RoundTripper, req *http.Request) (*url.URL, error) {
	switch t := rt.(type) {
	case nil:
		return nil, nil
	case *http.Transport:
		if t.Proxy == nil {
			return nil, nil
		}
		return t.Proxy(req)
	}
	return http.ProxyFromEnvironment(req)
}

// throughProxyError refuses a credential bound for plain http through a proxy.
func throughProxyError(host string, via *url.URL, err error) error {
	if err != nil {
		return fmt.Errorf("memberplatform: refusing to carry a credential over plain http to %q: the transport's proxy setting failed: %v", host, err)
	}
	return fmt.Errorf("memberplatform: refusing to carry a credential over plain http to %q through proxy %s, which would read it; use https, an address such as http://127.0.0.1, NO_PROXY, or the client's own transport (which goes direct to loopback)", host, redactURL(via))
}

// checkDirectAtNew refuses a plain-http loopback base URL that s's
// transport would reach through a proxy.
func checkDirectAtNew(s *Settings) error {
	u := s.BaseURL
	if u == nil || u.Scheme != "http" || s.AllowInsecureBearer {
		return nil
	}
	req := &http.Request{Method: http.MethodPost, URL: u, Host: u.Host, Header: http.Header{}}
	if via, err := proxyOf(effectiveTransport(s), req); via != nil || err != nil {
		return throughProxyError(u.Hostname(), via, err)
	}
	return nil
}

// checkDirect refuses a request that carries a credential over plain http
// unless rt sends it directly to a loopback host; the pipeline never
// retries the refusal.
func checkDirect(rt http.RoundTripper, req *http.Request) error {
	if req.URL.Scheme != "http" || !carriesCredential(req) {
		return nil
	}
	host := req.URL.Hostname()
	if !httpx.IsLoopbackHost(host) {
		return &directError{fmt.Errorf("memberplatform: refusing to carry a credential over plain http to non-loopback host %q", host)}
	}
	if via, err := proxyOf(rt, req); via != nil || err != nil {
		return &directError{throughProxyError(host, via, err)}
	}
	return nil
}

// directError is checkDirect's refusal: a type of its own, so no retry
// policy mistakes it for a transient failure.
type directError struct{ err error }

func (e *directError) Error() string { return e.err.Error() }

func (e *directError) Unwrap() error { return e.err }

// sendDirect sends req through rt; over plain http, when checkDirect
// allows it, and watched on its way (directWatch) when it carries a
// credential and something may send it elsewhere: a resolver (a loopback
// name), or a dialer of the user's own (a SOCKS proxy from ALL_PROXY).
// own is the client's own pool, which dials loopback names only to
// loopback addresses itself: a request to an address through it, the
// success path of the benchmarks, costs nothing more.
func sendDirect(rt, own http.RoundTripper, req *http.Request) (*http.Response, error) {
	if req.URL.Scheme != "http" {
		return rt.RoundTrip(req)
	}
	if err := checkDirect(rt, req); err != nil {
		return nil, err
	}
	if !carriesCredential(req) || (isIPLiteral(req.URL.Hostname()) && !userDialer(rt, own)) {
		return rt.RoundTrip(req)
	}
	w := &directWatch{host: req.URL.Hostname()}
	resp, err := rt.RoundTrip(req.WithContext(httptrace.WithClientTrace(req.Context(), &httptrace.ClientTrace{GotConn: w.gotConn})))
	if refused := w.err(); refused != nil {
		if resp != nil {
			_ = resp.Body.Close()
		}
		return nil, refused
	}
	return resp, err
}

// carriesCredential reports whether req carries a bearer token or SigV4 material.
func carriesCredential(req *http.Request) bool {
	return len(req.Header["Authorization"]) != 0 || len(req.Header["X-Amz-Security-Token"]) != 0
}

// userDialer reports whether rt is an *http.Transport other than own that
// dials with a function of the user's.
func userDialer(rt, own http.RoundTripper) bool {
	t, ok := rt.(*http.Transport)
	if !ok || rt == own {
		return false
	}
	//lint:ignore SA1019 a transport may still set the deprecated Dial
	return t.DialContext != nil || t.Dial != nil //nolint:staticcheck // as above
}

// isIPLiteral reports whether host (without brackets) is an IP address.
func isIPLiteral(host string) bool { return net.ParseIP(host) != nil }

// directWatch checks the connection net/http got for a request: GotConn
// runs before the request is written, so closing a connection to a peer
// that is not loopback there means the credential is never sent on it.
type directWatch struct {
	host    string
	mu      sync.Mutex // a wrapping transport may run the request on a goroutine of its own
	refused error
}

func (w *directWatch) gotConn(info httptrace.GotConnInfo) {
	if info.Conn == nil {
		return
	}
	ip := peerIP(info.Conn.RemoteAddr())
	if ip == nil || ip.IsLoopback() {
		return // loopback, or not an IP network (a unix socket, a pipe): on this host
	}
	_ = info.Conn.Close()
	w.mu.Lock()
	defer w.mu.Unlock()
	w.refused = &directError{fmt.Errorf("memberplatform: refusing to carry a credential over plain http to %q: the connection goes to %s, not a loopback address (a resolver or proxy sends it elsewhere)", w.host, ip)}
}

func (w *directWatch) err() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.refused
}

// peerIP is addr's IP address, or nil when it has none.
func peerIP(addr net.Addr) net.IP {
	switch a := addr.(type) {
	case nil:
		return nil
	case *net.TCPAddr:
		return a.IP
	}
	host, _, err := net.SplitHostPort(addr.String())
	if err != nil {
		return nil
	}
	return net.ParseIP(host)
}
