package client

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	apierrors "github.com/memberplatform/memberplatform-go/errors"
	"github.com/memberplatform/memberplatform-go/option"
)

func jwtWith(claims string) string {
	enc := base64.RawURLEncoding.EncodeToString
	return enc([]byte(`{"alg":"HS256","typ":"JWT"}`)) + "." + enc([]byte(claims)) + "." + enc([]byte("sig"))
}

func TestTokenResponseShapes(t *testing.T) {
	now := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	at := time.Date(2030, 1, 1, 1, 0, 0, 0, time.UTC) // epoch 1893459600
	jwtExp := jwtWith(`{"sub":"svc","exp":1893463200}`)
	jwtNoExp := jwtWith(`{"sub":"svc"}`)
	jwtFar := jwtWith(`{"sub":"svc","exp":10000000000}`)
	jwtHuge := jwtWith(`{"sub":"svc","exp":1e300}`)
	cases := []struct {
		name, body string
		value      string
		expiry     time.Time
	}{
		{"accessToken+expiresIn", `{"accessToken":"a1","expiresIn":600}`, "a1", now.Add(10 * time.Minute)},
		{"access_token+expires_in", `{"access_token":"a2","expires_in":120,"token_type":"Bearer"}`, "a2", now.Add(2 * time.Minute)},
		{"expires_in as string", `{"access_token":"a3","expires_in":"90"}`, "a3", now.Add(90 * time.Second)},
		{"token+expiresAt RFC 3339", `{"token":"a4","expiresAt":"2030-01-01T01:00:00Z"}`, "a4", at},
		{"expiresAt with offset", `{"token":"a5","expiresAt":"2030-01-01T11:00:00+10:00"}`, "a5", at},
		{"expiresAt epoch seconds", `{"token":"a6","expiresAt":1893459600}`, "a6", at},
		{"expires_at epoch string", `{"accessToken":"a7","expires_at":"1893459600"}`, "a7", at},
		{"accessToken wins over token", `{"token":"second","accessToken":"first","expiresIn":60}`, "first", now.Add(time.Minute)},
		{"JWT exp fallback", `{"accessToken":"` + jwtExp + `"}`, jwtExp, time.Unix(1893463200, 0)},
		{"response expiry wins over JWT exp", `{"accessToken":"` + jwtExp + `","expiresIn":60}`, jwtExp, now.Add(time.Minute)},
		{"JWT without exp: default", `{"accessToken":"` + jwtNoExp + `"}`, jwtNoExp, now.Add(DefaultTokenLifetime)},
		{"opaque token: default", `{"token":"opaque"}`, "opaque", now.Add(5 * time.Minute)},
		{"zero expiresIn ignored", `{"token":"z","expiresIn":0}`, "z", now.Add(5 * time.Minute)},
		{"huge expiresIn clamped", `{"token":"h","expiresIn":1e300}`, "h", now.Add(maxTokenLifetime)},
		{"whitespace around", " \n{\"token\":\"ws\"}\n", "ws", now.Add(5 * time.Minute)},
		// One cap for every source of expiry, like expiresIn's: a far-future
		// or absurd expiry (a JWT exp of 1e300 was converted to int64, which
		// is undefined) becomes now + maxTokenLifetime.
		{"expiresAt 9999 capped", `{"token":"f1","expiresAt":"9999-12-31T23:59:59Z"}`, "f1", now.Add(maxTokenLifetime)},
		{"expires_at epoch 1e10 capped", `{"token":"f2","expires_at":10000000000}`, "f2", now.Add(maxTokenLifetime)},
		{"JWT exp 1e10 capped", `{"accessToken":"` + jwtFar + `"}`, jwtFar, now.Add(maxTokenLifetime)},
		{"JWT exp 1e300 capped", `{"accessToken":"` + jwtHuge + `"}`, jwtHuge, now.Add(maxTokenLifetime)},
		{"past expiresAt kept for the cache to judge", `{"token":"p","expiresAt":"2029-12-31T23:00:00Z"}`, "p", now.Add(-time.Hour)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tok, err := parseTokenResponse(200, []byte(tc.body), now, nil)
			if err != nil {
				t.Fatal(err)
			}
			if tok.Value != tc.value || !tok.Expiry.Equal(tc.expiry) {
				t.Fatalf("got %q expiring %v, want %q expiring %v", tok.Value, tok.Expiry, tc.value, tc.expiry)
			}
		})
	}

	long := `{"secret":"` + strings.Repeat("x", 5000) + `"}`
	bad := []string{``, `not json`, `[]`, `null`, `"token"`, `{}`, `{"accessToken":""}`, `{"accessToken":123}`, `{"access_token":null}`, long}
	for _, body := range bad {
		_, err := parseTokenResponse(201, []byte(body), now, nil)
		var te *apierrors.TokenError
		if !errors.As(err, &te) {
			t.Fatalf("body %.40q: err %v, want *TokenError", body, err)
		}
		if te.StatusCode != 201 || !errors.Is(err, apierrors.ErrUnexpectedResponseBody) || !errors.Is(err, apierrors.ErrTokenUnavailable) {
			t.Fatalf("body %.40q: %#v", body, te)
		}
		if len(te.Body) > maxTokenBodySnippet || !bytes.HasPrefix([]byte(body), te.Body) {
			t.Fatalf("body snippet %d bytes, not a bounded prefix", len(te.Body))
		}
		if body != "" && (strings.Contains(te.Error(), body) || strings.Contains(fmt.Sprintf("%#v", te), body)) {
			t.Fatalf("body in error text: %s", te)
		}
	}
}

// Token expiries the cache's arithmetic once got wrong: after 2262 (Unix
// nanoseconds overflow) or already past when fetched (clock skew). Each is
// one token request for 20 calls, through client.New as a user builds it:
// the SigV4 source against a loopback token server, or a TokenSourceFunc.
func TestOddTokenExpiriesFetchOnce(t *testing.T) {
	const calls = 20
	sigV4 := func(body func() string) func(t *testing.T) (*atomic.Int64, []option.RequestOption, string) {
		return func(t *testing.T) (*atomic.Int64, []option.RequestOption, string) {
			var n atomic.Int64
			srv := newTestServer(t, func(w http.ResponseWriter, r *http.Request) {
				n.Add(1)
				writeJSON(w, body())
			}, func(w http.ResponseWriter, r *http.Request) { writeJSON(w, userJSON) })
			return &n, []option.RequestOption{option.WithSigV4(testCreds(), "us-east-1")}, srv.URL
		}
	}
	fn := func(expiry func() time.Time) func(t *testing.T) (*atomic.Int64, []option.RequestOption, string) {
		return func(t *testing.T) (*atomic.Int64, []option.RequestOption, string) {
			var n atomic.Int64
			srv := newTestServer(t, nil, func(w http.ResponseWriter, r *http.Request) { writeJSON(w, userJSON) })
			src := TokenSourceFunc(func(context.Context) (Token, error) {
				n.Add(1)
				return Token{Value: "func-token", Expiry: expiry()}, nil
			})
			return &n, []option.RequestOption{option.WithTokenSource(src)}, srv.URL
		}
	}
	for _, tc := range []struct {
		name  string
		setup func(t *testing.T) (*atomic.Int64, []option.RequestOption, string)
	}{
		{"SigV4 expiresAt 9999-12-31", sigV4(func() string { return `{"accessToken":"abc","expiresAt":"9999-12-31T23:59:59Z"}` })},
		{"SigV4 JWT exp 1e10", sigV4(func() string { return `{"accessToken":"` + jwtWith(`{"sub":"svc","exp":10000000000}`) + `"}` })},
		{"SigV4 JWT exp 1e300", sigV4(func() string { return `{"accessToken":"` + jwtWith(`{"sub":"svc","exp":1e300}`) + `"}` })},
		{"TokenSourceFunc 250 years ahead", fn(func() time.Time { return time.Now().AddDate(250, 0, 0) })},
		{"SigV4 expiresAt an hour ago (clock skew)", sigV4(func() string {
			return `{"accessToken":"abc","expiresAt":"` + time.Now().Add(-time.Hour).UTC().Format(time.RFC3339) + `"}`
		})},
		{"TokenSourceFunc expired a minute ago", fn(func() time.Time { return time.Now().Add(-time.Minute) })},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tokenReqs, opts, url := tc.setup(t)
			c := newClientOpts(t, url, opts...)
			for i := range calls {
				if err := updateUser(context.Background(), c); err != nil {
					t.Fatalf("call %d: %v", i+1, err)
				}
			}
			t.Logf("%d calls: %d token request(s)", calls, tokenReqs.Load())
			if n := tokenReqs.Load(); n != 1 {
				t.Fatalf("%d calls made %d token requests, want 1", calls, n)
			}
		})
	}
}
