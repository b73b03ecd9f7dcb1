package client

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"

	"github.com/memberplatform/memberplatform-go"
)

// Token is a bearer token and its expiry; a zero Expiry means unknown (used
// until a 401). Its String, GoString, Format and LogValue redact Value.
type Token = memberplatform.Token

// TokenSource supplies bearer tokens, safe for concurrent use. The client
// caches each and calls it again, one call at a time, only when the token
// nears its expiry or is rejected. Pass one to option.WithTokenSource.
//
// A call's context bounds only its own wait: the fetch goes on, detached,
// for 30 s at most, then is abandoned (its result, if it ever comes, is
// dropped) and the next call starts another, so a source that hangs once
// cannot wedge the client. A call whose deadline comes before the end of a
// Retry-After the token endpoint asked for returns that answer at once,
// as an *errors.TokenError wrapping the *errors.Error (ErrRateLimited or
// ErrServiceUnavailable, errors.RetryAfterOf).
type TokenSource = memberplatform.TokenSource

// TokenSourceFunc adapts a function to a TokenSource.
type TokenSourceFunc func(ctx context.Context) (Token, error)

// Token calls f.
func (f TokenSourceFunc) Token(ctx context.Context) (Token, error) { return f(ctx) }

// StaticToken returns a TokenSource that always returns value, trimmed of
// surrounding white space, with unknown expiry: a service JWT obtained
// elsewhere. New refuses an empty token or one with spaces or control
// characters inside.
func StaticToken(value string) TokenSource { return staticToken(strings.TrimSpace(value)) }

type staticToken string

func (s staticToken) Token(context.Context) (Token, error) { return Token{Value: string(s)}, nil }

// Format redacts the token.
func (s staticToken) Format(f fmt.State, _ rune) {
	_, _ = io.WriteString(f, "client.StaticToken(<redacted>)")
}

// LogValue redacts the token in log/slog records.
func (s staticToken) LogValue() slog.Value { return slog.StringValue("client.StaticToken(<redacted>)") }
