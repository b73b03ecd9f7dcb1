package client_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/memberplatform/memberplatform-go/client"
	apierrors "github.com/memberplatform/memberplatform-go/errors"
	"github.com/memberplatform/memberplatform-go/option"
)

// Options are checked before anything is sent: headers the SDK manages or
// that could split a request, app info that is not an HTTP token, and
// client-only options given to one call are refused; per-call transports
// and HTTP clients are used as given.

func TestWithHeaderRefusesManagedAndInvalidHeaders(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ key, value string }{
		{"Authorization", "Bearer x"}, {"user-agent", "x"}, {"Content-Type", "text/plain"}, {"Content-Length", "1"},
		{"Accept", "text/html"}, {"Host", "evil.example"}, {"X-Id", "a\nb"}, {"X-Id", "a\rb"}, {"X-Id", "nul\x00"},
		{"Bad Name", "x"}, {"", "x"}, {"X:Id", "x"},
		{"X-Retry-Attempt", "9"}, {"x-amz-date", "20300101T000000Z"}, {"X-Amz-Security-Token", "t"}, {"X-Amz-Content-Sha256", "x"},
	} {
		_, err := client.New(option.WithBaseURL("https://api.example.com"), option.WithTokenSource(nil), option.WithHeader(tc.key, tc.value))
		if !errors.Is(err, apierrors.ErrInvalidInput) {
			t.Errorf("WithHeader(%q, %q): New err = %v, want ErrInvalidInput", tc.key, tc.value, err)
		}
	}
	if _, err := client.New(option.WithBaseURL("https://api.example.com"), option.WithTokenSource(nil),
		option.WithHeader("X-Correlation-Id", "abc-123\twith tab")); err != nil {
		t.Fatalf("a valid header was refused: %v", err)
	}
}

// WithAppInfo's name and version go into the User-Agent: anything that is
// not an HTTP token (control characters, space, separators) is refused, so
// no header can be split or forged through it.
func TestWithAppInfoRefusesNonTokens(t *testing.T) {
	t.Parallel()
	var ua atomic.Value
	srv := newCountingServer(t, func(w http.ResponseWriter, r *http.Request) {
		ua.Store(r.Header.Get("User-Agent"))
		userJSON(w, r)
	})
	c := newClient(t, option.WithBaseURL(srv.URL), option.WithTokenSource(nil))
	bad := map[string]string{"CR": "\r", "LF": "\n", "CRLF header injection": "\r\nX-Evil: 1", "NUL": "\x00", "DEL": "\x7f",
		"TAB": "\t", "space": " ", "slash": "/", "non-ASCII": "é"}
	for name, ch := range bad {
		for _, nv := range [][2]string{{"svc" + ch, "1.0"}, {"svc", "1.0" + ch}, {ch, ""}} {
			opt := option.WithAppInfo(nv[0], nv[1])
			if _, err := client.New(option.WithBaseURL(srv.URL), option.WithTokenSource(nil), opt); !errors.Is(err, apierrors.ErrInvalidInput) {
				t.Errorf("%s: WithAppInfo(%q, %q): New err = %v, want ErrInvalidInput", name, nv[0], nv[1], err)
			}
			if err := updateFirstName(t.Context(), c, opt); !errors.Is(err, apierrors.ErrInvalidInput) {
				t.Errorf("%s: per-call WithAppInfo(%q, %q): err = %v, want ErrInvalidInput", name, nv[0], nv[1], err)
			}
		}
	}
	if _, err := client.New(option.WithBaseURL(srv.URL), option.WithTokenSource(nil), option.WithAppInfo("", "1.0")); !errors.Is(err, apierrors.ErrInvalidInput) {
		t.Errorf("empty name: New err = %v, want ErrInvalidInput", err)
	}
	if srv.reqs.Load() != 0 {
		t.Fatalf("%d requests sent with a refused option", srv.reqs.Load())
	}
	// Control: valid tokens are accepted and appended to the User-Agent.
	if err := updateFirstName(t.Context(), c, option.WithAppInfo("billing-svc", "1.2.3"), option.WithAppInfo("batch", "")); err != nil {
		t.Fatal(err)
	}
	if got, _ := ua.Load().(string); !strings.HasSuffix(got, ") billing-svc/1.2.3 batch") {
		t.Fatalf("User-Agent = %q, want the app info appended", got)
	}
}

func TestClientOnlyOptionsRefusedPerCall(t *testing.T) {
	t.Parallel()
	srv := newCountingServer(t, userJSON)
	c := newClient(t, option.WithBaseURL(srv.URL), option.WithTokenSource(nil))
	err := updateFirstName(t.Context(), c, option.WithInsecureBearerOverHTTP())
	if !errors.Is(err, apierrors.ErrInvalidInput) {
		t.Fatalf("per-call WithInsecureBearerOverHTTP: %v, want ErrInvalidInput", err)
	}
	err = updateFirstName(t.Context(), c, option.WithHeader("Bad Name", "x"))
	if !errors.Is(err, apierrors.ErrInvalidInput) || strings.Count(err.Error(), "memberplatform:") != 1 {
		t.Fatalf("per-call invalid option: %q, want one ErrInvalidInput line with a single prefix", err)
	}
	if n := srv.reqs.Load(); n != 0 {
		t.Fatalf("%d requests sent, want none", n)
	}
}

// A per-call option on a client whose transport is not comparable must not
// panic: the pipeline learns that a call changed the transport from the
// option, not by comparing RoundTrippers.
func TestPerCallOptionWithAnUncomparableTransport(t *testing.T) {
	t.Parallel()
	var calls atomic.Int32
	rt := roundTripFunc(func(r *http.Request) (*http.Response, error) {
		calls.Add(1)
		return &http.Response{StatusCode: http.StatusOK, Header: http.Header{}, Body: io.NopCloser(strings.NewReader(`{"id":"` + testUserID + `"}`)), Request: r}, nil
	})
	c := newClient(t, option.WithBaseURL("https://api.example.com"), option.WithTokenSource(nil), option.WithTransport(rt))
	for _, opt := range []option.RequestOption{option.WithHeader("X-Trace", "1"), option.WithTransport(rt), option.WithAttemptTimeout(time.Second)} {
		if err := updateFirstName(t.Context(), c, opt); err != nil {
			t.Fatalf("per-call option: %v", err)
		}
	}
	if n := calls.Load(); n != 3 {
		t.Fatalf("transport saw %d requests, want 3", n)
	}
}

// A per-call WithHTTPClient sends through that client's transport, even on a
// client that uses its own connection pool.
func TestPerCallHTTPClientTransportIsUsed(t *testing.T) {
	t.Parallel()
	srv := newCountingServer(t, userJSON)
	c := newClient(t, option.WithBaseURL(srv.URL), option.WithTokenSource(nil))
	var seen atomic.Int32
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	hc := &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
		seen.Add(1)
		return tr.RoundTrip(r)
	})}
	if err := updateFirstName(t.Context(), c, option.WithHTTPClient(hc)); err != nil {
		t.Fatal(err)
	}
	if seen.Load() != 1 {
		t.Fatalf("the per-call client's transport saw %d requests, want 1", seen.Load())
	}
	c.CloseIdleConnections()
}

func TestMiddlewareReturningNothingIsATransportError(t *testing.T) {
	t.Parallel()
	srv := newCountingServer(t, userJSON)
	nothing := func(*http.Request, option.MiddlewareNext) (*http.Response, error) { return nil, nil }
	c := newClient(t, option.WithBaseURL(srv.URL), option.WithTokenSource(nil), option.WithMiddleware(nothing))
	err := updateFirstName(t.Context(), c)
	if !errors.Is(err, apierrors.ErrTransport) || strings.Contains(err.Error(), "core.") {
		t.Fatalf("err = %v, want a TransportError that names no internal type", err)
	}
}

// WithAppInfo appends to the SDK's User-Agent: the client's own, then a
// call's after it, which the next call no longer carries.
func TestUserAgentAppInfo(t *testing.T) {
	uas := make(chan string, 4)
	srv, tr := logTestServer(t, func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		uas <- r.Header.Get("User-Agent")
		w.WriteHeader(http.StatusNoContent)
	})
	c := newClient(t, option.WithBaseURL(srv.URL), tr, option.WithTokenSource(client.StaticToken("static-token")),
		option.WithAppInfo("billing-svc", "1.2.3"))
	ctx := context.Background()
	base := regexp.MustCompile(`^memberplatform-go/\S+ \(go[^;]+; [a-z0-9]+/[a-z0-9]+\)`)
	if err := c.AccessMgmt.ReplaceRolePermissions(ctx, "org_01EHZNVPK3SFK441A1RGBFSHRT", "org-admin", nil); err != nil {
		t.Fatal(err)
	}
	if ua := <-uas; !base.MatchString(ua) || !strings.HasSuffix(ua, ") billing-svc/1.2.3") {
		t.Errorf("User-Agent = %q, want the SDK's followed by billing-svc/1.2.3", ua)
	}
	// A per-call WithAppInfo appends to the client's.
	if err := c.AccessMgmt.ReplaceRolePermissions(ctx, "org_01EHZNVPK3SFK441A1RGBFSHRT", "org-admin", nil,
		option.WithAppInfo("nightly-job", "7")); err != nil {
		t.Fatal(err)
	}
	if ua := <-uas; !base.MatchString(ua) || !strings.HasSuffix(ua, ") billing-svc/1.2.3 nightly-job/7") {
		t.Errorf("per-call User-Agent = %q, want ... billing-svc/1.2.3 nightly-job/7", ua)
	}
	// And the next call is back to the client's own.
	if err := c.AccessMgmt.ReplaceRolePermissions(ctx, "org_01EHZNVPK3SFK441A1RGBFSHRT", "org-admin", nil); err != nil {
		t.Fatal(err)
	}
	if ua := <-uas; !strings.HasSuffix(ua, ") billing-svc/1.2.3") {
		t.Errorf("User-Agent after a per-call WithAppInfo = %q", ua)
	}
}
