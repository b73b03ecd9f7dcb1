package client_test

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"reflect"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jarcoal/httpmock"

	"github.com/memberplatform/memberplatform-go/accessmgmt"
	"github.com/memberplatform/memberplatform-go/client"
	"github.com/memberplatform/memberplatform-go/customer"
	apierrors "github.com/memberplatform/memberplatform-go/errors"
	"github.com/memberplatform/memberplatform-go/internal/areatest"
	"github.com/memberplatform/memberplatform-go/internal/core"
	"github.com/memberplatform/memberplatform-go/option"
	"github.com/memberplatform/memberplatform-go/payments"
)

// The checks every operation of every area passes, run once over every
// declared operation; each area's own tests keep what only that area does.

// operation is one operation of an area package, called through the public
// client, with the answers the shared checks give it. Its name, method,
// path and error format come from its declaration (operations); a row of
// rows gives the rest.
type operation struct {
	name      string // as errors name it, such as "accessmgmt.UpdateUser"
	method    string
	path      string     // escaped path below the base URL: the declared one filled with ids
	problem   bool       // errors are RFC 9457 problems, not code/message bodies
	ids       []string   // the test IDs the path's placeholders take, in order
	query     url.Values // the query the call sends, nil for none (a read's)
	body      string     // the JSON body the call sends, "" for none
	response  string     // a 2xx body the server answers with
	want      any        // what call returns for response
	retryable httpmock.Responder
	call      func(ctx context.Context, c *client.Client, opts ...option.RequestOption) (any, error)
	// malformed are bodies that answered with malformedStatus do not decode.
	malformedStatus int
	malformed       []string
	errors          []errorCase // error answers in the operation's own format
}

// errorCase is an error answer and what the SDK's error must report.
type errorCase struct {
	name   string
	status int
	body   string
	kinds  []error // errors.Is must match each
	code   string  // the problem's serviceCode, or the code of a code/message body
	fields []apierrors.FieldError
}

const (
	testOrgID    = "org_01EHZNVPK3SFK441A1RGBFSHRT"
	testPMID     = "3f2b1c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d"
	testAcctID   = "9a8b7c6d-5e4f-4321-8765-0fedcba98765"
	testMemberID = "7c9e6679-7425-40de-944b-e07fc1f90ae7"
	testAddrID   = "1b4e28ba-2fa1-41d2-883f-0016d3cca427"
)

// accessProblems are the problems both access-management operations answer.
var accessProblems = []errorCase{
	{"bad request", 400, `{"type":"https://errors.example.com/bad-request","title":"BAD_REQUEST","status":400,"serviceCode":"40000001"}`, []error{apierrors.ErrBadRequest}, "40000001", nil},
	// A 401 makes the client drop the token and resend once; a static
	// token is not resent: it would be rejected again.
	{"unauthorized", 401, `{"type":"about:blank","title":"UNAUTHORIZED","status":401,"serviceCode":"40100001"}`, []error{apierrors.ErrUnauthorized}, "40100001", nil},
	{"forbidden", 403, `{"type":"about:blank","title":"FORBIDDEN","status":403,"serviceCode":"40300001"}`, []error{apierrors.ErrForbidden}, "40300001", nil},
	{"not found", 404, `{"type":"about:blank","title":"NOT_FOUND","status":404,"serviceCode":"40400001"}`, []error{apierrors.ErrNotFound}, "40400001", nil},
	{"conflict", 409, `{"type":"about:blank","title":"CONFLICT","status":409,"serviceCode":"40900001"}`, []error{apierrors.ErrConflict}, "40900001", nil},
	{"unprocessable", 422, `{"type":"about:blank","title":"UNPROCESSABLE_ENTITY","status":422,"serviceCode":"42200001"}`, []error{apierrors.ErrUnprocessableEntity}, "42200001", nil},
	{"rate limited", 429, `{"type":"https://errors.example.com/provider-rate-limited","title":"Provider rate limited","status":429,"serviceCode":"42900001"}`, []error{apierrors.ErrRateLimited}, "42900001", nil},
	{"internal", 500, `{"type":"about:blank","title":"INTERNAL_SERVER_ERROR","status":500,"serviceCode":"50000001"}`, []error{apierrors.ErrInternal}, "50000001", nil},
	{"provider not configured", 503, `{"type":"https://errors.example.com/provider-not-configured","title":"Access provider not configured","status":503,"serviceCode":"50300001"}`, []error{apierrors.ErrProviderNotConfigured, apierrors.ErrServiceUnavailable}, "50300001", nil},
}

// rows are the rows of the table, by operation name.
var rows = map[string]operation{
	"accessmgmt.UpdateUser": {
		ids:       []string{testUserID},
		body:      `{"firstName":"Ada"}`,
		response:  `{"id":"` + testUserID + `","email":"ada@example.com","mobileNumber":"+61412345678","firstName":"Ada","lastName":"Lovelace"}`,
		want:      &accessmgmt.ProviderUser{ID: testUserID, Email: "ada@example.com", MobileNumber: "+61412345678", FirstName: "Ada", LastName: "Lovelace"},
		retryable: areatest.Problem(http.StatusServiceUnavailable, `{"title":"Service Unavailable","status":503}`),
		call: func(ctx context.Context, c *client.Client, opts ...option.RequestOption) (any, error) {
			return c.AccessMgmt.UpdateUser(ctx, testUserID, accessmgmt.UpdateUserParams{FirstName: new("Ada")}, opts...)
		},
		malformedStatus: http.StatusOK, malformed: []string{`{not json`, `[]`, `{"id":5}`, `"user"`, `<html>oops</html>`},
		errors: accessProblems,
	},
	"accessmgmt.ReplaceRolePermissions": {
		ids:       []string{testOrgID, "org-admin"},
		body:      `{"permissions":["users:read"]}`,
		response:  `{"slug":"org-admin","permissions":["users:read"]}`,
		retryable: areatest.Problem(http.StatusServiceUnavailable, `{"title":"Service Unavailable","status":503}`),
		call: func(ctx context.Context, c *client.Client, opts ...option.RequestOption) (any, error) {
			return nil, c.AccessMgmt.ReplaceRolePermissions(ctx, testOrgID, "org-admin", []string{"users:read"}, opts...)
		},
		errors: accessProblems, // any 2xx body is success: none is malformed
	},
	"payments.UpdatePaymentMethod": {
		ids:      []string{testPMID},
		body:     `{"setAsPrimary":true}`,
		response: `{"id":"` + testPMID + `","billingAccountId":"` + testAcctID + `","lastFourDigits":"4242","cardBrand":"visa","expDate":"03/2030","primary":true,"createdAt":"2024-05-06T07:08:09Z","updatedAt":"2024-06-07T08:09:10.5+10:00"}`,
		want: &payments.PaymentMethod{ID: testPMID, BillingAccountID: testAcctID, LastFourDigits: "4242", CardBrand: "visa", ExpDate: "03/2030", Primary: true,
			CreatedAt: time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC), UpdatedAt: time.Date(2024, 6, 6, 22, 9, 10, 500_000_000, time.UTC)},
		retryable: areatest.Problem(http.StatusBadGateway, `{"title":"Bad Gateway","status":502}`),
		call: func(ctx context.Context, c *client.Client, opts ...option.RequestOption) (any, error) {
			pm, err := c.Payments.UpdatePaymentMethod(ctx, testPMID, payments.UpdatePaymentMethodParams{SetAsPrimary: new(true)}, opts...)
			if pm != nil { // compared by instant
				pm.CreatedAt, pm.UpdatedAt = pm.CreatedAt.UTC(), pm.UpdatedAt.UTC()
			}
			return pm, err
		},
		malformedStatus: http.StatusOK,
		malformed:       []string{`{not json`, `[]`, `{"id":42}`, `{"id":"` + testPMID + `","primary":"yes"}`, `{"id":"` + testPMID + `","createdAt":"last tuesday"}`, `{"id":"` + testPMID + `","updatedAt":true}`},
		// Operation 3's serviceCode is free-form, not 8 digits.
		errors: []errorCase{
			{"not implemented 501", 501, `{"type":"about:blank","title":"Not implemented","status":501,"serviceCode":"NOT_IMPLEMENTED"}`, []error{apierrors.ErrNotImplemented}, "NOT_IMPLEMENTED", nil},
			{"not implemented by name", 400, `{"type":"https://errors.example.com/not-implemented","title":"Not Implemented","status":400,"serviceCode":"payments.not_implemented"}`, []error{apierrors.ErrNotImplemented}, "payments.not_implemented", nil},
			{"not found", 404, `{"type":"about:blank","title":"Not Found","status":404,"serviceCode":"PM-404"}`, []error{apierrors.ErrNotFound}, "PM-404", nil},
			{"numeric service code", 409, `{"type":"about:blank","title":"Conflict","status":409,"serviceCode":40900001}`, []error{apierrors.ErrConflict}, "40900001", nil},
		},
	},
	"customer.UpsertMemberAddress": {
		ids:      []string{testMemberID},
		body:     `{"addressLineOne":"1 Main St","state":"NSW","suburb":"Sydney","postcode":"2000","country":"AU"}`,
		response: `{"id":"` + testAddrID + `","tenantId":"tenant-42","addressFull":"Unit 4, 1 Main St, Sydney NSW 2000","addressLineOne":"1 Main St","addressLineTwo":"Unit 4","state":"NSW","suburb":"Sydney","postcode":"2000","country":"AU","createdDate":"2024-05-06T07:08:09Z","lastModifiedDate":"2024-06-07T08:09:10.5+10:00"}`,
		want: &customer.MemberAddress{ID: testAddrID, TenantID: "tenant-42",
			AddressFull: new("Unit 4, 1 Main St, Sydney NSW 2000"), AddressLineOne: new("1 Main St"), AddressLineTwo: new("Unit 4"),
			State: new("NSW"), Suburb: new("Sydney"), Postcode: new("2000"), Country: new("AU"),
			CreatedDate: new("2024-05-06T07:08:09Z"), LastModifiedDate: new("2024-06-07T08:09:10.5+10:00")},
		retryable: areatest.JSON(http.StatusServiceUnavailable, `{"code":"UNAVAILABLE","message":"try later"}`),
		call: func(ctx context.Context, c *client.Client, opts ...option.RequestOption) (any, error) {
			return c.Customer.UpsertMemberAddress(ctx, testMemberID,
				customer.UpsertMemberAddressParams{AddressLineOne: "1 Main St", State: "NSW", Suburb: "Sydney", Postcode: "2000", Country: "AU"}, opts...)
		},
		malformedStatus: http.StatusCreated,
		malformed:       []string{`{not json`, `[]`, `{"id":1}`, `{"id":"` + testAddrID + `","state":7}`, `<html></html>`},
		errors: []errorCase{
			{"validation error", 400, `{"code":"VALIDATION_ERROR","message":"Validation failed","errors":[{"field":"postcode","message":"must be 4 digits"},{"field":"state","message":"unknown state"}]}`,
				[]error{apierrors.ErrBadRequest, apierrors.ErrUnprocessableEntity}, "VALIDATION_ERROR",
				[]apierrors.FieldError{{Field: "postcode", Message: "must be 4 digits"}, {Field: "state", Message: "unknown state"}}},
			// A 401 makes the client drop the token and resend once; a
			// static token is not resent.
			{"unauthenticated", 401, `{"code":"UNAUTHENTICATED","message":"missing or invalid auth context"}`, []error{apierrors.ErrUnauthorized}, "UNAUTHENTICATED", nil},
			{"forbidden", 403, `{"code":"FORBIDDEN","message":"caller lacks permission"}`, []error{apierrors.ErrForbidden}, "FORBIDDEN", nil},
			{"member not found", 404, `{"code":"MEMBER_NOT_FOUND","message":"member not found"}`, []error{apierrors.ErrNotFound}, "MEMBER_NOT_FOUND", nil},
			{"internal", 500, `{"code":"INTERNAL_ERROR","message":"database failure"}`, []error{apierrors.ErrInternal}, "INTERNAL_ERROR", nil},
		},
	},
}

// operations is the table: a row for every declared operation but the
// token call (auth_test.go and token_test.go test it), in the order of
// the declarations, with its name, method, path and error format taken from
// its declaration. TestEveryOperationHasARow fails when one has no row.
var operations = func() []operation {
	var ops []operation
	for _, d := range core.Operations() {
		op, ok := rows[d.Name]
		if !ok {
			continue
		}
		op.name, op.method, op.problem = d.Name, d.Method, d.Errors != core.CodeMessageErrors
		op.path = fillPath(d.Path, op.ids)
		ops = append(ops, op)
	}
	return ops
}()

// queryPart is the row's query as a target ends with it: "?" and the
// encoded query, or "" for none.
func (op operation) queryPart() string {
	if len(op.query) == 0 {
		return ""
	}
	return "?" + op.query.Encode()
}

// fillPath fills the {name} placeholders of a declared path with params,
// in order, escaped.
func fillPath(template string, params []string) string {
	segs := strings.Split(template, "/")
	for i, seg := range segs {
		if strings.HasPrefix(seg, "{") && len(params) > 0 {
			segs[i], params = url.PathEscape(params[0]), params[1:]
		}
	}
	return strings.Join(segs, "/")
}

func TestEveryOperationHasARow(t *testing.T) {
	declared := map[string]bool{}
	for _, d := range core.Operations() {
		declared[d.Name] = true
		if _, ok := rows[d.Name]; !ok && d.Name != "auth.Token" {
			t.Errorf("%s is declared but has no row in the shared operation table", d.Name)
		}
	}
	for name := range rows {
		if !declared[name] {
			t.Errorf("row %s names no declared operation", name)
		}
	}
}

// run calls op, checking that a success returns op.want and a failure no
// result.
func (op operation) run(ctx context.Context, t *testing.T, c *client.Client, opts ...option.RequestOption) error {
	t.Helper()
	got, err := op.call(ctx, c, opts...)
	switch {
	case err != nil && got != nil && !reflect.ValueOf(got).IsNil():
		t.Errorf("%s: result %+v with error %v, want none", op.name, got, err)
	case err == nil && !reflect.DeepEqual(got, op.want):
		t.Errorf("%s: result %+v, want %+v", op.name, got, op.want)
	}
	return err
}

func TestEveryOperation(t *testing.T) {
	t.Parallel()
	for _, op := range operations {
		t.Run(op.name+"/client options", func(t *testing.T) { t.Parallel(); checkClientOptions(t, op) })
		t.Run(op.name+"/per-call options", func(t *testing.T) { t.Parallel(); checkPerCallOptions(t, op) })
		t.Run(op.name+"/per-call timeout expires", func(t *testing.T) { t.Parallel(); checkPerCallTimeoutExpires(t, op) })
		t.Run(op.name+"/retried on server error", func(t *testing.T) { t.Parallel(); checkRetriedOnServerError(t, op) })
		for _, body := range op.malformed {
			t.Run(op.name+"/malformed success body/"+body, func(t *testing.T) { t.Parallel(); checkMalformedSuccessBody(t, op, body) })
		}
		for _, tc := range op.errors {
			t.Run(op.name+"/error/"+tc.name, func(t *testing.T) { t.Parallel(); checkErrorResponse(t, op, tc) })
		}
	}
}

// checkClientOptions: the token source decides the Authorization header,
// and a base URL's host and path prefix (with or without a trailing slash)
// come before the operation's path.
func checkClientOptions(t *testing.T, op operation) {
	const otherHost = "https://host.example"
	tests := []struct {
		name string
		opts []option.RequestOption
		url  string // where the request must go
		auth string
	}{
		{"no token source", []option.RequestOption{option.WithTokenSource(nil)}, areatest.BaseURL + op.path, ""},
		{"token source", nil, areatest.BaseURL + op.path, "Bearer " + areatest.Token},
		{"base path prefix", []option.RequestOption{option.WithBaseURL(otherHost + "/api/v2")}, otherHost + "/api/v2" + op.path, "Bearer " + areatest.Token},
		{"base path prefix with slash", []option.RequestOption{option.WithBaseURL(otherHost + "/api/v2/")}, otherHost + "/api/v2" + op.path, "Bearer " + areatest.Token},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			m := areatest.NewMock(t)
			m.On(op.method, tt.url, areatest.JSON(http.StatusOK, op.response))
			if err := op.run(t.Context(), t, m.Client(tt.opts...)); err != nil {
				t.Fatal(err)
			}
			r := m.Only()
			want, _ := url.Parse(tt.url)
			if r.URL.Scheme != want.Scheme || r.URL.Host != want.Host {
				t.Errorf("URL = %s, want %s", r.URL, tt.url)
			}
			areatest.CheckRequest(t, r, op.method, want.EscapedPath()+op.queryPart(), op.body, tt.auth)
		})
	}
}

// perCallQuery has the field kinds go-querystring encodes: an escaped
// string, a number, a repeated value, a bool, and empty omitted fields.
type perCallQuery struct {
	Trace  string   `url:"trace"`
	Limit  int      `url:"limit,omitempty"`
	Tags   []string `url:"tag,omitempty"`
	DryRun bool     `url:"dryRun,omitempty"`
	Skip   string   `url:"skip,omitempty"`
}

// checkPerCallOptions: headers, a query and a timeout given to one call
// reach that call, add to the client's own headers, and are gone on the
// next call.
func checkPerCallOptions(t *testing.T, op operation) {
	m := areatest.NewMock(t)
	m.On(op.method, op.path, areatest.JSON(http.StatusOK, op.response))
	c := m.Client(option.WithHeader("X-Client", "wide"))
	q := perCallQuery{Trace: "a b&c/1", Limit: 5, Tags: []string{"roles", "orgs"}, DryRun: true}
	if err := op.run(t.Context(), t, c, option.WithHeader("X-Client", "per-call"), option.WithHeader("X-Trace-Id", "abc123"),
		option.WithHeader("Idempotency-Key", "k-1"), option.WithQuery(q), option.WithTimeout(time.Minute)); err != nil {
		t.Fatal(err)
	}
	if err := op.run(t.Context(), t, c); err != nil {
		t.Fatal(err)
	}
	reqs := m.Requests()
	if len(reqs) != 2 {
		t.Fatalf("requests = %d, want 2", len(reqs))
	}
	first, second := reqs[0], reqs[1]
	for _, h := range [][2]string{{"X-Trace-Id", "abc123"}, {"Idempotency-Key", "k-1"}} {
		if got := first.Header.Values(h[0]); !slices.Equal(got, []string{h[1]}) {
			t.Errorf("first call %s = %q, want [%s]", h[0], got, h[1])
		}
		if got := second.Header.Values(h[0]); len(got) != 0 {
			t.Errorf("second call %s = %q, want none", h[0], got)
		}
	}
	want := url.Values{"trace": {"a b&c/1"}, "limit": {"5"}, "tag": {"roles", "orgs"}, "dryRun": {"true"}}
	for k, v := range op.query { // the operation's own come first
		want[k] = append(slices.Clone(v), want[k]...)
	}
	if got := first.URL.Query(); len(got) != len(want) || got.Encode() != want.Encode() {
		t.Errorf("first query = %v, want %v", got, want)
	}
	if !first.HasDeadline || second.HasDeadline {
		t.Errorf("deadlines: first %v, second %v; want true, false (WithTimeout on the first call only)", first.HasDeadline, second.HasDeadline)
	}
	first.URL.RawQuery = op.query.Encode() // checked above
	for i, want := range [][]string{{"wide", "per-call"}, {"wide"}} {
		if got := reqs[i].Header.Values("X-Client"); !slices.Equal(got, want) {
			t.Errorf("call %d: X-Client = %q, want %q", i+1, got, want)
		}
		areatest.CheckRequest(t, reqs[i], op.method, op.path+op.queryPart(), op.body, "Bearer "+areatest.Token)
	}
}

// checkPerCallTimeoutExpires: a per-call WithTimeout ends a call the server
// never answers, retries allowed or not, with a TransportError that names
// the call, well before the test's own safety deadline.
func checkPerCallTimeoutExpires(t *testing.T, op operation) {
	m := areatest.NewMock(t)
	m.On(op.method, op.path, func(r *http.Request) (*http.Response, error) {
		<-r.Context().Done() // answers only when the request's context ends
		return nil, r.Context().Err()
	})
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second) // a timeout that does not work fails, not hangs
	defer cancel()
	start := time.Now()
	err := op.run(ctx, t, m.Client(option.WithMaxRetries(3)), option.WithTimeout(250*time.Millisecond)) // room for the first token fetch on a busy machine
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("call took %v: WithTimeout did not bound it", d)
	}
	var te *apierrors.TransportError
	if !errors.As(err, &te) {
		t.Fatalf("err = %T %v, want *errors.TransportError", err, err)
	}
	if !errors.Is(err, context.DeadlineExceeded) || !te.Timeout() || !errors.Is(err, apierrors.ErrTransport) {
		t.Errorf("err = %v: want a timeout matching context.DeadlineExceeded and ErrTransport", err)
	}
	if te.Operation != op.name || te.Method != op.method || te.Path != op.path {
		t.Errorf("error = %+v", te)
	}
}

// checkRetriedOnServerError: after a 5xx the same request is sent again,
// body and headers alike, and the second answer is decoded.
func checkRetriedOnServerError(t *testing.T, op operation) {
	m := areatest.NewMock(t)
	var n atomic.Int32
	m.On(op.method, op.path, func(r *http.Request) (*http.Response, error) {
		if n.Add(1) == 1 {
			return op.retryable(r)
		}
		return areatest.JSON(http.StatusOK, op.response)(r)
	})
	c := m.Client(option.WithMaxRetries(2), option.WithRetryBackoff(time.Millisecond, time.Millisecond))
	if err := op.run(t.Context(), t, c); err != nil {
		t.Fatal(err)
	}
	reqs := m.Requests()
	if len(reqs) != 2 {
		t.Fatalf("requests = %d, want 2", len(reqs))
	}
	for _, r := range reqs {
		areatest.CheckRequest(t, r, op.method, op.path+op.queryPart(), op.body, "Bearer "+areatest.Token)
	}
}

// apiError asserts err is an *errors.Error that names op's call, and
// returns it.
func apiError(t *testing.T, op operation, err error) *apierrors.Error {
	t.Helper()
	var e *apierrors.Error
	if !errors.As(err, &e) {
		t.Fatalf("err = %T %v, want *errors.Error", err, err)
	}
	if e.Operation != op.name || e.Method != op.method || e.Path != op.path {
		t.Errorf("error = %+v", e)
	}
	return e
}

// checkMalformedSuccessBody: a success answer whose body does not decode
// fails the call with an *errors.Error matching ErrUnexpectedResponseBody
// that keeps the cause and the raw body.
func checkMalformedSuccessBody(t *testing.T, op operation, body string) {
	m := areatest.NewMock(t)
	m.On(op.method, op.path, areatest.JSON(op.malformedStatus, body))
	err := op.run(t.Context(), t, m.Client())
	e := apiError(t, op, err)
	if !errors.Is(err, apierrors.ErrUnexpectedResponseBody) {
		t.Errorf("errors.Is(err, ErrUnexpectedResponseBody) = false; err = %v", err)
	}
	if e.StatusCode != op.malformedStatus || e.Err == nil {
		t.Errorf("error = %+v", e)
	}
	if string(e.Body) != body {
		t.Errorf("Body = %q, want the raw body %q", e.Body, body)
	}
}

// checkErrorResponse: the answer fails the call after one request with an
// *errors.Error that matches the case's kinds (and not
// ErrUnexpectedResponseBody) and decodes the body in the operation's
// format: its code, a title or message, its field errors, and for a problem
// the status in the body.
func checkErrorResponse(t *testing.T, op operation, tc errorCase) {
	respond, format := areatest.JSON, "code/message"
	if op.problem {
		respond, format = areatest.Problem, "problem"
	}
	m := areatest.NewMock(t)
	m.On(op.method, op.path, respond(tc.status, tc.body))
	err := op.run(t.Context(), t, m.Client())
	e := apiError(t, op, err)
	for _, k := range tc.kinds {
		if !errors.Is(err, k) {
			t.Errorf("errors.Is(err, %v) = false; err = %v", k, err)
		}
	}
	if errors.Is(err, apierrors.ErrUnexpectedResponseBody) {
		t.Errorf("an error response matched ErrUnexpectedResponseBody")
	}
	if e.StatusCode != tc.status {
		t.Errorf("StatusCode = %d, want %d", e.StatusCode, tc.status)
	}
	switch {
	case op.problem && (e.Problem == nil || e.CodeMessage != nil), !op.problem && (e.Problem != nil || e.CodeMessage == nil):
		t.Fatalf("decoded as problem %+v, code/message %+v; want a %s", e.Problem, e.CodeMessage, format)
	case op.problem && (e.Problem.Status != tc.status || e.Problem.ServiceCode != tc.code || e.Problem.Title == ""):
		t.Errorf("problem = %+v, want status %d and serviceCode %q", e.Problem, tc.status, tc.code)
	case !op.problem && (e.CodeMessage.Code != tc.code || e.CodeMessage.Message == ""):
		t.Errorf("code/message = %+v, want code %q and a message", e.CodeMessage, tc.code)
	}
	if got := e.FieldErrors(); !slices.Equal(got, tc.fields) {
		t.Errorf("FieldErrors = %+v, want %+v", got, tc.fields)
	}
	if m.Calls() != 1 {
		t.Errorf("requests = %d, want 1", m.Calls())
	}
}

// A Service not built by client.New (nil in a zero client.Client, or a
// zero Service) and a nil *client.Client fail every call with a validation
// error naming the client, instead of panicking.
func TestOperationsOfAnUnbuiltClient(t *testing.T) {
	t.Parallel()
	unbuilt := []*client.Client{{}, {AccessMgmt: &accessmgmt.Service{}, Payments: &payments.Service{}, Customer: &customer.Service{}}}
	for _, op := range operations {
		for _, c := range unbuilt {
			got, err := op.call(t.Context(), c)
			checkUnbuilt(t, op.name, err)
			if got != nil && !reflect.ValueOf(got).IsNil() {
				t.Errorf("%s: result %+v, want none", op.name, got)
			}
		}
	}
	var c *client.Client
	checkUnbuilt(t, "client.Execute", c.Execute(t.Context(), http.MethodGet, "/x", nil, nil))
}

func checkUnbuilt(t *testing.T, op string, err error) {
	t.Helper()
	ve, ok := errors.AsType[*apierrors.ValidationError](err)
	if !ok || ve.Operation != op || len(ve.Fields) != 1 || ve.Fields[0].Field != "client" {
		t.Errorf("%s: err = %v, want a validation error of the field client", op, err)
	}
}
