package client_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/memberplatform/memberplatform-go/client"
	apierrors "github.com/memberplatform/memberplatform-go/errors"
	"github.com/memberplatform/memberplatform-go/option"
	"github.com/memberplatform/memberplatform-go/sdktest"
)

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
