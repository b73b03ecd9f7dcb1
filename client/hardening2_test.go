package client_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/memberplatform/memberplatform-go/client"
	apierrors "github.com/memberplatform/memberplatform-go/errors"
	"github.com/memberplatform/memberplatform-go/option"
)

// These tests pin guards that no other test pinned: a mutant of each
// (comparing only hosts, matching "localhost" as a prefix, dropping the
// query redaction...) survived the rest of the suite.

// h2RoundTrip adapts a function to an http.RoundTripper. It is a pointer,
// not a func type: the pipeline compares transports with ==, which panics
// on a func value (see the report on settings.go's callSettings).
type h2RoundTrip struct {
	f func(*http.Request) (*http.Response, error)
}

func (t *h2RoundTrip) RoundTrip(r *http.Request) (*http.Response, error) { return t.f(r) }

// h2Buffer is a bytes.Buffer safe for the concurrent writes of a logger.
type h2Buffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *h2Buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *h2Buffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// h2DeadAddr returns a loopback address nothing listens on.
func h2DeadAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	_ = ln.Close()
	return addr
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
	c, err := client.New(option.WithBaseURL(srv.URL), option.WithTokenSource(client.StaticToken("secret-token")),
		option.WithMaxRetries(0), option.WithTransport(&h2RoundTrip{func(r *http.Request) (*http.Response, error) {
			if r.URL.Scheme == "http" {
				plain.Add(1)
			} else {
				secure.Add(1)
			}
			return trusting.RoundTrip(r)
		}}))
	if err != nil {
		t.Fatal(err)
	}

	// Control: a same-origin https redirect is followed (two round trips),
	// so the transport does see followed redirects.
	if err := updateFirstName(t.Context(), c); err != nil {
		t.Fatalf("same-origin https redirect: %v", err)
	}
	if secure.Load() != 2 {
		t.Fatalf("%d https round trips, want 2 (the redirect followed)", secure.Load())
	}

	err = updateFirstName(t.Context(), c, option.WithHeader("X-Redirect", "downgrade"))
	var apiErr *apierrors.Error
	if !errors.As(err, &apiErr) || apiErr.StatusCode != http.StatusTemporaryRedirect {
		t.Fatalf("https→http redirect: err = %v, want the 307 returned as an *errors.Error", err)
	}
	if n := plain.Load(); n != 0 {
		t.Fatalf("the client sent %d request(s) over plain http after the redirect", n)
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
	c, err := client.New(option.WithBaseURL(srv.URL), option.WithTokenSource(nil))
	if err != nil {
		t.Fatal(err)
	}
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

// A query string may carry a caller's secret (an API key for a gateway):
// when the connection fails, neither the error, however printed, nor any
// log record holds it.
func TestQuerySecretNotInTransportErrorOrLogs(t *testing.T) {
	t.Parallel()
	const clientSecret, callSecret = "CLIENT-QS-SECRET-8f2e", "CALL-QS-SECRET-41ab"

	// Control: the query really is sent, so its absence below is redaction.
	var rawQuery atomic.Value
	live := newCountingServer(t, func(w http.ResponseWriter, r *http.Request) {
		rawQuery.Store(r.URL.RawQuery)
		userJSON(w, r)
	})
	lc, err := client.New(option.WithBaseURL(live.URL), option.WithTokenSource(nil), option.WithQuery(url.Values{"api_key": {clientSecret}}))
	if err != nil {
		t.Fatal(err)
	}
	if err := updateFirstName(t.Context(), lc, option.WithQuery(url.Values{"sig": {callSecret}})); err != nil {
		t.Fatal(err)
	}
	if q, _ := rawQuery.Load().(string); !strings.Contains(q, clientSecret) || !strings.Contains(q, callSecret) {
		t.Fatalf("server saw query %q, want both secrets", q)
	}

	var logs h2Buffer
	logger := slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug, AddSource: true}))
	c, err := client.New(option.WithBaseURL("http://"+h2DeadAddr(t)), option.WithTokenSource(nil),
		option.WithQuery(url.Values{"api_key": {clientSecret}}), option.WithLogger(logger),
		option.WithMaxRetries(1), option.WithRetryBackoff(time.Millisecond, time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	err = updateFirstName(t.Context(), c, option.WithQuery(url.Values{"sig": {callSecret}}))
	var te *apierrors.TransportError
	if !errors.As(err, &te) || te.Attempts != 2 {
		t.Fatalf("err = %v, want a TransportError after 2 attempts (connection refused)", err)
	}
	texts := []string{err.Error(), logs.String()}
	for _, verb := range []string{"%v", "%+v", "%s", "%q", "%#v"} {
		texts = append(texts, fmt.Sprintf(verb, err))
	}
	for e := error(err); e != nil; e = errors.Unwrap(e) {
		texts = append(texts, e.Error())
	}
	if !strings.Contains(logs.String(), `"level":"WARN"`) || !strings.Contains(logs.String(), `"level":"DEBUG"`) {
		t.Fatalf("log = %s, want the attempt and retry records", logs.String())
	}
	for _, text := range texts {
		for _, secret := range []string{clientSecret, callSecret} {
			if strings.Contains(text, secret) {
				t.Fatalf("query secret %q found in %q", secret, text)
			}
		}
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

// A typed nil token source would panic on its first call. New reports it
// as a configuration error instead, before anything is sent.
func TestTypedNilTokenSourceIsAValidationError(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		ts   client.TokenSource
	}{
		{"nil *SigV4TokenSource", (*client.SigV4TokenSource)(nil)},
		{"nil TokenSourceFunc", client.TokenSourceFunc(nil)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var (
				c   *client.Client
				err error
			)
			func() {
				defer func() {
					if p := recover(); p != nil {
						t.Fatalf("New panicked: %v", p)
					}
				}()
				c, err = client.New(option.WithBaseURL("https://api.example.com"), option.WithTokenSource(tc.ts))
			}()
			var ve *apierrors.ValidationError
			if c != nil || !errors.As(err, &ve) || ve.Fields[0].Field != "config" || !strings.Contains(err.Error(), "nil") {
				t.Fatalf("New = %v, %v; want a *errors.ValidationError on config naming the nil source", c, err)
			}
		})
	}
	// Control: an untyped nil is the documented "no token".
	if _, err := client.New(option.WithBaseURL("https://api.example.com"), option.WithTokenSource(nil)); err != nil {
		t.Fatalf("WithTokenSource(nil): %v", err)
	}
}

// The per-call base URL check compares the URL's value: the same URL given
// again (another string, parsed separately) is accepted, and only a
// different one is refused.
func TestPerCallBaseURLComparedByValue(t *testing.T) {
	t.Parallel()
	srv := newCountingServer(t, userJSON)
	c, err := client.New(option.WithBaseURL(srv.URL), option.WithTokenSource(client.StaticToken("secret-token")))
	if err != nil {
		t.Fatal(err)
	}
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
		"https://" + u.Host,
		"http://" + h2DeadAddr(t),
		srv.URL + "/v2",
		"http://localhost:" + u.Port(),
	} {
		err := updateFirstName(t.Context(), c, option.WithBaseURL(b))
		var ve *apierrors.ValidationError
		if !errors.As(err, &ve) || ve.Fields[0].Field != "options" {
			t.Errorf("per-call WithBaseURL(%q): err = %v, want a validation error on options", b, err)
		}
	}
	if got := srv.reqs.Load(); got != int64(len(same)) {
		t.Fatalf("%d requests after the refused calls, want %d", got, len(same))
	}
}

// An error the SDK cannot classify as transient, such as net/http's invalid
// header value, is returned after one attempt: the same request would fail
// the same way. (It was retried three times.)
func TestUnclassifiedTransportErrorOneAttempt(t *testing.T) {
	t.Parallel()
	var trips atomic.Int64
	c, err := client.New(option.WithBaseURL("https://api.example.com"), option.WithTokenSource(nil),
		option.WithRetryBackoff(time.Millisecond, time.Millisecond),
		option.WithTransport(&h2RoundTrip{func(*http.Request) (*http.Response, error) {
			trips.Add(1)
			return nil, errors.New(`net/http: invalid header field value for "User-Agent"`)
		}}))
	if err != nil {
		t.Fatal(err)
	}
	err = updateFirstName(t.Context(), c)
	var te *apierrors.TransportError
	if !errors.As(err, &te) || te.Attempts != 1 || trips.Load() != 1 {
		t.Fatalf("err = %v after %d round trips, want a TransportError after 1 attempt", err, trips.Load())
	}
	if !strings.Contains(err.Error(), "invalid header field value") {
		t.Fatalf("err = %v, want the cause kept", err)
	}
}

// roundTripFunc is the usual adapter; a func type cannot be compared with ==.
type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// A per-call option on a client whose transport is not comparable must not
// panic: the pipeline learns that a call changed the transport from the
// option, not by comparing RoundTrippers.
func TestPerCallOptionWithAnUncomparableTransport(t *testing.T) {
	t.Parallel()
	var calls atomic.Int32
	rt := roundTripFunc(func(r *http.Request) (*http.Response, error) {
		calls.Add(1)
		return &http.Response{StatusCode: http.StatusOK, Header: http.Header{}, Body: io.NopCloser(strings.NewReader(`{"id":"` + hardUserID + `"}`)), Request: r}, nil
	})
	c, err := client.New(option.WithBaseURL("https://api.example.com"), option.WithTokenSource(nil), option.WithTransport(rt))
	if err != nil {
		t.Fatal(err)
	}
	for _, opt := range []option.RequestOption{option.WithHeader("X-Trace", "1"), option.WithTransport(rt), option.WithAttemptTimeout(time.Second)} {
		if err := updateFirstName(t.Context(), c, opt); err != nil {
			t.Fatalf("per-call option: %v", err)
		}
	}
	if n := calls.Load(); n != 3 {
		t.Fatalf("transport saw %d requests, want 3", n)
	}
}

func TestStandaloneSigV4SourceRefusesPlainHTTPAtOnce(t *testing.T) {
	t.Parallel()
	creds := credentials.NewStaticCredentialsProvider("AKIDEXAMPLE", "secret", "")
	for _, tc := range []struct {
		base  string
		opts  []option.RequestOption
		valid bool
	}{
		{"http://api.example.com", nil, false},
		{"not a url", nil, false},
		{"http://api.example.com", []option.RequestOption{option.WithInsecureBearerOverHTTP()}, true},
		{"http://127.0.0.1:8080", nil, true},
		{"https://api.example.com", nil, true},
	} {
		_, err := client.NewSigV4TokenSource(client.SigV4Config{Credentials: creds, Region: "us-east-1", BaseURL: tc.base, Options: tc.opts})
		if (err == nil) != tc.valid || (err != nil && !errors.Is(err, apierrors.ErrInvalidInput)) {
			t.Errorf("BaseURL %q: err = %v, want valid=%v (ErrInvalidInput otherwise)", tc.base, err, tc.valid)
		}
	}
}

func TestClientOnlyOptionsRefusedPerCall(t *testing.T) {
	t.Parallel()
	srv := newCountingServer(t, userJSON)
	c, err := client.New(option.WithBaseURL(srv.URL), option.WithTokenSource(nil))
	if err != nil {
		t.Fatal(err)
	}
	err = updateFirstName(t.Context(), c, option.WithInsecureBearerOverHTTP())
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

func TestMiddlewareReturningNothingIsATransportError(t *testing.T) {
	t.Parallel()
	srv := newCountingServer(t, userJSON)
	nothing := func(*http.Request, option.MiddlewareNext) (*http.Response, error) { return nil, nil }
	c, err := client.New(option.WithBaseURL(srv.URL), option.WithTokenSource(nil), option.WithMiddleware(nothing))
	if err != nil {
		t.Fatal(err)
	}
	err = updateFirstName(t.Context(), c)
	if !errors.Is(err, apierrors.ErrTransport) || strings.Contains(err.Error(), "core.") {
		t.Fatalf("err = %v, want a TransportError that names no internal type", err)
	}
}

// A per-call WithHTTPClient sends through that client's transport, even on a
// client that uses its own connection pool.
func TestPerCallHTTPClientTransportIsUsed(t *testing.T) {
	t.Parallel()
	srv := newCountingServer(t, userJSON)
	c, err := client.New(option.WithBaseURL(srv.URL), option.WithTokenSource(nil))
	if err != nil {
		t.Fatal(err)
	}
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
