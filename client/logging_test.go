package client_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/oapi-codegen/nullable"

	"github.com/memberplatform/memberplatform-go/accessmgmt"
	"github.com/memberplatform/memberplatform-go/client"
	"github.com/memberplatform/memberplatform-go/customer"
	apierrors "github.com/memberplatform/memberplatform-go/errors"
	"github.com/memberplatform/memberplatform-go/option"
	"github.com/memberplatform/memberplatform-go/payments"
)

// logRecord is a captured slog record with its attributes flattened
// ("group.key" for grouped attributes) and resolved.
type logRecord struct {
	Level slog.Level
	Msg   string
	Attrs map[string]slog.Value
	Trace any // the traceKey value of the record's context
}

// traceKey stands for what a tracing library keeps in the context: a
// handler such as an OpenTelemetry slog bridge reads the span from there.
type traceKey struct{}

// logCapture is a slog.Handler that keeps every record it is given at or
// above its level, and also renders each one as JSON into text (everything
// a real handler could print).
type logCapture struct {
	level slog.Level
	mu    *sync.Mutex
	recs  *[]logRecord
	text  *bytes.Buffer
	attrs []slog.Attr
	group string
}

func newLogCapture(level slog.Level) *logCapture {
	return &logCapture{level: level, mu: new(sync.Mutex), recs: new([]logRecord), text: new(bytes.Buffer)}
}

func (h *logCapture) Enabled(_ context.Context, l slog.Level) bool { return l >= h.level }

func (h *logCapture) Handle(ctx context.Context, r slog.Record) error {
	rec := logRecord{Level: r.Level, Msg: r.Message, Attrs: map[string]slog.Value{}, Trace: ctx.Value(traceKey{})}
	var add func(prefix string, a slog.Attr)
	add = func(prefix string, a slog.Attr) {
		v := a.Value.Resolve()
		if v.Kind() == slog.KindGroup {
			for _, ga := range v.Group() {
				add(prefix+a.Key+".", ga)
			}
			return
		}
		rec.Attrs[prefix+a.Key] = v
	}
	prefix := ""
	if h.group != "" {
		prefix = h.group + "."
	}
	for _, a := range h.attrs {
		add(prefix, a)
	}
	r.Attrs(func(a slog.Attr) bool { add(prefix, a); return true })
	h.mu.Lock()
	defer h.mu.Unlock()
	*h.recs = append(*h.recs, rec)
	// Render with the standard JSON handler too, to catch anything a
	// LogValuer or a String method would print.
	return slog.NewJSONHandler(h.text, &slog.HandlerOptions{Level: slog.LevelDebug}).WithAttrs(h.attrs).Handle(context.Background(), r)
}

func (h *logCapture) WithAttrs(as []slog.Attr) slog.Handler {
	c := *h
	c.attrs = append(append([]slog.Attr(nil), h.attrs...), as...)
	return &c
}

func (h *logCapture) WithGroup(name string) slog.Handler {
	c := *h
	if c.group != "" {
		name = c.group + "." + name
	}
	c.group = name
	return &c
}

func (h *logCapture) records() []logRecord {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]logRecord(nil), *h.recs...)
}

func (h *logCapture) rendered() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.text.String()
}

// logTestServer starts srv and a transport the test owns, so that every
// connection is closed when the test ends (the package's TestMain checks
// for leaked goroutines).
func logTestServer(t *testing.T, h http.HandlerFunc) (*httptest.Server, option.RequestOption) {
	t.Helper()
	srv := httptest.NewServer(h)
	tr := &http.Transport{}
	t.Cleanup(func() {
		tr.CloseIdleConnections()
		srv.Close()
	})
	return srv, option.WithTransport(tr)
}

const logTestUser = "user_01E4ZCR3C56J083X43JQXF3JK5"

func TestLoggerOneDebugRecordPerAttemptAndWarnOnRetry(t *testing.T) {
	var n int
	var mu sync.Mutex
	srv, tr := logTestServer(t, func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		mu.Lock()
		n++
		attempt := n
		mu.Unlock()
		w.Header().Set("X-Request-Id", "req-"+strconv.Itoa(attempt))
		if attempt < 3 {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"id":"`+logTestUser+`","email":"ada@example.com"}`)
	})
	h := newLogCapture(slog.LevelDebug)
	c := newClient(t, option.WithBaseURL(srv.URL), tr, option.WithTokenSource(client.StaticToken("static-token")),
		option.WithLogger(slog.New(h)), option.WithRetryBackoff(time.Millisecond, time.Millisecond))
	ctx := context.WithValue(context.Background(), traceKey{}, "span-42")
	if _, err := c.AccessMgmt.UpdateUser(ctx, logTestUser, accessmgmt.UpdateUserParams{FirstName: new("Ada")}); err != nil {
		t.Fatal(err)
	}

	recs := h.records()
	want := []struct {
		level  slog.Level
		status int64
	}{{slog.LevelDebug, 503}, {slog.LevelWarn, 503}, {slog.LevelDebug, 503}, {slog.LevelWarn, 503}, {slog.LevelDebug, 200}}
	if len(recs) != len(want) {
		for _, r := range recs {
			t.Logf("%v %s %v", r.Level, r.Msg, r.Attrs)
		}
		t.Fatalf("got %d records, want %d (debug per attempt, warn per retry)", len(recs), len(want))
	}
	debugs := 0
	for i, r := range recs {
		if r.Level != want[i].level {
			t.Errorf("record %d: level %v, want %v", i, r.Level, want[i].level)
		}
		if r.Trace != "span-42" {
			t.Errorf("record %d: handler got context value %v, want the call's context (for trace correlation)", i, r.Trace)
		}
		if !strings.HasPrefix(r.Msg, "memberplatform: ") {
			t.Errorf("record %d: message %q", i, r.Msg)
		}
		checkStr := func(k, v string) {
			if got, ok := r.Attrs[k]; !ok || got.String() != v {
				t.Errorf("record %d (%s): %s = %v, want %q", i, r.Msg, k, got, v)
			}
		}
		checkStr("operation", "accessmgmt.UpdateUser")
		checkStr("method", http.MethodPut)
		checkStr("path", "/auth/access-management/users/{userId}") // the template, not the ID
		if got := r.Attrs["status"]; got.Kind() != slog.KindInt64 || got.Int64() != want[i].status {
			t.Errorf("record %d: status = %v, want %d", i, got, want[i].status)
		}
		if r.Level == slog.LevelDebug {
			debugs++
			if got := r.Attrs["attempt"]; got.Kind() != slog.KindInt64 || got.Int64() != int64(debugs) {
				t.Errorf("record %d: attempt = %v, want %d", i, got, debugs)
			}
			checkStr("request_id", "req-"+strconv.Itoa(debugs))
			if d := r.Attrs["duration"]; d.Kind() != slog.KindDuration || d.Duration() <= 0 {
				t.Errorf("record %d: duration = %v, want > 0", i, d)
			}
		} else if d := r.Attrs["wait"]; d.Kind() != slog.KindDuration {
			t.Errorf("retry record %d: wait = %v, want a duration", i, d)
		}
	}
	if strings.Contains(h.rendered(), logTestUser) {
		t.Errorf("the user ID (a path parameter) was logged; only the path template should be:\n%s", h.rendered())
	}
}

func TestLoggerWarnsOnGiveUp(t *testing.T) {
	srv, tr := logTestServer(t, func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.WriteHeader(http.StatusBadGateway)
	})
	h := newLogCapture(slog.LevelWarn) // Debug disabled: only retries and the give-up
	c := newClient(t, option.WithBaseURL(srv.URL), tr, option.WithTokenSource(client.StaticToken("static-token")),
		option.WithLogger(slog.New(h)), option.WithMaxRetries(1), option.WithRetryBackoff(time.Millisecond, time.Millisecond))
	_, err := c.Payments.UpdatePaymentMethod(context.Background(), "6f1c2a4e-8b3d-4f5a-9c7e-2d1b0a9f8e7d", payments.UpdatePaymentMethodParams{SetAsPrimary: new(true)})
	var ae *apierrors.Error
	if !errors.As(err, &ae) || ae.StatusCode != http.StatusBadGateway {
		t.Fatalf("err = %v, want a 502 *errors.Error", err)
	}
	recs := h.records()
	if len(recs) != 2 {
		t.Fatalf("got %d records, want 2 (retrying, giving up): %+v", len(recs), recs)
	}
	if recs[0].Level != slog.LevelWarn || !strings.Contains(recs[0].Msg, "retrying") {
		t.Errorf("first record: %v %q, want a Warn retry", recs[0].Level, recs[0].Msg)
	}
	gu := recs[1]
	if gu.Level != slog.LevelWarn || !strings.Contains(gu.Msg, "giving up") || gu.Attrs["reason"].String() == "" {
		t.Errorf("second record: %v %q %v, want a Warn give-up with a reason", gu.Level, gu.Msg, gu.Attrs)
	}
	if gu.Attrs["operation"].String() != "payments.UpdatePaymentMethod" || gu.Attrs["attempt"].Int64() != 2 || gu.Attrs["status"].Int64() != 502 {
		t.Errorf("give-up record attributes: %v", gu.Attrs)
	}
}

// memRoundTripper answers every request in memory.
type memRoundTripper struct{}

func (memRoundTripper) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Body != nil {
		_, _ = io.Copy(io.Discard, r.Body)
		_ = r.Body.Close()
	}
	body := `{"id":"` + logTestUser + `","email":"ada@example.com"}`
	return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"application/json"}},
		Body: io.NopCloser(strings.NewReader(body)), ContentLength: int64(len(body)), Request: r}, nil
}

// TestNoLoggerLogsNothing: without WithLogger the SDK writes nothing, not
// even to slog.Default, and costs no more than a logger that is disabled.
func TestNoLoggerLogsNothing(t *testing.T) {
	def := newLogCapture(slog.LevelDebug)
	old := slog.Default()
	slog.SetDefault(slog.New(def))
	defer slog.SetDefault(old)

	memClient := func(opts ...option.RequestOption) *client.Client {
		return newClient(t, append([]option.RequestOption{option.WithBaseURL("http://127.0.0.1:1"), option.WithTransport(memRoundTripper{}),
			option.WithTokenSource(client.StaticToken("static-token"))}, opts...)...)
	}
	ctx := context.Background()
	params := accessmgmt.UpdateUserParams{FirstName: new("Ada")}
	allocs := func(c *client.Client) float64 {
		return testing.AllocsPerRun(200, func() {
			if _, err := c.AccessMgmt.UpdateUser(ctx, logTestUser, params); err != nil {
				t.Fatal(err)
			}
		})
	}
	none := allocs(memClient())
	disabled := allocs(memClient(option.WithLogger(slog.New(newLogCapture(slog.LevelError + 1)))))
	enabled := allocs(memClient(option.WithLogger(slog.New(slog.DiscardHandler))))
	debug := allocs(memClient(option.WithLogger(slog.New(newLogCapture(slog.LevelDebug)))))
	t.Logf("allocs/call: no logger %.0f, disabled logger %.0f, discard handler %.0f, capturing Debug logger %.0f", none, disabled, enabled, debug)
	if recs := def.records(); len(recs) != 0 {
		t.Errorf("a client without WithLogger wrote %d records to slog.Default: %+v", len(recs), recs[0])
	}
	// A little slack: the pipeline pools per-call state, and sync.Pool
	// drops objects at random under the race detector.
	if none > disabled+2 {
		t.Errorf("no logger costs %.0f allocs/call, more than a disabled logger (%.0f)", none, disabled)
	}
	if debug <= none {
		t.Errorf("a Debug logger costs %.0f allocs/call, no logger %.0f: was anything logged?", debug, none)
	}
}

// TestLogsAndErrorsRedactSecrets runs every operation, with a SigV4 token
// fetch, 503s that force retries (on the token request too), a 401 that
// forces a second token fetch, and 4xx errors, with a Debug logger, then
// checks that no secret appears in any log record or returned error: not the
// bearer tokens, the AWS secret key or session token, nor any SigV4
// signature the server saw.
func TestLogsAndErrorsRedactSecrets(t *testing.T) {
	const (
		accessKey    = "AKIDEXAMPLEREDACTION"
		secretKey    = "SECRETwJalrXUtnFEMIK7MDENGbPxRfiCYEXAMPLEKEY"
		sessionToken = "SESSIONFwoGZXIvYXdzEBYaDHqa0AP1ZEXAMPLESESSIONTOKEN"
	)
	var (
		mu         sync.Mutex
		secrets    = []string{secretKey, sessionToken}
		tokenCalls int
		opCalls    = map[string]int{}
	)
	addSecret := func(s string) {
		mu.Lock()
		defer mu.Unlock()
		secrets = append(secrets, s)
	}
	sigRE := regexp.MustCompile(`Signature=([0-9a-f]+)`)
	srv, tr := logTestServer(t, func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		auth := r.Header.Get("Authorization")
		w.Header().Set("X-Request-Id", "req-redaction")
		if r.URL.Path == "/auth/token" {
			if m := sigRE.FindStringSubmatch(auth); m != nil {
				addSecret(m[1])
			} else {
				t.Errorf("token request without a SigV4 signature: %q", auth)
			}
			if got := r.Header.Get("X-Amz-Security-Token"); got != sessionToken {
				t.Errorf("token request X-Amz-Security-Token = %q", got)
			}
			mu.Lock()
			tokenCalls++
			call := tokenCalls
			mu.Unlock()
			if call == 1 {
				w.WriteHeader(http.StatusServiceUnavailable)
				_, _ = io.WriteString(w, "token service warming up")
				return
			}
			bearer := fmt.Sprintf("eyJhbGciOiJIUzI1NiJ9.bearer-secret-%d.c2lnbmF0dXJl", call)
			addSecret(bearer)
			w.Header().Set("Content-Type", "application/json")
			_ = json.NewEncoder(w).Encode(map[string]any{"accessToken": bearer, "expiresIn": 3600})
			return
		}
		if !strings.HasPrefix(auth, "Bearer eyJ") {
			t.Errorf("%s without the bearer token: %q", r.URL.Path, auth)
		}
		mu.Lock()
		opCalls[r.URL.Path]++
		call := opCalls[r.URL.Path]
		first := len(opCalls) == 1
		mu.Unlock()
		switch {
		case call == 1:
			w.WriteHeader(http.StatusServiceUnavailable) // retried
		case call == 2 && first:
			w.WriteHeader(http.StatusUnauthorized) // token dropped, fetched again
		default:
			w.Header().Set("Content-Type", "application/problem+json")
			w.WriteHeader(http.StatusUnprocessableEntity)
			_, _ = io.WriteString(w, `{"type":"about:blank","title":"Unprocessable Entity","status":422,"detail":"validation failed","errors":[{"field":"x","message":"bad"}]}`)
		}
	})

	src, err := client.NewSigV4TokenSource(client.SigV4Config{
		Credentials: credentials.NewStaticCredentialsProvider(accessKey, secretKey, sessionToken),
		Region:      "us-east-1",
	})
	if err != nil {
		t.Fatal(err)
	}
	h := newLogCapture(slog.LevelDebug)
	c := newClient(t, option.WithBaseURL(srv.URL), tr, option.WithTokenSource(src), option.WithLogger(slog.New(h)),
		option.WithRetryBackoff(time.Millisecond, time.Millisecond))
	ctx := context.Background()
	var errs []error
	_, err = c.AccessMgmt.UpdateUser(ctx, logTestUser, accessmgmt.UpdateUserParams{FirstName: new("Ada")})
	errs = append(errs, err)
	errs = append(errs, c.AccessMgmt.ReplaceRolePermissions(ctx, "org_01EHZNVPK3SFK441A1RGBFSHRT", "org-admin", []string{"users:read"}))
	_, err = c.Payments.UpdatePaymentMethod(ctx, "6f1c2a4e-8b3d-4f5a-9c7e-2d1b0a9f8e7d", payments.UpdatePaymentMethodParams{SetAsPrimary: new(true)})
	errs = append(errs, err)
	_, err = c.Customer.UpsertMemberAddress(ctx, "3b9d6c1e-2f4a-4e8b-a7c5-9d0e1f2a3b4c", customer.UpsertMemberAddressParams{
		AddressLineOne: "12 Example Street", AddressLineTwo: nullable.NewNullNullable[string](), State: "NSW", Suburb: "Surry Hills", Postcode: "2010", Country: "AU"})
	errs = append(errs, err)

	for i, err := range errs {
		var ae *apierrors.Error
		if !errors.As(err, &ae) || ae.StatusCode != http.StatusUnprocessableEntity {
			t.Errorf("operation %d: err = %v, want the 422", i, err)
		}
	}
	mu.Lock()
	if tokenCalls < 3 {
		t.Errorf("token endpoint called %d times, want >= 3 (503, token, token after the 401)", tokenCalls)
	}
	secretList := append([]string(nil), secrets...)
	mu.Unlock()
	if len(secretList) < 2+2+2 {
		t.Fatalf("collected only %d secrets: the test did not exercise what it should", len(secretList))
	}

	recs := h.records()
	levels := map[slog.Level]int{}
	tokenAttempts := 0
	for _, r := range recs {
		levels[r.Level]++
		if r.Attrs["operation"].String() == "auth.Token" {
			tokenAttempts++
		}
	}
	if levels[slog.LevelDebug] < 8 || levels[slog.LevelWarn] < 5 || tokenAttempts < 3 {
		t.Errorf("records by level %v, %d for the token request: expected attempts, retries and token fetches to be logged", levels, tokenAttempts)
	}

	text := h.rendered()
	for _, r := range recs {
		text += fmt.Sprintf("\n%s %v", r.Msg, r.Attrs)
	}
	for _, err := range errs {
		if err != nil {
			text += "\n" + err.Error() + "\n" + fmt.Sprintf("%v | %+v | %#v", err, err, err)
		}
	}
	for _, s := range secretList {
		if strings.Contains(text, s) {
			t.Errorf("secret %.12s… appears in the logs or errors", s)
		}
	}
	if strings.Contains(text, "Bearer ") || strings.Contains(text, "Signature=") || strings.Contains(text, "X-Amz-Security-Token") {
		t.Errorf("an Authorization or security-token header appears in the logs or errors")
	}
	if t.Failed() {
		t.Logf("logs and errors:\n%s", text)
	}
}
