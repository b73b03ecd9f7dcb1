package core

import (
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/memberplatform/memberplatform-go/internal/httpx"
)

// ParseBaseURL checks a base URL given by option.WithBaseURL or
// MEMBERPLATFORM_BASE_URL: an absolute http or https URL with a host, no
// query, fragment or user credentials. A path prefix is kept.
func ParseBaseURL(rawURL string) (*url.URL, error) {
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

// CheckBearerTransport refuses a base URL over which a bearer token would
// travel in clear text (plain http to a non-loopback host, or to a
// loopback one through a proxy), unless AllowInsecureBearer is set.
func CheckBearerTransport(s *Settings) error {
	if u := s.BaseURL; u != nil && u.Scheme == "http" && !s.AllowInsecureBearer && !httpx.IsLoopbackHost(u.Hostname()) {
		return fmt.Errorf("memberplatform: refusing to carry a bearer token over plain http to or from non-loopback host %q; use https, or option.WithInsecureBearerOverHTTP() if you really mean it", u.Hostname())
	}
	return checkDirectAtNew(s)
}

// redactURL returns u without user credentials or query, for errors.
func redactURL(u *url.URL) string {
	if u == nil {
		return ""
	}
	r := *u
	r.User, r.RawQuery = nil, ""
	return r.String()
}
