// Package core is the SDK's request pipeline: settings and options, URL and
// body building, the retrying transport, bearer tokens, response decoding and
// logging. It is internal: users reach it through package client.
package core

import (
	"log/slog"
	"net/http"
	"net/url"
	"time"
)

// Settings is everything an Option can change. The Client holds the defaults;
// each call works on a copy with its per-request options applied.
type Settings struct {
	BaseURL    *url.URL
	HTTPClient *http.Client      // user's client; its Transport, Jar, CheckRedirect and Timeout are used
	Transport  http.RoundTripper // user's transport; wins over HTTPClient.Transport
	Header     http.Header       // extra headers, sent on every request
	Query      url.Values        // extra query parameters
	// Timeout bounds a whole call, retries and backoff included.
	Timeout time.Duration
	// AttemptTimeout bounds one HTTP attempt (headers and body).
	AttemptTimeout time.Duration
	Retry          RetryPolicy
	Logger         *slog.Logger
	AppInfo        string // appended to the User-Agent
	// AllowInsecureBearer permits sending a bearer token over plain http to
	// a host that is not loopback.
	AllowInsecureBearer bool
	// TokenSource is the client package's token source (opaque here);
	// TokenSourceSet says an option chose it, even if nil. Client-wide only.
	TokenSource    any
	TokenSourceSet bool

	cloned bool // Header/Query are private copies, safe to mutate
}

// Option changes Settings. An option that returns an error makes client.New
// (or the call it was given to) fail before any network activity.
type Option func(*Settings) error

// Apply applies opts to s in order and returns the first error.
func (s *Settings) Apply(opts []Option) error {
	for _, o := range opts {
		if o == nil {
			continue
		}
		if err := o(s); err != nil {
			return err
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

// DefaultSettings returns the SDK's defaults, before options and environment.
func DefaultSettings() Settings {
	return Settings{Retry: DefaultRetryPolicy()}
}
