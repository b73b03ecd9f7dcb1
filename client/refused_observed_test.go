package client_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/credentials"

	"github.com/memberplatform/memberplatform-go/client"
	apierrors "github.com/memberplatform/memberplatform-go/errors"
	"github.com/memberplatform/memberplatform-go/internal/core"
	"github.com/memberplatform/memberplatform-go/internal/oprows"
	"github.com/memberplatform/memberplatform-go/observe"
	"github.com/memberplatform/memberplatform-go/option"
)

// A call the SDK refuses before sending is still a call to the observer:
// it starts and ends with the *errors.ValidationError it returns
// (error.type invalid_input) and makes no attempt, for every declared
// operation and for client.Execute.

// executeRefusals are calls client.Execute refuses, with the fields named
// and the call's area (by path); the declared operations' are their rows'
// (internal/oprows).
var executeRefusals = []struct {
	oprows.Refusal
	area option.Area
}{
	{oprows.Refusal{Name: "lower-case method", Call: func(ctx context.Context, c *client.Client) error {
		return c.Execute(ctx, "post", "/auth/access-management/users", nil, nil)
	}, Fields: []string{"method"}}, option.AreaAccessMgmt},
	{oprows.Refusal{Name: "path leaving the base URL", Call: func(ctx context.Context, c *client.Client) error {
		return c.Execute(ctx, http.MethodGet, "/customer/%2E%2E/admin", nil, nil)
	}, Fields: []string{"path"}}, option.AreaOther},
	{oprows.Refusal{Name: "out no pointer", Call: func(ctx context.Context, c *client.Client) error {
		return c.Execute(ctx, http.MethodGet, "/customer/members", nil, struct{}{})
	}, Fields: []string{"out"}}, option.AreaCustomer},
	{oprows.Refusal{Name: "nil reader", Call: func(ctx context.Context, c *client.Client) error {
		return c.Execute(ctx, http.MethodPost, "/customer/members", (*bytes.Buffer)(nil), nil)
	}, Fields: []string{"body"}}, option.AreaCustomer},
}

// refusalCase is one refused call of an operation, in its area.
type refusalCase struct {
	op   string
	area option.Area
	oprows.Refusal
}

// allRefusals lists every operation's refused calls, Execute's included,
// and fails t for a declared operation whose row has none.
func allRefusals(t *testing.T) []refusalCase {
	var out []refusalCase
	for _, op := range core.Operations() {
		if op.Name == "auth.Token" {
			continue // no input of the caller's: TestNilContextIsObservedWhenRefused
		}
		cases := oprows.Rows()[op.Name].Refused
		if len(cases) == 0 {
			t.Errorf("%s has no refused call: add one to its row's Refused in internal/oprows/rows.go", op.Name)
		}
		for _, r := range cases {
			out = append(out, refusalCase{op.Name, op.Area, r})
		}
	}
	for _, r := range executeRefusals {
		out = append(out, refusalCase{"client.Execute", r.area, r.Refusal})
	}
	return out
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
	for _, tc := range allRefusals(t) {
		t.Run(tc.op+"/"+tc.Name, func(t *testing.T) {
			t.Parallel()
			rec := &callRecorder{}
			c, err := client.New(option.WithBaseURL("https://api.example.com"), option.WithTokenSource(client.StaticToken("t")),
				option.WithTransport(noNetwork{t}), option.WithObserver(rec))
			if err != nil {
				t.Fatal(err)
			}
			err = tc.Call(context.Background(), c)
			checkRefusalObserved(t, rec, tc.op, string(tc.area), err, tc.Fields)
		})
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
	for _, tc := range allRefusals(t) {
		if err := tc.Call(context.Background(), c); !errors.Is(err, apierrors.ErrInvalidInput) {
			t.Errorf("%s/%s: %v; want ErrInvalidInput", tc.op, tc.Name, err)
		}
	}
}
