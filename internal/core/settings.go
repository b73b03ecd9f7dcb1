package core

import (
	"errors"
	"log/slog"
	"net/http"
	"net/url"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"

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
	Retry      RetryPolicy
	Logger     *slog.Logger
	AppInfo    string // appended to the User-Agent
	// AllowInsecureBearer permits sending a bearer token over plain http to
	// a host that is not loopback.
	AllowInsecureBearer bool

	// TokenSource is the bearer token source, nil for none. SigV4, when
	// set, asks client.New to build a SigV4 source instead. Client-wide
	// only.
	TokenSource memberplatform.TokenSource
	SigV4       *SigV4Settings

	// Load bounding (budget.go, ratelimit.go), client-wide only: the
	// pointers are shared by every call and by the token pipeline built
	// from a copy of these settings. RetryBudget nil disables the budget.
	RetryBudget *RetryBudget
	RateLimiter RateLimiter
	Adaptive    *pacer.Pacer // nil when option.WithoutAdaptiveRateLimit turned it off

	// Observer sees the client's calls, attempts, waits and decisions
	// (observe.go); nil observes nothing, at no cost. Client-wide only.
	Observer observe.Observer

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
// behaviour through this interface. perCall says s is one call's copy: an
// option that applies to client.New only (or to a call only) refuses
// itself there, so the scope is checked once, by the option.
type Applier interface {
	ApplyTo(s *Settings, perCall bool) error
}

// Apply applies opts to s in order and returns the first error. Nil
// options are skipped; a value that is not an Applier (a type embedding
// option.RequestOption, say) is refused.
func Apply[O any](s *Settings, perCall bool, opts []O) error {
	for _, o := range opts {
		switch a := any(o).(type) {
		case nil:
		case Applier:
			if err := a.ApplyTo(s, perCall); err != nil {
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

// DefaultSettings returns the SDK's defaults, before options and
// environment. Each call gives a client a retry budget and an adaptive
// limiter (dormant until the first throttle) of its own.
func DefaultSettings() Settings {
	return Settings{Retry: DefaultRetryPolicy(), MaxResponseBytes: DefaultMaxResponseBytes,
		RetryBudget: NewRetryBudget(DefaultBudgetConfig()), Adaptive: pacer.New()}
}
