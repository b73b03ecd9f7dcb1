// Package core is the SDK's request pipeline. A call goes through these
// stages, each in its own file:
//
//	do.go          Do: the stages below, in order
//	settings.go    client settings merged with the call's options
//	request.go     URL (path escaping, query) and JSON body
//	authorize.go   bearer token from the cache; a 401 drops it and resends once
//	attempts.go    the attempt loop on go-retryablehttp: backoff, Retry-After,
//	               deadline, re-signing
//	failure.go     the typed error for a send that got no final response
//	retry.go       the pure retry decision (RetryPolicy.Decide)
//	body.go        bounded reading of response bodies inside the attempt
//	decode.go      the 2xx result (errors are decoded once, in attempts.go)
//	log.go         allow-listed log records
//	budget.go      the client's retry budget, consulted before each retry
//	ratelimit.go   rate limiters waited on before each attempt; the
//	               adaptive one (internal/pacer) learns the provider's rate
//
// Beside them: operation.go (Operation and Call, the data an area method
// hands to Do), transport.go (the SDK's layer under the *http.Client:
// middleware and credentials kept on the origin), middleware.go, redact.go
// (secrets a server echoes back), tokens.go (the token cache), observe.go
// (what the client's observer, option.WithObserver, is told),
// httpclient.go (the *http.Client the attempts use), baseurl.go (the
// base-URL rules), client.go and areas.go (how client.New wires it). Users
// reach all of it through the public packages client and option.
package core

import (
	"errors"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/hashicorp/go-cleanhttp"

	memberplatform "github.com/memberplatform/memberplatform-go"
	"github.com/memberplatform/memberplatform-go/internal/pacer"
	"github.com/memberplatform/memberplatform-go/observe"
)

// Settings is everything an option can change. The Client holds the
// defaults; a call with options works on a copy.
type Settings struct {
	BaseURL    *url.URL
	HTTPClient *http.Client      // user's client; its Transport, Jar, CheckRedirect and Timeout are used
	Transport  http.RoundTripper // user's transport; wins over HTTPClient.Transport
	// DefaultTransport is used when neither Transport nor HTTPClient gives
	// one: client.New's own pool, shared by the API and token calls.
	DefaultTransport http.RoundTripper
	Header           http.Header // extra headers, sent on every request
	Query            url.Values  // extra query parameters
	// Timeout bounds a whole call, retries and backoff included.
	Timeout time.Duration
	// AttemptTimeout bounds one HTTP attempt (headers and body). Without
	// it, the client's own transport still bounds the wait for headers
	// (DefaultAttemptTimeout).
	AttemptTimeout time.Duration
	// MaxResponseBytes bounds a 2xx body; a longer one fails the call.
	MaxResponseBytes int64
	// Middleware runs on every HTTP request of every attempt, in order.
	Middleware []Middleware
	// ResponseInto, when set, receives the call's final response.
	ResponseInto **http.Response
	// Idempotent marks the call safe to repeat whatever its method.
	Idempotent bool
	// HTTPChanged says an option set the transport, the HTTP client or the
	// per-attempt timeout, so a call needs an *http.Client of its own.
	// Options set it rather than the pipeline comparing RoundTrippers,
	// which may not be comparable (a func type panics on ==).
	HTTPChanged bool
	Retry       RetryPolicy
	Logger      *slog.Logger
	// LoggerSet says option.WithLogger chose Logger, even nil: then
	// MEMBERPLATFORM_LOG is not read.
	LoggerSet bool
	AppInfo   string // appended to the User-Agent
	// AllowInsecureBearer permits sending a bearer token over plain http to
	// a host that is not loopback.
	AllowInsecureBearer bool

	// TokenSource is the bearer token source; TokenSourceSet says an
	// option chose it, even if nil. SigV4, when set, asks client.New to
	// build a SigV4 source instead. Client-wide only.
	TokenSource    memberplatform.TokenSource
	TokenSourceSet bool
	SigV4          *SigV4Settings

	// Load bounding (budget.go, ratelimit.go), client-wide only: the
	// pointers are shared by every call and by the token pipeline built
	// from a copy of these settings. RetryBudget nil disables the budget.
	// LoadSet says an option set one of them, so a call's options can be
	// refused.
	RetryBudget *RetryBudget
	RateLimiter RateLimiter
	Adaptive    *pacer.Pacer // nil when option.WithoutAdaptiveRateLimit turned it off
	LoadSet     bool

	// Observer sees the client's calls, attempts, waits and decisions
	// (observe.go); nil observes nothing, at no cost. Client-wide only:
	// ObserverSet says an option set it.
	Observer    observe.Observer
	ObserverSet bool

	cloned bool // Header/Query are private copies, safe to mutate
}

// SigV4Settings are what option.WithSigV4 records for client.New.
type SigV4Settings struct {
	Credentials aws.CredentialsProvider
	Region      string
}

// Applier is implemented by option.RequestOption values. The public
// interface has only an unexported method, so that every option is built
// and documented in package option; the pipeline reaches the option's
// behaviour through this interface.
type Applier interface {
	ApplyTo(*Settings) error
}

// Apply applies opts to s in order and returns the first error. Nil
// options are skipped.
func Apply[O any](s *Settings, opts []O) error {
	for _, o := range opts {
		switch a := any(o).(type) {
		case nil:
		case Applier:
			if err := a.ApplyTo(s); err != nil {
				return err
			}
		default:
			return errors.New("memberplatform: not an option from package option")
		}
	}
	return nil
}

// MutableHeader returns s.Header, copied first if it may be shared.
func (s *Settings) MutableHeader() http.Header {
	if !s.cloned {
		s.cloneMaps()
	}
	return s.Header
}

// MutableQuery returns s.Query, copied first if it may be shared.
func (s *Settings) MutableQuery() url.Values {
	if !s.cloned {
		s.cloneMaps()
	}
	return s.Query
}

func (s *Settings) cloneMaps() {
	s.Header = s.Header.Clone()
	if s.Header == nil {
		s.Header = http.Header{}
	}
	q := url.Values{}
	for k, v := range s.Query {
		q[k] = append([]string(nil), v...)
	}
	s.Query = q
	s.cloned = true
}

// DefaultAttemptTimeout is how long the client's own connection pool waits
// for an attempt's response headers when no option bounds the attempt, so
// that a call without a deadline never hangs on a server that accepts the
// connection and never answers. Every operation of the contract is one
// small JSON exchange that a working service answers in well under a
// second; 30 s leaves room for a slow provider behind the platform and is
// half the 60 s idle timeout of common load balancers (AWS ALB, nginx's
// proxy_read_timeout), which answer 504 past it anyway. A timed-out attempt
// is retried like a connection failure, within the retry budget.
//
// It is the transport's ResponseHeaderTimeout, not http.Client.Timeout:
// the latter costs every attempt a goroutine and 18 allocations when the
// transport is wrapped, as the SDK's is, and the success path has no room
// for that. option.WithAttemptTimeout still sets http.Client.Timeout,
// which bounds the body too.
const DefaultAttemptTimeout = 30 * time.Second

// NewPooledTransport returns the connection pool a client makes for itself
// when no option gives a transport: go-cleanhttp's pooled transport, which
// waits at most DefaultAttemptTimeout for response headers.
func NewPooledTransport() *http.Transport {
	t := cleanhttp.DefaultPooledTransport()
	t.ResponseHeaderTimeout = DefaultAttemptTimeout
	return t
}

// DefaultSettings returns the SDK's defaults, before options and
// environment. Each call gives a client a retry budget and an adaptive
// limiter (dormant until the first throttle) of its own.
func DefaultSettings() Settings {
	return Settings{Retry: DefaultRetryPolicy(), MaxResponseBytes: DefaultMaxResponseBytes,
		RetryBudget: NewRetryBudget(DefaultBudgetConfig()), Adaptive: pacer.New()}
}

// callSettings returns the settings for one call: the client's own when
// there are no options (shared, never written), else a copy with opts
// applied. It also returns the retrying client to send with, which differs
// from the client's only when an option changed the transport or the
// per-attempt timeout.
func callSettings[O any](c *Client, call *Call, opts []O) (*Settings, *attemptClient, error) {
	if len(opts) == 0 {
		return &c.settings, c.attempts, nil
	}
	s := c.settings
	// Header and Query are shared with the client: copy them before a
	// per-call option writes to them. TokenSourceSet is cleared so that a
	// per-call WithTokenSource is detected without comparing sources (a
	// TokenSourceFunc is not comparable: == would panic).
	s.cloned = false
	s.TokenSourceSet = false
	s.HTTPChanged = false
	s.LoadSet = false
	s.ObserverSet = false
	if err := Apply(&s, opts); err != nil {
		return nil, nil, invalidCall(call, "options", strings.TrimPrefix(err.Error(), "memberplatform: "))
	}
	if s.TokenSourceSet {
		return nil, nil, invalidCall(call, "options", "WithTokenSource and WithSigV4 apply to client.New, not to a single call")
	}
	if s.LoadSet {
		return nil, nil, invalidCall(call, "options", clientWideLoadOptions)
	}
	if s.ObserverSet {
		return nil, nil, invalidCall(call, "options", clientWideObserver)
	}
	if !sameBaseURL(s.BaseURL, c.settings.BaseURL) {
		// The client's token must never go to a host it was not built for.
		return nil, nil, invalidCall(call, "options", "a per-call WithBaseURL must equal the client's base URL")
	}
	s.BaseURL = c.settings.BaseURL
	if s.AllowInsecureBearer != c.settings.AllowInsecureBearer {
		return nil, nil, invalidCall(call, "options", "WithInsecureBearerOverHTTP applies to client.New, not to a single call")
	}
	ac := c.attempts
	if s.HTTPChanged {
		ac = newAttemptClient(buildHTTPClient(&s, c.attempts.http))
	}
	return &s, ac, nil
}

// sameBaseURL reports whether a and b name the same base URL: the same
// scheme, host and path prefix, a trailing slash aside (the pipeline trims
// it when it builds a URL).
func sameBaseURL(a, b *url.URL) bool {
	return strings.EqualFold(a.Scheme, b.Scheme) && strings.EqualFold(a.Host, b.Host) &&
		strings.TrimSuffix(a.EscapedPath(), "/") == strings.TrimSuffix(b.EscapedPath(), "/")
}
