package client_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/memberplatform/memberplatform-go/accessmgmt"
	"github.com/memberplatform/memberplatform-go/client"
	apierrors "github.com/memberplatform/memberplatform-go/errors"
	"github.com/memberplatform/memberplatform-go/option"
	"github.com/memberplatform/memberplatform-go/sdktest"
)

// These tests pin the guards a first-time user relies on without knowing:
// options that would misdirect a token or a body are refused, and failures
// keep what the server said.

const hardUserID = "user_01E4ZCR3C56J083X43JQXF3JK5"

func updateFirstName(ctx context.Context, c *client.Client, opts ...option.RequestOption) error {
	_, err := c.AccessMgmt.UpdateUser(ctx, hardUserID, accessmgmt.UpdateUserParams{FirstName: new("Ada")}, opts...)
	return err
}

// countingServer answers every request with status and body and counts
// requests and new connections.
type countingServer struct {
	*httptest.Server
	reqs, conns, closed atomic.Int64
	auth                atomic.Value
}

func newCountingServer(t *testing.T, h http.HandlerFunc) *countingServer {
	t.Helper()
	s := &countingServer{}
	s.Server = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.reqs.Add(1)
		s.auth.Store(r.Header.Get("Authorization"))
		_, _ = io.Copy(io.Discard, r.Body)
		h(w, r)
	}))
	s.Config.ConnState = func(_ net.Conn, st http.ConnState) {
		switch st {
		case http.StateNew:
			s.conns.Add(1)
		case http.StateClosed:
			s.closed.Add(1)
		}
	}
	s.Start()
	t.Cleanup(s.Close)
	return s
}

func userJSON(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	_, _ = io.WriteString(w, `{"id":"`+hardUserID+`","email":"ada@example.com","firstName":"Ada"}`)
}

func TestWithSigV4OptionServesEachClientItsOwnPlatform(t *testing.T) {
	t.Parallel()
	a, b := sdktest.NewServer(t), sdktest.NewServer(t)
	for _, s := range []*sdktest.Server{a, b} {
		s.AddUser(sdktest.User{ID: hardUserID, Email: "ada@example.com"})
	}
	opt := option.WithSigV4(a.Credentials(), a.Region()) // one option value, two clients
	for _, s := range []*sdktest.Server{a, b} {
		c, err := client.New(option.WithBaseURL(s.URL), option.WithTransport(s.HTTPClient().Transport), opt)
		if err != nil {
			t.Fatal(err)
		}
		if err := updateFirstName(t.Context(), c); err != nil {
			t.Fatalf("%s: %v", s.URL, err)
		}
	}
	if a.TokenRequests() != 1 || b.TokenRequests() != 1 {
		t.Fatalf("token requests: a=%d b=%d, want 1 each", a.TokenRequests(), b.TokenRequests())
	}
}

func TestSigV4SourceWithoutBaseURLServesOneClient(t *testing.T) {
	t.Parallel()
	a := sdktest.NewServer(t)
	src, err := client.NewSigV4TokenSource(client.SigV4Config{Credentials: a.Credentials(), Region: a.Region()})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := client.New(option.WithBaseURL(a.URL), option.WithTokenSource(src)); err != nil {
		t.Fatal(err)
	}
	_, err = client.New(option.WithBaseURL("https://other.example"), option.WithTokenSource(src))
	if !errors.Is(err, apierrors.ErrInvalidInput) || !strings.Contains(err.Error(), "already serves another client") {
		t.Fatalf("second New: %v, want a config error", err)
	}
}

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

func TestPerCallBaseURLRefused(t *testing.T) {
	t.Parallel()
	home := newCountingServer(t, userJSON)
	elsewhere := newCountingServer(t, userJSON)
	c, err := client.New(option.WithBaseURL(home.URL), option.WithTokenSource(client.StaticToken("secret-token")))
	if err != nil {
		t.Fatal(err)
	}
	err = updateFirstName(t.Context(), c, option.WithBaseURL(elsewhere.URL))
	var ve *apierrors.ValidationError
	if !errors.As(err, &ve) || ve.Fields[0].Field != "options" {
		t.Fatalf("err = %v, want a validation error on options", err)
	}
	if home.reqs.Load()+elsewhere.reqs.Load() != 0 {
		t.Fatalf("requests sent: home %d, elsewhere %d", home.reqs.Load(), elsewhere.reqs.Load())
	}
}

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

func TestBaseURLWithUserCredentialsRefused(t *testing.T) {
	t.Parallel()
	_, err := client.New(option.WithBaseURL("https://user:pass@api.example.com"), option.WithTokenSource(nil))
	if !errors.Is(err, apierrors.ErrInvalidInput) || strings.Contains(err.Error(), "pass") {
		t.Fatalf("err = %v, want a config error that does not echo the password", err)
	}
}

func TestStaticTokenIsTrimmedAndChecked(t *testing.T) {
	t.Parallel()
	srv := newCountingServer(t, userJSON)
	c, err := client.New(option.WithBaseURL(srv.URL), option.WithTokenSource(client.StaticToken("  tok-123\n")))
	if err != nil {
		t.Fatal(err)
	}
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
	c, err := client.New(option.WithBaseURL(home.URL), option.WithTokenSource(nil), option.WithMaxRetries(0))
	if err != nil {
		t.Fatal(err)
	}
	if err := updateFirstName(t.Context(), c); err != nil {
		t.Fatalf("same-origin redirect: %v", err)
	}
	err = updateFirstName(t.Context(), c, option.WithHeader("X-Redirect", "away"))
	var apiErr *apierrors.Error
	if !errors.As(err, &apiErr) || apiErr.StatusCode != http.StatusTemporaryRedirect {
		t.Fatalf("cross-host redirect: err = %v, want the 307 as an *errors.Error", err)
	}
	if n := elsewhere.reqs.Load(); n != 0 {
		t.Fatalf("the other host received %d requests", n)
	}
}

func TestTransportErrorKeepsTheLastResponse(t *testing.T) {
	t.Parallel()
	srv := newCountingServer(t, func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/problem+json")
		w.Header().Set("X-Request-Id", "req-503")
		w.WriteHeader(http.StatusServiceUnavailable)
		_, _ = io.WriteString(w, `{"type":"about:blank","title":"Busy","status":503,"serviceCode":"50300001","detail":"try later"}`)
	})
	// Cancel when the retry is announced, that is after the 503 was read
	// and before the hour-long backoff: an event, not a guess at how long
	// the first attempt takes (a timer fired mid-attempt on a busy machine).
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	c, err := client.New(option.WithBaseURL(srv.URL), option.WithTokenSource(nil), option.WithRetryBackoff(time.Hour, time.Hour),
		option.WithLogger(slog.New(cancelOnRetry{cancel})))
	if err != nil {
		t.Fatal(err)
	}
	err = updateFirstName(ctx, c)
	var te *apierrors.TransportError
	if !errors.As(err, &te) || !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want a TransportError wrapping context.Canceled", err)
	}
	if te.Last == nil || te.Last.StatusCode != 503 || te.Last.RequestID != "req-503" || te.Last.Problem == nil || te.Last.Problem.ServiceCode != "50300001" {
		t.Fatalf("Last = %+v, want the decoded 503", te.Last)
	}
}

// cancelOnRetry is a slog.Handler that cancels a context when the SDK logs
// that it is about to retry.
type cancelOnRetry struct{ cancel context.CancelFunc }

func (h cancelOnRetry) Enabled(_ context.Context, l slog.Level) bool { return l >= slog.LevelWarn }

func (h cancelOnRetry) Handle(_ context.Context, r slog.Record) error {
	if strings.HasSuffix(r.Message, "retrying") {
		h.cancel()
	}
	return nil
}

func (h cancelOnRetry) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h cancelOnRetry) WithGroup(string) slog.Handler      { return h }

func TestNilContextIsAValidationError(t *testing.T) {
	t.Parallel()
	srv := newCountingServer(t, userJSON)
	c, err := client.New(option.WithBaseURL(srv.URL), option.WithTokenSource(nil))
	if err != nil {
		t.Fatal(err)
	}
	var nilCtx context.Context
	err = updateFirstName(nilCtx, c)
	var ve *apierrors.ValidationError
	if !errors.As(err, &ve) || ve.Fields[0].Field != "ctx" || srv.reqs.Load() != 0 {
		t.Fatalf("err = %v (requests %d), want a validation error on ctx and no request", err, srv.reqs.Load())
	}
}

func TestTokenErrorNamesTheOperation(t *testing.T) {
	t.Parallel()
	srv := newCountingServer(t, userJSON)
	sealed := errors.New("vault sealed")
	c, err := client.New(option.WithBaseURL(srv.URL), option.WithTokenSource(client.TokenSourceFunc(
		func(context.Context) (client.Token, error) { return client.Token{}, sealed })))
	if err != nil {
		t.Fatal(err)
	}
	err = updateFirstName(t.Context(), c)
	var te *apierrors.TokenError
	if !errors.As(err, &te) || te.Operation != "accessmgmt.UpdateUser" || !errors.Is(err, sealed) {
		t.Fatalf("err = %#v, want a TokenError for accessmgmt.UpdateUser wrapping the cause", err)
	}
	if !strings.HasPrefix(err.Error(), "memberplatform: accessmgmt.UpdateUser: obtaining bearer token") {
		t.Fatalf("Error() = %q", err.Error())
	}
}

func TestProviderNotConfiguredIsFinalOnAny5xx(t *testing.T) {
	t.Parallel()
	srv := newCountingServer(t, func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/problem+json")
		w.WriteHeader(http.StatusInternalServerError)
		_, _ = io.WriteString(w, `{"type":"about:blank","title":"Provider not configured","status":500,"serviceCode":"50000009"}`)
	})
	c, err := client.New(option.WithBaseURL(srv.URL), option.WithTokenSource(nil), option.WithRetryBackoff(time.Millisecond, time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	err = updateFirstName(t.Context(), c)
	var apiErr *apierrors.Error
	if !errors.As(err, &apiErr) || apiErr.Kind() != apierrors.ErrProviderNotConfigured || apiErr.Temporary() {
		t.Fatalf("err = %v, want a final provider-not-configured error", err)
	}
	if n := srv.reqs.Load(); n != 1 {
		t.Fatalf("%d requests, want 1: retrying cannot fix configuration", n)
	}
}

func TestCloseIdleConnectionsClosesOnlyTheClientsOwnPool(t *testing.T) {
	t.Parallel()
	srv := newCountingServer(t, userJSON)
	c, err := client.New(option.WithBaseURL(srv.URL), option.WithTokenSource(nil))
	if err != nil {
		t.Fatal(err)
	}
	if err := updateFirstName(t.Context(), c); err != nil {
		t.Fatal(err)
	}
	// net/http returns a connection to the pool on its own goroutine after
	// the body is read: close idle connections until that has happened.
	deadline := time.Now().Add(10 * time.Second) // polled: a generous bound costs nothing when it passes
	for srv.closed.Load() != 1 && time.Now().Before(deadline) {
		c.CloseIdleConnections()
		time.Sleep(time.Millisecond)
	}
	if srv.closed.Load() != 1 {
		t.Fatalf("closed connections = %d, want 1", srv.closed.Load())
	}

	// With the user's transport, the user's pool is left alone.
	user := newCountingServer(t, userJSON)
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	c2, err := client.New(option.WithBaseURL(user.URL), option.WithTokenSource(nil), option.WithTransport(tr))
	if err != nil {
		t.Fatal(err)
	}
	if err := updateFirstName(t.Context(), c2); err != nil {
		t.Fatal(err)
	}
	c2.CloseIdleConnections()
	time.Sleep(20 * time.Millisecond)
	if n := user.closed.Load(); n != 0 {
		t.Fatalf("the user's pool lost %d connections", n)
	}
}
