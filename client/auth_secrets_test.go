package client

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"

	apierrors "github.com/memberplatform/memberplatform-go/errors"
	"github.com/memberplatform/memberplatform-go/option"
)

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
