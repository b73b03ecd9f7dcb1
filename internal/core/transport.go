package core

import (
	"errors"
	"net/http"
	"time"

	"github.com/hashicorp/go-cleanhttp"

	"github.com/memberplatform/memberplatform-go/internal/httpx"
)

// buildHTTPClient makes the *http.Client the attempts use: the user's
// transport (or a pooled default) under the SDK's own attemptTransport.
// prev, when set, is the client's own http.Client, whose transport a
// per-call client reuses when the call did not choose another.
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
// redirects that stay on the original scheme and host. A redirect elsewhere
// is not followed: its 3xx response is returned (and becomes an
// *errors.Error), so a request body carrying personal data is never replayed
// to another host. A user's own policy (option.WithHTTPClient) may follow
// more; attemptTransport still keeps the credentials from leaving the
// origin.
func sameOriginRedirect(req *http.Request, via []*http.Request) error {
	if len(via) >= 5 || req.URL.Scheme != via[0].URL.Scheme || req.URL.Host != via[0].URL.Host {
		return http.ErrUseLastResponse
	}
	return nil
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

// DefaultAttemptTimeout bounds how long an attempt on the client's own
// connection pool may wait for data, when no option bounds the attempt: a
// server that accepts and never answers, or sends the headers and then
// stalls the body, ends the attempt with a timeout after at most this long
// without a byte, so a call without a deadline never hangs (the README's
// "Retries and timeouts" says why 30 s). It is a read deadline that follows
// the connection's traffic (httpx.BoundStalls), not http.Client.Timeout:
// the latter costs every attempt a goroutine and 18 allocations under a
// wrapped transport, as the SDK's is, and the success path has no room for
// that.
const DefaultAttemptTimeout = 30 * time.Second

// NewPooledTransport returns the connection pool a client makes for itself
// when no option gives a transport: go-cleanhttp's pooled transport, whose
// connections end a read that waits more than DefaultAttemptTimeout.
func NewPooledTransport() *http.Transport { return newPooledTransport(DefaultAttemptTimeout) }

func newPooledTransport(stall time.Duration) *http.Transport {
	t := cleanhttp.DefaultPooledTransport()
	httpx.BoundStalls(t, stall)
	return t
}

// attemptTransport is the SDK's own layer under the *http.Client of the
// attempts, below any redirect policy the user chose. For every HTTP request
// an attempt sends (a followed redirect is a request of its own) it
//
//   - removes the credentials from a request a redirect sends to another
//     origin than the base URL's, whatever CheckRedirect allowed;
//   - runs the call's middleware (option.WithMiddleware), client-wide first,
//     after the token and the signature are set.
//
// It also hides the user transport's CloseIdleConnections: go-retryablehttp
// calls it when it gives up, which would tear down a shared connection pool.
type attemptTransport struct{ next http.RoundTripper }

// credentialHeaders are the request headers the SDK puts a secret in: the
// bearer token or the SigV4 signature, and the AWS session token.
var credentialHeaders = []string{"Authorization", "X-Amz-Security-Token"}

func (t attemptTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	state := stateOf(req.Context())
	if state == nil {
		return t.next.RoundTrip(req)
	}
	if req.Response != nil && !state.sameOrigin(req) {
		req = req.Clone(req.Context())
		for _, h := range credentialHeaders {
			req.Header.Del(h)
		}
	}
	var resp *http.Response
	var err error
	if len(state.s.Middleware) == 0 {
		resp, err = t.next.RoundTrip(req)
	} else {
		resp, err = runMiddleware(state.s.Middleware, req, t.next.RoundTrip)
	}
	if resp == nil && err == nil {
		// net/http would report this with the SDK's internal type name.
		return nil, errors.New("memberplatform: a middleware or transport returned neither a response nor an error")
	}
	if resp != nil && resp.Request == nil {
		// net/http's Transport sets it; mocks and hand-made responses
		// often do not. The pipeline reads what was sent from it: the
		// token a 401 rejected, the secrets to redact from the answer.
		resp.Request = req
	}
	return resp, err
}
