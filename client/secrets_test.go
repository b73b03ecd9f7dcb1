package client_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"io"
	"log/slog"
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
