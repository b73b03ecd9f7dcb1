package benchmarks_test

import (
	"context"
	"fmt"
	"net/http"
	"testing"

	"github.com/google/uuid"
	"github.com/oapi-codegen/nullable"

	"github.com/memberplatform/memberplatform-go/accessmgmt"
	"github.com/memberplatform/memberplatform-go/client"
	"github.com/memberplatform/memberplatform-go/customer"
	"github.com/memberplatform/memberplatform-go/internal/oprows"
	"github.com/memberplatform/memberplatform-go/payments"

	"github.com/memberplatform/memberplatform-go/benchmarks"
	"github.com/memberplatform/memberplatform-go/benchmarks/internal/genclient"
)

// The request of each operation, in each contender's own types: the SDK's
// is its row's call (internal/oprows), whose request the others send too
// (TestRequestsAlike).
var (
	userParams = accessmgmt.UpdateUserParams{FirstName: new("Ada"), LastName: new("Lovelace"), MobileNumber: new("+61412345678")}
	pmParams   = payments.UpdatePaymentMethodParams{SetAsPrimary: new(true), ExpDate: new("08/2029")}
	addrParams = customer.UpsertMemberAddressParams{
		AddressFull: new("Unit 4, 12 Example Street, Surry Hills NSW 2010, Australia"), AddressLineOne: "12 Example Street",
		AddressLineTwo: nullable.NewNullableWithValue("Unit 4"), State: "NSW", Suburb: "Surry Hills", Postcode: "2010", Country: "AU",
	}

	rawUserReq = rawUpdateUser{FirstName: new("Ada"), LastName: new("Lovelace"), MobileNumber: new("+61412345678")}
	rawPMReq   = rawUpdatePaymentMethod{SetAsPrimary: new(true), ExpDate: new("08/2029")}
	rawAddrReq = rawUpsertAddress{
		AddressFull: new("Unit 4, 12 Example Street, Surry Hills NSW 2010, Australia"), AddressLineOne: "12 Example Street",
		AddressLineTwo: new("Unit 4"), State: "NSW", Suburb: "Surry Hills", Postcode: "2010", Country: "AU",
	}

	genUserReq = genclient.UpdateUserRequest{FirstName: new("Ada"), LastName: new("Lovelace"), MobileNumber: new("+61412345678")}
	genPMReq   = genclient.UpdatePaymentMethodRequest{SetAsPrimary: new(true), ExpDate: new("08/2029")}
	genAddrReq = genclient.UpsertMemberAddressRequest{
		AddressFull: new("Unit 4, 12 Example Street, Surry Hills NSW 2010, Australia"), AddressLineOne: "12 Example Street",
		AddressLineTwo: new("Unit 4"), State: "NSW", Suburb: "Surry Hills", Postcode: "2010", Country: "AU",
	}
	genPMID     = uuid.MustParse(pmID)
	genMemberID = uuid.MustParse(memberID)
)

// genClient is the generated contender: oapi-codegen's ClientWithResponses
// on its own *http.Client, with a RequestEditorFn adding the bearer token
// (and the same User-Agent and Accept headers as the other two).
type genClient = genclient.ClientWithResponses

func newGen(tb testing.TB, baseURL string, rt http.RoundTripper) *genClient {
	tb.Helper()
	ua := newRaw(baseURL, rt).ua
	c, err := genclient.NewClientWithResponses(baseURL,
		genclient.WithHTTPClient(&http.Client{Transport: rt}),
		genclient.WithRequestEditorFn(func(_ context.Context, req *http.Request) error {
			req.Header.Set("Authorization", "Bearer "+benchToken)
			req.Header.Set("User-Agent", ua)
			req.Header.Set("Accept", "application/json, application/problem+json")
			return nil
		}))
	if err != nil {
		tb.Fatal(err)
	}
	return c
}

// genStatus is the generated contender's error for a response it has no
// success value for.
func genStatus(resp *http.Response) error {
	return fmt.Errorf("generated: status %d", resp.StatusCode)
}

// operation is one operation as each contender calls it, and the answer
// the responder gives it. Each call returns only an error, so the decoded
// value is built and dropped the same way.
type operation struct {
	name, method, path string // declared, set by operations
	sdk                func(context.Context, *client.Client) error
	raw                func(context.Context, *rawClient) error
	gen                func(context.Context, *genClient) error
	answer             *canned // the row's success answer
}

// others are an operation's raw and generated contenders. raw sends the
// operation's route (its declared method, path and error format), building
// its target (path and query) on every call, as the SDK does.
type others struct {
	raw func(context.Context, *rawClient, route) error
	gen func(context.Context, *genClient) error
}

// operations are the benchmarks' rows: the operations benchmarks.Operations
// names, in its order, each with its SDK call and answer from its row
// (internal/oprows) and its raw and generated contenders from byName.
var operations = func() []operation {
	var ops []operation
	for _, decl := range benchmarks.Operations() {
		row, hasRow := oprows.Rows()[decl.Name]
		o, ok := byName[decl.Name]
		if !ok || !hasRow {
			continue
		}
		r := newRoute(decl)
		ops = append(ops, operation{
			name: decl.Name, method: decl.Method, path: decl.Path,
			sdk:    func(ctx context.Context, c *client.Client) error { _, err := row.Call(ctx, c); return err },
			raw:    func(ctx context.Context, rc *rawClient) error { return o.raw(ctx, rc, r) },
			gen:    o.gen,
			answer: newCanned(row.SuccessStatus(), "application/json", []byte(row.Response)),
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
	panic("no benchmark row for " + name)
}

// TestEveryOperationHasContenders: a declared operation without its raw
// and generated contenders would have no row.
func TestEveryOperationHasContenders(t *testing.T) {
	for _, decl := range benchmarks.Operations() {
		if op := byName[decl.Name]; op.raw == nil || op.gen == nil {
			t.Errorf("%s is declared but benchmarks/operations_test.go's byName lacks its raw or generated contender "+
				"(the SDK's call and the answer come from its row in internal/oprows/rows.go)", decl.Name)
		}
	}
	if len(operations) != len(byName) {
		t.Errorf("byName has %d operations, %d of them declared with a row in internal/oprows", len(byName), len(operations))
	}
}

// byName holds each operation's raw and generated contenders, by its
// declared name: the same request as the row's call (TestRequestsAlike),
// raw with net/http and encoding/json into plain structs (raw_test.go),
// its path built on each call with the row's IDs and the query appended,
// generated through the oapi-codegen client.
var byName = map[string]others{
	"accessmgmt.UpdateUser": {
		raw: func(ctx context.Context, rc *rawClient, r route) error {
			var u rawUser
			return rc.do(ctx, r.method, r.path(userID), rawUserReq, &u, r.format)
		},
		gen: func(ctx context.Context, c *genClient) error {
			r, err := c.UpdateUserWithResponse(ctx, userID, genUserReq)
			if err == nil && r.JSON200 == nil {
				err = genStatus(r.HTTPResponse)
			}
			return err
		},
	},
	"accessmgmt.ReplaceRolePermissions": {
		raw: func(ctx context.Context, rc *rawClient, r route) error {
			return rawReplace(ctx, rc, r, permissions)
		},
		gen: func(ctx context.Context, c *genClient) error {
			return genReplace(ctx, c, permissions)
		},
	},
	"payments.UpdatePaymentMethod": {
		raw: func(ctx context.Context, rc *rawClient, r route) error {
			var pm rawPaymentMethod
			return rc.do(ctx, r.method, r.path(pmID), rawPMReq, &pm, r.format)
		},
		gen: func(ctx context.Context, c *genClient) error {
			r, err := c.UpdatePaymentMethodWithResponse(ctx, genPMID, genPMReq)
			if err == nil && r.JSON200 == nil {
				err = genStatus(r.HTTPResponse)
			}
			return err
		},
	},
	"customer.UpsertMemberAddress": {
		raw: func(ctx context.Context, rc *rawClient, r route) error {
			var a rawMemberAddress
			return rc.do(ctx, r.method, r.path(memberID), rawAddrReq, &a, r.format)
		},
		gen: func(ctx context.Context, c *genClient) error {
			r, err := c.UpsertMemberAddressWithResponse(ctx, genMemberID, genAddrReq)
			if err == nil && r.JSON200 == nil && r.JSON201 == nil {
				err = genStatus(r.HTTPResponse)
			}
			return err
		},
	},
}

func rawReplace(ctx context.Context, rc *rawClient, r route, perms []string) error {
	return rc.do(ctx, r.method, r.path(orgID, roleSlug), rawRolePermissions{Permissions: perms}, nil, r.format)
}

func genReplace(ctx context.Context, c *genClient, perms []string) error {
	r, err := c.ReplaceRolePermissionsWithResponse(ctx, orgID, roleSlug, genclient.RolePermissions{Permissions: perms})
	if err == nil && r.StatusCode()/100 != 2 {
		err = genStatus(r.HTTPResponse)
	}
	return err
}
