package client_test

import (
	"errors"
	"net/url"
	"strings"
	"testing"

	"github.com/memberplatform/memberplatform-go/client"
	apierrors "github.com/memberplatform/memberplatform-go/errors"
	"github.com/memberplatform/memberplatform-go/option"
)

// The base URL is the one place requests go: it is checked once in New
// (environment, credentials in the URL, plain http to non-loopback hosts),
// and a per-call option may only name the same URL again.

func TestExplicitBaseURLWinsOverInvalidEnvironment(t *testing.T) {
	t.Setenv(client.EnvBaseURL, "not a url")
	if _, err := client.New(option.WithBaseURL("https://api.example.com"), option.WithTokenSource(nil)); err != nil {
		t.Fatalf("New with an explicit base URL: %v", err)
	}
	_, err := client.New(option.WithTokenSource(nil))
	if err == nil || !strings.Contains(err.Error(), client.EnvBaseURL) {
		t.Fatalf("New from the environment: %v, want an error naming %s", err, client.EnvBaseURL)
	}
}

func TestBaseURLWithUserCredentialsRefused(t *testing.T) {
	t.Parallel()
	_, err := client.New(option.WithBaseURL("https://user:pass@api.example.com"), option.WithTokenSource(nil))
	if !errors.Is(err, apierrors.ErrInvalidInput) || strings.Contains(err.Error(), "pass") {
		t.Fatalf("err = %v, want a config error that does not echo the password", err)
	}
}

// The loopback exemption from the https rule is for "localhost",
// *.localhost and loopback IPs only: a public name that merely starts with
// one of them is a remote host.
func TestLookalikeLoopbackHostsRefused(t *testing.T) {
	t.Parallel()
	static := option.WithTokenSource(client.StaticToken("secret-token"))
	for _, u := range []string{
		"http://localhost.evil.com",
		"http://localhost.evil.com:8080",
		"http://127.0.0.1.nip.io",
		"http://127.0.0.1.evil.com:3000",
		"http://localhostevil.com",
		"http://evil-localhost",
		"http://[::2]",
	} {
		_, err := client.New(option.WithBaseURL(u), static)
		var ve *apierrors.ValidationError
		if !errors.As(err, &ve) || !strings.Contains(err.Error(), "plain http") {
			t.Errorf("%s: New err = %v, want the insecure-bearer refusal", u, err)
		}
	}
	// Control: the real loopback names are allowed.
	for _, u := range []string{"http://localhost:8080", "http://LOCALHOST.", "http://api.localhost", "http://127.0.0.1", "http://[::1]:9000"} {
		if _, err := client.New(option.WithBaseURL(u), static); err != nil {
			t.Errorf("%s: New err = %v, want loopback allowed", u, err)
		}
	}
}

// A per-call base URL may only name the client's own: the check compares
// the URL's value, so the same URL given again (another string, parsed
// separately) is accepted, and a different one is refused before anything
// is sent, to it or to the client's own server.
func TestPerCallBaseURL(t *testing.T) {
	t.Parallel()
	srv := newCountingServer(t, userJSON)
	elsewhere := newCountingServer(t, userJSON)
	c := newClient(t, option.WithBaseURL(srv.URL), option.WithTokenSource(client.StaticToken("secret-token")))
	u, _ := url.Parse(srv.URL)
	same := []string{
		strings.Clone(srv.URL),
		"http://" + u.Host,
		"  " + srv.URL + "\n",
		srv.URL + "/", // the pipeline trims a trailing slash: the same URLs
	}
	for _, b := range same {
		if err := updateFirstName(t.Context(), c, option.WithBaseURL(b)); err != nil {
			t.Errorf("per-call WithBaseURL(%q), the client's own: %v", b, err)
		}
	}
	if got := srv.reqs.Load(); got != int64(len(same)) {
		t.Fatalf("%d requests, want %d", got, len(same))
	}
	for _, b := range []string{
		elsewhere.URL,
		"https://" + u.Host,
		"http://" + deadAddr(t),
		srv.URL + "/v2",
		"http://localhost:" + u.Port(),
	} {
		err := updateFirstName(t.Context(), c, option.WithBaseURL(b))
		var ve *apierrors.ValidationError
		if !errors.As(err, &ve) || ve.Fields[0].Field != "options" {
			t.Errorf("per-call WithBaseURL(%q): err = %v, want a validation error on options", b, err)
		}
	}
	if got := srv.reqs.Load(); got != int64(len(same)) || elsewhere.reqs.Load() != 0 {
		t.Fatalf("%d requests after the refused calls (elsewhere %d), want %d (none)", got, elsewhere.reqs.Load(), len(same))
	}
}
