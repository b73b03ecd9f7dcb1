package option

import (
	"errors"
	"net/http"

	"github.com/aws/aws-sdk-go-v2/aws"

	memberplatform "github.com/memberplatform/memberplatform-go"
	"github.com/memberplatform/memberplatform-go/internal/core"
)

// WithBaseURL sets the platform's base URL, such as "https://host/api/v2"
// (a path prefix is kept).
//
// Scope: client (a call given a different one fails, so the bearer token
// never goes to another host). Default: MEMBERPLATFORM_BASE_URL, required
// without this option.
func WithBaseURL(rawURL string) RequestOption {
	return requestOption{apply: func(s *core.Settings) error {
		u, err := core.ParseBaseURL(rawURL)
		if err != nil {
			return err
		}
		s.BaseURL = u
		return nil
	}}
}

// WithHTTPClient sends requests with hc's Transport, Jar, CheckRedirect and
// Timeout (per attempt); see WithTransport. The SDK never closes its idle
// connections. Size hc's pool for your concurrency: a transport keeping
// fewer idle connections per host than the calls in flight closes a
// connection at the end of nearly every call and opens a new one (a TLS
// handshake) for the next; http.DefaultTransport keeps 2.
//
// Scope: both. Default: a pooled transport of the client's own, following
// only same-origin redirects.
func WithHTTPClient(hc *http.Client) RequestOption {
	return requestOption{apply: func(s *core.Settings) error {
		if hc == nil {
			return errors.New("memberplatform: WithHTTPClient: nil *http.Client")
		}
		if core.NilInside(hc.Transport) {
			return core.TypedNilError("WithHTTPClient", hc.Transport, "its Transport would panic on every request; leave Transport nil for the default")
		}
		if core.NilInside(hc.Jar) {
			return core.TypedNilError("WithHTTPClient", hc.Jar, "its Jar would panic on every request; leave Jar nil for no cookies")
		}
		s.HTTPClient = hc
		return nil
	}}
}

// WithTransport sends each attempt, signed, through rt, over
// WithHTTPClient's transport; the SDK never closes its idle connections,
// and never uses http.DefaultTransport: pass httpmock.NewMockTransport()
// here. For OpenTelemetry spans of each attempt, token request included
// (name them with otelhttp.WithSpanNameFormatter: URL paths hold IDs):
//
//	base := http.DefaultTransport.(*http.Transport).Clone()
//	base.MaxIdleConnsPerHost = 32 // the default 2 throttles concurrent calls
//	c, err := client.New(option.WithTransport(otelhttp.NewTransport(base)))
//
// As with WithHTTPClient, size rt's pool for your concurrency
// (MaxIdleConnsPerHost at least the calls in flight).
//
// Scope: both. Default: a pooled transport of the client's own, keeping up
// to 100 idle connections per host for 30 s, with HTTP/2 when the server
// offers it (see WithMaxConnsPerHost and
// client.Client.CloseIdleConnections).
func WithTransport(rt http.RoundTripper) RequestOption {
	return requestOption{apply: func(s *core.Settings) error {
		if rt == nil {
			return errors.New("memberplatform: WithTransport: nil RoundTripper")
		}
		if core.NilInside(rt) {
			return core.TypedNilError("WithTransport", rt, "it would panic on every request")
		}
		s.Transport = rt
		return nil
	}}
}

// WithMaxConnsPerHost bounds the connections per host, dialing, active
// and idle, of the client's own pool, for a server or a proxy that caps
// connections per client: a call beyond the bound waits for a connection
// to be free (within its deadline). It keeps at most n of them idle. Over
// HTTP/2 each connection carries many calls at once. It applies only to
// the pool client.New makes: with WithTransport or WithHTTPClient's own
// transport, client.New fails; set MaxConnsPerHost on that transport
// instead.
//
// sdktest's clients send over the fake's transport: leave this option out
// of the options a test client shares with production.
//
// Scope: client. Default: 0, no bound; the pool keeps up to 100 idle
// connections per host, so at up to 100 calls in flight no call opens a
// connection that an earlier one could have reused.
func WithMaxConnsPerHost(n int) RequestOption {
	return clientWide(clientWidePool, checked(n < 0, "WithMaxConnsPerHost: negative bound", func(s *core.Settings) { s.MaxConnsPerHost = n }))
}

// WithInsecureBearerOverHTTP allows the bearer token over plain http:// to
// a host that is not loopback, or to a loopback one through a proxy, where
// anyone on the path could read it.
//
// Scope: client. Default: refused by client.New. Loopback is allowed when
// the request goes there directly: the client's own pool never sends a
// loopback name (LOCALHOST, api.localhost, localhost.) through
// HTTP_PROXY, and dials only loopback addresses for it; a transport of
// your own (WithTransport, WithHTTPClient) that would use a proxy for the
// base URL (its Proxy func; for a transport other than *http.Transport,
// the environment's HTTP_PROXY and NO_PROXY) is refused, at New and
// before each request that carries a credential.
func WithInsecureBearerOverHTTP() RequestOption {
	return set(func(s *core.Settings) { s.AllowInsecureBearer = true })
}

// WithTokenSource sends "Authorization: Bearer <token>" from ts (such as
// client.StaticToken or a *client.SigV4TokenSource) on every call;
// WithTokenSource(nil) sends none (local development). A fetch from ts is
// bounded by 30 s: one that has not returned by then (a source ignoring
// its context) is abandoned, its callers fail with an
// *errors.TokenError, and the next call starts a new fetch.
//
// Scope: client. Default: chosen from the environment (see client.New).
func WithTokenSource(ts memberplatform.TokenSource) RequestOption {
	return clientWide(clientWideAuth, requestOption{apply: func(s *core.Settings) error {
		if core.NilInside(ts) {
			return core.TypedNilError("WithTokenSource", ts, "pass nil itself to send no token")
		}
		s.TokenSource, s.SigV4 = ts, nil
		return nil
	}})
}

// WithSigV4 obtains the bearer token from POST /auth/token, signed with AWS
// Signature Version 4 using creds and region (see client.SigV4TokenSource);
// each client built with it gets its own source. A nil creds, or an
// aws.CredentialsCache around one, is refused: the AWS SDK would panic in a
// goroutine of its own.
//
// Clock skew: a signature is valid only within 5 minutes of the token
// endpoint's clock. When the endpoint refuses a request (400, 401, 403)
// and its answer's Date is more than a minute from the host's clock, the
// source signs again, once, by the endpoint's time, and keeps that offset
// for later signatures until an answer shows the clocks agree again (a
// Warn record through WithLogger at each change). So a host 15 minutes
// off costs one refused token request per change of skew, never a loop.
//
// Scope: client. Default: chosen from the environment (see client.New).
func WithSigV4(creds aws.CredentialsProvider, region string) RequestOption {
	return clientWide(clientWideAuth, requestOption{apply: func(s *core.Settings) error {
		if err := core.CheckCredentialsProvider(creds); err != nil {
			return errors.New("memberplatform: option.WithSigV4: " + err.Error())
		}
		s.TokenSource, s.SigV4 = nil, &core.SigV4Settings{Credentials: creds, Region: region}
		return nil
	}})
}
