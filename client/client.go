// Package client is the entry point of the memberplatform-go SDK: New
// builds a Client whose AccessMgmt, Payments and Customer fields call the
// platform's operations.
//
//	c, err := client.New(option.WithBaseURL("https://api.example.com"), option.WithTokenSource(ts))
//	u, err := c.AccessMgmt.UpdateUser(ctx, "user_01E4ZCR3C56J083X43JQXF3JK5", accessmgmt.UpdateUserParams{FirstName: new("Ada")})
//
// # Configuration from the environment
//
// New with no options reads:
//
//   - MEMBERPLATFORM_BASE_URL: the base URL (required unless
//     option.WithBaseURL is given).
//   - The bearer token source, first match wins: an explicit
//     option.WithTokenSource or option.WithSigV4; else MEMBERPLATFORM_TOKEN (a static service JWT) when
//     non-empty; else, when AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY are
//     set, a SigV4TokenSource using them, AWS_SESSION_TOKEN if present,
//     AWS_REGION (or AWS_DEFAULT_REGION) and MEMBERPLATFORM_SIGV4_SERVICE
//     (default "execute-api"); else no token (local development).
//
// Explicit options always win over the environment.
//
// # Transport, retries and errors
//
// Requests go through a retrying transport (github.com/hashicorp/go-retryablehttp)
// configured for an SDK: only retriable outcomes are retried (connection
// errors, 408, 429, 500, 502, 503, 504), with exponential backoff and full
// jitter, honouring Retry-After up to a cap and never waiting past the
// context's deadline. Every failure is a typed error from package
// github.com/memberplatform/memberplatform-go/errors.
//
// Defaults: 3 retries (4 attempts), backoff base 250ms capped at 8s,
// Retry-After honoured on 429 and 503 up to 20s (a longer request stops the
// call with the rate-limited error and its RetryAfter), no whole-call
// timeout beyond the context's, and on the client's own connection pool a
// read that waits 30 s without a byte ends the attempt (so a call without a
// deadline never hangs; option.WithAttemptTimeout bounds a whole attempt).
// All four operations and the token
// call are idempotent in effect, so they are retried after timeouts and 5xx
// answers. Retried requests carry an X-Retry-Attempt header (1 for the first
// retry) for server-side telemetry; it is set before SigV4 signing, so the
// signature covers it.
//
// Retries are also bounded client-wide: failures are budgeted, throttles are
// paced. A retry budget shared by all calls stops retrying failures (5xx,
// timeouts), in a sustained outage, once the calls' retries have spent it,
// until healthy answers refill it (option.WithRetryBudget). The first 429
// engages an adaptive rate limit that learns the provider's limit and paces
// every attempt just under it (option.WithoutAdaptiveRateLimit turns it
// off); throttled retries cost the budget nothing while it does. Attempts
// can also be paced by a rate limiter of yours (option.WithRateLimiter).
//
// # Security
//
// A bearer token is never sent over plain http to a host that is not
// loopback, unless option.WithInsecureBearerOverHTTP is given. Tokens, AWS secrets
// and signatures never appear in log records or error strings; path
// parameters are escaped, so an ID such as "a/b" or ".." cannot change the
// path.
//
// # Testing code that uses the SDK
//
// Package github.com/memberplatform/memberplatform-go/sdktest runs an in-process fake of the platform; or pass
// option.WithTransport(httpmock.NewMockTransport()) to script the HTTP
// answers.
package client

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"os"
	"strings"

	"github.com/memberplatform/memberplatform-go/accessmgmt"
	"github.com/memberplatform/memberplatform-go/customer"
	apierrors "github.com/memberplatform/memberplatform-go/errors"
	"github.com/memberplatform/memberplatform-go/internal/core"
	"github.com/memberplatform/memberplatform-go/option"
	"github.com/memberplatform/memberplatform-go/payments"
)

// Client calls the member platform. Build it with New; it is safe for
// concurrent use and should be reused (it holds the connection pool and the
// token cache).
type Client struct {
	AccessMgmt *accessmgmt.Service // users and organization role permissions
	Payments   *payments.Service   // payment methods
	Customer   *customer.Service   // member addresses

	core  *core.Client
	owned *http.Transport // the pool New created, nil with a user transport
}

// Environment variables New reads.
const (
	EnvBaseURL      = "MEMBERPLATFORM_BASE_URL"
	EnvToken        = "MEMBERPLATFORM_TOKEN"
	EnvSigV4Service = "MEMBERPLATFORM_SIGV4_SERVICE"
	// EnvLog, set to debug, info, warn or error, sends the SDK's log
	// records at that level and above to stderr when no option.WithLogger
	// is given. Unset, nothing is logged and logging costs nothing.
	EnvLog = "MEMBERPLATFORM_LOG"
)

// New returns a Client configured from the environment (see the package
// documentation) and then opts. It fails, before any network activity, on a
// missing or invalid base URL, on an invalid option, and when a bearer token
// would be sent over plain http to a non-loopback host. An option that takes
// an interface or a pointer refuses a "typed nil" (an interface holding a
// nil pointer or func, such as option.WithRateLimiter((*rate.Limiter)(nil))),
// which would panic later; a plain nil keeps the meaning the option
// documents.
//
// Its errors are *errors.ValidationError values (errors.Is(err,
// apierrors.ErrInvalidInput)) whose single field, "config", says what is
// wrong.
func New(opts ...option.RequestOption) (*Client, error) {
	c, err := newClient(opts)
	if err != nil {
		return nil, &apierrors.ValidationError{Operation: "client.New", Fields: []apierrors.FieldError{{Field: "config", Message: strings.TrimPrefix(err.Error(), "memberplatform: ")}}}
	}
	return c, nil
}

func newClient(opts []option.RequestOption) (*Client, error) {
	s := core.DefaultSettings()
	// The environment's logger and token source are defaults like the
	// others, which an option replaces (even with nil). They are read only
	// when no option did, so a bad variable cannot fail a client that does
	// not use it.
	s.Logger, s.TokenSource = loggerFromEnvironment, tokenSourceFromEnvironment{}
	if err := core.Apply(&s, false, opts); err != nil {
		return nil, err
	}
	if core.NilInside(s.RateLimiter) {
		// Checked here rather than in the option: every attempt waits on
		// the limiter first, so a typed nil would panic on every call.
		return nil, core.TypedNilError("WithRateLimiter", s.RateLimiter, "pass a limiter, or leave the option out for none")
	}
	if s.Logger == loggerFromEnvironment {
		l, err := loggerFromEnv()
		if err != nil {
			return nil, err
		}
		s.Logger = l
	}
	if s.BaseURL == nil { // an explicit WithBaseURL wins over the environment
		v := os.Getenv(EnvBaseURL)
		if v == "" {
			return nil, errors.New("memberplatform: no base URL: pass option.WithBaseURL or set " + EnvBaseURL)
		}
		u, err := core.ParseBaseURL(v)
		if err != nil {
			return nil, errors.New(err.Error() + " (from " + EnvBaseURL + ")")
		}
		s.BaseURL = u
	}
	var owned *http.Transport
	if s.Transport == nil && (s.HTTPClient == nil || s.HTTPClient.Transport == nil) {
		// One connection pool for the API calls and the token calls.
		owned = core.NewPooledTransport() // bounds a stalled read: core.DefaultAttemptTimeout
		s.DefaultTransport = owned
	}
	ts, err := tokenSourceFromSettings(&s)
	if err != nil {
		return nil, err
	}
	if st, ok := ts.(staticToken); ok {
		if err := core.CheckTokenValue(string(st)); err != nil {
			return nil, errors.New("memberplatform: static token: " + err.Error())
		}
	}
	var tokens *core.TokenCache
	if ts != nil {
		tokens = core.NewTokenCache(fetcherFor(ts))
		tokens.Logger = s.Logger // warns once about a token that arrives already expired
	}
	pipeline, err := core.New(s, tokens)
	if err != nil {
		return nil, err
	}
	if sv, ok := ts.(*SigV4TokenSource); ok {
		// The token request goes to the same platform with the same
		// transport and retry settings, without a bearer token.
		plain := s
		plain.TokenSource = nil
		tokenPipeline, err := core.New(plain, nil)
		if err != nil {
			return nil, err
		}
		if err := sv.bind(tokenPipeline); err != nil {
			return nil, err
		}
	}
	return &Client{
		AccessMgmt: core.NewAccessMgmt(pipeline).(*accessmgmt.Service),
		Payments:   core.NewPayments(pipeline).(*payments.Service),
		Customer:   core.NewCustomer(pipeline).(*customer.Service),
		core:       pipeline,
		owned:      owned,
	}, nil
}

// CloseIdleConnections closes the idle connections of the connection pool
// the client created for itself (when no option.WithTransport or
// option.WithHTTPClient transport was given). It never touches a transport
// you passed in. Call it when you are done with a client that you will not
// reuse, as you would with an http.Client.
func (c *Client) CloseIdleConnections() {
	if c.owned != nil {
		c.owned.CloseIdleConnections()
	}
}

// tokenSourceFromSettings applies the documented order: explicit option,
// MEMBERPLATFORM_TOKEN, AWS variables, none.
func tokenSourceFromSettings(s *core.Settings) (TokenSource, error) {
	if s.SigV4 != nil {
		return NewSigV4TokenSource(SigV4Config{Credentials: s.SigV4.Credentials, Region: s.SigV4.Region})
	}
	if _, fromEnv := s.TokenSource.(tokenSourceFromEnvironment); !fromEnv {
		return s.TokenSource, nil // an option's choice, nil for none (a typed nil is refused by the option)
	}
	if v := os.Getenv(EnvToken); v != "" {
		return StaticToken(v), nil
	}
	if creds, region, ok := SigV4CredentialsFromEnv(); ok {
		src, err := NewSigV4TokenSource(SigV4Config{Credentials: creds, Region: region, Service: os.Getenv(EnvSigV4Service)})
		if err != nil {
			return nil, err
		}
		return src, nil
	}
	return nil, nil
}

// loggerFromEnvironment and tokenSourceFromEnvironment stand, in the
// settings, for what the environment would give, until an option replaces
// them. Neither is ever used.
var loggerFromEnvironment = slog.New(slog.DiscardHandler)

type tokenSourceFromEnvironment struct{}

func (tokenSourceFromEnvironment) Token(context.Context) (Token, error) {
	return Token{}, errors.New("memberplatform: the environment's token source was not resolved")
}

// loggerFromEnv returns a text logger to stderr at the level
// MEMBERPLATFORM_LOG names, or nil when it is unset. An unknown level is an
// error, so a typo does not silently turn logging off.
func loggerFromEnv() (*slog.Logger, error) {
	v := strings.TrimSpace(os.Getenv(EnvLog))
	if v == "" {
		return nil, nil
	}
	var level slog.Level
	if err := level.UnmarshalText([]byte(v)); err != nil {
		return nil, errors.New("memberplatform: " + EnvLog + " must be debug, info, warn or error")
	}
	return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level})), nil
}
