package client

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/google/go-querystring/query"

	"github.com/memberplatform/memberplatform-go/internal/core"
)

// Option configures a Client (passed to New) or a single call (passed as a
// trailing argument to any operation). The same options work in both places
// unless their doc says otherwise; per-call options override client-wide ones
// for that call only.
type Option = core.Option

// WithBaseURL sets the platform's base URL, such as
// "https://api.example.com" or "https://host/api/v2" (a path prefix is
// kept). It overrides MEMBERPLATFORM_BASE_URL. Client-wide only: a call
// given a different base URL fails, so the client's bearer token can never
// be sent to a host the client was not built for.
func WithBaseURL(rawURL string) Option {
	return func(s *core.Settings) error {
		u, err := parseBaseURL(rawURL)
		if err != nil {
			return err
		}
		s.BaseURL = u
		return nil
	}
}

func parseBaseURL(rawURL string) (*url.URL, error) {
	u, err := url.Parse(strings.TrimSpace(rawURL))
	if err != nil {
		return nil, fmt.Errorf("memberplatform: invalid base URL: %w", err)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, errors.New("memberplatform: base URL must be an absolute http or https URL, such as https://api.example.com")
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return nil, errors.New("memberplatform: base URL must not have a query or fragment")
	}
	if u.User != nil {
		return nil, errors.New("memberplatform: base URL must not carry user credentials; use a token source")
	}
	return u, nil
}

// WithHTTPClient sends requests with hc's Transport, Jar, CheckRedirect and
// Timeout (as the per-attempt timeout). The SDK never calls
// hc.CloseIdleConnections. Compose instrumentation here, for example
// OpenTelemetry:
//
//	client.WithHTTPClient(&http.Client{Transport: otelhttp.NewTransport(http.DefaultTransport)})
//
// See WithTransport for how such a transport sees the SDK's requests.
func WithHTTPClient(hc *http.Client) Option {
	return func(s *core.Settings) error {
		if hc == nil {
			return errors.New("memberplatform: WithHTTPClient: nil *http.Client")
		}
		s.HTTPClient = hc
		return nil
	}
}

// WithTransport sends requests through rt (wins over WithHTTPClient's
// transport). Use it for httpmock (httpmock.NewMockTransport()), proxies, or
// instrumenting transports such as otelhttp.NewTransport(base).
//
// OpenTelemetry: the SDK has no OpenTelemetry dependency; compose
// go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp yourself:
//
//	base := http.DefaultTransport.(*http.Transport).Clone()
//	base.MaxIdleConnsPerHost = 32 // the default 2 throttles concurrent calls
//	c, err := client.New(client.WithTransport(otelhttp.NewTransport(base)))
//
// The transport sits below the retry loop, so each HTTP attempt is its own
// client span (retries carry an X-Retry-Attempt header), and the SigV4 token
// request is traced too when its source uses the client's transport (given
// to WithTokenSource or WithSigV4). Spans are children of the span in the context
// passed to the operation, which also reaches the WithLogger handler, so a
// trace-aware slog handler can correlate the SDK's records with the spans.
// Headers the transport adds, such as traceparent, are added after SigV4
// signing and are not among the signed headers, so they do not break the
// signature. URL paths hold IDs: name spans with a low-cardinality
// otelhttp.WithSpanNameFormatter (the method, or your own operation name)
// rather than the path. The SDK never closes the transport's idle
// connections; the transport remains yours to manage.
func WithTransport(rt http.RoundTripper) Option {
	return func(s *core.Settings) error {
		if rt == nil {
			return errors.New("memberplatform: WithTransport: nil RoundTripper")
		}
		s.Transport = rt
		return nil
	}
}

// WithHeader adds a header to every request (client-wide) or to one call,
// such as a correlation ID. Headers the SDK manages cannot be set this way:
// Authorization (use WithTokenSource), User-Agent (use WithAppInfo),
// Content-Type, Content-Length, Accept and Host. A name or value with
// characters HTTP does not allow (such as a newline) is refused.
func WithHeader(key, value string) Option {
	return func(s *core.Settings) error {
		ck := http.CanonicalHeaderKey(key)
		switch ck {
		case "Authorization":
			return errors.New("memberplatform: WithHeader cannot set Authorization; use WithTokenSource")
		case "User-Agent":
			return errors.New("memberplatform: WithHeader cannot set User-Agent; use WithAppInfo")
		case "Content-Type", "Content-Length", "Accept", "Host":
			return fmt.Errorf("memberplatform: WithHeader cannot set %s: the SDK manages it", ck)
		}
		if !validHeaderName(key) {
			return fmt.Errorf("memberplatform: WithHeader: invalid header name %q", key)
		}
		for i := 0; i < len(value); i++ {
			if c := value[i]; (c < 0x20 && c != '\t') || c == 0x7f {
				return fmt.Errorf("memberplatform: WithHeader: the value of %s has a control character at byte %d", ck, i)
			}
		}
		s.MutableHeader().Add(ck, value)
		return nil
	}
}

// validHeaderName reports whether name is an RFC 9110 token.
func validHeaderName(name string) bool {
	if name == "" {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if c <= ' ' || c >= 0x7f || strings.IndexByte(`"(),/:;<=>?@[\]{}`, c) >= 0 {
			return false
		}
	}
	return true
}

// WithQuery adds the query parameters encoded from v, a struct tagged for
// github.com/google/go-querystring (`url:"name,omitempty"`), or a
// url.Values. The platform's four operations take no query parameters;
// this exists for gateways and future operations.
func WithQuery(v any) Option {
	return func(s *core.Settings) error {
		var vals url.Values
		switch t := v.(type) {
		case url.Values:
			vals = t
		default:
			var err error
			if vals, err = query.Values(v); err != nil {
				return fmt.Errorf("memberplatform: WithQuery: %w", err)
			}
		}
		q := s.MutableQuery()
		for k, vs := range vals {
			q[k] = append(q[k], vs...)
		}
		return nil
	}
}

// WithTimeout bounds a whole call, retries and backoff included. The
// context's own deadline applies too; the earlier one wins.
func WithTimeout(d time.Duration) Option {
	return func(s *core.Settings) error {
		if d < 0 {
			return errors.New("memberplatform: WithTimeout: negative duration")
		}
		s.Timeout = d
		return nil
	}
}

// WithAttemptTimeout bounds each HTTP attempt (response headers and body);
// a timed-out attempt is retried like a connection error. 0 means none.
func WithAttemptTimeout(d time.Duration) Option {
	return func(s *core.Settings) error {
		if d < 0 {
			return errors.New("memberplatform: WithAttemptTimeout: negative duration")
		}
		s.AttemptTimeout = d
		return nil
	}
}

// WithMaxRetries sets how many times a retriable failure is retried
// (default 3, so 4 attempts); 0 disables retries.
func WithMaxRetries(n int) Option {
	return func(s *core.Settings) error {
		if n < 0 {
			return errors.New("memberplatform: WithMaxRetries: negative count")
		}
		s.Retry.MaxRetries = n
		return nil
	}
}

// WithRetryBackoff sets the exponential backoff: retry n waits a uniformly
// random duration in [0, min(max, base·2ⁿ)) ("full jitter"). Defaults 250ms
// and 8s.
func WithRetryBackoff(base, max time.Duration) Option {
	return func(s *core.Settings) error {
		if base <= 0 || max < base {
			return errors.New("memberplatform: WithRetryBackoff: need 0 < base <= max")
		}
		s.Retry.BaseDelay, s.Retry.MaxDelay = base, max
		return nil
	}
}

// WithMaxRetryAfter caps how long the SDK waits when a 429 or 503 carries
// Retry-After or Retry-After-Ms (default 20s). A longer request stops the
// call at once with the rate-limited error, whose RetryAfter holds the
// asked duration, so the caller can decide.
func WithMaxRetryAfter(d time.Duration) Option {
	return func(s *core.Settings) error {
		if d < 0 {
			return errors.New("memberplatform: WithMaxRetryAfter: negative duration")
		}
		s.Retry.MaxRetryAfter = d
		return nil
	}
}

// WithLogger logs one Debug record per HTTP attempt (operation, method,
// path template, status, attempt, duration, request ID) and a Warn record
// for each retry and give-up. Only those allow-listed values are logged:
// never headers, tokens, signatures or bodies. Without a logger nothing is
// logged.
func WithLogger(l *slog.Logger) Option {
	return func(s *core.Settings) error {
		s.Logger = l
		return nil
	}
}

// WithAppInfo appends "name/version" to the User-Agent, so the platform's
// operators can tell which service is calling.
func WithAppInfo(name, version string) Option {
	return func(s *core.Settings) error {
		if strings.ContainsAny(name+version, " \r\n/") || name == "" {
			return errors.New("memberplatform: WithAppInfo: name and version must be non-empty tokens without spaces or '/'")
		}
		info := name
		if version != "" {
			info += "/" + version
		}
		if s.AppInfo != "" {
			info = s.AppInfo + " " + info
		}
		s.AppInfo = info
		return nil
	}
}

// WithInsecureBearerOverHTTP allows sending the bearer token over plain
// http:// to a host that is not loopback. Without it, New refuses such a
// configuration, because anyone on the path could read the token.
func WithInsecureBearerOverHTTP() Option {
	return func(s *core.Settings) error {
		s.AllowInsecureBearer = true
		return nil
	}
}
