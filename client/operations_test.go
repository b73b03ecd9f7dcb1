package client_test

import (
	"context"
	"encoding/json"
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

	memberplatform "github.com/memberplatform/memberplatform-go"
	"github.com/memberplatform/memberplatform-go/accessmgmt"
	"github.com/memberplatform/memberplatform-go/client"
	"github.com/memberplatform/memberplatform-go/customer"
	apierrors "github.com/memberplatform/memberplatform-go/errors"
	"github.com/memberplatform/memberplatform-go/internal/areatest"
	"github.com/memberplatform/memberplatform-go/internal/core"
	"github.com/memberplatform/memberplatform-go/internal/oprows"
	"github.com/memberplatform/memberplatform-go/option"
	"github.com/memberplatform/memberplatform-go/payments"
)

// The checks every operation of every area passes, run once over every
// declared operation; each area's own tests keep what only that area does.

// operation is one operation of an area package, called through the public
// client, with the answers the shared checks give it: its declaration's
// name, method, path and error format, and its row (internal/oprows).
type operation struct {
	name      string // as errors name it, such as "accessmgmt.UpdateUser"
	method    string
	path      string // escaped path below the base URL: the declared one filled with ids
	format    core.ErrorFormat
	problem   bool       // errors are RFC 9457 problems, not code/message bodies
	query     url.Values // the query the call sends, nil for none (a read's)
	body      string     // the JSON body the call sends, "" for none
	response  string     // a 2xx body the server answers with
	want      any        // what call returns for response
	retryable httpmock.Responder
	call      func(ctx context.Context, c *client.Client, opts ...option.RequestOption) (any, error)
	// malformed are bodies that answered with malformedStatus do not decode.
	malformedStatus int
	malformed       []string
	// errors are the error answers of the operation's format
	// (oprows.FormatErrors), then its row's own.
	errors []oprows.ErrorCase
}

// operations is the table: a row for every declared operation but the
// token call (auth_test.go and token_test.go test it), in the order of
// the declarations. TestEveryOperationHasARow fails when one has no row.
var operations = func() []operation {
	var ops []operation
	for _, d := range core.Operations() {
		r, ok := oprows.Rows()[d.Name]
		if !ok {
			continue
		}
		respond := areatest.Problem
		if d.Errors == core.CodeMessageErrors {
			respond = areatest.JSON
		}
		ops = append(ops, operation{
			name: d.Name, method: d.Method, path: r.Path(d), format: d.Errors, problem: d.Errors != core.CodeMessageErrors,
			query: r.Query, body: r.Body, response: r.Response, want: r.Want, call: r.Call,
			retryable:       respond(r.Retryable.Status, r.Retryable.Body),
			malformedStatus: r.SuccessStatus(), malformed: r.Malformed,
			errors: append(slices.Clone(oprows.FormatErrors(d.Errors)), r.Errors...),
		})
	}
	return ops
}()

// operationNamed is the row of the operation named name.
func operationNamed(name string) operation {
	for _, op := range operations {
		if op.name == name {
			return op
		}
	}
	panic("no row for " + name)
}

// queryPart is the row's query as a target ends with it: "?" and the
// encoded query, or "" for none.
func (op operation) queryPart() string {
	if len(op.query) == 0 {
		return ""
	}
	return "?" + op.query.Encode()
}

func TestEveryOperationHasARow(t *testing.T) {
	declared := map[string]bool{}
	for _, d := range core.Operations() {
		declared[d.Name] = true
		if _, ok := oprows.Rows()[d.Name]; !ok && d.Name != "auth.Token" {
			t.Errorf("%s is declared but has no row in internal/oprows/rows.go: add one (its call, request, answer, malformed bodies and own error answers); "+
				"the shared checks here and the error-contract cases (errors_contract_test.go) then run on it", d.Name)
		}
	}
	for name := range oprows.Rows() {
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
	case err == nil && op.want != nil:
		checkRawJSON(t, op.name, got, op.response)
		if !reflect.DeepEqual(withoutRaw(got), op.want) {
			t.Errorf("%s: result %+v, want %+v", op.name, got, op.want)
		}
	case err == nil && !reflect.DeepEqual(got, op.want):
		t.Errorf("%s: result %+v, want %+v", op.name, got, op.want)
	}
	return err
}

// checkRawJSON: every result type keeps the body it was decoded from, by
// embedding memberplatform.Raw, tagged so that the type's own JSON does
// not carry it.
func checkRawJSON(t *testing.T, name string, got any, body string) {
	t.Helper()
	r, ok := got.(interface{ RawJSON() []byte })
	if !ok {
		t.Errorf("%s: result type %T has no RawJSON method: embed memberplatform.Raw `json:\"-\"` in it (the pipeline fills it)", name, got)
		return
	}
	if string(r.RawJSON()) != body {
		t.Errorf("%s: RawJSON() = %s, want the body answered, %s", name, r.RawJSON(), body)
	}
	if b, err := json.Marshal(got); err != nil || strings.Contains(strings.ToLower(string(b)), `"raw"`) {
		t.Errorf("%s: json.Marshal of the result = %s, %v: embed memberplatform.Raw with the tag `json:\"-\"`", name, b, err)
	}
}

// withoutRaw is a copy of the result *T got with its memberplatform.Raw
// cleared, as a row's Want is built by hand.
func withoutRaw(got any) any {
	v := reflect.ValueOf(got)
	if v.Kind() != reflect.Pointer || v.IsNil() || v.Elem().Kind() != reflect.Struct {
		return got
	}
	cp := reflect.New(v.Elem().Type())
	cp.Elem().Set(v.Elem())
	if f := cp.Elem().FieldByName("Raw"); f.IsValid() && f.Type() == reflect.TypeFor[memberplatform.Raw]() {
		f.Set(reflect.Zero(f.Type()))
	}
	return cp.Interface()
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
