package core

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-cleanhttp"
)

// buildHTTPClient makes the attempts' *http.Client: the user's transport,
// or prev's (the client's, for a per-call client), or a pool, under
// attemptTransport.
func buildHTTPClient(s *Settings, prev *http.Client) *http.Client {
	rt := s.Transport
	hc := &http.Client{}
	if s.HTTPClient != nil {
		hc.Jar = s.HTTPClient.Jar
		hc.CheckRedirect = s.HTTPClient.CheckRedirect
		hc.Timeout = s.HTTPClient.Timeout
		if rt == nil {
			rt = s.HTTPClient.Transport
		}
	}
	if rt == nil {
		rt = s.DefaultTransport
	}
	if rt == nil && prev != nil {
		if t, ok := prev.Transport.(attemptTransport); ok {
			rt = t.next
		}
	}
	if rt == nil {
		rt = NewPooledTransport()
	}
	if s.AttemptTimeout > 0 {
		hc.Timeout = s.AttemptTimeout
	}
	if hc.CheckRedirect == nil {
		hc.CheckRedirect = sameOriginRedirect
	}
	hc.Transport = attemptTransport{rt}
	return hc
}

// sameOriginRedirect follows up to 5 redirects on the original scheme and
// host, so no body with personal data is replayed to another host.
func sameOriginRedirect(req *http.Request, via []*http.Request) error {
	if len(via) >= 5 || req.URL.Scheme != via[0].URL.Scheme || req.URL.Host != via[0].URL.Host {
		return http.ErrUseLastResponse
	}
	return nil
}

// sameOrigin reports whether req goes to base's scheme and host.
func sameOrigin(req *http.Request, base *url.URL) bool {
	return strings.EqualFold(req.URL.Scheme, base.Scheme) && strings.EqualFold(req.URL.Host, base.Host)
}

// Middleware is option.Middleware.
type Middleware = func(req *http.Request, next func(*http.Request) (*http.Response, error)) (*http.Response, error)

// runMiddleware sends req through chain, in order, then send.
func runMiddleware(chain []Middleware, req *http.Request, send func(*http.Request) (*http.Response, error)) (*http.Response, error) {
	if len(chain) == 0 {
		return send(req)
	}
	return chain[0](req, func(r *http.Request) (*http.Response, error) {
		return runMiddleware(chain[1:], r, send)
	})
}

// credentialHeaders are the request headers the SDK puts a secret in.
var credentialHeaders = []string{"Authorization", "X-Amz-Security-Token"}

// attemptTransport runs under the redirect policy, for every request of an
// attempt: it drops the credentials on a redirect off the base URL's origin
// and runs the middleware. It hides the user transport's
// CloseIdleConnections, which go-retryablehttp calls when it gives up.
type attemptTransport struct{ next http.RoundTripper }

func (t attemptTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	state := stateOf(req.Context()) // set by send, kept by net/http on redirects
	if req.Response != nil && !sameOrigin(req, state.client.settings.BaseURL) {
		req = req.Clone(req.Context())
		for _, h := range credentialHeaders {
			req.Header.Del(h)
		}
	}
	var resp *http.Response
	var err error
	if len(state.s.Middleware) == 0 {
		resp, err = t.next.RoundTrip(req) // no method value to allocate
	} else {
		resp, err = runMiddleware(state.s.Middleware, req, t.next.RoundTrip)
	}
	if resp == nil && err == nil { // net/http would name the SDK's internal type
		return nil, errors.New("memberplatform: a middleware or transport returned neither a response nor an error")
	}
	if resp != nil && resp.Request == nil { // mocks leave it unset; the pipeline reads it
		resp.Request = req
	}
	return resp, err
}

// DefaultAttemptTimeout bounds how long a connection of the client's own
// pool may go without traffic, so a call without a deadline never hangs. A
// read deadline (stallConn) costs less than http.Client.Timeout's timer.
const DefaultAttemptTimeout = 30 * time.Second

// NewPooledTransport returns the client's own pool: go-cleanhttp's, whose
// reads end after DefaultAttemptTimeout without traffic.
func NewPooledTransport() *http.Transport { return newPooledTransport(DefaultAttemptTimeout) }

func newPooledTransport(idle time.Duration) *http.Transport {
	t := cleanhttp.DefaultPooledTransport()
	dial := t.DialContext
	if dial == nil {
		dial = (&net.Dialer{}).DialContext
	}
	t.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		conn, err := dial(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		c := &stallConn{Conn: conn, idle: idle, born: time.Now()}
		if err := c.arm(0); err != nil {
			_ = conn.Close()
			return nil, err
		}
		return c, nil
	}
	return t
}

// stallConn's read deadline is idle after its last read or write; it moves
// only once idle/8 old, so most reads cost one clock read.
type stallConn struct {
	net.Conn
	idle  time.Duration
	born  time.Time
	armed atomic.Int64 // since born; reads and writes run on two goroutines
}

func (c *stallConn) arm(now time.Duration) error {
	c.armed.Store(int64(now))
	return c.SetReadDeadline(c.born.Add(now + c.idle))
}

func (c *stallConn) rearm() error {
	if now := time.Since(c.born); now-time.Duration(c.armed.Load()) > c.idle/8 {
		return c.arm(now)
	}
	return nil
}

func (c *stallConn) Read(p []byte) (int, error) {
	if err := c.rearm(); err != nil {
		return 0, err
	}
	return c.Conn.Read(p)
}

func (c *stallConn) Write(p []byte) (int, error) {
	if err := c.rearm(); err != nil {
		return 0, err
	}
	return c.Conn.Write(p)
}
