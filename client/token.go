package client

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"time"

	"github.com/memberplatform/memberplatform-go/internal/core"
)

// Token is a bearer token and its expiry. A zero Expiry means unknown: the
// client then uses the token until the platform rejects it with 401.
// String and GoString redact Value, so a Token printed by mistake does not
// leak.
type Token struct {
	Value  string
	Expiry time.Time
}

// String returns a redacted description of the token.
func (t Token) String() string {
	if t.Expiry.IsZero() {
		return "Token{Value:<redacted>}"
	}
	return "Token{Value:<redacted>, Expiry:" + t.Expiry.UTC().Format(time.RFC3339) + "}"
}

// GoString redacts the token for %#v.
func (t Token) GoString() string { return "client." + t.String() }

// Format redacts the token for every fmt verb (%v, %+v, %#v, %s, %q, %x,
// %d...), not only those that consult String and GoString.
func (t Token) Format(f fmt.State, verb rune) {
	if verb == 'v' && f.Flag('#') {
		_, _ = io.WriteString(f, t.GoString())
		return
	}
	_, _ = io.WriteString(f, t.String())
}

// LogValue redacts the token in log/slog records, including JSON handlers
// that would otherwise marshal its fields.
func (t Token) LogValue() slog.Value { return slog.StringValue(t.String()) }

// TokenSource supplies bearer tokens. The client caches what it returns and
// calls it again only when the token nears its expiry or is rejected, with
// at most one call in flight. Implementations must be safe for concurrent
// use.
type TokenSource interface {
	Token(ctx context.Context) (Token, error)
}

// TokenSourceFunc adapts a function to a TokenSource.
type TokenSourceFunc func(ctx context.Context) (Token, error)

// Token calls f.
func (f TokenSourceFunc) Token(ctx context.Context) (Token, error) { return f(ctx) }

// StaticToken returns a TokenSource that always returns value, with unknown
// expiry. Use it for a service JWT obtained elsewhere
// (MEMBERPLATFORM_TOKEN does this).
//
// Surrounding white space is trimmed (a token read from a file usually ends
// in a newline); New refuses an empty token or one with spaces or control
// characters inside.
func StaticToken(value string) TokenSource { return staticToken(strings.TrimSpace(value)) }

type staticToken string

func (s staticToken) Token(context.Context) (Token, error) { return Token{Value: string(s)}, nil }

// Format redacts the token: a static source printed by mistake must not
// leak it.
func (s staticToken) Format(f fmt.State, _ rune) {
	_, _ = io.WriteString(f, "client.StaticToken(<redacted>)")
}

// LogValue redacts the token in log/slog records.
func (s staticToken) LogValue() slog.Value { return slog.StringValue("client.StaticToken(<redacted>)") }

// WithTokenSource makes the client send "Authorization: Bearer <token>"
// from ts on every call, instead of the default chosen from the environment
// (see New). WithTokenSource(nil) sends no Authorization header at all
// (local development). Client-wide only: passing it to a single call fails.
func WithTokenSource(ts TokenSource) Option {
	return func(s *core.Settings) error {
		s.TokenSource = ts
		s.TokenSourceSet = true
		if ts == nil {
			s.TokenSource = nil
		}
		return nil
	}
}

func fetcherFor(ts TokenSource) core.TokenFetcher {
	return func(ctx context.Context) (string, time.Time, error) {
		t, err := ts.Token(ctx)
		if err != nil {
			return "", time.Time{}, err
		}
		return t.Value, t.Expiry, nil // the cache trims and checks the value (core.CheckTokenValue)
	}
}
