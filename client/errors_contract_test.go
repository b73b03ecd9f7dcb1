package client_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/memberplatform/memberplatform-go/client"
	apierrors "github.com/memberplatform/memberplatform-go/errors"
	"github.com/memberplatform/memberplatform-go/internal/oprows"
	"github.com/memberplatform/memberplatform-go/option"
)

// The error contract: every operation's error answers (its format's and
// its row's own, operations_test.go's table) through a real server, with a
// token source that refreshes on 401.

// ecAllKinds are the kinds an API error may match; each case must match
// exactly its own.
var ecAllKinds = []error{
	apierrors.ErrBadRequest, apierrors.ErrUnauthorized, apierrors.ErrForbidden, apierrors.ErrNotFound, apierrors.ErrConflict,
	apierrors.ErrUnprocessableEntity, apierrors.ErrRateLimited, apierrors.ErrInternal, apierrors.ErrNotImplemented,
	apierrors.ErrServiceUnavailable, apierrors.ErrProviderNotConfigured, apierrors.ErrInvalidInput, apierrors.ErrTokenUnavailable,
	apierrors.ErrTransport, apierrors.ErrUnexpectedResponseBody,
}

// ecClient builds a client for base with an explicit token source that
// hands out a new token on every fetch (so a 401 is answered by a refresh
// and one resend), no retries and a transport whose idle connections are
// closed at cleanup.
func ecClient(t *testing.T, base string) *client.Client {
	t.Helper()
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	var n atomic.Int64
	rotating := client.TokenSourceFunc(func(context.Context) (client.Token, error) {
		return client.Token{Value: "t" + strconv.FormatInt(n.Add(1), 10)}, nil
	})
	return newClient(t, option.WithBaseURL(base), option.WithTokenSource(rotating),
		option.WithMaxRetries(0), option.WithTransport(tr))
}

func TestErrorContract(t *testing.T) {
	for _, op := range operations {
		for _, rc := range op.errors {
			t.Run(op.name+"/"+rc.Name, func(t *testing.T) { checkErrorContract(t, op, rc) })
		}
	}
}

// checkErrorContract: the answer fails the call after one request (two
// after a 401) with an *errors.Error of exactly the case's kinds that
// names the call, keeps the request ID and the body, and decodes the body
// in the operation's format: title, detail and field errors; its message
// is one line without the token.
func checkErrorContract(t *testing.T, op operation, rc oprows.ErrorCase) {
	var hits atomic.Int32
	var badAuth, badRoute atomic.Value
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		if got := r.Header.Get("Authorization"); !strings.HasPrefix(got, "Bearer t") || len(got) < len("Bearer t1") {
			badAuth.Store(got)
		}
		if r.Method != op.method || r.URL.EscapedPath() != op.path {
			badRoute.Store(r.Method + " " + r.URL.EscapedPath())
		}
		w.Header().Set("Content-Type", oprows.ContentType(op.format))
		w.Header().Set("X-Request-Id", "req-"+rc.Name)
		for k, v := range rc.Header {
			w.Header().Set(k, v)
		}
		w.WriteHeader(rc.Status)
		_, _ = io.WriteString(w, rc.Body)
	}))
	defer srv.Close()
	c := ecClient(t, srv.URL)

	got, err := op.call(context.Background(), c)
	if err == nil {
		t.Fatal("no error")
	}
	if got != nil && !reflect.ValueOf(got).IsNil() {
		t.Errorf("result %+v with error %v, want none", got, err)
	}
	if v := badAuth.Load(); v != nil {
		t.Errorf("Authorization = %q", v)
	}
	if v := badRoute.Load(); v != nil {
		t.Errorf("request went to %s", v)
	}
	var e *apierrors.Error
	if !errors.As(err, &e) {
		t.Fatalf("errors.As(*errors.Error) failed for %T: %v", err, err)
	}
	want := map[error]bool{rc.Kind: true}
	for _, k := range rc.Also {
		want[k] = true
	}
	for _, k := range ecAllKinds {
		if got := errors.Is(err, k); got != want[k] {
			t.Errorf("errors.Is(err, %v) = %v, want %v", k, got, want[k])
		}
	}
	if e.Kind() != rc.Kind {
		t.Errorf("Kind() = %v, want %v", e.Kind(), rc.Kind)
	}
	wantReq := max(rc.Requests, 1)
	if int(hits.Load()) != wantReq || e.Attempts != wantReq {
		t.Errorf("server saw %d requests, Attempts = %d, want %d", hits.Load(), e.Attempts, wantReq)
	}
	if e.Operation != op.name || e.Method != op.method || e.Path != op.path || e.StatusCode != rc.Status {
		t.Errorf("got %s %s %s %d", e.Operation, e.Method, e.Path, e.StatusCode)
	}
	if e.RequestID != "req-"+rc.Name || string(e.Body) != rc.Body {
		t.Errorf("RequestID %q, Body %q", e.RequestID, e.Body)
	}
	switch {
	case op.problem && (e.Problem == nil || e.CodeMessage != nil || e.Problem.Status != rc.Status):
		t.Errorf("Problem = %+v, CodeMessage = %+v; want a problem of status %d", e.Problem, e.CodeMessage, rc.Status)
	case !op.problem && (e.CodeMessage == nil || e.Problem != nil):
		t.Errorf("Problem = %+v, CodeMessage = %+v; want a code/message body", e.Problem, e.CodeMessage)
	}
	if e.Title() != rc.Title || e.Detail() != rc.Detail {
		t.Errorf("Title %q Detail %q, want %q %q", e.Title(), e.Detail(), rc.Title, rc.Detail)
	}
	if fs := e.FieldErrors(); fmt.Sprint(fs) != fmt.Sprint(rc.Fields) {
		t.Errorf("FieldErrors() = %+v, want %+v", fs, rc.Fields)
	}
	msg := err.Error()
	if !strings.HasPrefix(msg, "memberplatform: "+op.name+": "+fmt.Sprint(rc.Status)+" ") || strings.Contains(msg, "Bearer") ||
		!strings.Contains(msg, rc.Detail) || !strings.HasSuffix(msg, "(request id req-"+rc.Name+")") || strings.ContainsAny(msg, "\r\n") {
		t.Errorf("Error() = %q", msg)
	}
	if rc.Check != nil {
		rc.Check(t, e)
	}
}

// TestConnectionReusedAfterErrorResponse: after an error response with a
// body larger than the decoder's 64 KiB snippet, the next call is served on
// the same TCP connection, because the SDK reads the body to its end (the
// pipeline buffers it, and errors.FromResponse drains what is left) before
// closing it. errors.TestConnectionReusedAfterError covers FromResponse on
// its own, with a control showing an unread body costs a new connection.
func TestConnectionReusedAfterErrorResponse(t *testing.T) {
	pad := strings.Repeat("x", 100<<10)
	var conns, hits atomic.Int32
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if hits.Add(1) == 1 {
			w.Header().Set("Content-Type", "application/problem+json")
			w.WriteHeader(http.StatusConflict)
			_, _ = io.WriteString(w, `{"title":"CONFLICT","status":409,"serviceCode":"40900001","detail":"taken","pad":"`+pad+`"}`)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"id":"user_01","email":"ada@example.com","firstName":"Ada"}`)
	}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	defer srv.Close()
	c := ecClient(t, srv.URL)

	updateUser := operationNamed("accessmgmt.UpdateUser")
	_, err := updateUser.call(context.Background(), c)
	var e *apierrors.Error
	if !errors.As(err, &e) || !errors.Is(err, apierrors.ErrConflict) || !e.BodyTruncated || e.Detail() != "taken" {
		t.Fatalf("first call: %v", err)
	}
	if _, err := updateUser.call(context.Background(), c); err != nil {
		t.Fatalf("second call: %v", err)
	}
	if hits.Load() != 2 || conns.Load() != 1 {
		t.Errorf("%d requests over %d TCP connections, want 2 over 1", hits.Load(), conns.Load())
	}
}

// TestRealBodiesThroughSDK serves each file of testdata/error-bodies (at
// the module root) to a real UpdateUser call: every one must come back as a
// typed *errors.Error carrying the status and the body.
func TestRealBodiesThroughSDK(t *testing.T) {
	dir := filepath.Join("..", "testdata", "error-bodies")
	if _, err := os.Stat(filepath.Join(dir, "README.md")); err != nil {
		t.Fatalf("real error bodies missing from the repository: %v", err)
	}
	serve := map[string]struct {
		status int
		ct     string
		kind   error
	}{
		"01": {403, "application/problem+json", apierrors.ErrForbidden}, "03": {400, "application/problem+json", apierrors.ErrBadRequest},
		"05": {422, "application/problem+json; charset=utf-8", apierrors.ErrUnprocessableEntity}, "07": {422, "application/problem+json", apierrors.ErrUnprocessableEntity},
		"09": {500, "application/problem+json", apierrors.ErrInternal}, "11": {401, "application/json", apierrors.ErrUnauthorized},
		"13": {400, "application/problem+json; charset=utf-8", apierrors.ErrBadRequest}, "15": {400, "application/problem+json; charset=utf-8", apierrors.ErrBadRequest},
		"17": {422, "application/problem+json", apierrors.ErrUnprocessableEntity}, "19": {403, "application/problem+json", apierrors.ErrForbidden},
		"21": {404, "application/problem+json; charset=utf-8", apierrors.ErrNotFound}, "23": {406, "application/problem+json", nil},
		"25": {500, "application/problem+json", apierrors.ErrInternal}, "27": {403, "application/problem+json", apierrors.ErrForbidden},
		"29": {400, "text/plain; charset=utf-8", apierrors.ErrBadRequest}, "31": {400, "application/json", apierrors.ErrBadRequest},
		"32": {422, "application/json", apierrors.ErrUnprocessableEntity}, "33": {400, "application/json", apierrors.ErrBadRequest},
		"35": {422, "application/json; charset=utf-8", apierrors.ErrUnprocessableEntity}, "37": {503, "text/plain", apierrors.ErrServiceUnavailable},
		"39": {403, "text/html; charset=UTF-8", apierrors.ErrForbidden}, "41": {403, "", apierrors.ErrForbidden},
		"43": {400, "application/json", apierrors.ErrBadRequest}, "45": {404, "application/json", apierrors.ErrNotFound},
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, en := range entries {
		s, ok := serve[en.Name()[:min(2, len(en.Name()))]]
		if !ok {
			continue
		}
		n++
		body, err := os.ReadFile(filepath.Join(dir, en.Name()))
		if err != nil {
			t.Fatal(err)
		}
		t.Run(en.Name(), func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if s.ct != "" {
					w.Header().Set("Content-Type", s.ct)
				}
				w.WriteHeader(s.status)
				_, _ = w.Write(body)
			}))
			defer srv.Close()
			_, err := operationNamed("accessmgmt.UpdateUser").call(context.Background(), ecClient(t, srv.URL))
			var e *apierrors.Error
			if !errors.As(err, &e) {
				t.Fatalf("%T %v", err, err)
			}
			if e.StatusCode != s.status || string(e.Body) != string(body) || e.Kind() != s.kind || (s.kind != nil && !errors.Is(err, s.kind)) {
				t.Errorf("status %d kind %v body %d bytes: %v", e.StatusCode, e.Kind(), len(e.Body), err)
			}
			if strings.ContainsAny(err.Error(), "\r\n") {
				t.Errorf("Error() spans lines: %q", err.Error())
			}
		})
	}
	if n != len(serve) {
		t.Errorf("served %d files, want %d", n, len(serve))
	}
}

// TestFieldErrorsInAnyCase: member names match as encoding/json matches
// them ({"Detail", "Pointer"}, {"FIELD", "Message"}), so such items still
// give field errors through both formats.
func TestFieldErrorsInAnyCase(t *testing.T) {
	for _, tc := range []struct {
		op   operation
		ct   string
		body string
	}{
		{operationNamed("accessmgmt.UpdateUser"), "application/problem+json", `{"Type":"about:blank","Title":"UNPROCESSABLE_ENTITY","Status":422,"serviceCode":"42200001",` +
			`"ServiceErrors":[{"Detail":"must be an email address","Pointer":"/email"}]}`},
		{operationNamed("customer.UpsertMemberAddress"), "application/json", `{"Code":"VALIDATION_ERROR","Message":"invalid","Errors":[{"FIELD":"email","Message":"must be an email address"}]}`},
	} {
		t.Run(tc.op.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				w.Header().Set("Content-Type", tc.ct)
				w.WriteHeader(http.StatusUnprocessableEntity)
				_, _ = io.WriteString(w, tc.body)
			}))
			defer srv.Close()
			_, err := tc.op.call(context.Background(), ecClient(t, srv.URL))
			fs := apierrors.FieldErrorsOf(err)
			if len(fs) != 1 || fs[0].Field != "email" || fs[0].Message != "must be an email address" {
				t.Fatalf("FieldErrorsOf = %+v (%v)", fs, err)
			}
			if !strings.Contains(err.Error(), "[email: must be an email address]") || !errors.Is(err, apierrors.ErrUnprocessableEntity) {
				t.Errorf("Error() = %q", err.Error())
			}
		})
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
	c := newClient(t, option.WithBaseURL(srv.URL), option.WithTokenSource(nil), option.WithRetryBackoff(time.Hour, time.Hour),
		option.WithLogger(slog.New(cancelOnRetry{cancel})))
	err := updateFirstName(ctx, c)
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

func (h cancelOnRetry) WithGroup(string) slog.Handler { return h }

// A call that ends without a final response after the platform throttled
// it still answers errors.Is(err, ErrRateLimited) and errors.As(&apiErr).
func TestThrottledCallEndingWithoutAResponseKeepsTheAnswer(t *testing.T) {
	t.Parallel()
	throttle := func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Retry-After-Ms", "600")
		w.Header().Set("X-Request-Id", "req-429")
		w.WriteHeader(http.StatusTooManyRequests)
	}

	t.Run("cancelled Retry-After wait", func(t *testing.T) {
		t.Parallel()
		srv := newCountingServer(t, throttle)
		c := newClient(t, option.WithBaseURL(srv.URL), option.WithTokenSource(nil))
		ctx, cancel := context.WithCancel(t.Context())
		time.AfterFunc(100*time.Millisecond, cancel)
		err := updateFirstName(ctx, c)
		var apiErr *apierrors.Error
		if !errors.Is(err, apierrors.ErrTransport) || !errors.Is(err, context.Canceled) || !errors.Is(err, apierrors.ErrRateLimited) ||
			!errors.As(err, &apiErr) || apiErr.RequestID != "req-429" || apiErr.RetryAfter != 600*time.Millisecond {
			t.Fatalf("err = %v (%#v), want a transport error that still reaches the 429", err, apiErr)
		}
	})

	t.Run("token refresh failed after a 429", func(t *testing.T) {
		t.Parallel()
		srv := newCountingServer(t, throttle)
		var fetches atomic.Int32
		tokens := client.TokenSourceFunc(func(context.Context) (client.Token, error) {
			if fetches.Add(1) == 1 {
				// Expires during the Retry-After wait: the retry must fetch.
				return client.Token{Value: "short-lived-token", Expiry: time.Now().Add(400 * time.Millisecond)}, nil
			}
			return client.Token{}, errors.New("token service down")
		})
		c := newClient(t, option.WithBaseURL(srv.URL), option.WithTokenSource(tokens))
		err := updateFirstName(t.Context(), c)
		var apiErr *apierrors.Error
		if !errors.Is(err, apierrors.ErrTokenUnavailable) || !errors.Is(err, apierrors.ErrRateLimited) ||
			!errors.As(err, &apiErr) || apiErr.StatusCode != http.StatusTooManyRequests || apiErr.RequestID != "req-429" {
			t.Fatalf("err = %v, want a token error that still reaches the 429", err)
		}
		if n := srv.reqs.Load(); n != 1 {
			t.Fatalf("%d API requests, want 1 (no request without a token)", n)
		}
	})
}
