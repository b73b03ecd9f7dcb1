package sdktest_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"

	"github.com/memberplatform/memberplatform-go/accessmgmt"
	"github.com/memberplatform/memberplatform-go/client"
	apierrors "github.com/memberplatform/memberplatform-go/errors"
	"github.com/memberplatform/memberplatform-go/sdktest"
)

const createUserPattern = "POST /auth/access-management/users"

// send makes one request to srv with an optional bearer token and returns
// the status, Content-Type and body.
func send(t *testing.T, srv *sdktest.Server, method, path, body, token string) (int, string, string) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), method, srv.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := srv.HTTPClient().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header.Get("Content-Type"), string(b)
}

// tokenFromEndpoint gets a token the way the SDK does: a SigV4-signed POST
// /auth/token.
func tokenFromEndpoint(t *testing.T, srv *sdktest.Server) string {
	t.Helper()
	ctx := t.Context()
	creds, err := srv.Credentials().Retrieve(ctx)
	if err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL+"/auth/token", nil)
	const emptyHash = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
	if err := v4.NewSigner().SignHTTP(ctx, creds, req, emptyHash, client.DefaultSigV4Service, srv.Region(), time.Now()); err != nil {
		t.Fatal(err)
	}
	resp, err := srv.HTTPClient().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var tok struct {
		AccessToken string `json:"accessToken"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&tok); err != nil || tok.AccessToken == "" {
		t.Fatalf("token endpoint: status %d, err %v", resp.StatusCode, err)
	}
	return tok.AccessToken
}

// createUser is a fake of the contract's createUser (shape assumed): it
// stores the user in the fake, so the built-in UpdateUser finds it.
func createUser(srv *sdktest.Server, calls *atomic.Int32) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		var in accessmgmt.ProviderUser
		if err := json.NewDecoder(r.Body).Decode(&in); err != nil || in.Email == "" {
			sdktest.WriteProblem(w, http.StatusBadRequest, apierrors.Problem{Detail: "email is required",
				ServiceErrors: []apierrors.ServiceError{{Detail: "is required", Pointer: "/email"}}})
			return
		}
		u := srv.AddUser(in)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusCreated)
		_ = json.NewEncoder(w).Encode(u)
	}
}

func TestHandleFuncAuthentication(t *testing.T) {
	t.Parallel()
	srv := sdktest.NewServer(t)
	var calls atomic.Int32
	srv.HandleFunc(createUserPattern, createUser(srv, &calls))
	expired := sdktest.NewServer(t, sdktest.WithTokenLifetime(-time.Minute))
	body := `{"email":"ada@example.com"}`

	for _, tc := range []struct {
		name       string
		token      string
		wantStatus int
	}{
		{"no token", "", http.StatusUnauthorized},
		{"not a JWT", "not-a-jwt", http.StatusUnauthorized},
		{"forged signature", srv.IssueToken() + "x", http.StatusUnauthorized},
		{"another server's token", expired.IssueToken(), http.StatusUnauthorized},
		{"IssueToken", srv.IssueToken(), http.StatusCreated},
		{"token endpoint", tokenFromEndpoint(t, srv), http.StatusCreated},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := calls.Load()
			status, ctype, got := send(t, srv, http.MethodPost, "/auth/access-management/users", body, tc.token)
			if status != tc.wantStatus {
				t.Fatalf("status %d, want %d (body %s)", status, tc.wantStatus, got)
			}
			called := calls.Load() > before
			if called != (tc.wantStatus == http.StatusCreated) {
				t.Errorf("handler called = %t for status %d", called, status)
			}
			if status == http.StatusUnauthorized && (ctype != "application/problem+json" || !strings.Contains(got, `"serviceCode":"40100001"`)) {
				t.Errorf("401 as %s %s, want the access-management problem format", ctype, got)
			}
		})
	}

	t.Run("local development mode", func(t *testing.T) {
		dev := sdktest.NewServer(t, sdktest.WithoutAuth())
		var devCalls atomic.Int32
		dev.HandleFunc(createUserPattern, createUser(dev, &devCalls))
		if status, _, got := send(t, dev, http.MethodPost, "/auth/access-management/users", body, ""); status != http.StatusCreated || devCalls.Load() != 1 {
			t.Errorf("status %d (%s), %d calls", status, got, devCalls.Load())
		}
	})
}

// TestHandleFuncWorksWithTheBuiltInOperations: a user created through a
// faked createUser is one the SDK's UpdateUser then finds.
func TestHandleFuncWorksWithTheBuiltInOperations(t *testing.T) {
	t.Parallel()
	srv := sdktest.NewServer(t)
	var calls atomic.Int32
	srv.HandleFunc(createUserPattern, createUser(srv, &calls))
	srv.HandleFunc("GET /auth/access-management/users/{userId}/profile", func(w http.ResponseWriter, r *http.Request) {
		u, ok := srv.User(r.PathValue("userId"))
		if !ok {
			sdktest.WriteProblem(w, http.StatusNotFound, apierrors.Problem{Detail: "no user " + r.PathValue("userId")})
			return
		}
		_ = json.NewEncoder(w).Encode(u) // no WriteHeader: net/http's implicit 200
	})
	tok := srv.IssueToken()

	status, _, got := send(t, srv, http.MethodPost, "/auth/access-management/users", `{"id":"user_new","email":"ada@example.com"}`, tok)
	if status != http.StatusCreated || !strings.Contains(got, `"id":"user_new"`) {
		t.Fatalf("createUser: %d %s", status, got)
	}
	u, err := srv.Client().AccessMgmt.UpdateUser(t.Context(), "user_new", accessmgmt.UpdateUserParams{FirstName: new("Ada")})
	if err != nil || u.FirstName != "Ada" {
		t.Fatalf("UpdateUser after createUser: %+v, %v", u, err)
	}
	status, _, got = send(t, srv, http.MethodGet, "/auth/access-management/users/user_new/profile", "", tok)
	if status != http.StatusOK || !strings.Contains(got, `"firstName":"Ada"`) {
		t.Errorf("the user's profile: %d %s", status, got)
	}
	status, ctype, got := send(t, srv, http.MethodPost, "/auth/access-management/users", `{}`, tok)
	if status != http.StatusBadRequest || ctype != "application/problem+json" || !strings.Contains(got, `"pointer":"/email"`) {
		t.Errorf("createUser without email: %d %s %s", status, ctype, got)
	}

	var statuses []string
	for _, r := range srv.Requests() {
		if r.Operation != sdktest.OpToken {
			statuses = append(statuses, fmt.Sprint(r.Operation, " ", r.Status))
		}
	}
	want := []string{
		createUserPattern + " 201",
		sdktest.OpUpdateUser + " 200",
		"GET /auth/access-management/users/{userId}/profile 200",
		createUserPattern + " 400",
	}
	if !slices.Equal(statuses, want) {
		t.Errorf("recorded %q\nwant %q", statuses, want)
	}
	if n := srv.RequestCount(createUserPattern); n != 2 {
		t.Errorf("RequestCount(createUser) = %d, want 2", n)
	}
}

// TestHandleFuncErrorFormatsByArea: errors the fake answers itself on an
// added endpoint use the format of the endpoint's area.
func TestHandleFuncErrorFormatsByArea(t *testing.T) {
	t.Parallel()
	srv := sdktest.NewServer(t)
	ok := func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNoContent) }
	for _, tc := range []struct {
		pattern, path, ctype, want string
	}{
		{"DELETE /auth/access-management/users/{userId}", "/auth/access-management/users/u", "application/problem+json", `"serviceCode":"40100001"`},
		{"GET /payment-methods/{id}/history", "/payment-methods/x/history", "application/problem+json", `"serviceCode":"UNAUTHORIZED"`},
		{"GET /customer/members/{memberId}", "/customer/members/m", "application/json", `{"code":"UNAUTHENTICATED","message":"missing bearer token"}`},
		{"GET /auth/token/keys", "/auth/token/keys", "application/problem+json", `"serviceCode":"UNAUTHORIZED"`},
		{"DELETE /reports/{id}", "/reports/r", "application/problem+json", `"serviceCode":"40100001"`},
	} {
		t.Run(tc.pattern, func(t *testing.T) {
			srv.HandleFunc(tc.pattern, ok)
			status, ctype, got := send(t, srv, strings.Fields(tc.pattern)[0], tc.path, "", "")
			if status != http.StatusUnauthorized || ctype != tc.ctype || !strings.Contains(got, tc.want) {
				t.Errorf("%d %s %s, want 401 %s with %s", status, ctype, got, tc.ctype, tc.want)
			}
			if status, _, _ := send(t, srv, strings.Fields(tc.pattern)[0], tc.path, "", srv.IssueToken()); status != http.StatusNoContent {
				t.Errorf("with a token: status %d", status)
			}
		})
	}
}

func TestHandleFuncFaultsAndModes(t *testing.T) {
	t.Parallel()
	const listMembers = "GET /customer/members"
	setup := func(t *testing.T) (*sdktest.Server, *atomic.Int32, string) {
		srv := sdktest.NewServer(t)
		var calls atomic.Int32
		handler := func(w http.ResponseWriter, _ *http.Request) { calls.Add(1); _, _ = io.WriteString(w, `[]`) }
		srv.HandleFunc(createUserPattern, handler)
		srv.HandleFunc(listMembers, handler)
		return srv, &calls, srv.IssueToken()
	}
	t.Run("a fault names the pattern", func(t *testing.T) {
		t.Parallel()
		srv, calls, tok := setup(t)
		srv.FailNext(1, sdktest.Fault{Operation: listMembers, Status: http.StatusBadRequest,
			Fields: []apierrors.FieldError{{Field: "limit", Message: "must be positive"}}})
		if status, _, _ := send(t, srv, http.MethodPost, "/auth/access-management/users", `{}`, tok); status != http.StatusOK {
			t.Errorf("a fault for another pattern answered createUser: %d", status)
		}
		status, ctype, got := send(t, srv, http.MethodGet, "/customer/members", "", tok)
		if status != http.StatusBadRequest || ctype != "application/json" || got != `{"code":"VALIDATION_ERROR","message":"Scripted 400 response","errors":[{"field":"limit","message":"must be positive"}]}` {
			t.Errorf("faulted: %d %s %s", status, ctype, got)
		}
		if calls.Load() != 1 || !srv.Requests()[1].Faulted {
			t.Errorf("calls = %d, requests %+v", calls.Load(), srv.Requests())
		}
	})
	t.Run("a fault without an operation matches added endpoints", func(t *testing.T) {
		t.Parallel()
		srv, calls, tok := setup(t)
		srv.FailNext(1, sdktest.Fault{Status: http.StatusInternalServerError})
		if status, ctype, _ := send(t, srv, http.MethodPost, "/auth/access-management/users", `{}`, tok); status != 500 || ctype != "application/problem+json" || calls.Load() != 0 {
			t.Errorf("status %d %s, %d calls", status, ctype, calls.Load())
		}
	})
	t.Run("provider not configured applies under access management only", func(t *testing.T) {
		t.Parallel()
		srv, calls, tok := setup(t)
		srv.SetProviderConfigured(false)
		status, _, got := send(t, srv, http.MethodPost, "/auth/access-management/users", `{}`, tok)
		if status != http.StatusServiceUnavailable || !strings.Contains(got, "not configured") {
			t.Errorf("createUser: %d %s", status, got)
		}
		if status, _, _ := send(t, srv, http.MethodGet, "/customer/members", "", tok); status != http.StatusOK || calls.Load() != 1 {
			t.Errorf("listMembers: %d, %d calls", status, calls.Load())
		}
	})
	t.Run("rate limit", func(t *testing.T) {
		t.Parallel()
		srv, _, tok := setup(t)
		srv.SetRateLimit(1, time.Minute)
		send(t, srv, http.MethodGet, "/customer/members", "", tok)
		status, _, got := send(t, srv, http.MethodPost, "/auth/access-management/users", `{}`, tok)
		if status != http.StatusTooManyRequests || !strings.Contains(got, "access provider rate limited") {
			t.Errorf("%d %s", status, got)
		}
	})
	t.Run("body limit", func(t *testing.T) {
		t.Parallel()
		srv, calls, tok := setup(t)
		status, _, _ := send(t, srv, http.MethodPost, "/auth/access-management/users", `"`+strings.Repeat("x", 1<<20)+`"`, tok)
		if status != http.StatusBadRequest || calls.Load() != 0 {
			t.Errorf("status %d, %d calls", status, calls.Load())
		}
	})
	t.Run("the handler reads the whole body", func(t *testing.T) {
		t.Parallel()
		srv := sdktest.NewServer(t)
		var got []byte
		srv.HandleFunc("PUT /echo", func(w http.ResponseWriter, r *http.Request) {
			got, _ = io.ReadAll(r.Body)
			if r.ContentLength != int64(len(got)) {
				t.Errorf("ContentLength %d for %d bytes", r.ContentLength, len(got))
			}
		})
		want := strings.Repeat("body ", 1000)
		if status, _, _ := send(t, srv, http.MethodPut, "/echo", want, srv.IssueToken()); status != http.StatusOK || string(got) != want {
			t.Errorf("status %d, handler read %d bytes of %d", status, len(got), len(want))
		}
		if reqs := srv.Requests(); len(reqs) != 1 || string(reqs[0].Body) != want {
			t.Errorf("recorded body lost")
		}
	})
}

// fatalRecorder is a testing.TB whose Fatal records the message instead of
// ending the test, so a refused registration can be asserted on.
type fatalRecorder struct {
	testing.TB
	mu     sync.Mutex
	fatals []string
}

func (f *fatalRecorder) Helper() {}

func (f *fatalRecorder) Fatal(args ...any) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.fatals = append(f.fatals, fmt.Sprint(args...))
}

func (f *fatalRecorder) Fatalf(format string, args ...any) { f.Fatal(fmt.Sprintf(format, args...)) }

func (f *fatalRecorder) take() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := f.fatals
	f.fatals = nil
	return out
}

func TestHandleFuncRefusesConflicts(t *testing.T) {
	t.Parallel()
	rec := &fatalRecorder{TB: t}
	srv := sdktest.NewServer(rec)
	noop := func(http.ResponseWriter, *http.Request) {}
	srv.HandleFunc(createUserPattern, noop)
	if f := rec.take(); f != nil {
		t.Fatalf("valid pattern refused: %q", f)
	}

	for _, tc := range []struct {
		pattern string
		h       http.HandlerFunc
		want    string // "" means accepted
	}{
		{"GET /auth/access-management/users/{userId}/profile", noop, ""},
		{"DELETE /auth/access-management/users/{id}", noop, ""},
		{"/auth/access-management/users/{userId}/sessions/", noop, ""},
		{"GET /payment-methods/{id}", noop, ""},
		{"PATCH /payment-methods/{rest...}", noop, ""}, // less specific: the built-in keeps its requests
		{"PUT /auth/access-management/users/{id}", noop, `conflicts with pattern "PUT /auth/access-management/users/{userId}" (the built-in endpoint of accessmgmt.UpdateUser)`},
		{"POST /auth/token", noop, `(the built-in endpoint of auth.Token)`},
		{"PUT /auth/access-management/users/me", noop, "would take PUT /auth/access-management/users/me from the built-in endpoint"},
		{"PATCH /payment-methods/7d3c2a9e-3f1b-4c55-9a0e-1b2c3d4e5f60", noop, `(the built-in endpoint of payments.UpdatePaymentMethod)`},
		{"/customer/members/{memberId}/address", noop, ""}, // other methods only: POST stays built-in
		{"/customer/members/m1/address", noop, `conflicts with pattern "POST /customer/members/{memberId}/address"`},
		{"POST /auth/access-management/users", noop, "(added earlier with HandleFunc)"},
		{"/", noop, "(the fake's answer to unknown routes)"},
		{"api.example.com/things", noop, "must not name a host"},
		{"GET /things/{id", noop, "bad wildcard segment"},
		{"GET /things", nil, "nil handler"},
	} {
		t.Run(tc.pattern, func(t *testing.T) {
			srv.HandleFunc(tc.pattern, tc.h)
			fatals := rec.take()
			switch {
			case tc.want == "" && fatals != nil:
				t.Errorf("refused: %q", fatals)
			case tc.want != "" && (len(fatals) != 1 || !strings.HasPrefix(fatals[0], fmt.Sprintf("sdktest: HandleFunc(%q): ", tc.pattern)) || !strings.Contains(fatals[0], tc.want)):
				t.Errorf("failures %q, want one containing %q", fatals, tc.want)
			}
		})
	}

	// A refused pattern is not half-registered, and the built-ins still work.
	tok := srv.IssueToken()
	if status, _, _ := send(t, srv, http.MethodGet, "/things", "", tok); status != http.StatusNotFound {
		t.Errorf("refused pattern answered %d, want the unknown-route 404", status)
	}
	srv.AddUser(sdktest.User{ID: "me", Email: "me@example.com"})
	if status, _, got := send(t, srv, http.MethodPut, "/auth/access-management/users/me", `{"firstName":"Me"}`, tok); status != http.StatusOK {
		t.Errorf("built-in UpdateUser after refusals: %d %s", status, got)
	}
	pm := srv.AddPaymentMethod(sdktest.PaymentMethod{})
	if status, _, got := send(t, srv, http.MethodPatch, "/payment-methods/"+pm.ID, `{}`, tok); status != http.StatusOK || !strings.Contains(got, `"expDate"`) {
		t.Errorf("built-in UpdatePaymentMethod beside PATCH /payment-methods/{rest...}: %d %s", status, got)
	}
	if n := srv.RequestCount("PATCH /payment-methods/{rest...}"); n != 0 {
		t.Errorf("the {rest...} pattern took %d built-in requests", n)
	}
}

func TestHandleFuncPanicsWithoutATest(t *testing.T) {
	t.Parallel()
	srv := sdktest.Start()
	defer srv.Close()
	defer func() {
		msg, _ := recover().(string)
		if !strings.HasPrefix(msg, `sdktest: HandleFunc("PATCH /payment-methods/{paymentMethodId}"): `) {
			t.Errorf("recovered %q", msg)
		}
	}()
	srv.HandleFunc("PATCH /payment-methods/{paymentMethodId}", func(http.ResponseWriter, *http.Request) {})
	t.Error("no panic")
}

// TestHandleFuncWhileServing registers endpoints while requests are in
// flight (run with -race).
func TestHandleFuncWhileServing(t *testing.T) {
	t.Parallel()
	srv := sdktest.NewServer(t)
	srv.AddUser(sdktest.User{ID: "u", Email: "u@example.com"})
	c := srv.Client()
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			if _, err := c.AccessMgmt.UpdateUser(t.Context(), "u", accessmgmt.UpdateUserParams{LastName: new(fmt.Sprint("L", i))}); err != nil {
				t.Error(err)
			}
		})
	}
	for i := range 8 {
		srv.HandleFunc(fmt.Sprintf("GET /things/%d", i), func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusAccepted) })
	}
	wg.Wait()
	for i := range 8 {
		if status, _, _ := send(t, srv, http.MethodGet, fmt.Sprintf("/things/%d", i), "", srv.IssueToken()); status != http.StatusAccepted {
			t.Errorf("GET /things/%d: %d", i, status)
		}
	}
}
