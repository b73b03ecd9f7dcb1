package core

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
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
	plain := req.URL.Scheme == "http" && !state.client.settings.AllowInsecureBearer // credentials go direct to loopback only (direct.go)
	switch {
	case len(state.s.Middleware) == 0:
		if plain {
			if err := checkDirect(t.next, req); err != nil {
				return nil, err
			}
		}
		resp, err = t.next.RoundTrip(req) // no method value to allocate
	case plain:
		resp, err = runMiddleware(state.s.Middleware, req, func(r *http.Request) (*http.Response, error) {
			if err := checkDirect(t.next, r); err != nil { // as sent, after the middleware
				return nil, err
			}
			return t.next.RoundTrip(r)
		})
	default:
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

// DefaultAttemptOverall bounds, on the client's own pool, how long the
// reads of one attempt may go on after its request began to be written,
// however steadily the server trickles: twice the idle bound.
const DefaultAttemptOverall = 2 * DefaultAttemptTimeout

// DefaultMaxIdleConnsPerHost is how many idle connections the client's own
// pool keeps per host, and so the concurrency at which it stops opening a
// connection per call. go-cleanhttp keeps GOMAXPROCS+1 (3 on a 2-core pod)
// and net/http 2: at 32 goroutines over TLS, either made a handshake every
// ~2 calls. 100 covers the concurrency services run at; a connection idle
// for DefaultAttemptTimeout is closed (its read deadline ends it), so an
// idle client holds none for long.
const DefaultMaxIdleConnsPerHost = 100

// NewPooledTransport returns the client's own pool: go-cleanhttp's (HTTP/2
// when the server offers it), keeping DefaultMaxIdleConnsPerHost idle
// connections per host, whose reads end
// after DefaultAttemptTimeout without traffic, and DefaultAttemptOverall
// after a request began.
func NewPooledTransport() *http.Transport { return newPooledTransport(DefaultAttemptTimeout) }

// newPooledTransport is NewPooledTransport with the idle bound idle (tests
// shorten it) and the overall bound twice that.
func newPooledTransport(idle time.Duration) *http.Transport {
	t := cleanhttp.DefaultPooledTransport()
	t.MaxIdleConnsPerHost = DefaultMaxIdleConnsPerHost
	t.MaxIdleConns = 2 * DefaultMaxIdleConnsPerHost // the API's host and a token endpoint's own
	t.Proxy = directLoopbackProxy(t.Proxy)          // credentials over plain http never pass a proxy (direct.go)
	dial := t.DialContext
	if dial == nil {
		dial = (&net.Dialer{}).DialContext
	}
	dial = directLoopbackDial(dial)
	t.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		conn, err := dial(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		c := &stallConn{Conn: conn, idle: idle, overall: 2 * idle, born: time.Now()}
		c.replied.Store(true) // the first write begins a request
		if err := c.arm(0, false); err != nil {
			_ = conn.Close()
			return nil, err
		}
		return c, nil
	}
	return t
}

// stallConn's read deadline is idle after its last read or write, and
// never later than overall after the request being answered began: a
// Write after the answer to the previous one (a Read returned data since
// the last Write), or after writes paused for idle/8, begins a request.
// (On a connection with an HTTP/1 request at a time, that is each
// request's first write; on HTTP/2, whose streams share the connection,
// any write after a read, so the overall bound then holds only for a
// connection that carries nothing else.) The deadline moves only once
// idle/8 old, so most reads and writes cost one clock read and a few
// atomic operations: no allocation, no goroutine, no timer.
type stallConn struct {
	net.Conn
	idle, overall time.Duration
	born          time.Time
	armed         atomic.Int64 // since born, when the deadline was last set
	lastWrite     atomic.Int64 // since born; reads and writes run on two goroutines
	replied       atomic.Bool  // a Read returned data since the last Write

	mu    sync.Mutex    // orders the deadlines arm sets with begun
	begun time.Duration // since born, when the request being answered began
}

// arm sets the read deadline from now (since born); a write beginning a
// request moves begun to now first.
func (c *stallConn) arm(now time.Duration, begins bool) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if begins {
		c.begun = now
	}
	c.armed.Store(int64(now))
	return c.SetReadDeadline(c.born.Add(min(now+c.idle, c.begun+c.overall)))
}

func (c *stallConn) rearm(now time.Duration) error {
	if now-time.Duration(c.armed.Load()) > c.idle/8 {
		return c.arm(now, false)
	}
	return nil
}

func (c *stallConn) Read(p []byte) (int, error) {
	if err := c.rearm(time.Since(c.born)); err != nil {
		return 0, err
	}
	n, err := c.Conn.Read(p)
	if n > 0 && !c.replied.Load() {
		c.replied.Store(true)
	}
	return n, err
}

func (c *stallConn) Write(p []byte) (int, error) {
	now := time.Since(c.born)
	last := time.Duration(c.lastWrite.Swap(int64(now)))
	var err error
	if c.replied.Load() || now-last > c.idle/8 {
		c.replied.Store(false)
		err = c.arm(now, true)
	} else {
		err = c.rearm(now)
	}
	if err != nil {
		return 0, err
	}
	return c.Conn.Write(p)
}
