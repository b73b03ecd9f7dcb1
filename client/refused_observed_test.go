package client_test

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/credentials"

	"github.com/memberplatform/memberplatform-go/accessmgmt"
	"github.com/memberplatform/memberplatform-go/client"
	"github.com/memberplatform/memberplatform-go/customer"
	apierrors "github.com/memberplatform/memberplatform-go/errors"
	"github.com/memberplatform/memberplatform-go/internal/core"
	"github.com/memberplatform/memberplatform-go/observe"
	"github.com/memberplatform/memberplatform-go/option"
	"github.com/memberplatform/memberplatform-go/payments"
)

// A call the SDK refuses before sending is still a call to the observer:
// it starts and ends with the *errors.ValidationError it returns
// (error.type invalid_input) and makes no attempt, for every declared
// operation and for client.Execute.

// refusal is a call with input the SDK refuses, and the fields it names.
type refusal struct {
	name   string
	call   func(ctx context.Context, c *client.Client) error
	fields []string
	area   option.Area // the call's area, when not its operation's (Execute's, by path)
}

// refusals are, by operation name, calls each of its validations refuses.
// TestEveryOperationIsObservedWhenRefused fails for an operation without one.
var refusals = map[string][]refusal{
	"accessmgmt.UpdateUser": {
		{"no field set", func(ctx context.Context, c *client.Client) error {
			_, err := c.AccessMgmt.UpdateUser(ctx, testUserID, accessmgmt.UpdateUserParams{})
			return err
		}, []string{"params"}, ""},
		{"empty user and bad email", func(ctx context.Context, c *client.Client) error {
			_, err := c.AccessMgmt.UpdateUser(ctx, "", accessmgmt.UpdateUserParams{Email: new("not an address")})
			return err
		}, []string{"userId", "email"}, ""},
	},
	"accessmgmt.ReplaceRolePermissions": {
		{"bad slug and permission", func(ctx context.Context, c *client.Client) error {
			return c.AccessMgmt.ReplaceRolePermissions(ctx, testOrgID, "admin", []string{"users:read", "Users Write"})
		}, []string{"slug", "permissions[1]"}, ""},
	},
	"payments.UpdatePaymentMethod": {
		{"bad id and empty expDate", func(ctx context.Context, c *client.Client) error {
			_, err := c.Payments.UpdatePaymentMethod(ctx, "42", payments.UpdatePaymentMethodParams{ExpDate: new("")})
			return err
		}, []string{"id", "expDate"}, ""},
	},
	"customer.UpsertMemberAddress": {
		{"required fields missing", func(ctx context.Context, c *client.Client) error {
			_, err := c.Customer.UpsertMemberAddress(ctx, testMemberID, customer.UpsertMemberAddressParams{AddressLineOne: "1 Main St", State: " "})
			return err
		}, []string{"state", "suburb", "postcode", "country"}, ""},
	},
	"client.Execute": {
		{"lower-case method", func(ctx context.Context, c *client.Client) error {
			return c.Execute(ctx, "post", "/auth/access-management/users", nil, nil)
		}, []string{"method"}, option.AreaAccessMgmt},
		{"path leaving the base URL", func(ctx context.Context, c *client.Client) error {
			return c.Execute(ctx, http.MethodGet, "/customer/%2E%2E/admin", nil, nil)
		}, []string{"path"}, option.AreaOther},
		{"out no pointer", func(ctx context.Context, c *client.Client) error {
			return c.Execute(ctx, http.MethodGet, "/customer/members", nil, struct{}{})
		}, []string{"out"}, option.AreaCustomer},
		{"nil reader", func(ctx context.Context, c *client.Client) error {
			return c.Execute(ctx, http.MethodPost, "/customer/members", (*bytes.Buffer)(nil), nil)
		}, []string{"body"}, option.AreaCustomer},
	},
}

// callRecorder is an Observer that writes down each event, one line each.
type callRecorder struct {
	observe.Nop
	mu     sync.Mutex
	events []string
	ended  error // the error EndCall was given
}

func (r *callRecorder) add(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, fmt.Sprintf(format, args...))
}

func (r *callRecorder) lines() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.events)
}

func (r *callRecorder) StartCall(ctx context.Context, call observe.Call) context.Context {
	if ctx == nil {
		r.add("start call with a nil context")
	}
	r.add("start %s area=%s", call.Operation, call.Area)
	return ctx
}

func (r *callRecorder) EndCall(_ context.Context, call observe.Call, err error) {
	r.add("end %s %s", call.Operation, observe.ErrorType(err))
	r.mu.Lock()
	r.ended = err
	r.mu.Unlock()
}

func (r *callRecorder) StartAttempt(ctx context.Context, _ observe.Attempt) context.Context {
	r.add("attempt")
	return ctx
}

func (r *callRecorder) StartTokenFetch(ctx context.Context) context.Context {
	r.add("token fetch")
	return ctx
}

func (r *callRecorder) RateLimitWait(context.Context, observe.Wait) { r.add("wait") }

// noNetwork fails the test for any request: refused input is never sent.
type noNetwork struct{ t *testing.T }

func (n noNetwork) RoundTrip(r *http.Request) (*http.Response, error) {
	n.t.Errorf("%s %s was sent; refused input must fail before any network call", r.Method, r.URL)
	return nil, errors.New("no network in this test")
}

// checkRefusalObserved checks that err is a *ValidationError of op naming
// fields, and that rec saw exactly the call start and end with it.
func checkRefusalObserved(t *testing.T, rec *callRecorder, op, area string, err error, fields []string) {
	t.Helper()
	var verr *apierrors.ValidationError
	if !errors.As(err, &verr) || verr.Operation != op {
		t.Fatalf("error %v; want a *errors.ValidationError of %s", err, op)
	}
	var got []string
	for _, f := range verr.Fields {
		got = append(got, f.Field)
	}
	if !slices.Equal(got, fields) {
		t.Errorf("fields %q; want %q", got, fields)
	}
	want := []string{"start " + op + " area=" + area, "end " + op + " " + observe.ErrorInvalidInput}
	if events := rec.lines(); !slices.Equal(events, want) {
		t.Errorf("observer saw %q; want %q", events, want)
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if rec.ended == nil || !errors.Is(err, rec.ended) { // the token call's comes back in a *TokenError
		t.Errorf("EndCall got %v; want the error returned, %v", rec.ended, err)
	}
}

func TestEveryOperationIsObservedWhenRefused(t *testing.T) {
	t.Parallel()
	for _, op := range append(core.Operations(), &core.Operation{Name: "client.Execute"}) {
		if op.Name == "auth.Token" {
			continue // no input of the caller's: TestTokenCallIsObservedWhenRefused
		}
		cases := refusals[op.Name]
		if len(cases) == 0 {
			t.Errorf("%s has no refused call in refusals", op.Name)
		}
		for _, tc := range cases {
			t.Run(op.Name+"/"+tc.name, func(t *testing.T) {
				t.Parallel()
				rec := &callRecorder{}
				c, err := client.New(option.WithBaseURL("https://api.example.com"), option.WithTokenSource(client.StaticToken("t")),
					option.WithTransport(noNetwork{t}), option.WithObserver(rec))
				if err != nil {
					t.Fatal(err)
				}
				err = tc.call(context.Background(), c)
				checkRefusalObserved(t, rec, op.Name, string(cmp.Or(tc.area, op.Area)), err, tc.fields)
			})
		}
	}
}

// A nil context is refused as input too, and observed with a context of the
// SDK's own: every operation's, through UpdateUser; the SigV4 token call's,
// the one declared operation with no other input of the caller's.
func TestNilContextIsObservedWhenRefused(t *testing.T) {
	t.Parallel()
	var nilCtx context.Context // a variable: staticcheck flags a literal nil
	rec := &callRecorder{}
	c, err := client.New(option.WithBaseURL("https://api.example.com"), option.WithTokenSource(nil),
		option.WithTransport(noNetwork{t}), option.WithObserver(rec))
	if err != nil {
		t.Fatal(err)
	}
	err = updateFirstName(nilCtx, c)
	checkRefusalObserved(t, rec, "accessmgmt.UpdateUser", "accessmgmt", err, []string{"ctx"})

	t.Run("auth.Token", func(t *testing.T) {
		rec := &callRecorder{}
		src, err := client.NewSigV4TokenSource(client.SigV4Config{
			Credentials: credentials.NewStaticCredentialsProvider("AKIDEXAMPLE", "secret", ""), Region: "ap-southeast-2",
			BaseURL: "https://api.example.com", Options: []option.RequestOption{option.WithTransport(noNetwork{t}), option.WithObserver(rec)},
		})
		if err != nil {
			t.Fatal(err)
		}
		_, err = src.Token(nilCtx)
		checkRefusalObserved(t, rec, "auth.Token", "token", err, []string{"ctx"})
	})
}

// Without an observer a refused call returns the same error, unsent.
func TestRefusedWithoutObserver(t *testing.T) {
	t.Parallel()
	c, err := client.New(option.WithBaseURL("https://api.example.com"), option.WithTokenSource(nil), option.WithTransport(noNetwork{t}))
	if err != nil {
		t.Fatal(err)
	}
	for _, cases := range refusals {
		for _, tc := range cases {
			if err := tc.call(context.Background(), c); !errors.Is(err, apierrors.ErrInvalidInput) {
				t.Errorf("%s: %v; want ErrInvalidInput", tc.name, err)
			}
		}
	}
}
