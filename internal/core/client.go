package core

import (
	"fmt"
	"log/slog"
	"runtime"

	memberplatform "github.com/memberplatform/memberplatform-go"
	"github.com/memberplatform/memberplatform-go/observe"
)

// Client runs calls through the pipeline. It is safe for concurrent use.
type Client struct {
	settings  Settings
	attempts  *attemptClient
	userAgent string // the User-Agent header value
	tokens    *TokenCache
	observed  *observe.State // the gauges' readers, kept alive with the client (observe.go)
	// deprecations remembers the operations the logger was warned about (deprecation.go).
	deprecations deprecationLog
}

// New returns a Client for settings s. tokens may be nil (no Authorization).
func New(s Settings, tokens *TokenCache) (*Client, error) {
	if s.BaseURL == nil || s.BaseURL.Host == "" || (s.BaseURL.Scheme != "http" && s.BaseURL.Scheme != "https") {
		return nil, fmt.Errorf("memberplatform: base URL must be an absolute http or https URL (set option.WithBaseURL or MEMBERPLATFORM_BASE_URL), got %q", redactURL(s.BaseURL))
	}
	if tokens != nil {
		if err := CheckBearerTransport(&s); err != nil {
			return nil, err
		}
	}
	c := &Client{
		settings:  s,
		attempts:  newAttemptClient(buildHTTPClient(&s, nil)),
		userAgent: UserAgent(s.AppInfo),
		tokens:    tokens,
	}
	observeClient(c)
	return c, nil
}

// Logger returns the client's logger, or nil.
func (c *Client) Logger() *slog.Logger { return c.settings.Logger }

// Tokens returns the client's token cache, or nil.
func (c *Client) Tokens() *TokenCache { return c.tokens }

// UserAgent returns "memberplatform-go/<version> (go<ver>; <os>/<arch>)"
// followed by appInfo, if any.
func UserAgent(appInfo string) string {
	ua := "memberplatform-go/" + memberplatform.Version + " (" + runtime.Version() + "; " + runtime.GOOS + "/" + runtime.GOARCH + ")"
	if appInfo != "" {
		ua += " " + appInfo
	}
	return ua
}
