package client

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	apierrors "github.com/memberplatform/memberplatform-go/errors"
	"github.com/memberplatform/memberplatform-go/option"
)

// skewedTokenEndpoint is a token endpoint whose clock is offset from the
// real time: it verifies SigV4 signatures and refuses one dated more than
// 5 minutes from its clock, as API Gateway does, and tells its time in
// every answer's Date. Its tokens expire at an absolute time by its clock.
type skewedTokenEndpoint struct {
	t       *testing.T
	advance atomic.Int64 // the host's clock minus the real time: the test moves it on
	offset  atomic.Int64 // its clock minus the host's
	refused atomic.Int64
	issued  atomic.Int64
}

func (e *skewedTokenEndpoint) hostNow() time.Time {
	return time.Now().Add(time.Duration(e.advance.Load()))
}

func (e *skewedTokenEndpoint) now() time.Time {
	return e.hostNow().Add(time.Duration(e.offset.Load()))
}

func (e *skewedTokenEndpoint) serve(w http.ResponseWriter, r *http.Request) {
	now := e.now()
	w.Header().Set("Date", now.UTC().Format(http.TimeFormat))
	body, _ := io.ReadAll(r.Body)
	v := sigV4Verifier{secret: testSecretKey, region: "ap-southeast-2", service: DefaultSigV4Service, sessionToken: testSessionToken}
	if _, err := v.verify(r, body); err != nil {
		e.t.Errorf("token request signature: %v", err)
		w.WriteHeader(http.StatusForbidden)
		return
	}
	signedAt, err := time.Parse("20060102T150405Z", r.Header.Get("X-Amz-Date"))
	if err != nil {
		e.t.Errorf("X-Amz-Date: %v", err)
	}
	if d := now.Sub(signedAt); d.Abs() > 5*time.Minute {
		e.refused.Add(1)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusForbidden)
		_, _ = fmt.Fprintf(w, `{"message":"Signature expired: %s is now earlier than %s (%s - 5 min.)","auth":%q}`,
			signedAt.Format("20060102T150405Z"), now.Format("20060102T150405Z"), now.Format("20060102T150405Z"), r.Header.Get("Authorization"))
		return
	}
	n := e.issued.Add(1)
	writeJSON(w, fmt.Sprintf(`{"accessToken":"jwt-%d","expiresAt":%q}`, n, now.Add(5*time.Minute).UTC().Format(time.RFC3339)))
}

// Figure 4: a token endpoint 15 minutes ahead of the host, then 15 minutes
// behind, then in agreement: each change costs one refused fetch, re-signed
// at once; a fetch after the token expired is not refused; and the token's
// expiry, absolute by the endpoint's clock, is read on the host's.
func TestSigV4LearnsTheTokenEndpointsClockSkew(t *testing.T) {
	e := &skewedTokenEndpoint{t: t}
	srv := newTestServer(t, e.serve, func(w http.ResponseWriter, r *http.Request) { writeJSON(w, userJSON) })
	src, err := NewSigV4TokenSource(SigV4Config{Credentials: testCreds(), Region: "ap-southeast-2"})
	if err != nil {
		t.Fatal(err)
	}
	src.now = e.hostNow
	var logs bytes.Buffer
	c := newTestClient(t, srv.URL, src, option.WithLogger(slog.New(slog.NewTextHandler(&logs, nil))))
	tokens := c.core.Tokens()
	tokens.Now = e.hostNow

	step := func(name string, wantRefused, wantIssued int64) {
		t.Helper()
		e.advance.Add(int64(6 * time.Minute)) // past the last token's 5-minute life
		if err := updateUser(context.Background(), c); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if got, issued := e.refused.Load(), e.issued.Load(); got != wantRefused || issued != wantIssued {
			t.Fatalf("%s: %d refused and %d issued token requests in all, want %d and %d", name, got, issued, wantRefused, wantIssued)
		}
		tok, err := tokens.Get(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if left := tok.Expiry.Sub(e.hostNow()); left < 4*time.Minute || left > 5*time.Minute+5*time.Second {
			t.Fatalf("%s: the token expires in %v by the host's clock, want about 5m", name, left)
		}
	}
	e.offset.Store(int64(15 * time.Minute))
	step("first call, endpoint 15 min ahead", 1, 1)
	step("fetch after expiry, still ahead", 1, 2)
	e.offset.Store(int64(-15 * time.Minute))
	step("first fetch, endpoint 15 min behind", 2, 3)
	step("fetch after expiry, still behind", 2, 4)
	e.offset.Store(0)
	step("first fetch, clocks agree again", 3, 5)
	step("fetch after expiry, clocks agree", 3, 6)

	// One warning per change of skew, with the offset (Date has whole
	// seconds), and no secret.
	text := logs.String()
	for _, want := range []string{`endpoint_ahead_by=(14m59s|15m0s)\n`, `endpoint_ahead_by=-(15m0s|15m1s)\n`, `endpoint_ahead_by=0s\n`} {
		if n := len(regexp.MustCompile(want).FindAllString(text, -1)); n != 1 {
			t.Errorf("log has %d records matching %s, want 1:\n%s", n, want, text)
		}
	}
	if n := strings.Count(text, "level=WARN"); n != 3 {
		t.Errorf("%d warnings, want 3:\n%s", n, text)
	}
	assertNoSecret(t, text)
}

// A refusal that is not about the clock (a wrong key) is not re-signed: one
// request per fetch, never a loop; and a skew already learned is not
// learned again.
func TestSigV4RefusalWithoutSkewIsNotResigned(t *testing.T) {
	var reqs atomic.Int64
	var offset atomic.Int64
	srv := newTestServer(t, func(w http.ResponseWriter, r *http.Request) {
		reqs.Add(1)
		w.Header().Set("Date", time.Now().Add(time.Duration(offset.Load())).UTC().Format(http.TimeFormat))
		w.WriteHeader(http.StatusForbidden)
		_, _ = fmt.Fprintf(w, `{"message":"The security token included in the request is invalid: %s %s"}`,
			r.Header.Get("X-Amz-Security-Token"), r.Header.Get("Authorization"))
	}, func(w http.ResponseWriter, r *http.Request) { writeJSON(w, userJSON) })
	c := newClientOpts(t, srv.URL, optionSigV4())
	for i, tc := range []struct {
		offset   time.Duration
		wantReqs int64
	}{
		{0, 1},                 // clocks agree: the refusal is the answer
		{30 * time.Second, 2},  // within a minute: no skew
		{20 * time.Minute, 4},  // skew appears: one re-signed request
		{20 * time.Minute, 5},  // the same skew: no second try
		{-20 * time.Minute, 7}, // it changes: once more
	} {
		offset.Store(int64(tc.offset))
		err := updateUser(context.Background(), c)
		if !errors.Is(err, apierrors.ErrTokenUnavailable) || !errors.Is(err, apierrors.ErrForbidden) {
			t.Fatalf("call %d: %v, want the token endpoint's 403", i, err)
		}
		assertNoSecret(t, err.Error())
		if got := reqs.Load(); got != tc.wantReqs {
			t.Fatalf("call %d (endpoint %v off): %d token requests in all, want %d", i, tc.offset, got, tc.wantReqs)
		}
	}
}
