package client_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/memberplatform/memberplatform-go/client"
	apierrors "github.com/memberplatform/memberplatform-go/errors"
	"github.com/memberplatform/memberplatform-go/option"
)

// Tokens as users give them: a static token is trimmed and checked, a
// failing source's error names the operation, a Token never prints its
// value, and a call whose context is already cancelled fetches none.

func TestStaticTokenIsTrimmedAndChecked(t *testing.T) {
	t.Parallel()
	srv := newCountingServer(t, userJSON)
	c := newClient(t, option.WithBaseURL(srv.URL), option.WithTokenSource(client.StaticToken("  tok-123\n")))
	if err := updateFirstName(t.Context(), c); err != nil {
		t.Fatal(err)
	}
	if got := srv.auth.Load(); got != "Bearer tok-123" {
		t.Fatalf("Authorization = %q, want the trimmed token", got)
	}
	for _, bad := range []string{"", " \n", "tok 123", "tok\x01"} {
		_, err := client.New(option.WithBaseURL(srv.URL), option.WithTokenSource(client.StaticToken(bad)))
		if !errors.Is(err, apierrors.ErrInvalidInput) {
			t.Errorf("StaticToken(%q): New err = %v, want a config error", bad, err)
		}
	}
}

func TestTokenErrorNamesTheOperation(t *testing.T) {
	t.Parallel()
	srv := newCountingServer(t, userJSON)
	sealed := errors.New("vault sealed")
	c := newClient(t, option.WithBaseURL(srv.URL), option.WithTokenSource(client.TokenSourceFunc(
		func(context.Context) (client.Token, error) { return client.Token{}, sealed })))
	err := updateFirstName(t.Context(), c)
	var te *apierrors.TokenError
	if !errors.As(err, &te) || te.Operation != "accessmgmt.UpdateUser" || !errors.Is(err, sealed) {
		t.Fatalf("err = %#v, want a TokenError for accessmgmt.UpdateUser wrapping the cause", err)
	}
	if !strings.HasPrefix(err.Error(), "memberplatform: accessmgmt.UpdateUser: obtaining bearer token") {
		t.Fatalf("Error() = %q", err.Error())
	}
}

// client.Token prints its expiry, never its value, through every fmt verb
// and with or without an expiry.
func TestTokenNeverPrintsItsValue(t *testing.T) {
	t.Parallel()
	const secret = "tok-VALUE-5d1c"
	exp := time.Date(2031, 2, 3, 4, 5, 6, 0, time.UTC)
	for _, tc := range []struct {
		name    string
		tok     client.Token
		expWant string // "" when no expiry may be printed
	}{
		{"with expiry", client.Token{Value: secret, Expiry: exp}, "2031-02-03T04:05:06Z"},
		{"without expiry", client.Token{Value: secret}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tok := tc.tok
			outs := map[string]string{"String()": tok.String(), "GoString()": tok.GoString()}
			for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%q", "%x", "%10.4s"} {
				outs[verb] = fmt.Sprintf(verb, tok)
				outs[verb+" pointer"] = fmt.Sprintf(verb, &tok)
				outs[verb+" in a struct"] = fmt.Sprintf(verb, struct{ T client.Token }{tok})
				outs[verb+" in a slice"] = fmt.Sprintf(verb, []client.Token{tok})
			}
			for what, out := range outs {
				if strings.Contains(out, secret) || strings.Contains(out, fmt.Sprintf("%x", secret)) {
					t.Errorf("%s leaked the value: %s", what, out)
				}
				if !strings.Contains(out, "redacted") {
					t.Errorf("%s = %q, want a redaction marker", what, out)
				}
			}
			if got := tok.String(); (tc.expWant != "") != strings.Contains(got, "Expiry") || !strings.Contains(got, tc.expWant) {
				t.Errorf("String() = %q, want expiry %q", got, tc.expWant)
			}
		})
	}
}

func TestCancelledContextFetchesNoToken(t *testing.T) {
	t.Parallel()
	var fetches atomic.Int32
	tokens := client.TokenSourceFunc(func(context.Context) (client.Token, error) {
		fetches.Add(1)
		return client.Token{Value: "never-needed-token"}, nil
	})
	c := newClient(t, option.WithBaseURL("https://api.example.com"), option.WithTokenSource(tokens))
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	err := updateFirstName(ctx, c)
	if !errors.Is(err, apierrors.ErrTransport) || !errors.Is(err, context.Canceled) || fetches.Load() != 0 {
		t.Fatalf("err = %v after %d token fetches, want a TransportError wrapping Canceled and none", err, fetches.Load())
	}
}
