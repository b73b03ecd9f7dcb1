package contracttest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"

	"github.com/memberplatform/memberplatform-go/accessmgmt"
	"github.com/memberplatform/memberplatform-go/client"
	apierrors "github.com/memberplatform/memberplatform-go/errors"
	"github.com/memberplatform/memberplatform-go/internal/core"
	"github.com/memberplatform/memberplatform-go/option"
	"github.com/memberplatform/memberplatform-go/sdktest"
)

const openAPIPath = "../api/openapi.yaml"

// defineFormats registers the string formats the document uses; kin-openapi
// validates only formats it knows. Called once from TestMain.
func defineFormats() {
	openapi3.DefineStringFormatValidator("email", openapi3.NewRegexpFormatValidator(openapi3.FormatOfStringForEmail))
	openapi3.DefineStringFormatValidator("uuid", openapi3.NewRegexpFormatValidator(openapi3.FormatOfStringForUUIDOfRFC9562))
	openapi3.DefineStringFormatValidator("uri", openapi3.NewCallbackValidator(func(s string) error {
		u, err := url.Parse(s)
		if err != nil || u.Scheme == "" {
			return fmt.Errorf("not an absolute URI: %q", s)
		}
		return nil
	}))
}

// exchange is one request/response pair seen on the wire.
type exchange struct {
	req      *http.Request
	reqBody  []byte
	status   int
	header   http.Header
	respBody []byte
	viaSDK   bool
}

// recorder is a RoundTripper that captures every exchange. mutate, if set,
// rewrites request bodies before they are sent (for negative tests).
type recorder struct {
	base   http.RoundTripper
	viaSDK bool
	mutate func(path string, body []byte) []byte

	mu        sync.Mutex
	exchanges []exchange
}

func (r *recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	var body []byte
	if req.Body != nil {
		b, err := io.ReadAll(req.Body)
		_ = req.Body.Close()
		if err != nil {
			return nil, err
		}
		body = b
	}
	if r.mutate != nil && body != nil {
		body = r.mutate(req.URL.Path, body)
	}
	out := req.Clone(req.Context())
	setBody(out, body)
	resp, err := r.base.RoundTrip(out)
	if err != nil {
		return nil, err
	}
	respBody, err := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if err != nil {
		return nil, err
	}
	resp.Body = io.NopCloser(bytes.NewReader(respBody))
	r.mu.Lock()
	r.exchanges = append(r.exchanges, exchange{req: out, reqBody: body, status: resp.StatusCode, header: resp.Header.Clone(), respBody: respBody, viaSDK: r.viaSDK})
	r.mu.Unlock()
	return resp, nil
}

// setBody makes body the request's body, GetBody included (validators and
// transports may read either).
func setBody(req *http.Request, body []byte) {
	req.ContentLength = int64(len(body))
	req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	req.Body = io.NopCloser(bytes.NewReader(body))
	if body == nil {
		req.Body, req.GetBody = nil, nil
	}
}

func (r *recorder) all() []exchange {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]exchange(nil), r.exchanges...)
}

// contract loads the document and a router whose server is base.
func contract(t *testing.T, base string) (*openapi3.T, routers.Router) {
	t.Helper()
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromFile(openAPIPath)
	if err != nil {
		t.Fatalf("loading %s: %v", openAPIPath, err)
	}
	if err := doc.Validate(loader.Context); err != nil {
		t.Fatalf("%s is not a valid OpenAPI document: %v", openAPIPath, err)
	}
	doc.Servers = openapi3.Servers{{URL: base}}
	router, err := gorillamux.NewRouter(doc)
	if err != nil {
		t.Fatalf("router: %v", err)
	}
	return doc, router
}

func requestInput(ctx context.Context, router routers.Router, ex exchange) (*openapi3filter.RequestValidationInput, error) {
	req := ex.req.Clone(ctx)
	setBody(req, ex.reqBody)
	route, params, err := router.FindRoute(req)
	if err != nil {
		return nil, fmt.Errorf("no route for %s %s: %w", req.Method, req.URL.Path, err)
	}
	return &openapi3filter.RequestValidationInput{
		Request: req, PathParams: params, Route: route,
		Options: &openapi3filter.Options{AuthenticationFunc: openapi3filter.NoopAuthenticationFunc, MultiError: true},
	}, nil
}

func validateRequest(ctx context.Context, router routers.Router, ex exchange) error {
	in, err := requestInput(ctx, router, ex)
	if err != nil {
		return err
	}
	return openapi3filter.ValidateRequest(ctx, in)
}

func validateResponse(ctx context.Context, router routers.Router, ex exchange) error {
	in, err := requestInput(ctx, router, ex)
	if err != nil {
		return err
	}
	out := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: in,
		Status:                 ex.status,
		Header:                 ex.header,
		Options:                &openapi3filter.Options{IncludeResponseStatus: true, MultiError: true},
	}
	out.SetBodyBytes(ex.respBody)
	return openapi3filter.ValidateResponse(ctx, out)
}

// TestContract runs one subtest per declared operation, each its
// scenario (scenarios_test.go) against a fake of its own, seeded afresh:
// successes and errors through the SDK, and requests the SDK would refuse
// sent by hand. Every request the SDK sent and every response the fake
// returned is validated against api/openapi.yaml.
func TestContract(t *testing.T) {
	seen := map[string]bool{} // statuses answered, over every scenario
	for _, op := range core.Operations() {
		t.Run(op.Name, func(t *testing.T) {
			scenario := scenarios[op.Name]
			if scenario == nil {
				t.Fatalf("%s is declared but contracttest/scenarios_test.go's scenarios has none for it: add one that sends it "+
					"(a success, the errors the fake answers, what the fake's handler chose: paging, filters, not-found), "+
					"so that its requests and sdktest's answers are checked against api/openapi.yaml", op.Name)
			}
			f := newFixture(t)
			scenario(f)
			f.validate(op, seen)
		})
	}
	for name := range scenarios {
		if !slices.ContainsFunc(core.Operations(), func(op *core.Operation) bool { return op.Name == name }) {
			t.Errorf("scenario %s names no declared operation", name)
		}
	}
	// The scenarios must have exercised what they claim to.
	for _, st := range []string{"200", "201", "400", "401", "403", "404", "409", "422", "429", "500", "501", "503"} {
		if !seen[st] {
			t.Errorf("no scenario produced a %s response", st)
		}
	}
}

// fixture is one scenario's world: a fake platform seeded with a user or
// two, a role, a payment method and a member; a client whose exchanges are
// recorded, one without a token, and a recorder for requests sent by hand.
type fixture struct {
	t      *testing.T
	ctx    context.Context
	srv    *sdktest.Server
	router routers.Router
	rec    *recorder      // the SDK's exchanges
	raw    *recorder      // the hand-built requests' exchanges
	c      *client.Client // through rec, with the fake's SigV4 token source
	anon   *client.Client // through rec, without a token
	pm     sdktest.PaymentMethod
	member string
}

func newFixture(t *testing.T) *fixture {
	srv := sdktest.NewServer(t, sdktest.WithClock(func() time.Time { return time.Date(2025, 3, 4, 5, 6, 7, 0, time.UTC) }))
	_, router := contract(t, srv.URL)
	f := &fixture{t: t, ctx: t.Context(), srv: srv, router: router,
		rec: &recorder{base: srv.HTTPClient().Transport, viaSDK: true}, raw: &recorder{base: srv.HTTPClient().Transport}}
	f.c = srv.Client(option.WithTransport(f.rec))
	f.anon = srv.Client(option.WithTransport(f.rec), option.WithTokenSource(nil))
	srv.AddUser(sdktest.User{ID: "user_01", Email: "ada@example.com"})
	srv.AddUser(sdktest.User{ID: "user_02", Email: "grace@example.com", MobileNumber: "+61400000000", FirstName: "Grace", LastName: "Hopper"})
	srv.AddRole("org_01", "org-admin", "users:read")
	f.pm = srv.AddPaymentMethod(sdktest.PaymentMethod{Primary: true})
	f.member = srv.AddMember("")
	return f
}

// mustErr fails the test unless err matches kind.
func (f *fixture) mustErr(err, kind error) {
	f.t.Helper()
	if !errors.Is(err, kind) {
		f.t.Errorf("err = %v, want %v", err, kind)
	}
}

// must fails the test on err.
func (f *fixture) must(err error) {
	f.t.Helper()
	if err != nil {
		f.t.Fatal(err)
	}
}

// refused sends a request the SDK would refuse to send (server-side
// validation): the fake must answer an error, and only the response is
// checked against the document.
func (f *fixture) refused(method, path, body string) {
	f.t.Helper()
	req, _ := http.NewRequestWithContext(f.ctx, method, f.srv.URL+path, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	if path != "/auth/token" {
		req.Header.Set("Authorization", "Bearer "+f.srv.IssueToken())
	}
	resp, err := (&http.Client{Transport: f.raw}).Do(req)
	if err != nil {
		f.t.Fatal(err)
	}
	_ = resp.Body.Close()
	if resp.StatusCode < 400 {
		f.t.Errorf("%s %s %s: status %d, want an error", method, path, body, resp.StatusCode)
	}
}

// validate checks every exchange of the scenario against the document,
// that op went through the SDK, and records the statuses answered.
func (f *fixture) validate(op *core.Operation, seen map[string]bool) {
	t := f.t
	for _, ex := range append(f.rec.all(), f.raw.all()...) {
		name := ex.req.Method + " " + ex.req.URL.Path + " → " + fmt.Sprint(ex.status)
		seen[fmt.Sprint(ex.status)] = true
		if ex.viaSDK {
			if err := validateRequest(f.ctx, f.router, ex); err != nil {
				t.Errorf("SDK request %s body %s violates the contract:\n%v", name, ex.reqBody, err)
			}
		}
		if err := validateResponse(f.ctx, f.router, ex); err != nil {
			t.Errorf("sdktest response %s body %s violates the contract:\n%v", name, ex.respBody, err)
		}
	}
	if !slices.ContainsFunc(f.srv.Requests(), func(r sdktest.Request) bool {
		return r.Operation == op.Name && strings.HasPrefix(r.Header.Get("User-Agent"), "memberplatform-go/")
	}) {
		t.Errorf("the scenario sends no %s through the SDK: its requests go unchecked", op.Name)
	}
}

// TestContractRejectsUndocumentedFields proves the validator would catch an
// SDK change that sends a field the document does not allow.
func TestContractRejectsUndocumentedFields(t *testing.T) {
	srv := sdktest.NewServer(t)
	_, router := contract(t, srv.URL)
	ctx := t.Context()

	t.Run("hand-built request", func(t *testing.T) {
		for _, tc := range []struct{ method, path, body string }{
			{http.MethodPut, "/auth/access-management/users/user_01", `{"firstName":"Ada","nickname":"ada"}`},
			{http.MethodPut, "/auth/access-management/organizations/o/roles/org-admin/permissions", `{"permissions":["a"],"replace":true}`},
			{http.MethodPatch, "/payment-methods/7d3c2a9e-3f1b-4c55-9a0e-1b2c3d4e5f60", `{"setAsPrimary":true,"cvv":"123"}`},
			{http.MethodPost, "/customer/members/7d3c2a9e-3f1b-4c55-9a0e-1b2c3d4e5f60/address", `{"addressLineOne":"1","state":"s","suburb":"s","postcode":"1","country":"AU","unit":"4"}`},
		} {
			req, _ := http.NewRequestWithContext(ctx, tc.method, srv.URL+tc.path, strings.NewReader(tc.body))
			req.Header.Set("Content-Type", "application/json")
			err := validateRequest(ctx, router, exchange{req: req, reqBody: []byte(tc.body)})
			if err == nil {
				t.Errorf("%s %s with %s: validator accepted an undocumented field", tc.method, tc.path, tc.body)
			}
			// The same body without the extra field passes, so the failure is
			// the extra field and nothing else.
			var m map[string]any
			_ = json.Unmarshal([]byte(tc.body), &m)
			for _, k := range []string{"nickname", "replace", "cvv", "unit"} {
				delete(m, k)
			}
			clean, _ := json.Marshal(m)
			req2, _ := http.NewRequestWithContext(ctx, tc.method, srv.URL+tc.path, bytes.NewReader(clean))
			req2.Header.Set("Content-Type", "application/json")
			if err := validateRequest(ctx, router, exchange{req: req2, reqBody: clean}); err != nil {
				t.Errorf("%s %s with %s: clean body rejected: %v", tc.method, tc.path, clean, err)
			}
		}
	})

	t.Run("SDK request with an injected field", func(t *testing.T) {
		srv.AddUser(sdktest.User{ID: "user_01", Email: "ada@example.com"})
		// Simulates an SDK change that adds a field to the UpdateUser body.
		rec := &recorder{base: srv.HTTPClient().Transport, viaSDK: true, mutate: func(path string, body []byte) []byte {
			if !strings.HasPrefix(path, "/auth/access-management/users/") {
				return body
			}
			var m map[string]any
			_ = json.Unmarshal(body, &m)
			m["displayName"] = "Ada L."
			b, _ := json.Marshal(m)
			return b
		}}
		c := srv.Client(option.WithTransport(rec))
		_, err := c.AccessMgmt.UpdateUser(ctx, "user_01", accessmgmt.UpdateUserParams{FirstName: new("Ada")})
		if !errors.Is(err, apierrors.ErrBadRequest) {
			t.Errorf("sdktest accepted an unknown field: err = %v", err)
		}
		failures := 0
		for _, ex := range rec.all() {
			if ex.req.URL.Path == "/auth/token" {
				if err := validateRequest(ctx, router, ex); err != nil {
					t.Errorf("token request: %v", err)
				}
				continue
			}
			err := validateRequest(ctx, router, ex)
			if err == nil {
				t.Errorf("request %s passed validation with an undocumented field", ex.reqBody)
				continue
			}
			if !strings.Contains(err.Error(), "displayName") {
				t.Errorf("validation error does not name the field: %v", err)
			}
			failures++
		}
		if failures != 1 {
			t.Errorf("%d UpdateUser requests failed validation, want 1", failures)
		}
	})

	t.Run("response with a non 8-digit serviceCode", func(t *testing.T) {
		req, _ := http.NewRequestWithContext(ctx, http.MethodPut, srv.URL+"/auth/access-management/users/u", strings.NewReader(`{"firstName":"A"}`))
		req.Header.Set("Content-Type", "application/json")
		ex := exchange{req: req, reqBody: []byte(`{"firstName":"A"}`), status: 404,
			header:   http.Header{"Content-Type": {"application/problem+json"}},
			respBody: []byte(`{"type":"https://x.invalid/not-found","title":"Not Found","status":404,"serviceCode":"NOT_FOUND"}`)}
		if err := validateResponse(ctx, router, ex); err == nil {
			t.Error("a problem with serviceCode NOT_FOUND passed validation for operation 1")
		}
		ex.respBody = []byte(`{"type":"https://x.invalid/not-found","title":"Not Found","status":404,"serviceCode":"40400001"}`)
		if err := validateResponse(ctx, router, ex); err != nil {
			t.Errorf("valid problem rejected: %v", err)
		}
	})
}

// documentedErrors are the error statuses api/openapi.yaml must list for an
// operation of each format, and how it lists them; nil asks for a default
// response instead.
var documentedErrors = map[core.ErrorFormat]struct {
	statuses []string
	how      string
}{
	core.ProblemErrors:     {[]string{"400", "401", "403", "404", "409", "422", "429", "500", "503"}, "`<<: *accessManagementErrors` in its responses"},
	core.ProblemTextErrors: {nil, "a default response of the ProblemFreeCode schema"},
	core.CodeMessageErrors: {[]string{"400", "401", "403", "404", "500"}, "the code/message responses, as upsertMemberAddress lists them"},
}

// TestDocumentHasEveryOperation: api/openapi.yaml describes every declared
// operation at its declared method and path, with the error answers of its
// declared format, so that the fake's answers can be validated whichever
// the scenario produces.
func TestDocumentHasEveryOperation(t *testing.T) {
	doc, _ := contract(t, "https://api.example.test")
	for _, op := range core.Operations() {
		item := doc.Paths.Value(op.Path)
		var o *openapi3.Operation
		if item != nil {
			o = item.GetOperation(op.Method)
		}
		if o == nil {
			t.Errorf("api/openapi.yaml has no %s %s (%s): add it as the contract describes it", op.Method, op.Path, op.Name)
			continue
		}
		want := documentedErrors[op.Errors]
		if want.statuses == nil && o.Responses.Default() == nil {
			t.Errorf("api/openapi.yaml's %s %s lists no default response: add %s", op.Method, op.Path, want.how)
		}
		for _, st := range want.statuses {
			if o.Responses.Value(st) == nil {
				t.Errorf("api/openapi.yaml's %s %s lists no %s response: add %s", op.Method, op.Path, st, want.how)
			}
		}
	}
}
