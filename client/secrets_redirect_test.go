package client_test

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/memberplatform/memberplatform-go/client"
	apierrors "github.com/memberplatform/memberplatform-go/errors"
	"github.com/memberplatform/memberplatform-go/option"
)

// TestCredentialsNeverFollowARedirectOffTheOrigin uses a redirect policy
// that follows everything: the SDK's own layer still keeps the bearer and
// the session token on the base URL's origin, and refuses a token minted
// elsewhere.
func TestCredentialsNeverFollowARedirectOffTheOrigin(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var seenElsewhere []string
	elsewhere, _ := logTestServer(t, func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seenElsewhere = append(seenElsewhere, r.URL.Path+" auth="+r.Header.Get("Authorization")+" sec="+r.Header.Get("X-Amz-Security-Token"))
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		if r.URL.Path == "/auth/token" {
			_, _ = io.WriteString(w, `{"accessToken":"evil-token-0123456789","expiresIn":3600}`)
			return
		}
		userJSON(w, r)
	})
	home, _ := logTestServer(t, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, elsewhere.URL+r.URL.Path, http.StatusTemporaryRedirect)
	})
	followAll := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return nil }, Transport: &http.Transport{}}
	t.Cleanup(followAll.CloseIdleConnections)

	static := newClient(t, option.WithBaseURL(home.URL), option.WithHTTPClient(followAll),
		option.WithTokenSource(client.StaticToken(echoedToken)), option.WithMaxRetries(0))
	if err := updateFirstName(t.Context(), static); err != nil {
		t.Fatalf("the user's policy followed the redirect, which must still work without the token: %v", err)
	}

	creds := credentials.NewStaticCredentialsProvider(accessKeyID, secretAccess, sessionToken)
	signed := newClient(t, option.WithBaseURL(home.URL), option.WithHTTPClient(followAll),
		option.WithSigV4(creds, "us-east-1"), option.WithMaxRetries(0))
	err := updateFirstName(t.Context(), signed)
	if !errors.Is(err, apierrors.ErrTokenUnavailable) || !strings.Contains(err.Error(), "another origin") {
		t.Fatalf("token minted by another origin: err = %v, want it refused", err)
	}

	mu.Lock()
	defer mu.Unlock()
	if len(seenElsewhere) != 2 {
		t.Fatalf("the other origin saw %q, want the API request and the token request", seenElsewhere)
	}
	for _, s := range seenElsewhere {
		if !strings.HasSuffix(s, " auth= sec=") {
			t.Errorf("a credential crossed origins: %s", s)
		}
	}
}

// A 401 from another origin, which got no token after a redirect, is
// returned as it is: a new token cannot help, and a POST must not repeat.
func TestUnauthorizedFromAnotherOriginIsNotResent(t *testing.T) {
	t.Parallel()
	elsewhere := newCountingServer(t, func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusUnauthorized) })
	home := newCountingServer(t, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, elsewhere.URL+r.URL.Path, http.StatusTemporaryRedirect)
	})
	followAll := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return nil }, Transport: &http.Transport{}}
	t.Cleanup(followAll.CloseIdleConnections)
	var fetches atomic.Int32
	tokens := client.TokenSourceFunc(func(context.Context) (client.Token, error) {
		return client.Token{Value: fmt.Sprintf("rotating-token-%d", fetches.Add(1))}, nil
	})
	c := newClient(t, option.WithBaseURL(home.URL), option.WithHTTPClient(followAll), option.WithTokenSource(tokens))
	err := c.Execute(t.Context(), http.MethodPost, "/things", map[string]string{}, nil)
	if !errors.Is(err, apierrors.ErrUnauthorized) || home.reqs.Load() != 1 || fetches.Load() != 1 {
		t.Fatalf("err = %v; home saw %d requests and %d tokens were fetched, want 1 and 1", err, home.reqs.Load(), fetches.Load())
	}
}

// WithResponseInto hands over the redirect chain too, with every request's
// credentials redacted, and redacts response headers that echo one.
func TestResponseIntoRedactsTheRedirectChain(t *testing.T) {
	t.Parallel()
	var srv *countingServer
	srv = newCountingServer(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/final" {
			http.Redirect(w, r, srv.URL+"/final", http.StatusFound)
			return
		}
		w.Header().Set("X-Debug-Auth", r.Header.Get("Authorization"))
		_, _ = io.WriteString(w, `{}`)
	})
	c := newClient(t, option.WithBaseURL(srv.URL), option.WithTokenSource(client.StaticToken(echoedToken)))
	var resp *http.Response
	if err := c.Execute(t.Context(), http.MethodGet, "/start", nil, nil, option.WithResponseInto(&resp)); err != nil {
		t.Fatal(err)
	}
	var seen strings.Builder
	fmt.Fprint(&seen, resp.Header)
	for req := resp.Request; req != nil; {
		fmt.Fprint(&seen, req.Header)
		if req.Response == nil {
			break
		}
		req = req.Response.Request
	}
	if strings.Contains(seen.String(), echoedToken) || resp.Request.Response == nil {
		t.Fatalf("the handed-over chain holds the token (or no chain):\n%s", seen.String())
	}
}

// WithResponseInto after same-origin redirects to URLs that carry the
// echoed token (raw in the query, percent-encoded in the path, base64 in
// another parameter), answered with the token in the status line's reason
// phrase: no URL of the chain and no Status keeps it, on a 2xx and a 4xx.
func TestResponseIntoRedactsURLsAndReasonPhrases(t *testing.T) {
	t.Parallel()
	const jwt = "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJzdmMtYmlsbGluZyJ9.c2lnbmF0dXJlLWJ5dGVzLWZvci10ZXN0cw"
	for _, tc := range []struct {
		name, token string
		status      int
	}{{"jwt", jwt, http.StatusOK}, {"jwt", jwt, http.StatusForbidden}, {"escaped characters", meaningToken, http.StatusOK}, {"escaped characters", meaningToken, http.StatusForbidden}} {
		t.Run(fmt.Sprintf("%s %d", tc.name, tc.status), func(t *testing.T) {
			t.Parallel()
			srv := newCountingServer(t, func(w http.ResponseWriter, r *http.Request) {
				tok := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
				switch {
				case strings.HasPrefix(r.URL.Path, "/continue/"):
					conn, rw, err := w.(http.Hijacker).Hijack()
					if err != nil {
						t.Error(err)
						return
					}
					defer conn.Close()
					fmt.Fprintf(rw, "HTTP/1.1 %d Echo %s done\r\nContent-Type: application/json\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}", tc.status, tok)
					_ = rw.Flush()
				case r.URL.Path == "/hop":
					http.Redirect(w, r, "/continue/"+url.PathEscape(tok)+"?b="+base64.RawURLEncoding.EncodeToString([]byte(tok))+"&access_token="+tok, http.StatusFound)
				default:
					http.Redirect(w, r, "/hop?access_token="+tok, http.StatusTemporaryRedirect)
				}
			})
			c := newClient(t, option.WithBaseURL(srv.URL), option.WithTokenSource(client.StaticToken(tc.token)), option.WithMaxRetries(0))
			var resp *http.Response
			err := c.Execute(t.Context(), http.MethodGet, "/start", nil, nil, option.WithResponseInto(&resp))
			if (err == nil) != (tc.status == http.StatusOK) || resp == nil || resp.StatusCode != tc.status {
				t.Fatalf("err = %v, response %v; want status %d", err, resp, tc.status)
			}
			var seen strings.Builder
			hops := 0
			for r := resp; r != nil; hops++ {
				fmt.Fprintf(&seen, "%s\n", r.Status)
				if r.Request == nil {
					break
				}
				u := r.Request.URL
				fmt.Fprintf(&seen, "%s\n%s\n%s\n%s\n%v\n%s\n", u, u.Path, u.RawPath, u.RawQuery, u.Query(), r.Request.Host)
				if b := u.Query().Get("b"); b != "" {
					decoded, _ := base64.RawURLEncoding.DecodeString(b)
					fmt.Fprintf(&seen, "%s\n", decoded)
				}
				r = r.Request.Response
			}
			text := seen.String()
			unescaped, _ := url.QueryUnescape(text)
			if hops != 3 || strings.Contains(text, tc.token) || strings.Contains(unescaped, tc.token) || strings.Contains(text, url.PathEscape(tc.token)) {
				t.Fatalf("%d responses in the chain (want 3); the token is in:\n%s", hops, text)
			}
			if want := fmt.Sprintf("%d Echo %s done", tc.status, redactedValue); resp.Status != want {
				t.Errorf("Status = %q, want %q", resp.Status, want)
			}
			if !strings.HasPrefix(resp.Request.URL.Path, "/continue/") || resp.Request.URL.Query().Get("access_token") != redactedValue {
				t.Errorf("the final URL %s lost more than the token", resp.Request.URL)
			}
		})
	}
}
