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

// buildHTTPClient makes the *http.Client the attempts use: the user's
// transport (or a pooled default) under attemptTransport. prev, when set,
// is the client's own, whose transport a per-call client reuses.
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

// sameOriginRedirect, the default redirect policy, follows up to 5
// redirects on the original scheme and host. A redirect elsewhere returns
// its 3xx (an *errors.Error), so a body with personal data is never
// replayed to another host.
func sameOriginRedirect(req *http.Request, via []*http.Request) error {
	if len(via) >= 5 || req.URL.Scheme != via[0].URL.Scheme || req.URL.Host != via[0].URL.Host {
		return http.ErrUseLastResponse
	}
	return nil
}

// sameOrigin reports whether req goes to base's scheme and host (with port).
func sameOrigin(req *http.Request, base *url.URL) bool {
	return strings.EqualFold(req.URL.Scheme, base.Scheme) && strings.EqualFold(req.URL.Host, base.Host)
}

// Middleware is option.Middleware: it sees one HTTP request of an attempt
// and calls next to send it.
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

// attemptTransport is the SDK's layer under the attempts' *http.Client,
// below any redirect policy. For every HTTP request (a followed redirect is
// one) it removes the credentials when a redirect leaves the base URL's
// origin, whatever CheckRedirect allowed, and runs the call's middleware
// after the token and signature are set. It hides the user transport's
// CloseIdleConnections, which go-retryablehttp calls when it gives up and
// which would tear down a shared pool.
type attemptTransport struct{ next http.RoundTripper }

func (t attemptTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	state, _ := req.Context().Value(callStateKey{}).(*callState)
	if state == nil {
		return t.next.RoundTrip(req)
	}
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
	if resp == nil && err == nil {
		// net/http would report this with the SDK's internal type name.
		return nil, errors.New("memberplatform: a middleware or transport returned neither a response nor an error")
	}
	if resp != nil && resp.Request == nil {
		// Mocks often leave it unset; the pipeline reads the token a 401
		// rejected and the secrets to redact from it.
		resp.Request = req
	}
	return resp, err
}

// DefaultAttemptTimeout bounds how long an attempt on the client's own pool
// may wait without a byte when no option bounds the attempt, so a call
// without a deadline never hangs. It is a read deadline that follows the
// connection's traffic (stallConn), not http.Client.Timeout, which costs
// every attempt a timer goroutine.
const DefaultAttemptTimeout = 30 * time.Second

// NewPooledTransport returns the pool a client makes when no option gives a
// transport: go-cleanhttp's pooled transport, whose connections end a read
// that waits more than DefaultAttemptTimeout.
func NewPooledTransport() *http.Transport { return newPooledTransport(DefaultAttemptTimeout) }

// newPooledTransport dials stallConns that fail a read after idle without
// traffic: a server that never answers, or stalls the body, ends the
// attempt with a timeout.
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

// stallConn is a connection whose read deadline is idle after its last
// read or write (a request written on a connection the read loop already
// waits on gets the full idle time). The deadline moves only once it is
// idle/8 old, so most reads cost one clock read.
type stallConn struct {
	net.Conn
	idle  time.Duration
	born  time.Time    // the monotonic origin of armed
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
