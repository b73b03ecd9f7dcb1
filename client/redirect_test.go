package client_test

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/memberplatform/memberplatform-go/client"
	apierrors "github.com/memberplatform/memberplatform-go/errors"
	"github.com/memberplatform/memberplatform-go/option"
)

// Redirects are followed only within the base URL's origin: another host,
// or the same host over plain http, gets the redirect back as an error, so
// neither the body nor the bearer leaves the origin or its scheme.

func TestRedirects(t *testing.T) {
	t.Parallel()
	elsewhere := newCountingServer(t, userJSON)
	var home *countingServer
	home = newCountingServer(t, func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/v2/") {
			userJSON(w, r)
			return
		}
		target := home.URL + "/v2" + r.URL.Path // same origin
		if r.Header.Get("X-Redirect") == "away" {
			target = elsewhere.URL + r.URL.Path
		}
		http.Redirect(w, r, target, http.StatusTemporaryRedirect)
	})
	c := newClient(t, option.WithBaseURL(home.URL), option.WithTokenSource(nil), option.WithMaxRetries(0))
	if err := updateFirstName(t.Context(), c); err != nil {
		t.Fatalf("same-origin redirect: %v", err)
	}
	err := updateFirstName(t.Context(), c, option.WithHeader("X-Redirect", "away"))
	var apiErr *apierrors.Error
	if !errors.As(err, &apiErr) || apiErr.StatusCode != http.StatusTemporaryRedirect {
		t.Fatalf("cross-host redirect: err = %v, want the 307 as an *errors.Error", err)
	}
	if n := elsewhere.reqs.Load(); n != 0 {
		t.Fatalf("the other host received %d requests", n)
	}
}

// An https base URL redirected to http on the same host is a downgrade:
// sameOriginRedirect compares the scheme as well as the host, so the
// redirect is returned, not followed, and neither the body nor the bearer
// travels in clear text.
func TestHTTPSToHTTPRedirectOnSameHostNotFollowed(t *testing.T) {
	t.Parallel()
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/v2/") {
			userJSON(w, r)
			return
		}
		scheme := "https"
		if r.Header.Get("X-Redirect") == "downgrade" {
			scheme = "http"
		}
		http.Redirect(w, r, scheme+"://"+r.Host+"/v2"+r.URL.Path, http.StatusTemporaryRedirect)
	}))
	t.Cleanup(srv.Close)
	trusting := srv.Client().Transport // trusts the test certificate
	var plain, secure atomic.Int64
	c := newClient(t, option.WithBaseURL(srv.URL), option.WithTokenSource(client.StaticToken("secret-token")),
		option.WithMaxRetries(0), option.WithTransport(roundTripFunc(func(r *http.Request) (*http.Response, error) {
			if r.URL.Scheme == "http" {
				plain.Add(1)
			} else {
				secure.Add(1)
			}
			return trusting.RoundTrip(r)
		})))

	// Control: a same-origin https redirect is followed (two round trips),
	// so the transport does see followed redirects.
	if err := updateFirstName(t.Context(), c); err != nil {
		t.Fatalf("same-origin https redirect: %v", err)
	}
	if secure.Load() != 2 {
		t.Fatalf("%d https round trips, want 2 (the redirect followed)", secure.Load())
	}

	err := updateFirstName(t.Context(), c, option.WithHeader("X-Redirect", "downgrade"))
	var apiErr *apierrors.Error
	if !errors.As(err, &apiErr) || apiErr.StatusCode != http.StatusTemporaryRedirect {
		t.Fatalf("https→http redirect: err = %v, want the 307 returned as an *errors.Error", err)
	}
	if n := plain.Load(); n != 0 {
		t.Fatalf("the client sent %d request(s) over plain http after the redirect", n)
	}
}
