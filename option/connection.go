package option

import (
	"errors"
	"net/http"

	"github.com/memberplatform/memberplatform-go/internal/core"
)

// WithBaseURL sets the platform's base URL, such as
// "https://api.example.com" or "https://host/api/v2" (a path prefix is
// kept). It overrides MEMBERPLATFORM_BASE_URL.
//
// Scope: client-wide; a call given a different base URL fails, so the
// client's bearer token can never be sent to a host the client was not
// built for. Default: MEMBERPLATFORM_BASE_URL (required when this option is
// not given).
func WithBaseURL(rawURL string) RequestOption {
	return anywhere(func(s *core.Settings) error {
		u, err := core.ParseBaseURL(rawURL)
		if err != nil {
			return err
		}
		s.BaseURL = u
		return nil
	})
}

// WithHTTPClient sends requests with hc's Transport, Jar, CheckRedirect and
// Timeout (as the per-attempt timeout). The SDK never calls
// hc.CloseIdleConnections. See WithTransport for how a transport sees the
// SDK's requests. A nil hc, or one whose Transport or Jar is a nil pointer
// or func inside the interface, is refused (it would panic on every call).
//
// Scope: client-wide and per call. Default: a pooled transport of the
// client's own and a redirect policy that follows only same-origin
// redirects.
func WithHTTPClient(hc *http.Client) RequestOption {
	return anywhere(func(s *core.Settings) error {
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
	})
}

// WithTransport sends requests through rt (it wins over WithHTTPClient's
// transport). Use it for httpmock (httpmock.NewMockTransport()), proxies, or
// instrumenting transports. httpmock.Activate alone does not reach the SDK,
// which never uses http.DefaultTransport: pass the mock transport here.
//
// OpenTelemetry: the SDK has no OpenTelemetry dependency; compose
// go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp yourself:
//
//	base := http.DefaultTransport.(*http.Transport).Clone()
//	base.MaxIdleConnsPerHost = 32 // the default 2 throttles concurrent calls
//	c, err := client.New(option.WithTransport(otelhttp.NewTransport(base)))
//
// The transport sits below the retry loop, so each HTTP attempt is its own
// client span (retries carry an X-Retry-Attempt header), and the SigV4 token
// request is traced too. Spans are children of the span in the context
// passed to the operation, which also reaches the WithLogger handler.
// Headers the transport adds, such as traceparent, are added after SigV4
// signing and are not among the signed headers, so they do not break the
// signature. URL paths hold IDs: name spans with a low-cardinality
// otelhttp.WithSpanNameFormatter rather than the path. The SDK never closes
// the transport's idle connections.
//
// A nil rt, or a nil pointer or func inside the interface (a nil
// *http.Transport), is refused: it would panic on every call.
//
// Scope: client-wide and per call. Default: a pooled transport of the
// client's own (see client.Client.CloseIdleConnections).
func WithTransport(rt http.RoundTripper) RequestOption {
	return anywhere(func(s *core.Settings) error {
		if rt == nil {
			return errors.New("memberplatform: WithTransport: nil RoundTripper")
		}
		if core.NilInside(rt) {
			return core.TypedNilError("WithTransport", rt, "it would panic on every request")
		}
		s.Transport = rt
		return nil
	})
}

// WithInsecureBearerOverHTTP allows sending the bearer token over plain
// http:// to a host that is not loopback. Without it, client.New refuses
// such a configuration, because anyone on the path could read the token.
//
// Scope: client-wide. Default: refused (loopback hosts are always allowed).
func WithInsecureBearerOverHTTP() RequestOption {
	return anywhere(func(s *core.Settings) error {
		s.AllowInsecureBearer = true
		return nil
	})
}
