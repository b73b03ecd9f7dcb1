package benchmarks_test

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/hashicorp/go-cleanhttp"

	"github.com/memberplatform/memberplatform-go/client"
	"github.com/memberplatform/memberplatform-go/internal/oprows"
	"github.com/memberplatform/memberplatform-go/option"
)

// newSDK is the only place the benchmarks build an SDK client, so a change
// of the SDK's options API is a change here alone. A nil rt leaves the SDK
// on the connection pool it makes for itself, as users get it.
func newSDK(tb testing.TB, baseURL string, rt http.RoundTripper) *client.Client {
	tb.Helper()
	opts := []option.RequestOption{option.WithBaseURL(baseURL), option.WithTokenSource(client.StaticToken(benchToken))}
	if rt != nil {
		opts = append(opts, option.WithTransport(rt))
	}
	c, err := client.New(opts...)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(c.CloseIdleConnections)
	return c
}

const (
	benchToken = "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJzdmMtYmlsbGluZyIsImV4cCI6NDEwMjQ0NDgwMH0.c2lnbmF0dXJlLWJ5dGVzLWZvci1iZW5jaG1hcmtpbmctb25seQ"
	userID     = oprows.UserID // the IDs of the operations' rows
	orgID      = oprows.OrgID
	roleSlug   = oprows.RoleSlug
	pmID       = oprows.PMID
	memberID   = oprows.MemberID

	// memBaseURL is the base URL of the in-memory rows: memTransport
	// answers every request, so nothing listens there.
	memBaseURL = "http://127.0.0.1:1"
)

// The success answers are the operations' rows' (internal/oprows).
var (
	permissions = oprows.Permissions

	requestID = []string{"req-7f3a9c2e-4b1d-4e8f-a6c5-0d9e8f7a6b5c"}
)

// problemBody is a 422 problem document with n serviceErrors, as the
// platform answers a rule violation of operations 1 and 2.
func problemBody(n int) []byte {
	var b bytes.Buffer
	b.WriteString(`{"type":"https://api.example.com/problems/unprocessable-entity","title":"Unprocessable Entity","status":422,"detail":"The request has invalid fields.","instance":"/auth/access-management/organizations/org_01EHZNVPK3SFK441A1RGBFSHRT/roles/org-billing-admin/permissions","serviceCode":"42200017","serviceMeta":{"provider":"workos","retryable":false},"serviceErrors":[`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`{"detail":"invalid slug","pointer":"/permissions/` + strconv.Itoa(i) + `"}`)
	}
	b.WriteString(`]}`)
	return b.Bytes()
}

// codeMessageBody is a 400 code/message validation error with n field
// errors, as operation 4 answers it.
func codeMessageBody(n int) []byte {
	var b bytes.Buffer
	b.WriteString(`{"code":"VALIDATION_ERROR","message":"The address has invalid fields.","errors":[`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`{"field":"addressLineOne[` + strconv.Itoa(i) + `]","message":"must not be blank"}`)
	}
	b.WriteString(`]}`)
	return b.Bytes()
}

// canned is one response, with its header values built once.
type canned struct {
	status     int
	statusLine string
	ctype      []string
	body       []byte
}

func newCanned(status int, ctype string, body []byte) *canned {
	return &canned{status, strconv.Itoa(status) + " " + http.StatusText(status), []string{ctype}, body}
}

// responder answers like the platform, on a loopback server (ServeHTTP) or
// without a socket (RoundTrip): it reads the whole request body and returns
// the answer of the operation whose declared method and path the request
// has, or fixed for every request when set.
type responder struct{ fixed *canned }

func (r responder) pick(req *http.Request) *canned {
	if r.fixed != nil {
		return r.fixed
	}
	for _, op := range operations {
		if op.method == req.Method && matches(op.path, req.URL.EscapedPath()) {
			return op.answer
		}
	}
	return nil
}

// matches reports whether path fills the path template tmpl, each
// {placeholder} with one segment.
func matches(tmpl, path string) bool {
	for {
		t, tRest, tMore := strings.Cut(strings.TrimPrefix(tmpl, "/"), "/")
		p, pRest, pMore := strings.Cut(strings.TrimPrefix(path, "/"), "/")
		if t != p && !(strings.HasPrefix(t, "{") && p != "") || tMore != pMore {
			return false
		}
		if !tMore {
			return true
		}
		tmpl, path = tRest, pRest
	}
}

func (r responder) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	_, _ = io.Copy(io.Discard, req.Body)
	c := r.pick(req)
	if c == nil {
		http.NotFound(w, req)
		return
	}
	h := w.Header()
	h["Content-Type"] = c.ctype
	h["X-Request-Id"] = requestID
	w.WriteHeader(c.status)
	_, _ = w.Write(c.body)
}

// RoundTrip makes responder an in-memory transport: the same work for every
// contender (read the request body, build a response), no socket.
func (r responder) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Body != nil {
		_, _ = io.Copy(io.Discard, req.Body)
		_ = req.Body.Close()
	}
	c := r.pick(req)
	if c == nil {
		c = notFound
	}
	return &http.Response{
		Status: c.statusLine, StatusCode: c.status, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header:        http.Header{"Content-Type": c.ctype, "X-Request-Id": requestID},
		Body:          io.NopCloser(bytes.NewReader(c.body)),
		ContentLength: int64(len(c.body)), Request: req,
	}, nil
}

var notFound = newCanned(http.StatusNotFound, "text/plain; charset=utf-8", []byte("404 page not found\n"))

// clients is one client of each contender, all sending to the same place.
type clients struct {
	sdk *client.Client
	raw *rawClient
	gen *genClient
}

// loopback starts a loopback server answering like r and returns a client
// of each contender, each on its own connection pool: raw and generated on
// cleanhttp.DefaultPooledTransport, the SDK on the pool client.New makes
// when no transport is given (the same, plus the read deadline that ends
// a stalled attempt, core.DefaultAttemptTimeout), since the SDK is measured
// with its defaults.
func loopback(tb testing.TB, r responder) *clients {
	tb.Helper()
	srv := httptest.NewServer(r)
	tb.Cleanup(srv.Close)
	pooled := func() http.RoundTripper {
		t := cleanhttp.DefaultPooledTransport()
		tb.Cleanup(t.CloseIdleConnections)
		return t
	}
	return &clients{
		sdk: newSDK(tb, srv.URL, nil),
		raw: newRaw(srv.URL, pooled()),
		gen: newGen(tb, srv.URL, pooled()),
	}
}

// inMemory returns a client of each contender over the in-memory transport.
func inMemory(tb testing.TB, r responder) *clients {
	tb.Helper()
	return &clients{
		sdk: newSDK(tb, memBaseURL, r),
		raw: newRaw(memBaseURL, r),
		gen: newGen(tb, memBaseURL, r),
	}
}

func readAll(r *http.Request) ([]byte, error) {
	defer func() { _ = r.Body.Close() }()
	return io.ReadAll(r.Body)
}
