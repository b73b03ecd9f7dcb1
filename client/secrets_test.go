package client_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"io"
	"log/slog"
	"math"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/memberplatform/memberplatform-go/client"
	apierrors "github.com/memberplatform/memberplatform-go/errors"
	"github.com/memberplatform/memberplatform-go/option"
	"github.com/memberplatform/memberplatform-go/sdktest"
)

const (
	echoedToken   = "tok_echo_0123456789abcdef"
	sessionToken  = "FwoGZXIvYXdzEBYaDH/session+token=="
	secretAccess  = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
	accessKeyID   = "AKIDEXAMPLE0123"
	redactedValue = "[REDACTED]"
)

// everything renders err every way a user might print or inspect it.
func everything(err error) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%v\n%+v\n%#v\n%s\n", err, err, err, err)
	var apiErr *apierrors.Error
	if errors.As(err, &apiErr) {
		fmt.Fprintf(&b, "%s\n%s\n%s\n%s\n%v\n%#v\n", apiErr.Detail(), apiErr.Title(), apiErr.RequestID, apiErr.Body, apiErr.Header, apiErr.Problem)
		for _, f := range apiErr.FieldErrors() {
			b.WriteString(f.Field + " " + f.Message + "\n")
		}
	}
	var tokenErr *apierrors.TokenError
	if errors.As(err, &tokenErr) {
		fmt.Fprintf(&b, "%s\n%#v\n", tokenErr.Body, tokenErr)
	}
	return b.String()
}

func TestEchoedBearerIsRedactedFromErrorsAndLogs(t *testing.T) {
	t.Parallel()
	srv, transport := logTestServer(t, func(w http.ResponseWriter, r *http.Request) {
		auth := r.Header.Get("Authorization")
		w.Header().Set("X-Request-Id", "req-"+strings.TrimPrefix(auth, "Bearer "))
		w.Header().Set("Content-Type", "application/problem+json")
		w.WriteHeader(http.StatusForbidden)
		_ = json.NewEncoder(w).Encode(map[string]any{
			"type": "about:blank", "title": "Forbidden", "status": 403,
			"detail":        "the header " + auth + " grants nothing",
			"serviceErrors": []map[string]string{{"detail": "token " + strings.TrimPrefix(auth, "Bearer ") + " unknown", "pointer": "/token"}},
		})
	})
	logs := newLogCapture(slog.LevelDebug)
	c := newClient(t, option.WithBaseURL(srv.URL), transport, option.WithTokenSource(client.StaticToken(echoedToken)),
		option.WithMaxRetries(0), option.WithLogger(slog.New(logs)))
	err := updateFirstName(t.Context(), c)
	if !errors.Is(err, apierrors.ErrForbidden) {
		t.Fatalf("err = %v, want the 403", err)
	}
	seen := everything(err) + logs.rendered()
	if strings.Contains(seen, echoedToken) {
		t.Fatalf("the echoed bearer token reached an error or a log record:\n%s", seen)
	}
	var apiErr *apierrors.Error
	errors.As(err, &apiErr)
	if apiErr.Detail() != "the header "+redactedValue+" grants nothing" || apiErr.RequestID != "req-"+redactedValue {
		t.Fatalf("Detail = %q, RequestID = %q: the rest of the text must stay", apiErr.Detail(), apiErr.RequestID)
	}
}

func TestEchoedBearerIsRedactedFromAnUndecodable2xx(t *testing.T) {
	t.Parallel()
	srv, transport := logTestServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Request-Id", r.Header.Get("Authorization"))
		_, _ = io.WriteString(w, "<html>debug: "+r.Header.Get("Authorization")+"</html>")
	})
	c := newClient(t, option.WithBaseURL(srv.URL), transport, option.WithTokenSource(client.StaticToken(echoedToken)), option.WithMaxRetries(0))
	err := updateFirstName(t.Context(), c)
	if !errors.Is(err, apierrors.ErrUnexpectedResponseBody) {
		t.Fatalf("err = %v, want ErrUnexpectedResponseBody", err)
	}
	if seen := everything(err); strings.Contains(seen, echoedToken) || !strings.Contains(seen, redactedValue) {
		t.Fatalf("want the token replaced by %s:\n%s", redactedValue, seen)
	}
}

func TestTokenEndpointEchoIsRedacted(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var signature string
	srv, transport := logTestServer(t, func(w http.ResponseWriter, r *http.Request) {
		auth := r.Header.Get("Authorization")
		_, sig, _ := strings.Cut(auth, "Signature=")
		mu.Lock()
		signature = sig
		mu.Unlock()
		sec := r.Header.Get("X-Amz-Security-Token")
		w.Header().Set("X-Request-Id", sig)
		w.Header().Set("X-Signature-Upper", strings.ToUpper(sig)) // the same hex digits, in the other case
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusInternalServerError)
		// A PHP-style encoder escapes '/': the redaction must catch that too.
		_, _ = io.WriteString(w, `{"message":"echo: `+auth+` token=`+strings.ReplaceAll(sec, "/", `\/`)+` raw=`+sec+` upper=`+strings.ToUpper(sig)+`"}`)
	})
	creds := credentials.NewStaticCredentialsProvider(accessKeyID, secretAccess, sessionToken)
	logs := newLogCapture(slog.LevelDebug)
	c := newClient(t, option.WithBaseURL(srv.URL), transport, option.WithSigV4(creds, "ap-southeast-2"),
		option.WithMaxRetries(0), option.WithLogger(slog.New(logs)))
	err := updateFirstName(t.Context(), c)
	if !errors.Is(err, apierrors.ErrTokenUnavailable) {
		t.Fatalf("err = %v, want ErrTokenUnavailable", err)
	}
	mu.Lock()
	sig := signature
	mu.Unlock()
	if len(sig) != 64 {
		t.Fatalf("the server saw signature %q, want 64 hex digits", sig)
	}
	seen := everything(err) + logs.rendered()
	for name, secret := range map[string]string{"signature": sig, "upper-case signature": strings.ToUpper(sig), "session token": sessionToken,
		"escaped session token": strings.ReplaceAll(sessionToken, "/", `\/`), "secret key": secretAccess} {
		if strings.Contains(seen, secret) {
			t.Errorf("the %s reached an error or a log record:\n%s", name, seen)
		}
	}
	if !strings.Contains(seen, "echo: "+redactedValue) {
		t.Errorf("want the echoed Authorization replaced by %s and the rest kept:\n%s", redactedValue, seen)
	}
}

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

func TestSuccessBodyIsBounded(t *testing.T) {
	t.Parallel()
	t.Run("option", func(t *testing.T) {
		t.Parallel()
		srv := newCountingServer(t, func(w http.ResponseWriter, _ *http.Request) {
			_, _ = io.WriteString(w, `{"id":"`+strings.Repeat("a", 4096)+`"}`)
		})
		c := newClient(t, option.WithBaseURL(srv.URL), option.WithTokenSource(nil), option.WithMaxResponseBytes(1024))
		err := updateFirstName(t.Context(), c)
		var apiErr *apierrors.Error
		if !errors.Is(err, apierrors.ErrUnexpectedResponseBody) || !errors.As(err, &apiErr) || apiErr.Attempts != 1 || srv.reqs.Load() != 1 {
			t.Fatalf("err = %v after %d requests, want ErrUnexpectedResponseBody after one", err, srv.reqs.Load())
		}
		if !strings.Contains(err.Error(), "1024-byte limit") {
			t.Fatalf("err = %v, want it to name the limit", err)
		}
		if len(apiErr.Body) != 1024 || !apiErr.BodyTruncated {
			t.Fatalf("Body has %d bytes, BodyTruncated = %v; want the 1024 read and true", len(apiErr.Body), apiErr.BodyTruncated)
		}
		if _, err := client.New(option.WithBaseURL(srv.URL), option.WithMaxResponseBytes(0)); !errors.Is(err, apierrors.ErrInvalidInput) {
			t.Fatalf("WithMaxResponseBytes(0): %v, want ErrInvalidInput", err)
		}
	})
}

// TestEnvLogSubprocess runs the test binary again with MEMBERPLATFORM_LOG
// set, as an operator would, and reads what the SDK wrote to stderr.
func TestEnvLogSubprocess(t *testing.T) {
	if os.Getenv("MEMBERPLATFORM_TEST_ENVLOG_CHILD") == "1" {
		envLogChild()
		return
	}
	run := func(level string) (string, error) {
		cmd := exec.Command(os.Args[0], "-test.run=^TestEnvLogSubprocess$", "-test.count=1")
		cmd.Env = append(os.Environ(), "MEMBERPLATFORM_TEST_ENVLOG_CHILD=1", client.EnvLog+"="+level)
		var stderr strings.Builder
		cmd.Stderr = &stderr
		cmd.Stdout = io.Discard
		err := cmd.Run()
		return stderr.String(), err
	}
	debug, err := run("debug")
	if err != nil {
		t.Fatalf("child: %v\n%s", err, debug)
	}
	if !strings.Contains(debug, "level=DEBUG") || !strings.Contains(debug, `msg="memberplatform: attempt"`) ||
		!strings.Contains(debug, "level=WARN") || !strings.Contains(debug, "status=503") {
		t.Fatalf("MEMBERPLATFORM_LOG=debug wrote:\n%s\nwant Debug attempt records and a Warn retry record", debug)
	}
	if strings.Contains(debug, echoedToken) {
		t.Fatalf("the log holds the token:\n%s", debug)
	}
	warn, err := run("warn")
	if err != nil || strings.Contains(warn, "level=DEBUG") || !strings.Contains(warn, "level=WARN") {
		t.Fatalf("MEMBERPLATFORM_LOG=warn wrote (%v):\n%s", err, warn)
	}
	if _, err := run("loud"); err == nil {
		t.Fatal("MEMBERPLATFORM_LOG=loud: the child succeeded, want client.New to refuse the level")
	}
}

// envLogChild makes one call that is retried once, with the token echoed
// everywhere, and exits non-zero when client.New fails.
func envLogChild() {
	hits := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits++
		w.Header().Set("X-Request-Id", r.Header.Get("Authorization"))
		if hits == 1 {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		userJSON(w, r)
	}))
	defer srv.Close()
	os.Setenv(client.EnvBaseURL, srv.URL)
	os.Setenv(client.EnvToken, echoedToken)
	c, err := client.New(option.WithRetryBackoff(1, 1))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(3)
	}
	defer c.CloseIdleConnections()
	if err := updateFirstNameNoTest(c); err != nil {
		fmt.Fprintln(os.Stderr, "call:", err)
		os.Exit(4)
	}
}

func updateFirstNameNoTest(c *client.Client) error {
	return updateFirstName(context.Background(), c)
}

// Servers escape what they echo: JSON encoders write '+' as \u002B or '/'
// as \/, HTML pages '+' as &#43;. Neither the bytes nor the decoded texts
// may keep the secret.
func TestEscapedEchoesAreRedacted(t *testing.T) {
	t.Parallel()
	const token = "tok_secret_0123456789+abc/def=="
	for name, spell := range map[string]func(string) string{
		"json \\u002B": func(s string) string { return strings.ReplaceAll(s, "+", `\u002B`) },
		"json \\u002b": func(s string) string { return strings.ReplaceAll(s, "+", `\u002b`) },
		"json \\/":     func(s string) string { return strings.ReplaceAll(s, "/", `\/`) },
		"mixed":        func(s string) string { return strings.Replace(s, "+", `\u002B`, 1) },
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			srv := newCountingServer(t, func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/problem+json")
				w.WriteHeader(http.StatusForbidden)
				_, _ = io.WriteString(w, `{"title":"Forbidden","detail":"token `+spell(strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer "))+` is not allowed"}`)
			})
			c := newClient(t, option.WithBaseURL(srv.URL), option.WithTokenSource(client.StaticToken(token)), option.WithMaxRetries(0))
			err := updateFirstName(t.Context(), c)
			if seen := everything(err); strings.Contains(seen, token) || strings.Contains(seen, spell(token)) {
				t.Fatalf("the escaped echo leaked:\n%s", seen)
			}
			var apiErr *apierrors.Error
			if !errors.As(err, &apiErr) || apiErr.Detail() != "token "+redactedValue+" is not allowed" {
				t.Fatalf("Detail = %q", apiErr.Detail())
			}
		})
	}
	t.Run("html", func(t *testing.T) {
		t.Parallel()
		srv := newCountingServer(t, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			w.WriteHeader(http.StatusBadGateway)
			_, _ = io.WriteString(w, "<html><title>Bad gateway for "+strings.ReplaceAll(r.Header.Get("Authorization"), "+", "&#43;")+"</title></html>")
		})
		c := newClient(t, option.WithBaseURL(srv.URL), option.WithTokenSource(client.StaticToken(token)), option.WithMaxRetries(0))
		if seen := everything(updateFirstName(t.Context(), c)); strings.Contains(seen, token) || strings.Contains(seen, "0123456789&#43;abc") {
			t.Fatalf("the HTML-escaped echo leaked:\n%s", seen)
		}
	})
}

// A secret cut in half at the end of the 64 KiB snippet leaves no readable
// prefix behind.
func TestSecretCutAtTheSnippetEndIsRedacted(t *testing.T) {
	t.Parallel()
	srv := newCountingServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusBadRequest)
		pad := strings.Repeat("x", apierrors.MaxBodySnippet-10)
		_, _ = io.WriteString(w, pad+r.Header.Get("Authorization")+strings.Repeat("y", 100))
	})
	c := newClient(t, option.WithBaseURL(srv.URL), option.WithTokenSource(client.StaticToken(echoedToken)))
	err := updateFirstName(t.Context(), c)
	var apiErr *apierrors.Error
	if !errors.As(err, &apiErr) || !apiErr.BodyTruncated {
		t.Fatalf("err = %v, want a truncated 400", err)
	}
	if tail := string(apiErr.Body[len(apiErr.Body)-40:]); strings.Contains(tail, "Bearer tok_") || strings.Contains(tail, echoedToken[:8]) {
		t.Fatalf("the body's tail keeps the secret's beginning: %q", tail)
	}
}

// net/http quotes a bad Location in its error: an echoed token in it must
// not reach the TransportError's text or a log record.
func TestTransportErrorTextIsRedacted(t *testing.T) {
	t.Parallel()
	srv := newCountingServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header()["Location"] = []string{"http://[::1/%zz" + r.Header.Get("Authorization")}
		w.WriteHeader(http.StatusFound)
	})
	logs := newLogCapture(slog.LevelDebug)
	c := newClient(t, option.WithBaseURL(srv.URL), option.WithTokenSource(client.StaticToken(echoedToken)),
		option.WithMaxRetries(0), option.WithLogger(slog.New(logs)))
	err := updateFirstName(t.Context(), c)
	if !errors.Is(err, apierrors.ErrTransport) {
		t.Fatalf("err = %v, want a TransportError", err)
	}
	if seen := everything(err) + logs.rendered(); strings.Contains(seen, echoedToken) || !strings.Contains(seen, redactedValue) {
		t.Fatalf("the echoed token reached an error or a log record:\n%s", seen)
	}
}

func TestUnlimitedResponseBytes(t *testing.T) {
	t.Parallel()
	srv := newCountingServer(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("chunked") != "" {
			w.(http.Flusher).Flush() // no Content-Length
		}
		_, _ = io.WriteString(w, `{"id":"`+strings.Repeat("a", 2000)+`"}`)
	})
	c := newClient(t, option.WithBaseURL(srv.URL), option.WithTokenSource(nil), option.WithMaxResponseBytes(math.MaxInt64))
	for _, q := range []string{"", "1"} {
		var raw []byte
		if err := c.Execute(t.Context(), http.MethodGet, "/x", nil, &raw, option.WithQuery(url.Values{"chunked": {q}})); err != nil || len(raw) != 2009 {
			t.Fatalf("chunked=%q: %d bytes, %v; want the whole 2009-byte body", q, len(raw), err)
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

func TestWithLoggerNilKeepsTheEnvironmentOut(t *testing.T) {
	t.Setenv(client.EnvLog, "loud")
	if _, err := client.New(option.WithBaseURL("https://api.example.com"), option.WithTokenSource(nil)); !errors.Is(err, apierrors.ErrInvalidInput) {
		t.Fatalf("MEMBERPLATFORM_LOG=loud: %v, want ErrInvalidInput", err)
	}
	if _, err := client.New(option.WithBaseURL("https://api.example.com"), option.WithTokenSource(nil), option.WithLogger(nil)); err != nil {
		t.Fatalf("with WithLogger(nil) the environment must not be read: %v", err)
	}
	srv := sdktest.NewServer(t)
	if _, err := srv.NewClient(); err != nil {
		t.Fatalf("sdktest clients must not read MEMBERPLATFORM_LOG: %v", err)
	}
}

// Redaction by meaning: the token a request carried is recognised however a
// server spells it, in every place the SDK hands text back. meaningToken
// holds the characters encoders escape.
const meaningToken = "tok/echo+0123456789=abcdef"

// spelling writes s the way some server might: each returns the spelled
// text and the parts of it that must not survive.
type spelling struct {
	name  string
	spell func(s string) string
	// header reports whether the spelling is a valid header field name
	// part (no '/', '=', ';', '\\'; base64 is not: net/http changes the
	// case of a header name's letters).
	header bool
}

func perChar(s string, f func(i int, c byte) string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		b.WriteString(f(i, s[i]))
	}
	return b.String()
}

func escapeSpecials(s string, f func(c byte) string) string {
	return perChar(s, func(_ int, c byte) string {
		if strings.IndexByte("/+=", c) >= 0 {
			return f(c)
		}
		return string(c)
	})
}

var htmlNames = map[byte]string{'/': "&sol;", '+': "&plus;", '=': "&equals;"}

var spellings = []spelling{
	{name: "raw", spell: func(s string) string { return s }},
	{name: "json \\u every character", spell: func(s string) string {
		return perChar(s, func(i int, c byte) string {
			if i%2 == 0 {
				return fmt.Sprintf(`\u%04x`, c)
			}
			return fmt.Sprintf(`\u%04X`, c)
		})
	}},
	{name: "json \\/", spell: func(s string) string { return strings.ReplaceAll(s, "/", `\/`) }},
	{name: "html named", spell: func(s string) string { return escapeSpecials(s, func(c byte) string { return htmlNames[c] }) }},
	{name: "html decimal", spell: func(s string) string {
		return escapeSpecials(s, func(c byte) string { return fmt.Sprintf("&#%d;", c) })
	}},
	{name: "html hex", spell: func(s string) string {
		return escapeSpecials(s, func(c byte) string { return fmt.Sprintf("&#x%X;", c) })
	}},
	{name: "percent upper", header: true, spell: func(s string) string {
		return escapeSpecials(s, func(c byte) string { return fmt.Sprintf("%%%02X", c) })
	}},
	{name: "percent lower", header: true, spell: func(s string) string {
		return escapeSpecials(s, func(c byte) string { return fmt.Sprintf("%%%02x", c) })
	}},
	{name: "mixed", spell: func(s string) string {
		return perChar(s, func(i int, c byte) string {
			switch i % 5 {
			case 0:
				return fmt.Sprintf(`\u%04X`, c)
			case 1:
				return fmt.Sprintf("&#%d;", c)
			case 2:
				return fmt.Sprintf("%%%02x", c)
			case 3:
				return fmt.Sprintf("&#X%02x;", c)
			}
			return string(c)
		})
	}},
	{name: "json-escaped html", spell: func(s string) string {
		return escapeSpecials(s, func(c byte) string { return fmt.Sprintf(`\u0026#%d;`, c) })
	}},
	{name: "base64 std padded, offset 1", spell: func(s string) string { return base64.StdEncoding.EncodeToString([]byte("x" + s)) }},
	{name: "base64 url unpadded, offset 2", spell: func(s string) string { return base64.RawURLEncoding.EncodeToString([]byte("xy" + s + "z")) }},
	{name: "base64 std inside a longer run", spell: func(s string) string {
		return base64.StdEncoding.EncodeToString([]byte(`{"session":"` + s + `","n":1}`))
	}},
	// base64 as the outer layer around another spelling.
	{name: "base64 of json \\/", spell: func(s string) string {
		return base64.StdEncoding.EncodeToString([]byte(`{"auth":"Bearer ` + strings.ReplaceAll(s, "/", `\/`) + `"}`))
	}},
	{name: "base64 url unpadded of html decimal, offset 1", spell: func(s string) string {
		return base64.RawURLEncoding.EncodeToString([]byte("x" + escapeSpecials(s, func(c byte) string { return fmt.Sprintf("&#%d;", c) })))
	}},
	{name: "base64 of percent, offset 2", spell: func(s string) string {
		return base64.StdEncoding.EncodeToString([]byte("t=" + escapeSpecials(s, func(c byte) string { return fmt.Sprintf("%%%02X", c) })))
	}},
	{name: "base64 of base64", spell: func(s string) string {
		return base64.RawStdEncoding.EncodeToString([]byte(base64.StdEncoding.EncodeToString([]byte("xy" + s))))
	}},
}

// decodesToToken reports whether seen, or any base64 run in it decoded at
// any alignment (two layers deep), shows meaningToken raw, JSON-, HTML- or
// percent-unescaped: the standard library's decoders are the oracle.
func decodesToToken(seen string, layers int) bool {
	var unquoted string
	_ = json.Unmarshal([]byte(`"`+strings.ReplaceAll(seen, `"`, `\"`)+`"`), &unquoted)
	unescaped, _ := url.QueryUnescape(seen)
	for _, form := range []string{seen, strings.ReplaceAll(seen, `\/`, "/"), unquoted, html.UnescapeString(seen), unescaped} {
		if strings.Contains(form, meaningToken) {
			return true
		}
	}
	if layers == 0 {
		return false
	}
	isBase64 := func(r rune) bool {
		return r < 128 && (r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || strings.ContainsRune("+/-_", r))
	}
	for _, run := range strings.FieldsFunc(seen, func(r rune) bool { return !isBase64(r) }) {
		run = strings.NewReplacer("-", "+", "_", "/").Replace(run)
		for align := 0; align < 4 && align < len(run); align++ {
			chars := run[align:]
			if len(chars)%4 == 1 {
				chars = chars[:len(chars)-1]
			}
			if decoded, err := base64.RawStdEncoding.DecodeString(chars); err == nil && decodesToToken(string(decoded), layers-1) {
				return true
			}
		}
	}
	return false
}

// TestBase64OverJSONEscapedEcho: a server (PHP's json_encode writes "\/")
// echoes the request's Authorization JSON-escaped then base64-encoded, in a
// problem's detail and in headers. Neither the error, however printed, nor
// its Header, nor the response WithResponseInto hands back, nor the logs
// hold the token in any form the standard library can decode.
func TestBase64OverJSONEscapedEcho(t *testing.T) {
	t.Parallel()
	echo := func(r *http.Request) string {
		return base64.StdEncoding.EncodeToString([]byte(`{"auth":"` + strings.ReplaceAll(r.Header.Get("Authorization"), "/", `\/`) + `"}`))
	}
	var calls atomic.Int64
	srv, transport := logTestServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Debug", "debug="+echo(r))
		w.Header().Set("X-Request-Id", "req-"+echo(r))
		if calls.Add(1) == 1 { // the first call fails, the second succeeds
			w.Header().Set("Content-Type", "application/problem+json")
			w.WriteHeader(http.StatusForbidden)
			_, _ = io.WriteString(w, `{"title":"FORBIDDEN","detail":"debug=`+echo(r)+`","serviceErrors":[{"detail":"`+echo(r)+`","pointer":"/x"}]}`)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"id":"user_01E4ZCR3C56J083X43JQXF3JK5","email":"a@b.c"}`)
	})
	logs := newLogCapture(slog.LevelDebug)
	c := newClient(t, option.WithBaseURL(srv.URL), transport, option.WithTokenSource(client.StaticToken(meaningToken)),
		option.WithMaxRetries(0), option.WithLogger(slog.New(logs)))

	var failed *http.Response
	err := updateFirstName(t.Context(), c, option.WithResponseInto(&failed))
	var apiErr *apierrors.Error
	if !errors.As(err, &apiErr) || apiErr.StatusCode != http.StatusForbidden {
		t.Fatalf("err = %v, want the 403", err)
	}
	var ok *http.Response
	if err := updateFirstName(t.Context(), c, option.WithResponseInto(&ok)); err != nil {
		t.Fatal(err)
	}
	seen := everything(err) + fmt.Sprintf("%+v\n%v\n%v\n%v\n", err, apiErr.Header, failed.Header, ok.Header) + logs.rendered()
	if decodesToToken(seen, 2) {
		t.Fatalf("the token is decodable from:\n%s", seen)
	}
	if !strings.HasPrefix(apiErr.Detail(), "debug=") || !strings.Contains(apiErr.Detail(), redactedValue) ||
		!strings.HasPrefix(ok.Header.Get("X-Debug"), "debug=") || !strings.Contains(ok.Header.Get("X-Debug"), redactedValue) {
		t.Errorf("want the echo replaced and the rest kept: Detail %q, X-Debug %q", apiErr.Detail(), ok.Header.Get("X-Debug"))
	}
}

// leaks returns what of the spelled token is left in seen: the token, its
// spelling, or (for base64) the middle of its spelling.
func leaks(seen, spelled string) []string {
	var out []string
	for _, s := range []string{meaningToken, spelled, spelled[len(spelled)/3 : 2*len(spelled)/3]} {
		if strings.Contains(seen, s) {
			out = append(out, s)
		}
	}
	return out
}

// echoClient starts a server that answers through respond, given the
// bearer token as sp spells it, and returns a client of it that sends
// meaningToken and logs at Debug into logs, and that spelling.
func echoClient(t *testing.T, sp spelling, respond func(w http.ResponseWriter, r *http.Request, spelled string)) (c *client.Client, logs *logCapture, spelled string) {
	t.Helper()
	spelled = sp.spell(meaningToken)
	srv, transport := logTestServer(t, func(w http.ResponseWriter, r *http.Request) {
		if got := r.Header.Get("Authorization"); got != "Bearer "+meaningToken {
			t.Errorf("Authorization = %q, want the meaning token", got)
		}
		respond(w, r, spelled)
	})
	logs = newLogCapture(slog.LevelDebug)
	c = newClient(t, option.WithBaseURL(srv.URL), transport, option.WithTokenSource(client.StaticToken(meaningToken)),
		option.WithMaxRetries(0), option.WithLogger(slog.New(logs)))
	return c, logs, spelled
}

func jsonString(s string) string { // s already holds its own JSON escapes
	return `"` + s + `"`
}

// TestEchoInErrorsByMeaning: in a problem's detail, a field error's detail
// and pointer, serviceMeta and extension KEYS and values, the request ID,
// a header's value and name, the body snippet and the log records.
func TestEchoInErrorsByMeaning(t *testing.T) {
	t.Parallel()
	for _, sp := range spellings {
		t.Run(sp.name, func(t *testing.T) {
			t.Parallel()
			c, logs, spelled := echoClient(t, sp, func(w http.ResponseWriter, r *http.Request, spelled string) {
				w.Header().Set("X-Request-Id", "req-"+spelled)
				w.Header().Set("X-Echo", "value "+spelled)
				if sp.header {
					w.Header().Set("X-Echo-0"+spelled, "name")
				}
				w.Header().Set("Content-Type", "application/problem+json")
				w.WriteHeader(http.StatusForbidden)
				_, _ = io.WriteString(w, `{"title":"FORBIDDEN","detail":`+jsonString("token "+spelled+" refused")+
					`,"serviceErrors":[{"detail":`+jsonString(spelled)+`,"pointer":`+jsonString("/"+spelled)+`}]`+
					`,"serviceMeta":{`+jsonString(spelled)+`:`+jsonString(spelled)+`}`+
					`,`+jsonString(spelled)+`:{"errors":{`+jsonString(spelled)+`:"x"}}}`)
			})
			err := updateFirstName(t.Context(), c)
			var apiErr *apierrors.Error
			if !errors.As(err, &apiErr) || apiErr.StatusCode != http.StatusForbidden {
				t.Fatalf("err = %v, want the 403", err)
			}
			seen := everything(err) + fmt.Sprintf("%v %#v %#v", apiErr.Header, apiErr.Problem.ServiceMeta, apiErr.Problem.Extensions) + logs.rendered()
			if left := leaks(seen, spelled); len(left) > 0 {
				t.Fatalf("%q left in:\n%s", left, seen)
			}
			// (A base64 spelling keeps the characters around the token's.)
			if !strings.HasPrefix(apiErr.Detail(), "token ") || !strings.Contains(apiErr.Detail(), redactedValue) || !strings.HasSuffix(apiErr.Detail(), " refused") ||
				!strings.HasPrefix(apiErr.RequestID, "req-") || !strings.Contains(apiErr.RequestID, redactedValue) {
				t.Errorf("Detail = %q, RequestID = %q: the rest of the text must stay", apiErr.Detail(), apiErr.RequestID)
			}
			if sp.header && apiErr.Header.Get("X-Echo-0"+redactedValue) != "name" {
				t.Errorf("the header named after the token is not renamed: %v", apiErr.Header)
			}
		})
	}
}

// TestEchoInCapturedResponsesByMeaning: through option.WithResponseInto,
// in the final response's headers and trailers and in every response of
// the redirect chain; and in the successful call's debug log record.
func TestEchoInCapturedResponsesByMeaning(t *testing.T) {
	t.Parallel()
	for _, sp := range spellings {
		t.Run(sp.name, func(t *testing.T) {
			t.Parallel()
			c, logs, spelled := echoClient(t, sp, func(w http.ResponseWriter, r *http.Request, spelled string) {
				if !strings.HasSuffix(r.URL.Path, "/final") {
					w.Header().Set("X-Hop", "hop "+spelled)
					if sp.header {
						w.Header().Set("X-Hop-0"+spelled, "name")
					}
					http.Redirect(w, r, r.URL.Path+"/final", http.StatusTemporaryRedirect)
					return
				}
				w.Header().Set("Trailer", "X-Trail")
				w.Header().Set("X-Request-Id", spelled)
				w.Header().Set("Content-Type", "application/json")
				_, _ = io.WriteString(w, `{"id":"user_01E4ZCR3C56J083X43JQXF3JK5","email":"a@b.c"}`)
				w.Header().Set("X-Trail", "trailer "+spelled)
			})
			var resp *http.Response
			if err := updateFirstName(t.Context(), c, option.WithResponseInto(&resp)); err != nil {
				t.Fatal(err)
			}
			if resp.Request == nil || resp.Request.Response == nil {
				t.Fatal("the redirect chain is not in the captured response")
			}
			hop := resp.Request.Response
			seen := fmt.Sprintf("%v\n%v\n%v\n%v\n%v\n", resp.Header, resp.Trailer, hop.Header, hop.Trailer, resp.Request.Header) + logs.rendered()
			if left := leaks(seen, spelled); len(left) > 0 {
				t.Fatalf("%q left in:\n%s", left, seen)
			}
			if !strings.HasPrefix(resp.Trailer.Get("X-Trail"), "trailer ") || !strings.Contains(resp.Trailer.Get("X-Trail"), redactedValue) ||
				!strings.HasPrefix(hop.Header.Get("X-Hop"), "hop ") || !strings.Contains(hop.Header.Get("X-Hop"), redactedValue) {
				t.Errorf("want the token replaced and the rest kept:\n%s", seen)
			}
		})
	}
}

// TestRedactByMeaning: (*errors.Error).Redact with a caller's own secret
// reaches keys, field names and every spelling.
func TestRedactByMeaning(t *testing.T) {
	t.Parallel()
	for _, sp := range spellings {
		spelled := sp.spell(meaningToken)
		body := `{"code":"VALIDATION_ERROR","message":` + jsonString("no "+spelled) + `,"errors":[{"field":` + jsonString(spelled) + `,"message":"bad"}],` +
			`"details":{` + jsonString(spelled) + `:"x"}}`
		e := apierrors.Decode(http.StatusBadRequest, http.Header{"X-Request-Id": {spelled}, "X-" + spelled: {"v"}}, []byte(body))
		e.Redact(meaningToken)
		seen := e.Error() + string(e.Body) + fmt.Sprintf("%v %#v", e.Header, e.CodeMessage) + e.RequestID
		if left := leaks(seen, spelled); len(left) > 0 {
			t.Errorf("%s: %q left in:\n%s", sp.name, left, seen)
		}
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
	lc := newClient(t, option.WithBaseURL(live.URL), option.WithTokenSource(nil), option.WithQuery(url.Values{"api_key": {clientSecret}}))
	if err := updateFirstName(t.Context(), lc, option.WithQuery(url.Values{"sig": {callSecret}})); err != nil {
		t.Fatal(err)
	}
	if q, _ := rawQuery.Load().(string); !strings.Contains(q, clientSecret) || !strings.Contains(q, callSecret) {
		t.Fatalf("server saw query %q, want both secrets", q)
	}

	var logs syncBuffer
	logger := slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug, AddSource: true}))
	c := newClient(t, option.WithBaseURL("http://"+deadAddr(t)), option.WithTokenSource(nil),
		option.WithQuery(url.Values{"api_key": {clientSecret}}), option.WithLogger(logger),
		option.WithMaxRetries(1), option.WithRetryBackoff(time.Millisecond, time.Millisecond))
	err := updateFirstName(t.Context(), c, option.WithQuery(url.Values{"sig": {callSecret}}))
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

// An escaped echo of the token cut by the 64 KiB snippet inside one of its
// escapes (`\u00`, `%6`, `&#8`, the `\` of `\/`) leaves no readable
// beginning of it in Body, raw or decoded.
func TestEscapedSecretCutInsideAnEscapeIsRedacted(t *testing.T) {
	t.Parallel()
	const token = "tok_echo_0123456789/abcdef/ghijkl"
	each := func(f func(c byte) string) func(string) string {
		return func(s string) string { return perChar(s, func(_ int, c byte) string { return f(c) }) }
	}
	for name, spell := range map[string]func(string) string{
		"json \\u":     each(func(c byte) string { return fmt.Sprintf(`\u%04x`, c) }),
		"percent":      each(func(c byte) string { return fmt.Sprintf("%%%02X", c) }),
		"html decimal": each(func(c byte) string { return fmt.Sprintf("&#%d;", c) }),
		"json \\/":     func(s string) string { return strings.ReplaceAll(s, "/", `\/`) },
	} {
		spelled := spell("Bearer " + token)
		// Cut inside the escape that follows the token's second '/' (or,
		// spelled without escapes there, right after its '\').
		at := strings.Index(spelled, spell("/ghijkl")) + 1
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			srv := newCountingServer(t, func(w http.ResponseWriter, r *http.Request) {
				w.WriteHeader(http.StatusBadRequest)
				_, _ = io.WriteString(w, strings.Repeat("x", apierrors.MaxBodySnippet-at)+spell(r.Header.Get("Authorization"))+strings.Repeat("y", 100))
			})
			c := newClient(t, option.WithBaseURL(srv.URL), option.WithTokenSource(client.StaticToken(token)), option.WithMaxRetries(0))
			var apiErr *apierrors.Error
			if err := updateFirstName(t.Context(), c); !errors.As(err, &apiErr) || !apiErr.BodyTruncated {
				t.Fatalf("err = %v, want a truncated 400", err)
			}
			tail := string(apiErr.Body[len(apiErr.Body)-min(len(apiErr.Body), 300):])
			// The decoders refuse an escape cut short: drop one at the end.
			upTo := func(c byte, most int) string {
				if i := strings.LastIndexByte(tail, c); i >= 0 && i >= len(tail)-most {
					return tail[:i]
				}
				return tail
			}
			var unquoted string
			if err := json.Unmarshal([]byte(`"`+upTo('\\', 5)+`"`), &unquoted); err != nil {
				t.Fatalf("the tail is no JSON string text: %v", err)
			}
			unescaped, err := url.PathUnescape(upTo('%', 2))
			if err != nil {
				t.Fatalf("the tail does not percent-decode: %v", err)
			}
			for _, form := range []string{tail, unquoted, html.UnescapeString(tail), unescaped, strings.ReplaceAll(tail, `\/`, "/")} {
				if strings.Contains(form, token[:8]) {
					t.Fatalf("the body's tail keeps the token's beginning: %q", tail)
				}
			}
			if !strings.HasSuffix(tail, redactedValue) {
				t.Fatalf("the body's tail %q does not end with %s", tail, redactedValue)
			}
		})
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

// A server that rejects a JWT may echo its signature segment alone: that
// is the token's secret part, replaced in the error, its headers, the
// response WithResponseInto hands back and the log records.
func TestEchoedJWTSignatureAloneIsRedacted(t *testing.T) {
	t.Parallel()
	const signature = "c2lnbmF0dXJlLWJ5dGVz_Zm9yLXRlc3Rz-w"
	const jwt = "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJzdmMtYmlsbGluZyJ9." + signature
	srv, transport := logTestServer(t, func(w http.ResponseWriter, r *http.Request) {
		_, sig, _ := strings.Cut(strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer eyJ"), ".eyJzdWIiOiJzdmMtYmlsbGluZyJ9.")
		w.Header().Set("WWW-Authenticate", `Bearer error="invalid_token", error_description="signature `+sig+` does not verify"`)
		w.Header().Set("Content-Type", "application/problem+json")
		w.WriteHeader(http.StatusForbidden)
		_, _ = io.WriteString(w, `{"title":"Forbidden","detail":"signature `+sig+` does not verify"}`)
	})
	logs := newLogCapture(slog.LevelDebug)
	c := newClient(t, option.WithBaseURL(srv.URL), transport, option.WithTokenSource(client.StaticToken(jwt)),
		option.WithMaxRetries(0), option.WithLogger(slog.New(logs)))
	var resp *http.Response
	err := updateFirstName(t.Context(), c, option.WithResponseInto(&resp))
	var apiErr *apierrors.Error
	if !errors.As(err, &apiErr) || resp == nil {
		t.Fatalf("err = %v, want the 403 and its response", err)
	}
	seen := everything(err) + fmt.Sprint(resp.Header) + logs.rendered()
	if strings.Contains(seen, signature) {
		t.Fatalf("the signature reached an error, a handed-back header or a log record:\n%s", seen)
	}
	if apiErr.Detail() != "signature "+redactedValue+" does not verify" {
		t.Fatalf("Detail = %q, want the signature replaced and the rest kept", apiErr.Detail())
	}
}

// An unusable 2xx token response (no token field) that echoes the SigV4
// Authorization, signature and session token: TokenError.Body, a snippet
// of it, holds none of them, whether the snippet is the whole body or cut.
func TestUnusableTokenResponseEchoIsRedacted(t *testing.T) {
	t.Parallel()
	for _, pad := range []int{0, 1000} { // 1000: the echo straddles the 1 KiB snippet's end
		t.Run(fmt.Sprint(pad), func(t *testing.T) {
			t.Parallel()
			var signature atomic.Value
			srv, transport := logTestServer(t, func(w http.ResponseWriter, r *http.Request) {
				auth := r.Header.Get("Authorization")
				_, sig, _ := strings.Cut(auth, "Signature=")
				signature.Store(sig)
				w.Header().Set("Content-Type", "application/json")
				_, _ = io.WriteString(w, `{"pad":"`+strings.Repeat("p", pad)+`","sig":"`+sig+`","session":"`+
					strings.ReplaceAll(r.Header.Get("X-Amz-Security-Token"), "/", `\/`)+`","auth":"`+auth+`"}`)
			})
			creds := credentials.NewStaticCredentialsProvider(accessKeyID, secretAccess, sessionToken)
			c := newClient(t, option.WithBaseURL(srv.URL), transport, option.WithSigV4(creds, "ap-southeast-2"), option.WithMaxRetries(0))
			err := updateFirstName(t.Context(), c)
			var tokenErr *apierrors.TokenError
			if !errors.As(err, &tokenErr) || tokenErr.StatusCode != http.StatusOK || len(tokenErr.Body) == 0 {
				t.Fatalf("err = %v, want a TokenError for the unusable 200 with a body snippet", err)
			}
			sig, _ := signature.Load().(string)
			body := string(tokenErr.Body)
			for name, secret := range map[string]string{"signature": sig, "its beginning": sig[:8], "session token": sessionToken,
				"escaped session token": strings.ReplaceAll(sessionToken, "/", `\/`)[:12]} {
				if len(sig) != 64 || strings.Contains(body, secret) {
					t.Errorf("the %s is in TokenError.Body (signature %q):\n%s", name, sig, body)
				}
			}
			// (Cut at 1 KiB, the snippet may end inside "[REDACTED]".)
			if !strings.HasPrefix(body, `{"pad":"`) || !strings.Contains(body, redactedValue[:7]) {
				t.Errorf("want the echoes replaced and the rest kept:\n%s", body)
			}
		})
	}
}

// A 200 MiB 2xx body costs at most about the 8 MiB limit's heap. Not
// parallel, so that no other test allocates while it measures the heap.
func TestSuccessBodyOf200MiBIsBounded(t *testing.T) {
	chunk := strings.Repeat("a", 1<<20)
	srv := newCountingServer(t, func(w http.ResponseWriter, _ *http.Request) {
		_, _ = io.WriteString(w, `{"id":"`)
		for range 200 {
			if _, err := io.WriteString(w, chunk); err != nil {
				return // the client stopped reading, as it should
			}
		}
		_, _ = io.WriteString(w, `"}`)
	})
	c := newClient(t, option.WithBaseURL(srv.URL), option.WithTokenSource(nil), option.WithMaxRetries(0))
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	err := updateFirstName(t.Context(), c)
	runtime.ReadMemStats(&after)
	if !errors.Is(err, apierrors.ErrUnexpectedResponseBody) {
		t.Fatalf("err = %v, want ErrUnexpectedResponseBody", err)
	}
	t.Logf("allocated %d MiB", (after.TotalAlloc-before.TotalAlloc)>>20)
	if grown := (after.TotalAlloc - before.TotalAlloc) >> 20; grown > 40 {
		t.Fatalf("allocated %d MiB for a body cut at 8 MiB, want it bounded by the limit", grown)
	}
	c.CloseIdleConnections()
}
