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
	HTTPClient *http.Client      // its Transport, Jar, CheckRedirect and Timeout are used
	Transport  http.RoundTripper // wins over HTTPClient.Transport
	// DefaultTransport is client.New's own pool, used when neither
	// Transport nor HTTPClient gives one.
	DefaultTransport    http.RoundTripper
	Header              http.Header   // extra headers
	Query               url.Values    // extra query parameters
	Timeout             time.Duration // a whole call, retries and backoff included
	AttemptTimeout      time.Duration // one HTTP attempt, headers and body
	MaxResponseBytes    int64         // a 2xx body
	Middleware          []Middleware
	ResponseInto        **http.Response // receives the call's final response
	Idempotent          bool            // the call is safe to repeat whatever its method
	Retry               RetryPolicy
	Logger              *slog.Logger
	AppInfo             string       // appended to the User-Agent
	AllowInsecureBearer bool         // a bearer token may go over plain http to a non-loopback host
	JSONSet             []JSONMember // top-level members set in the JSON request body (a call's only)

	// Client-wide only: the token source (SigV4 asks client.New to build
	// one), the load control of each area (scope.go) and the observer,
	// shared by every call and by the token pipeline.
	TokenSource memberplatform.TokenSource
	SigV4       *SigV4Settings
	// MaxConnsPerHost bounds the connections per host of client.New's own
	// pool (option.WithMaxConnsPerHost); 0 sets no bound.
	MaxConnsPerHost int
	Scopes          [len(areas)]Scope
	Observer        observe.Observer

	cloned bool // Header/Query are private copies, safe to mutate
}

// SigV4Settings are what option.WithSigV4 records for client.New.
type SigV4Settings struct {
	Credentials aws.CredentialsProvider
	Region      string
}

// Applier is implemented by option.RequestOption values. perCall says s is
// one call's copy, so an option checks its own scope, once.
type Applier interface {
	ApplyTo(s *Settings, perCall bool) error
}

// Apply applies opts to s in order and returns the first error. Nil
// options are skipped; a value that is no Applier is refused.
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
	s.cloneMaps()
	return s.Header
}

// MutableQuery returns s.Query, copied first if it may be shared.
func (s *Settings) MutableQuery() url.Values {
	s.cloneMaps()
	return s.Query
}

func (s *Settings) cloneMaps() {
	if s.cloned {
		return
	}
	s.Header = s.Header.Clone()
	if s.Header == nil {
		s.Header = http.Header{}
	}
	s.Query = url.Values(http.Header(s.Query).Clone())
	if s.Query == nil {
		s.Query = url.Values{}
	}
	s.cloned = true
}

// DefaultSettings returns the SDK's defaults, with a retry budget, an
// adaptive pacer (dormant until a throttle) and admission control (idle
// until a failure) of their own in every area.
func DefaultSettings() Settings {
	s := Settings{Retry: DefaultRetryPolicy(), MaxResponseBytes: DefaultMaxResponseBytes}
	for i := range s.Scopes {
		s.Scopes[i] = Scope{Budget: NewRetryBudget(DefaultBudgetConfig()), Pacer: pacer.New(), Admission: NewAdmission()}
	}
	return s
}
