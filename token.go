package memberplatform

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"time"
)

// Token is a bearer token and its expiry. A zero Expiry means unknown: the
// client then uses the token until the platform rejects it with 401.
// String, GoString, Format and LogValue redact Value, so a Token printed or
// logged by mistake does not leak. Package client re-exports it as
// client.Token, the name to use.
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
// use. Package client re-exports it as client.TokenSource, the name to use.
//
// It lives in this root package, rather than in client, so that
// option.WithTokenSource can name it without importing client.
type TokenSource interface {
	Token(ctx context.Context) (Token, error)
}
