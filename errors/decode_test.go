package errors

import (
	"context"
	stderrors "errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/memberplatform/memberplatform-go/internal/httpx"
)

func TestFieldFromPointer(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"/email", "email"},
		{"/permissions/2", "permissions[2]"},
		{"/address/postcode", "address.postcode"},
		{"/lines/0/text", "lines[0].text"},
		{"#/a~1b", "a/b"},
		{"/m~0n", "m~n"},
		{"/0", "0"},
		{"email", "email"},
		{"body.title", "body.title"},
		{"", ""},
		{"/", ""},
		{"?limit", "limit"},
		{"?", "?"},
	} {
		if got := FieldFromPointer(c.in); got != c.want {
			t.Errorf("FieldFromPointer(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestRetryAfterParsed(t *testing.T) {
	future := time.Now().Add(45 * time.Second).UTC().Format(http.TimeFormat)
	past := time.Now().Add(-time.Hour).UTC().Format(http.TimeFormat)
	for _, c := range []struct {
		h        string
		min, max time.Duration
	}{
		{"12", 12 * time.Second, 12 * time.Second},
		{" 0 ", 0, 0},
		{future, 35 * time.Second, 45 * time.Second},
		{past, 0, 0},
		{"soon", 0, 0},
		{"-5", 0, 0},
	} {
		e := Decode(429, http.Header{"Retry-After": {c.h}}, nil)
		if e.RetryAfter < c.min || e.RetryAfter > c.max {
			t.Errorf("Retry-After %q: RetryAfter = %v, want in [%v, %v]", c.h, e.RetryAfter, c.min, c.max)
		}
		if !stderrors.Is(e, ErrRateLimited) {
			t.Errorf("429 is not ErrRateLimited")
		}
	}
}

func TestRequestIDHeaders(t *testing.T) {
	for _, c := range []struct {
		h    http.Header
		want string
	}{
		{http.Header{"X-Request-Id": {"a"}, "X-Amzn-Requestid": {"b"}}, "a"},
		{http.Header{"X-Amzn-Requestid": {"b"}, "Traceparent": {"c"}}, "b"},
		{http.Header{"Traceparent": {"00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"}}, "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"},
		{http.Header{}, ""},
	} {
		e := Decode(500, c.h, nil)
		eq(t, "RequestID", e.RequestID, c.want)
		if c.want != "" && !strings.HasSuffix(e.Error(), "(request id "+c.want+")") {
			t.Errorf("Error() = %q lacks the request id", e.Error())
		}
	}
}

func TestMediaTypeOf(t *testing.T) {
	for in, want := range map[string]string{
		"application/problem+json":                 "application/problem+json",
		"Application/Problem+JSON; charset=utf-8":  "application/problem+json",
		"application/problem+json;;charset":        "application/problem+json",
		"application/problem+json; charset=\"utf8": "application/problem+json",
		"": "",
	} {
		eq(t, "mediaTypeOf("+in+")", mediaTypeOf(in), want)
	}
}

func TestFromResponseNil(t *testing.T) {
	e := FromResponse(nil)
	if e == nil || e.StatusCode != 0 || e.Error() != "memberplatform: 0" {
		t.Errorf("FromResponse(nil) = %#v", e)
	}
	e = FromResponse(&http.Response{StatusCode: 404})
	eq(t, "Kind", e.Kind(), ErrNotFound)
}

// TestErrorNeverHoldsSecrets: the request's Authorization header, a
// signature and the query string must not reach Error() or GoString().
func TestErrorNeverHoldsSecrets(t *testing.T) {
	u, _ := url.Parse("https://api.example.com/auth/access-management/users/u1?X-Amz-Signature=deadbeefsig&token=tok123")
	req := &http.Request{Method: "PUT", URL: u, Header: http.Header{
		"Authorization":        {"Bearer eyJhbGciOiJIUzI1NiJ9.secretpayload.sig"},
		"X-Amz-Security-Token": {"sessiontoken"},
	}}
	resp := &http.Response{StatusCode: 401, Request: req, Header: http.Header{"Content-Type": {"application/problem+json"}},
		Body: io.NopCloser(strings.NewReader(`{"title":"UNAUTHORIZED","status":401,"detail":"bad token"}`))}
	e := FromResponse(resp)
	e.Operation = "accessmgmt.UpdateUser"
	for _, s := range []string{e.Error(), e.GoString(), fmt.Sprintf("%v %+v %s %#v", e, e, e, e)} {
		for _, secret := range []string{"eyJhbGciOiJIUzI1NiJ9", "secretpayload", "deadbeefsig", "tok123", "sessiontoken", "Bearer"} {
			if strings.Contains(s, secret) {
				t.Errorf("%q leaks %q", s, secret)
			}
		}
	}
	eq(t, "Path", e.Path, "/auth/access-management/users/u1")
	eq(t, "Error()", e.Error(), "memberplatform: accessmgmt.UpdateUser: 401 Unauthorized: bad token")
}

func TestErrorLineBounded(t *testing.T) {
	long := strings.Repeat("é", 2000)
	fields := make([]string, 40)
	for i := range fields {
		fields[i] = fmt.Sprintf(`{"pointer":"/f/%d","detail":"bad"}`, i)
	}
	body := `{"title":"` + long + `","detail":"` + long + `","serviceErrors":[` + strings.Join(fields, ",") + `]}`
	e := Decode(400, http.Header{"Content-Type": {"application/problem+json"}, "X-Request-Id": {strings.Repeat("r", 1000)}}, []byte(body))
	msg := e.Error()
	if len(msg) > 1500 {
		t.Errorf("Error() is %d bytes", len(msg))
	}
	if !utf8.ValidString(msg) {
		t.Error("Error() cut a rune in half")
	}
	if !strings.Contains(msg, "; and 35 more]") {
		t.Errorf("field summary not bounded: %s", msg)
	}
	eq(t, "FieldErrors", len(e.FieldErrors()), 40)
	eq(t, "last field", e.FieldErrors()[39].Field, "f[39]")
}

func TestKindsAndTemporary(t *testing.T) {
	for _, c := range []struct {
		status int
		kind   error
		temp   bool
	}{
		{400, ErrBadRequest, false}, {401, ErrUnauthorized, false}, {403, ErrForbidden, false},
		{404, ErrNotFound, false}, {409, ErrConflict, false}, {422, ErrUnprocessableEntity, false},
		{429, ErrRateLimited, true}, {500, ErrInternal, true}, {501, ErrNotImplemented, false},
		{502, ErrServiceUnavailable, true}, {503, ErrServiceUnavailable, true}, {504, ErrServiceUnavailable, true},
		{408, nil, true}, {418, nil, false},
	} {
		e := Decode(c.status, nil, nil)
		if e.Kind() != c.kind || e.Temporary() != c.temp {
			t.Errorf("%d: Kind %v Temporary %v, want %v %v", c.status, e.Kind(), e.Temporary(), c.kind, c.temp)
		}
		for _, other := range []error{ErrBadRequest, ErrNotFound, ErrInternal, ErrInvalidInput, ErrTransport, nil} {
			if other != c.kind && stderrors.Is(e, other) {
				t.Errorf("%d matches %v", c.status, other)
			}
		}
	}
	// An undecodable 2xx body.
	e := &Error{StatusCode: 200, Err: io.ErrUnexpectedEOF}
	eq(t, "Kind", e.Kind(), ErrUnexpectedResponseBody)
	if !stderrors.Is(e, io.ErrUnexpectedEOF) || !stderrors.Is(e, ErrUnexpectedResponseBody) {
		t.Error("2xx decode error does not wrap its cause")
	}
	// A rate-limit wording in a 400's detail is not the contract's response.
	e = Decode(400, http.Header{"Content-Type": {"application/json"}}, []byte(`{"code":"BAD_REQUEST","message":"rate limit must be positive"}`))
	eq(t, "Is(ErrRateLimited)", stderrors.Is(e, ErrRateLimited), false)
}

func TestSDKErrors(t *testing.T) {
	ve := &ValidationError{Operation: "customer.UpsertMemberAddress", Fields: []FieldError{{Field: "postcode", Message: "is required"}, {Field: "state", Message: "is required"}}}
	err := fmt.Errorf("wrap: %w", ve)
	var gotVE *ValidationError
	if !stderrors.Is(err, ErrInvalidInput) || !stderrors.As(err, &gotVE) || len(gotVE.FieldErrors()) != 2 {
		t.Error("ValidationError Is/As")
	}
	eq(t, "ValidationError", ve.Error(), "memberplatform: customer.UpsertMemberAddress: invalid input: postcode: is required; state: is required")
	if stderrors.Is(ve, ErrBadRequest) {
		t.Error("ValidationError matches ErrBadRequest")
	}

	cause := &Error{StatusCode: 500, Header: http.Header{}}
	te := &TokenError{StatusCode: 200, Body: []byte(`{"access_token":"sekrit"}`), Reason: "no token field"}
	if !stderrors.Is(te, ErrTokenUnavailable) || strings.Contains(te.Error(), "sekrit") || strings.Contains(fmt.Sprintf("%#v %+v", te, te), "sekrit") {
		t.Errorf("TokenError: %s / %#v", te.Error(), te)
	}
	te = &TokenError{Err: cause}
	var gotE *Error
	if !stderrors.As(te, &gotE) || gotE != cause || !stderrors.Is(te, ErrInternal) {
		t.Error("TokenError does not wrap its cause")
	}

	tr := &TransportError{Operation: "payments.UpdatePaymentMethod", Method: "PATCH", Path: "/payment-methods/x", Attempts: 3, LastStatus: 503,
		Err: &url.Error{Op: "Patch", URL: "https://h/payment-methods/x", Err: context.DeadlineExceeded}}
	if !stderrors.Is(tr, ErrTransport) || !stderrors.Is(tr, context.DeadlineExceeded) || !tr.Timeout() {
		t.Error("TransportError Is/Timeout")
	}
	eq(t, "TransportError", tr.Error(), `memberplatform: payments.UpdatePaymentMethod: PATCH /payment-methods/x: Patch "https://h/payment-methods/x": context deadline exceeded (last status 503 Service Unavailable) (after 3 attempts)`)
	var ne net.Error
	if !stderrors.As(tr, &ne) {
		t.Error("TransportError does not expose the *url.Error")
	}
	if (&TransportError{Err: stderrors.New("connection refused")}).Timeout() {
		t.Error("Timeout on a non-timeout")
	}
	// A middleware's joined error keeps the timeout beneath it visible.
	if !(&TransportError{Err: stderrors.Join(stderrors.New("middleware"), tr.Err)}).Timeout() {
		t.Error("Timeout misses a timeout inside a joined cause")
	}
}

// countingServer returns a server that answers /error with status and body,
// and anything else with 200, and counts the TCP connections it accepts.
func countingServer(t *testing.T, status int, body []byte) (*httptest.Server, *atomic.Int32) {
	var conns atomic.Int32
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/error" {
			w.Header().Set("Content-Type", "application/problem+json")
			w.WriteHeader(status)
			_, _ = w.Write(body)
			return
		}
		_, _ = io.WriteString(w, `{}`)
	}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	t.Cleanup(srv.Close)
	return srv, &conns
}

// TestConnectionReusedAfterError: FromResponse drains the error body, so
// the next request goes over the same TCP connection. The control shows
// the count is sensitive: closing an unread body costs a new connection.
func TestConnectionReusedAfterError(t *testing.T) {
	pad := strings.Repeat("x", 100<<10) // beyond the 64 KiB snippet, within the drain bound
	body := []byte(`{"title":"CONFLICT","status":409,"detail":"d","pad":"` + pad + `"}`)
	for _, c := range []struct {
		name      string
		handle    func(*http.Response)
		wantConns int32
	}{
		{"FromResponse", func(r *http.Response) {
			e := FromResponse(r)
			if e.Kind() != ErrConflict || e.Problem.Title != "CONFLICT" || !e.BodyTruncated {
				t.Errorf("decoded %v", e)
			}
		}, 1},
		{"control: close unread", func(r *http.Response) { _ = r.Body.Close() }, 2},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv, conns := countingServer(t, 409, body)
			tr := &http.Transport{}
			defer tr.CloseIdleConnections()
			hc := &http.Client{Transport: tr}
			resp, err := hc.Get(srv.URL + "/error")
			if err != nil {
				t.Fatal(err)
			}
			c.handle(resp)
			resp, err = hc.Get(srv.URL + "/ok")
			if err != nil {
				t.Fatal(err)
			}
			httpx.DrainAndClose(resp.Body)
			if got := conns.Load(); got != c.wantConns {
				t.Errorf("%d TCP connections, want %d", got, c.wantConns)
			}
		})
	}
}

// TestHugeBodyBounded: a body far beyond the bounds is read no further than
// MaxBodySnippet plus the drain bound. The body is 8 MiB rather than
// endless, so an unbounded read fails the assertion instead of hanging.
func TestHugeBodyBounded(t *testing.T) {
	tb := &trackingBody{r: io.MultiReader(strings.NewReader(`{"title":"INTERNAL_SERVER_ERROR","detail":"huge"`), io.LimitReader(infiniteReader{}, 8<<20))}
	e := FromResponse(&http.Response{StatusCode: 500, Header: http.Header{"Content-Type": {"application/problem+json"}}, Body: tb})
	if limit := MaxBodySnippet + 1 + httpx.MaxDrain; tb.read > limit {
		t.Errorf("read %d bytes, bound %d", tb.read, limit)
	}
	if !tb.closed || !e.BodyTruncated || len(e.Body) != MaxBodySnippet || e.Problem.Title != "INTERNAL_SERVER_ERROR" {
		t.Errorf("closed %v truncated %v len %d problem %+v", tb.closed, e.BodyTruncated, len(e.Body), e.Problem)
	}
}

type infiniteReader struct{}

func (infiniteReader) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = ' '
	}
	return len(p), nil
}

// TestBodyReadErrorStillTyped: a connection reset mid-body still yields a
// typed error with what was read.
func TestBodyReadErrorStillTyped(t *testing.T) {
	r := io.MultiReader(strings.NewReader(`{"code":"INTERNAL_ERROR","message":"db"}`), errReader{})
	e := FromResponse(&http.Response{StatusCode: 500, Body: io.NopCloser(r)})
	if e.CodeMessage == nil || e.CodeMessage.Code != "INTERNAL_ERROR" || !e.BodyTruncated {
		t.Errorf("got %#v", e)
	}
}

type errReader struct{}

func (errReader) Read([]byte) (int, error) { return 0, stderrors.New("connection reset by peer") }

func TestOneLine(t *testing.T) {
	eq(t, "fold", oneLine("a\r\n\tb\x1b[0m\u2028c\u202ed", 100), "a b [0m cd")
	eq(t, "invalid utf8", oneLine("a\xffb", 100), "a\uFFFDb")
	got := oneLine(strings.Repeat("é", 10), 5)
	if !utf8.ValidString(got) || !strings.HasSuffix(got, "…") || len(got) > 5+len("…") {
		t.Errorf("cut = %q", got)
	}
	eq(t, "empty", oneLine(" \n ", 3), "")
}

// FieldErrorsOf reads every error of a join (a batch's Validate results),
// in order, through wrapping on either side; a plain chain as before.
func TestFieldErrorsOfJoined(t *testing.T) {
	pm := &ValidationError{Operation: "payments.UpdatePaymentMethod", Fields: []FieldError{{Field: "expDate", Message: "must be MM/YYYY"}}}
	addr := &ValidationError{Operation: "customer.UpsertMemberAddress", Fields: []FieldError{{Field: "postcode", Message: "is required"}, {Field: "state", Message: "is required"}}}
	joined := fmt.Errorf("batch: %w", stderrors.Join(pm, nil, fmt.Errorf("row 2: %w", addr), stderrors.New("no fields")))
	var got []string
	for _, f := range FieldErrorsOf(joined) {
		got = append(got, f.Field)
	}
	eq(t, "joined fields", strings.Join(got, ","), "expDate,postcode,state")
	eq(t, "one error's", len(FieldErrorsOf(fmt.Errorf("x: %w", addr))), 2)
	eq(t, "none", len(FieldErrorsOf(stderrors.New("plain"))), 0)
	eq(t, "nil", len(FieldErrorsOf(nil)), 0)

	// A *TransportError is one failure: its cause's fields, else its Last's,
	// never both.
	last := &Error{StatusCode: 422, Header: http.Header{}, Problem: &Problem{ServiceErrors: []ServiceError{{Detail: "bad", Pointer: "/email"}}}}
	eq(t, "transport, Last's", len(FieldErrorsOf(&TransportError{Err: stderrors.New("reset"), Last: last})), 1)
	eq(t, "transport, cause's first", FieldErrorsOf(&TransportError{Err: pm, Last: last})[0].Field, "expDate")
	eq(t, "transport, one failure's", len(FieldErrorsOf(&TransportError{Err: pm, Last: last})), 1)
}
