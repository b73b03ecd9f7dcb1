// Package client is the entry point of the memberplatform-go SDK: New
// builds a Client whose AccessMgmt, Payments and Customer fields call the
// platform's operations.
//
//	c, err := client.New(option.WithBaseURL("https://api.example.com"), option.WithTokenSource(ts))
//	u, err := c.AccessMgmt.UpdateUser(ctx, "user_01E4ZCR3C56J083X43JQXF3JK5", accessmgmt.UpdateUserParams{FirstName: new("Ada")})
//
// Options win over the environment, which gives the base URL
// (MEMBERPLATFORM_BASE_URL, required) and the bearer token: from
// MEMBERPLATFORM_TOKEN, a static service JWT; else, with AWS_ACCESS_KEY_ID
// and AWS_SECRET_ACCESS_KEY set, from a SigV4TokenSource (see
// SigV4CredentialsFromEnv and EnvSigV4Service); else none.
//
// Calls are retried (github.com/hashicorp/go-retryablehttp) after
// connection errors, 408, 429, 500, 502, 503 and 504 (option.WithRetryOn
// and option.WithoutRetryOn change the statuses), with jittered backoff, Retry-After and X-Retry-Attempt, within the context's deadline,
// a retry budget and an adaptive rate limit (package option documents each
// default). Every failure is a typed error of package
// github.com/memberplatform/memberplatform-go/errors.
//
// A bearer token or SigV4 material never goes over plain http to a host
// that is not loopback, nor to a loopback one through a proxy (unless
// option.WithInsecureBearerOverHTTP). Tokens, AWS secrets and
// signatures never appear in logs or error strings; path parameters are
// escaped, so an ID such as "a/b" or ".." cannot change the path.
//
// To test code that uses the SDK, run the in-process fake of package
// github.com/memberplatform/memberplatform-go/sdktest, or script answers
// with option.WithTransport(httpmock.NewMockTransport()).
package client

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/memberplatform/memberplatform-go/accessmgmt"
	"github.com/memberplatform/memberplatform-go/customer"
	apierrors "github.com/memberplatform/memberplatform-go/errors"
	"github.com/memberplatform/memberplatform-go/internal/core"
	"github.com/memberplatform/memberplatform-go/option"
	"github.com/memberplatform/memberplatform-go/payments"
)

// Client calls the member platform. Build it with New and reuse it, from
// any goroutine: it holds the connection pool and token cache.
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
	EnvLog          = "MEMBERPLATFORM_LOG" // debug, info, warn or error: records from that level go to stderr, unless option.WithLogger
)

// New returns a Client configured from the environment, then opts. A missing
// or invalid base URL or option, or a bearer token bound for plain http to a
// host that is not loopback or through a proxy, fail it before any network
// activity with an *errors.ValidationError whose field "config" says why.
//
// The client keeps its load control per area of the platform
// (option.Area): an adaptive rate limit, a retry budget and admission
// control each, on by default. A provider that throttles more than 2% of an
// area's answers paces that area's later calls just under the rate it
// admits, even calls that saw no 429 themselves: after a lone 429 with
// Retry-After: 1, the area's next call waits for a slot up to 1 s away,
// until the provider admits an attempt again; sporadic 429s (1 in 100 of
// the last second's answers, at a rate of 50 answers a second or more)
// pace nothing. From 3 s after the last throttle the rate rises, doubling
// every 250 ms, until nothing is paced (option.WithoutAdaptiveRateLimit
// documents the pacing; it turns it off). Throttles concentrated on one
// resource or a few (hot users) while the rest of the area is admitted
// pace only those resources' calls, not the area. And while nearly all of an
// area's recent attempts fail (5xx, no answer), a share of its calls fail
// at once without being sent (option.WithoutAdmissionControl documents it;
// it turns it off). Other areas are never paced or refused by either.
func New(opts ...option.RequestOption) (*Client, error) {
	c, err := newClient(opts)
	if err != nil {
		return nil, &apierrors.ValidationError{Operation: "client.New", Fields: []apierrors.FieldError{{Field: "config", Message: strings.TrimPrefix(err.Error(), "memberplatform: ")}}}
	}
	return c, nil
}

func newClient(opts []option.RequestOption) (*Client, error) {
	s := core.DefaultSettings()
	// The environment is read only when no option replaced these (even with
	// nil), so an unused bad variable fails nothing.
	s.Logger, s.TokenSource = loggerFromEnvironment, tokenSourceFromEnvironment{}
	if err := core.Apply(&s, false, opts); err != nil {
		return nil, err
	}
	if s.Logger == loggerFromEnvironment {
		s.Logger = nil
		if v := strings.TrimSpace(os.Getenv(EnvLog)); v != "" {
			var level slog.Level
			if level.UnmarshalText([]byte(v)) != nil { // a typo must not silently turn logging off
				return nil, errors.New("memberplatform: " + EnvLog + " must be debug, info, warn or error")
			}
			s.Logger = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))
		}
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
		owned = core.NewPooledTransport() // for the API and the token calls
		if s.MaxConnsPerHost > 0 {
			owned.MaxConnsPerHost = s.MaxConnsPerHost
			owned.MaxIdleConnsPerHost = min(owned.MaxIdleConnsPerHost, s.MaxConnsPerHost)
		}
		s.DefaultTransport = owned
	} else if s.MaxConnsPerHost > 0 {
		return nil, errors.New("memberplatform: option.WithMaxConnsPerHost bounds the client's own pool, and a transport was given (WithTransport or WithHTTPClient): set MaxConnsPerHost on that transport instead")
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
		tokens = core.NewTokenCache(func(ctx context.Context) (string, time.Time, error) {
			t, err := ts.Token(ctx)
			return t.Value, t.Expiry, err // the cache trims and checks the value, and ignores both on err
		})
		tokens.Logger = s.Logger
	}
	pipeline, err := core.New(s, tokens)
	if err != nil {
		return nil, err
	}
	if sv, ok := ts.(*SigV4TokenSource); ok {
		if err := sv.bind(s); err != nil {
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

// CloseIdleConnections closes the idle connections of the client's own
// pool, never of a transport you passed in, when you are done with it.
func (c *Client) CloseIdleConnections() {
	if c.owned != nil {
		c.owned.CloseIdleConnections()
	}
}

// tokenSourceFromSettings picks the option's source, else the environment's.
func tokenSourceFromSettings(s *core.Settings) (TokenSource, error) {
	if s.SigV4 != nil {
		return NewSigV4TokenSource(SigV4Config{Credentials: s.SigV4.Credentials, Region: s.SigV4.Region})
	}
	if _, fromEnv := s.TokenSource.(tokenSourceFromEnvironment); !fromEnv {
		return s.TokenSource, nil // nil for none
	}
	if v := os.Getenv(EnvToken); v != "" {
		return StaticToken(v), nil
	}
	creds, region, ok := SigV4CredentialsFromEnv()
	if !ok {
		return nil, nil
	}
	return NewSigV4TokenSource(SigV4Config{Credentials: creds, Region: region, Service: os.Getenv(EnvSigV4Service)})
}

// newClient's placeholders, never used.
var loggerFromEnvironment = slog.New(slog.DiscardHandler)

type tokenSourceFromEnvironment struct{ TokenSource }
