package core

import (
	"context"
	stderrors "errors"
	"io"
	"net/http"
	"net/url"
	"testing"

	memberplatform "github.com/memberplatform/memberplatform-go"
	apierrors "github.com/memberplatform/memberplatform-go/errors"
)

// A read: a GET with a query from a params struct (go-querystring tags),
// the call's query first and the options' after it; no body is sent.
func TestCallQuery(t *testing.T) {
	var got *http.Request
	srv := rtNewServer(t, func(w http.ResponseWriter, r *http.Request, hit int) {
		got = r
		rtJSON(w, 200, `{"users":[]}`)
	})
	c := rtNewClient(t, srv.URL, nil)
	listOp := &Operation{Name: "test.List", Method: http.MethodGet, Path: "/things", Idempotent: true, ResultRequired: true}
	type listParams struct {
		Email  string `url:"email,omitempty"`
		Limit  int    `url:"limit,omitempty"`
		Cursor string `url:"cursor,omitempty"`
	}
	var out map[string]any
	withQuery := func(s *Settings) error {
		s.MutableQuery().Add("trace", "1")
		return nil
	}
	err := c.do(context.Background(), &Call{Op: listOp, Query: listParams{Email: "a+b@example.com", Limit: 50}, Result: &out}, withQuery)
	if err != nil {
		t.Fatal(err)
	}
	want := url.Values{"email": {"a+b@example.com"}, "limit": {"50"}, "trace": {"1"}}
	if got.Method != http.MethodGet || got.URL.Query().Encode() != want.Encode() || got.ContentLength != 0 {
		t.Fatalf("sent %s %s (%d body bytes), want GET with %s and no body", got.Method, got.URL, got.ContentLength, want.Encode())
	}
	if recorded := srv.recorded(); len(recorded[0].Body) != 0 || recorded[0].Header.Get("Content-Type") != "" {
		t.Fatalf("a read sent a body %q with Content-Type %q", recorded[0].Body, recorded[0].Header.Get("Content-Type"))
	}

	// A query go-querystring cannot encode is refused before sending.
	err = c.do(context.Background(), &Call{Op: listOp, Query: 42, Result: &out})
	var ve *apierrors.ValidationError
	if !stderrors.As(err, &ve) || ve.Fields[0].Field != "query" || srv.hits() != 1 {
		t.Fatalf("a query of 42: %v after %d hits; want a ValidationError on query, nothing sent", err, srv.hits())
	}
}

// A 2xx without a body, or with null, is an error for an operation that
// returns one (a read), and a success for a write.
func TestResultRequired(t *testing.T) {
	for _, body := range []string{"", " \n", "null", " null "} {
		srv := rtNewServer(t, func(w http.ResponseWriter, r *http.Request, hit int) { _, _ = io.WriteString(w, body) })
		c := rtNewClient(t, srv.URL, nil)
		read := &Operation{Name: "test.Get", Method: http.MethodGet, Path: "/things/{id}", Idempotent: true, ResultRequired: true}
		var out map[string]any
		err := c.do(context.Background(), &Call{Op: read, PathParams: [2]string{"t-1"}, Result: &out})
		ae := rtWantAPIError(t, err, 200, 1)
		if !stderrors.Is(err, apierrors.ErrUnexpectedResponseBody) || !stderrors.Is(ae.Err, errNoResult) {
			t.Fatalf("a read answered 200 with %q: %v, want ErrUnexpectedResponseBody", body, err)
		}
		if err := c.do(context.Background(), rtCall(rtPutOp, &out)); err != nil {
			t.Fatalf("a write answered 200 with %q: %v, want success", body, err)
		}
	}
}

// Every operation the area packages declare is listed once, fully
// declared; tests outside this package check that sdktest, the shared
// operation table, the benchmarks and the docs cover each.
func TestDeclaredOperations(t *testing.T) {
	seen := map[string]bool{}
	for _, op := range Operations() {
		if seen[op.Name] || op.Method == "" || op.Path == "" || op.Area == "" {
			t.Errorf("%+v: declared twice, or without a method, path or area", op)
		}
		if op.Method == http.MethodGet && !op.ResultRequired {
			t.Errorf("%s: a read that accepts an empty 2xx: set ResultRequired", op.Name)
		}
		if op.List && op.Method != http.MethodGet {
			t.Errorf("%s: a list (List) is a GET", op.Name)
		}
		seen[op.Name] = true
	}
}

// Execute's calls take the area of their path's prefix: the prefix itself
// or it followed by "/", never a longer segment.
func TestAreaOfPath(t *testing.T) {
	for path, want := range map[string]memberplatform.Area{
		"/auth/access-management":          memberplatform.AreaAccessMgmt,
		"/auth/access-management/users/u1": memberplatform.AreaAccessMgmt,
		"/auth/token":                      memberplatform.AreaToken,
		"/auth/tokens":                     memberplatform.AreaOther,
		"/payment-methods/pm1":             memberplatform.AreaPayments,
		"/customer/members/m1/address":     memberplatform.AreaCustomer,
		"/customers":                       memberplatform.AreaOther,
		"/auth":                            memberplatform.AreaOther,
		"/health":                          memberplatform.AreaOther,
		"/auth/access-managementx/users":   memberplatform.AreaOther,
		// As a server routes them: decoded and cleaned.
		"/auth/access%2Dmanagement/users":  memberplatform.AreaAccessMgmt,
		"/auth/access%2dmanagement":        memberplatform.AreaAccessMgmt,
		"/./auth/access-management/users":  memberplatform.AreaAccessMgmt,
		"/auth//access-management/users":   memberplatform.AreaAccessMgmt,
		"auth/access-management/users":     memberplatform.AreaAccessMgmt,
		"/auth/access-management/":         memberplatform.AreaAccessMgmt,
		"/%70ayment-methods/pm1":           memberplatform.AreaPayments,
		"/customer/./members":              memberplatform.AreaCustomer,
		"/auth/access-management%zz/users": memberplatform.AreaOther, // not decodable: taken as it is
		"/auth/access%2Dmanagementx/users": memberplatform.AreaOther,
		// As servers that drop ;parameters, or ignore case, route them.
		"/auth/access-management;v=1/users": memberplatform.AreaAccessMgmt,
		"/auth;x/access-management/users":   memberplatform.AreaAccessMgmt,
		"/auth/access-management%3Bv=1":     memberplatform.AreaAccessMgmt,
		"/AUTH/Access-Management/users":     memberplatform.AreaAccessMgmt,
		"/Payment-Methods/pm1":              memberplatform.AreaPayments,
		"/customer;jsessionid=1/members":    memberplatform.AreaCustomer,
		"/auth/access-management-x;v=1":     memberplatform.AreaOther,
	} {
		if got := AreaOfPath(path); got != want {
			t.Errorf("AreaOfPath(%q) = %s, want %s", path, got, want)
		}
	}
}
