package client

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/memberplatform/memberplatform-go/accessmgmt"
	apierrors "github.com/memberplatform/memberplatform-go/errors"
	"github.com/memberplatform/memberplatform-go/option"
)

const userJSON = `{"id":"user_1","email":"ada@example.com","firstName":"Ada"}`

func writeJSON(w http.ResponseWriter, body string) {
	w.Header().Set("Content-Type", "application/json")
	_, _ = io.WriteString(w, body)
}

// newTestServer serves POST /auth/token with token (nil: any token request
// fails the test) and every other path with api.
func newTestServer(t *testing.T, token, api http.HandlerFunc) *httptest.Server {
	t.Helper()
	if token == nil {
		token = func(w http.ResponseWriter, r *http.Request) {
			t.Errorf("unexpected token request %s %s", r.Method, r.URL.Path)
			w.WriteHeader(http.StatusTeapot)
		}
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/auth/token", token)
	mux.HandleFunc("/", api)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

// newClientOpts builds a client for baseURL with a private transport whose
// idle connections are closed when the test ends, fast retries, and opts.
// It sets no token source: the environment decides unless opts do.
func newClientOpts(t *testing.T, baseURL string, opts ...option.RequestOption) *Client {
	t.Helper()
	tr := &http.Transport{MaxConnsPerHost: 64, MaxIdleConnsPerHost: 64}
	t.Cleanup(tr.CloseIdleConnections)
	all := append([]option.RequestOption{option.WithBaseURL(baseURL), option.WithTransport(tr), option.WithRetryBackoff(time.Millisecond, 2*time.Millisecond)}, opts...)
	c, err := New(all...)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return c
}

// newTestClient is newClientOpts with an explicit token source (nil: none).
func newTestClient(t *testing.T, baseURL string, ts TokenSource, opts ...option.RequestOption) *Client {
	t.Helper()
	return newClientOpts(t, baseURL, append([]option.RequestOption{option.WithTokenSource(ts)}, opts...)...)
}

func updateUser(ctx context.Context, c *Client, opts ...option.RequestOption) error {
	_, err := c.AccessMgmt.UpdateUser(ctx, "user_1", accessmgmt.UpdateUserParams{FirstName: new("Ada")}, opts...)
	return err
}

// countingSource returns "tok-1", "tok-2", ... valid for an hour.
type countingSource struct {
	n   atomic.Int64
	err atomic.Pointer[error]
}

func (s *countingSource) Token(context.Context) (Token, error) {
	if p := s.err.Load(); p != nil {
		return Token{}, *p
	}
	n := s.n.Add(1)
	return Token{Value: fmt.Sprintf("tok-%d", n), Expiry: time.Now().Add(time.Hour)}, nil
}

// recorder keeps the Authorization headers the API saw.
type recorder struct {
	mu   sync.Mutex
	auth []string
}

func (r *recorder) add(h string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.auth = append(r.auth, h)
	return len(r.auth)
}

func (r *recorder) get() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.auth)
}

func TestNoTokenSourceSendsNoAuthorization(t *testing.T) {
	var rec recorder
	srv := newTestServer(t, nil, func(w http.ResponseWriter, r *http.Request) {
		_, has := r.Header["Authorization"]
		rec.add(fmt.Sprint(has))
		writeJSON(w, userJSON)
	})
	c := newTestClient(t, srv.URL, nil)
	if err := updateUser(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	if got := rec.get(); !slices.Equal(got, []string{"false"}) {
		t.Fatalf("Authorization present: %v", got)
	}
}

func TestStaticAndFuncSourcesSendBearer(t *testing.T) {
	var rec recorder
	srv := newTestServer(t, nil, func(w http.ResponseWriter, r *http.Request) {
		rec.add(r.Header.Get("Authorization"))
		writeJSON(w, userJSON)
	})
	var calls atomic.Int64
	fn := TokenSourceFunc(func(context.Context) (Token, error) {
		calls.Add(1)
		return Token{Value: "from-func"}, nil
	})
	for _, ts := range []TokenSource{StaticToken("static-jwt"), fn} {
		c := newTestClient(t, srv.URL, ts)
		for range 2 {
			if err := updateUser(context.Background(), c); err != nil {
				t.Fatal(err)
			}
		}
	}
	want := []string{"Bearer static-jwt", "Bearer static-jwt", "Bearer from-func", "Bearer from-func"}
	if got := rec.get(); !slices.Equal(got, want) {
		t.Fatalf("Authorization headers %v, want %v", got, want)
	}
	if calls.Load() != 1 {
		t.Fatalf("func source called %d times, want 1 (cached, unknown expiry)", calls.Load())
	}
}

// 1,000 goroutines calling the API on a cold cache cause exactly one token
// request, counted by the token server.
func TestColdCacheThousandGoroutinesOneTokenRequest(t *testing.T) {
	v := sigV4Verifier{secret: testSecretKey, region: "ap-southeast-2", service: "execute-api", sessionToken: testSessionToken}
	var tokenReqs, apiReqs atomic.Int64
	release := make(chan struct{})
	srv := newTestServer(t, func(w http.ResponseWriter, r *http.Request) {
		tokenReqs.Add(1)
		select { // hold the fetch open while the callers pile up
		case <-release:
		case <-time.After(10 * time.Second):
		}
		body, _ := io.ReadAll(r.Body)
		if _, err := v.verify(r, body); err != nil {
			t.Errorf("token request: %v", err)
		}
		writeJSON(w, `{"accessToken":"jwt-shared","expiresIn":3600}`)
	}, func(w http.ResponseWriter, r *http.Request) {
		apiReqs.Add(1)
		if got := r.Header.Get("Authorization"); got != "Bearer jwt-shared" {
			t.Errorf("API Authorization %q", got)
		}
		writeJSON(w, userJSON)
	})
	src, err := NewSigV4TokenSource(SigV4Config{Credentials: testCreds(), Region: "ap-southeast-2"})
	if err != nil {
		t.Fatal(err)
	}
	c := newTestClient(t, srv.URL, src)

	const n = 1000
	var wg, started sync.WaitGroup
	started.Add(n)
	var failed atomic.Int64
	for range n {
		wg.Go(func() {
			started.Done()
			if err := updateUser(context.Background(), c); err != nil {
				failed.Add(1)
				t.Errorf("call: %v", err)
			}
		})
	}
	started.Wait()
	close(release)
	wg.Wait()
	t.Logf("%d goroutines: %d token request(s), %d API requests", n, tokenReqs.Load(), apiReqs.Load())
	if got := tokenReqs.Load(); got != 1 {
		t.Fatalf("token server saw %d requests, want exactly 1", got)
	}
	if apiReqs.Load() != n || failed.Load() != 0 {
		t.Fatalf("API requests %d, failures %d", apiReqs.Load(), failed.Load())
	}
}

func problem401(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "application/problem+json")
	w.WriteHeader(http.StatusUnauthorized)
	_, _ = io.WriteString(w, `{"type":"about:blank","title":"UNAUTHORIZED","status":401,"serviceCode":"40100001"}`)
}

func TestUnauthorizedRefreshesAndResendsOnce(t *testing.T) {
	var rec recorder
	srv := newTestServer(t, nil, func(w http.ResponseWriter, r *http.Request) {
		h := r.Header.Get("Authorization")
		rec.add(h)
		if h == "Bearer tok-1" {
			problem401(w)
			return
		}
		writeJSON(w, userJSON)
	})
	src := &countingSource{}
	c := newTestClient(t, srv.URL, src)
	if err := updateUser(context.Background(), c); err != nil {
		t.Fatalf("401 then fresh token: %v", err)
	}
	if got, want := rec.get(), []string{"Bearer tok-1", "Bearer tok-2"}; !slices.Equal(got, want) {
		t.Fatalf("API saw %v, want %v", got, want)
	}
	if src.n.Load() != 2 {
		t.Fatalf("token fetches %d, want 2", src.n.Load())
	}
	// The fresh token is cached for the next call.
	if err := updateUser(context.Background(), c); err != nil || src.n.Load() != 2 {
		t.Fatalf("next call: err %v, fetches %d", err, src.n.Load())
	}
}

func TestUnauthorizedTwiceIsTypedError(t *testing.T) {
	var rec recorder
	srv := newTestServer(t, nil, func(w http.ResponseWriter, r *http.Request) {
		rec.add(r.Header.Get("Authorization"))
		problem401(w)
	})
	src := &countingSource{}
	c := newTestClient(t, srv.URL, src)
	err := updateUser(context.Background(), c)
	if !errors.Is(err, apierrors.ErrUnauthorized) {
		t.Fatalf("err = %v, want ErrUnauthorized", err)
	}
	var ae *apierrors.Error
	if !errors.As(err, &ae) || ae.StatusCode != http.StatusUnauthorized {
		t.Fatalf("err %T %v, want *errors.Error with status 401", err, err)
	}
	if got, want := rec.get(), []string{"Bearer tok-1", "Bearer tok-2"}; !slices.Equal(got, want) {
		t.Fatalf("API saw %v, want exactly one resend with a fresh token %v", got, want)
	}
	if strings.Contains(err.Error(), "tok-") {
		t.Fatalf("error text holds the token: %s", err)
	}
}

// A retry attaches the token refreshed during its backoff; a 401 then drops
// that token (the one actually rejected), not the first attempt's.
func TestUnauthorizedAfterRetryDropsTheRejectedToken(t *testing.T) {
	var rec recorder
	var cp atomic.Pointer[Client]
	srv := newTestServer(t, nil, func(w http.ResponseWriter, r *http.Request) {
		h := r.Header.Get("Authorization")
		switch rec.add(h) {
		case 1: // tok-1: another goroutine refreshes the cache meanwhile
			tc := cp.Load().core.Tokens()
			cur, err := tc.Get(r.Context())
			if err != nil {
				t.Error(err)
			}
			tc.Invalidate(cur)
			if _, err := tc.Get(r.Context()); err != nil {
				t.Error(err)
			}
			w.WriteHeader(http.StatusServiceUnavailable)
		case 2: // the retry, with tok-2: rejected
			problem401(w)
		default:
			writeJSON(w, userJSON)
		}
	})
	src := &countingSource{}
	c := newTestClient(t, srv.URL, src)
	cp.Store(c)
	if err := updateUser(context.Background(), c); err != nil {
		t.Fatalf("call: %v", err)
	}
	if got, want := rec.get(), []string{"Bearer tok-1", "Bearer tok-2", "Bearer tok-3"}; !slices.Equal(got, want) {
		t.Fatalf("API saw %v, want %v", got, want)
	}
}

// When the token cannot be had, no API request is sent: the call returns
// the *errors.TokenError.
func TestTokenUnavailableSendsNoAPIRequest(t *testing.T) {
	var apiReqs atomic.Int64
	api := func(w http.ResponseWriter, r *http.Request) {
		apiReqs.Add(1)
		writeJSON(w, userJSON)
	}
	check := func(t *testing.T, err error) *apierrors.TokenError {
		t.Helper()
		var te *apierrors.TokenError
		if !errors.As(err, &te) || !errors.Is(err, apierrors.ErrTokenUnavailable) {
			t.Fatalf("err %T %v, want *errors.TokenError", err, err)
		}
		if apiReqs.Load() != 0 {
			t.Fatalf("%d API requests sent without a token", apiReqs.Load())
		}
		return te
	}

	t.Run("token endpoint 503", func(t *testing.T) {
		apiReqs.Store(0)
		var tokenReqs atomic.Int64
		srv := newTestServer(t, func(w http.ResponseWriter, r *http.Request) {
			tokenReqs.Add(1)
			w.WriteHeader(http.StatusServiceUnavailable)
		}, api)
		src, _ := NewSigV4TokenSource(SigV4Config{Credentials: testCreds(), Region: "us-east-1"})
		c := newTestClient(t, srv.URL, src, option.WithMaxRetries(1))
		te := check(t, updateUser(context.Background(), c))
		if te.StatusCode != http.StatusServiceUnavailable || !errors.Is(err503(te), apierrors.ErrServiceUnavailable) {
			t.Fatalf("TokenError status %d, cause %v", te.StatusCode, te.Err)
		}
		if tokenReqs.Load() != 2 {
			t.Fatalf("token requests %d, want 2 (one retry)", tokenReqs.Load())
		}
	})
	t.Run("token endpoint unreachable", func(t *testing.T) {
		apiReqs.Store(0)
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		dead := "http://" + ln.Addr().String()
		_ = ln.Close()
		srv := newTestServer(t, nil, api)
		src, _ := NewSigV4TokenSource(SigV4Config{Credentials: testCreds(), Region: "us-east-1", BaseURL: dead,
			Options: []option.RequestOption{option.WithMaxRetries(0)}})
		c := newTestClient(t, srv.URL, src)
		te := check(t, updateUser(context.Background(), c))
		if !errors.Is(te, apierrors.ErrTransport) {
			t.Fatalf("cause %v, want a transport error", te.Err)
		}
	})
	t.Run("unusable 200", func(t *testing.T) {
		apiReqs.Store(0)
		srv := newTestServer(t, func(w http.ResponseWriter, r *http.Request) {
			writeJSON(w, `{"jwt":"in-the-wrong-field"}`)
		}, api)
		src, _ := NewSigV4TokenSource(SigV4Config{Credentials: testCreds(), Region: "us-east-1"})
		c := newTestClient(t, srv.URL, src)
		te := check(t, updateUser(context.Background(), c))
		if te.StatusCode != 200 || !bytes.Contains(te.Body, []byte("in-the-wrong-field")) {
			t.Fatalf("status %d body %q", te.StatusCode, te.Body)
		}
		if strings.Contains(te.Error(), "in-the-wrong-field") {
			t.Fatalf("Error() holds the body: %s", te)
		}
	})
	t.Run("source error", func(t *testing.T) {
		apiReqs.Store(0)
		srv := newTestServer(t, nil, api)
		sealed := errors.New("vault sealed")
		c := newTestClient(t, srv.URL, TokenSourceFunc(func(context.Context) (Token, error) { return Token{}, sealed }))
		check(t, updateUser(context.Background(), c))
		if err := updateUser(context.Background(), c); !errors.Is(err, sealed) {
			t.Fatalf("err %v does not wrap the source's error", err)
		}
	})
	t.Run("empty token", func(t *testing.T) {
		apiReqs.Store(0)
		srv := newTestServer(t, nil, api)
		c := newTestClient(t, srv.URL, TokenSourceFunc(func(context.Context) (Token, error) { return Token{Value: " \n"}, nil }))
		check(t, updateUser(context.Background(), c))
	})
	t.Run("token with a newline inside", func(t *testing.T) {
		apiReqs.Store(0)
		srv := newTestServer(t, nil, api)
		c := newTestClient(t, srv.URL, TokenSourceFunc(func(context.Context) (Token, error) { return Token{Value: "abc\ndef"}, nil }))
		te := check(t, updateUser(context.Background(), c))
		if strings.Contains(te.Error(), "abc") || strings.Contains(te.Error(), "def") {
			t.Fatalf("Error() quotes the token: %s", te)
		}
	})
	t.Run("token lost before a retry", func(t *testing.T) {
		apiReqs.Store(0)
		src := &countingSource{}
		var cp atomic.Pointer[Client]
		srv := newTestServer(t, nil, func(w http.ResponseWriter, r *http.Request) {
			apiReqs.Add(1)
			// Meanwhile the token is rejected elsewhere and the source fails.
			tc := cp.Load().core.Tokens()
			cur, _ := tc.Get(r.Context())
			down := error(errors.New("token endpoint down"))
			src.err.Store(&down)
			tc.Invalidate(cur)
			w.WriteHeader(http.StatusServiceUnavailable)
		})
		c := newTestClient(t, srv.URL, src)
		cp.Store(c)
		err := updateUser(context.Background(), c)
		var te *apierrors.TokenError
		if !errors.As(err, &te) {
			t.Fatalf("err %T %v, want *errors.TokenError (the retry had no token)", err, err)
		}
		if apiReqs.Load() != 1 {
			t.Fatalf("API requests %d, want 1: the retry must not go out without a token", apiReqs.Load())
		}
	})
}

func err503(te *apierrors.TokenError) error { return te.Err }

// One caller giving up does not fail the others waiting for the same fetch.
func TestCancelledCallerDoesNotFailOthers(t *testing.T) {
	var tokenReqs atomic.Int64
	entered := make(chan struct{})
	release := make(chan struct{})
	srv := newTestServer(t, func(w http.ResponseWriter, r *http.Request) {
		if tokenReqs.Add(1) == 1 {
			close(entered)
		}
		select {
		case <-release:
		case <-time.After(10 * time.Second):
		}
		writeJSON(w, `{"token":"shared-jwt","expires_in":3600}`)
	}, func(w http.ResponseWriter, r *http.Request) { writeJSON(w, userJSON) })
	src, _ := NewSigV4TokenSource(SigV4Config{Credentials: testCreds(), Region: "us-east-1"})
	c := newTestClient(t, srv.URL, src)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cancelled := make(chan error, 1)
	go func() { cancelled <- updateUser(ctx, c) }()
	<-entered
	var wg sync.WaitGroup
	errs := make(chan error, 5)
	for range 5 {
		wg.Go(func() { errs <- updateUser(context.Background(), c) })
	}
	cancel()
	if err := <-cancelled; !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled caller: %v, want context.Canceled", err)
	}
	close(release)
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatalf("another caller failed: %v", err)
		}
	}
	if tokenReqs.Load() != 1 {
		t.Fatalf("token requests %d, want 1", tokenReqs.Load())
	}
}

// Token sources are client-wide; a per-call one is refused, and other
// per-call options work with any source (a TokenSourceFunc is not
// comparable: the check must not compare it).
func TestPerCallTokenSourceRefused(t *testing.T) {
	var apiReqs atomic.Int64
	srv := newTestServer(t, nil, func(w http.ResponseWriter, r *http.Request) {
		apiReqs.Add(1)
		writeJSON(w, userJSON)
	})
	fn := TokenSourceFunc(func(context.Context) (Token, error) { return Token{Value: "f"}, nil })
	c := newTestClient(t, srv.URL, fn)
	if err := updateUser(context.Background(), c, option.WithHeader("X-Trace", "1")); err != nil {
		t.Fatalf("per-call header with a func source: %v", err)
	}
	for _, opt := range []option.RequestOption{option.WithTokenSource(StaticToken("other")), option.WithTokenSource(nil), option.WithTokenSource(fn)} {
		err := updateUser(context.Background(), c, opt)
		if !errors.Is(err, apierrors.ErrInvalidInput) {
			t.Fatalf("per-call WithTokenSource: %v, want ErrInvalidInput", err)
		}
	}
	if apiReqs.Load() != 1 {
		t.Fatalf("API requests %d, want 1", apiReqs.Load())
	}
}

// A per-call header stays on that call: it must not be written into the
// client's shared header map.
func TestPerCallHeaderDoesNotLeakIntoClient(t *testing.T) {
	var rec recorder
	srv := newTestServer(t, nil, func(w http.ResponseWriter, r *http.Request) {
		rec.add(r.Header.Get("X-Client") + "|" + r.Header.Get("X-Call"))
		writeJSON(w, userJSON)
	})
	c := newTestClient(t, srv.URL, StaticToken("t"), option.WithHeader("X-Client", "c"))
	if err := updateUser(context.Background(), c, option.WithHeader("X-Call", "once")); err != nil {
		t.Fatal(err)
	}
	if err := updateUser(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	if got, want := rec.get(), []string{"c|once", "c|"}; !slices.Equal(got, want) {
		t.Fatalf("headers %v, want %v", got, want)
	}
}

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

// clearAuthEnv empties every variable New reads for authentication.
func clearAuthEnv(t *testing.T) {
	for _, k := range []string{EnvBaseURL, EnvToken, EnvSigV4Service, "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY",
		"AWS_SESSION_TOKEN", "AWS_REGION", "AWS_DEFAULT_REGION"} {
		t.Setenv(k, "")
	}
}

// envServer records what New's environment-chosen source sends.
type envServer struct {
	srv       *httptest.Server
	verifier  atomic.Pointer[sigV4Verifier]
	tokenReqs atomic.Int64
	api       recorder
}

func newEnvServer(t *testing.T) *envServer {
	e := &envServer{}
	e.srv = newTestServer(t, func(w http.ResponseWriter, r *http.Request) {
		e.tokenReqs.Add(1)
		body, _ := io.ReadAll(r.Body)
		if v := e.verifier.Load(); v == nil {
			t.Error("unexpected token request")
		} else if _, err := v.verify(r, body); err != nil {
			t.Errorf("token request: %v", err)
		}
		if v := e.verifier.Load(); v != nil && v.sessionToken == "" && r.Header.Get("X-Amz-Security-Token") != "" {
			t.Error("X-Amz-Security-Token sent without a session token")
		}
		writeJSON(w, `{"accessToken":"sigv4-jwt","expiresIn":600}`)
	}, func(w http.ResponseWriter, r *http.Request) {
		e.api.add(r.Header.Get("Authorization"))
		writeJSON(w, userJSON)
	})
	return e
}

// The documented order: explicit option, MEMBERPLATFORM_TOKEN, AWS keys
// (SigV4), none.
func TestEnvironmentDefaults(t *testing.T) {
	setAWS := func(t *testing.T) {
		t.Setenv("AWS_ACCESS_KEY_ID", testAccessKey)
		t.Setenv("AWS_SECRET_ACCESS_KEY", testSecretKey)
	}
	run := func(t *testing.T, e *envServer, opts ...option.RequestOption) {
		t.Helper()
		c := newClientOpts(t, e.srv.URL, opts...)
		if err := updateUser(context.Background(), c); err != nil {
			t.Fatal(err)
		}
	}
	t.Run("MEMBERPLATFORM_TOKEN wins over AWS keys", func(t *testing.T) {
		clearAuthEnv(t)
		setAWS(t)
		t.Setenv("AWS_REGION", "us-east-1")
		t.Setenv(EnvToken, "env-jwt")
		e := newEnvServer(t)
		run(t, e)
		if got := e.api.get(); !slices.Equal(got, []string{"Bearer env-jwt"}) || e.tokenReqs.Load() != 0 {
			t.Fatalf("API saw %v after %d token requests", got, e.tokenReqs.Load())
		}
	})
	t.Run("New with no options at all", func(t *testing.T) {
		clearAuthEnv(t)
		e := newEnvServer(t)
		t.Setenv(EnvBaseURL, e.srv.URL)
		t.Setenv(EnvToken, "env-only-jwt")
		c, err := New()
		if err != nil {
			t.Fatal(err)
		}
		if err := updateUser(context.Background(), c); err != nil {
			t.Fatal(err)
		}
		if got := e.api.get(); !slices.Equal(got, []string{"Bearer env-only-jwt"}) {
			t.Fatalf("API saw %v", got)
		}
	})
	for _, tc := range []struct {
		name string
		env  map[string]string // besides the AWS keys
		want sigV4Verifier     // what the token request must be signed with
	}{
		{
			"AWS keys: SigV4 with AWS_REGION, session token and service",
			map[string]string{"AWS_SESSION_TOKEN": testSessionToken, "AWS_REGION": "ap-southeast-2", "AWS_DEFAULT_REGION": "us-east-1", EnvSigV4Service: "custom-api"},
			sigV4Verifier{secret: testSecretKey, region: "ap-southeast-2", service: "custom-api", sessionToken: testSessionToken},
		},
		{
			"AWS keys: AWS_DEFAULT_REGION and default service",
			map[string]string{"AWS_DEFAULT_REGION": "us-west-2"},
			sigV4Verifier{secret: testSecretKey, region: "us-west-2", service: "execute-api"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clearAuthEnv(t)
			setAWS(t)
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			e := newEnvServer(t)
			e.verifier.Store(&tc.want)
			run(t, e)
			if got := e.api.get(); !slices.Equal(got, []string{"Bearer sigv4-jwt"}) || e.tokenReqs.Load() != 1 {
				t.Fatalf("API saw %v after %d token requests", got, e.tokenReqs.Load())
			}
		})
	}
	t.Run("AWS keys without a region fail New", func(t *testing.T) {
		clearAuthEnv(t)
		setAWS(t)
		_, err := New(option.WithBaseURL("https://api.example.com"))
		if !errors.Is(err, apierrors.ErrInvalidInput) || !strings.Contains(err.Error(), "AWS_REGION") {
			t.Fatalf("err = %v, want a configuration error naming AWS_REGION", err)
		}
		if strings.Contains(err.Error(), testSecretKey) {
			t.Fatal("error holds the secret key")
		}
	})
	t.Run("nothing set: no Authorization", func(t *testing.T) {
		clearAuthEnv(t)
		e := newEnvServer(t)
		run(t, e)
		if got := e.api.get(); !slices.Equal(got, []string{""}) {
			t.Fatalf("API saw %v", got)
		}
	})
	t.Run("explicit source wins over the environment", func(t *testing.T) {
		clearAuthEnv(t)
		setAWS(t)
		t.Setenv("AWS_REGION", "us-east-1")
		t.Setenv(EnvToken, "env-jwt")
		e := newEnvServer(t)
		run(t, e, option.WithTokenSource(StaticToken("explicit-jwt")))
		run(t, e, option.WithTokenSource(nil))
		if got := e.api.get(); !slices.Equal(got, []string{"Bearer explicit-jwt", ""}) || e.tokenReqs.Load() != 0 {
			t.Fatalf("API saw %v after %d token requests", got, e.tokenReqs.Load())
		}
	})
}

// failTransport fails the test if anything is sent.
type failTransport struct{ t *testing.T }

func (f failTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	f.t.Errorf("request sent: %s %s", r.Method, r.URL)
	return nil, errors.New("no network in this test")
}

func TestInsecureBearerOverHTTP(t *testing.T) {
	clearAuthEnv(t)
	refused := func(t *testing.T, opts ...option.RequestOption) {
		t.Helper()
		_, err := New(append([]option.RequestOption{option.WithTransport(failTransport{t})}, opts...)...)
		if !errors.Is(err, apierrors.ErrInvalidInput) || !strings.Contains(err.Error(), "plain http") {
			t.Fatalf("err = %v, want the insecure-bearer refusal", err)
		}
		if strings.Contains(err.Error(), "sekrit") {
			t.Fatalf("error holds the token: %v", err)
		}
	}
	allowed := func(t *testing.T, opts ...option.RequestOption) {
		t.Helper()
		if _, err := New(append([]option.RequestOption{option.WithTransport(failTransport{t})}, opts...)...); err != nil {
			t.Fatalf("New: %v", err)
		}
	}
	static := option.WithTokenSource(StaticToken("sekrit"))
	refused(t, option.WithBaseURL("http://api.example.com"), static)
	refused(t, option.WithBaseURL("http://10.0.0.5:8080"), static)
	refused(t, option.WithBaseURL("http://api.example.com"), option.WithSigV4(testCreds(), "us-east-1"))
	allowed(t, option.WithBaseURL("http://api.example.com"), static, option.WithInsecureBearerOverHTTP())
	allowed(t, option.WithBaseURL("https://api.example.com"), static)
	allowed(t, option.WithBaseURL("http://api.example.com"), option.WithTokenSource(nil)) // no bearer at all
	for _, u := range []string{"http://127.0.0.1:8080", "http://localhost:3000", "http://[::1]:9000", "http://svc.localhost", "http://127.1.2.3"} {
		allowed(t, option.WithBaseURL(u), static)
	}
	t.Run("from the environment", func(t *testing.T) {
		t.Setenv(EnvToken, "sekrit")
		refused(t, option.WithBaseURL("http://api.example.com"))
	})
	t.Run("per-call base URL", func(t *testing.T) {
		c, err := New(option.WithBaseURL("https://api.example.com"), static, option.WithTransport(failTransport{t}))
		if err != nil {
			t.Fatal(err)
		}
		err = updateUser(context.Background(), c, option.WithBaseURL("http://evil.example.com"))
		if !errors.Is(err, apierrors.ErrInvalidInput) {
			t.Fatalf("per-call http base URL: %v", err)
		}
	})
	t.Run("standalone SigV4 source", func(t *testing.T) {
		// Refused when the source is built, before any token request.
		src, err := NewSigV4TokenSource(SigV4Config{Credentials: testCreds(), Region: "us-east-1",
			BaseURL: "http://auth.example.com", Options: []option.RequestOption{option.WithTransport(failTransport{t})}})
		if src != nil || !errors.Is(err, apierrors.ErrInvalidInput) || !strings.Contains(err.Error(), "plain http") {
			t.Fatalf("err = %v, want a refusal to fetch a bearer over plain http", err)
		}
		var sent atomic.Int64
		ok, _ := NewSigV4TokenSource(SigV4Config{Credentials: testCreds(), Region: "us-east-1",
			BaseURL: "http://auth.example.com", Options: []option.RequestOption{option.WithInsecureBearerOverHTTP(), option.WithTransport(roundTripFunc(func(r *http.Request) (*http.Response, error) {
				sent.Add(1)
				return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"application/json"}},
					Body: io.NopCloser(strings.NewReader(`{"token":"x"}`)), Request: r}, nil
			}))}})
		if tok, err := ok.Token(context.Background()); err != nil || tok.Value != "x" || sent.Load() != 1 {
			t.Fatalf("with WithInsecureBearerOverHTTP: %v, %v, %d requests", tok, err, sent.Load())
		}
	})
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func TestTokenRedaction(t *testing.T) {
	const secret = "eyJsekrit.payload.sig"
	tok := Token{Value: secret, Expiry: time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)}
	outs := []string{tok.String(), tok.GoString()}
	for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%q", "%x", "%X", "%d", "%10.3v"} {
		outs = append(outs, fmt.Sprintf(verb, tok), fmt.Sprintf(verb, &tok),
			fmt.Sprintf(verb, struct{ T Token }{tok}), fmt.Sprintf(verb, []Token{tok}))
		outs = append(outs, fmt.Sprintf(verb, StaticToken(secret)))
	}
	var buf bytes.Buffer
	slog.New(slog.NewJSONHandler(&buf, nil)).Info("t", "token", tok, "source", StaticToken(secret))
	slog.New(slog.NewTextHandler(&buf, nil)).Info("t", "token", tok, "source", StaticToken(secret))
	outs = append(outs, buf.String())
	for _, out := range outs {
		if strings.Contains(out, secret) || strings.Contains(out, "sekrit") {
			t.Fatalf("token leaked: %s", out)
		}
	}
	if !strings.Contains(tok.String(), "2030-01-01T00:00:00Z") || !strings.Contains(tok.String(), "redacted") {
		t.Fatalf("String() = %s, want the expiry and a redaction marker", tok)
	}
	if s := (Token{Value: secret}).String(); strings.Contains(s, "Expiry") {
		t.Fatalf("unknown expiry printed: %s", s)
	}
}

// failingProvider fails to produce credentials.
type failingProvider struct{}

func (failingProvider) Retrieve(context.Context) (aws.Credentials, error) {
	return aws.Credentials{}, errors.New("no credentials in the chain")
}

// No error text or log record ever holds the bearer, the secret key, the
// session token or a signature.
func TestNoSecretInErrorsOrLogs(t *testing.T) {
	const bearer = "BEARER-VALUE-7f3a9c"
	var logs bytes.Buffer
	var logMu sync.Mutex
	logger := slog.New(slog.NewTextHandler(lockedWriter{&logMu, &logs}, &slog.HandlerOptions{Level: slog.LevelDebug}))

	var sigMu sync.Mutex
	var signatures []string
	var mode atomic.Value // what the token endpoint does
	srv := newTestServer(t, func(w http.ResponseWriter, r *http.Request) {
		if _, sig, ok := strings.Cut(r.Header.Get("Authorization"), "Signature="); ok {
			sigMu.Lock()
			signatures = append(signatures, sig)
			sigMu.Unlock()
		}
		switch mode.Load() {
		case "500":
			w.WriteHeader(http.StatusInternalServerError)
			_, _ = io.WriteString(w, "upstream failure")
		case "unusable":
			writeJSON(w, `{"accessToken":{"value":"`+bearer+`"}}`)
		default:
			writeJSON(w, `{"accessToken":"`+bearer+`","expiresIn":3600}`)
		}
	}, func(w http.ResponseWriter, r *http.Request) { problem401(w) })

	var errs []error
	newSrc := func(p aws.CredentialsProvider) *SigV4TokenSource {
		src, err := NewSigV4TokenSource(SigV4Config{Credentials: p, Region: "us-east-1"})
		if err != nil {
			t.Fatal(err)
		}
		return src
	}
	for _, m := range []string{"500", "unusable", "ok"} {
		mode.Store(m)
		c := newTestClient(t, srv.URL, newSrc(testCreds()), option.WithLogger(logger), option.WithMaxRetries(1))
		errs = append(errs, updateUser(context.Background(), c))
	}
	c := newTestClient(t, srv.URL, newSrc(failingProvider{}), option.WithLogger(logger))
	errs = append(errs, updateUser(context.Background(), c))

	sigMu.Lock()
	secrets := append([]string{bearer, testSecretKey, testSessionToken}, signatures...)
	sigMu.Unlock()
	if len(secrets) < 6 {
		t.Fatalf("only %d signatures captured", len(secrets)-3)
	}
	var texts []string
	for i, err := range errs {
		if err == nil {
			t.Fatalf("scenario %d: no error", i)
		}
		texts = append(texts, err.Error(), fmt.Sprintf("%v", err))
		var te *apierrors.TokenError
		if errors.As(err, &te) {
			texts = append(texts, fmt.Sprintf("%#v", te))
		}
	}
	if !errors.Is(errs[2], apierrors.ErrUnauthorized) {
		t.Fatalf("401 scenario: %v", errs[2])
	}
	logMu.Lock()
	texts = append(texts, logs.String())
	logMu.Unlock()
	if !strings.Contains(texts[len(texts)-1], "auth.Token") {
		t.Fatal("the logger recorded nothing about the token requests")
	}
	for _, text := range texts {
		for _, s := range secrets {
			if strings.Contains(text, s) {
				t.Fatalf("secret %.12q... found in %q", s, text)
			}
		}
	}
}

type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
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
