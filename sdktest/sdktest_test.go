package sdktest_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/memberplatform/memberplatform-go/accessmgmt"
	"github.com/memberplatform/memberplatform-go/customer"
	apierrors "github.com/memberplatform/memberplatform-go/errors"
	"github.com/memberplatform/memberplatform-go/option"
	"github.com/memberplatform/memberplatform-go/payments"
	"github.com/memberplatform/memberplatform-go/sdktest"
)

var fixed = time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)

func fixedClock() time.Time { return fixed }

// rawCall sends body to path with a valid bearer token, bypassing SDK
// validation, and decodes the JSON answer.
func rawCall(t *testing.T, srv *sdktest.Server, method, path, body string) (int, string, map[string]any) {
	t.Helper()
	req, _ := http.NewRequestWithContext(t.Context(), method, srv.URL+path, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+srv.IssueToken())
	resp, err := srv.HTTPClient().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var m map[string]any
	_ = json.Unmarshal(b, &m)
	return resp.StatusCode, resp.Header.Get("Content-Type"), m
}

func pointers(m map[string]any, key, field string) []string {
	var out []string
	items, _ := m[key].([]any)
	for _, it := range items {
		out = append(out, fmt.Sprint(it.(map[string]any)[field]))
	}
	return out
}

// newSeededServer returns a fake holding one of each resource: user "u",
// role "org-a" of organisation "o", a payment method and a member.
func newSeededServer(t *testing.T) (srv *sdktest.Server, pm sdktest.PaymentMethod, memberID string) {
	t.Helper()
	srv = sdktest.NewServer(t)
	srv.AddUser(sdktest.User{ID: "u", Email: "u@example.com"})
	srv.AddRole("o", "org-a")
	return srv, srv.AddPaymentMethod(sdktest.PaymentMethod{}), srv.AddMember("")
}

// TestParallelUse hammers one server from many goroutines (run with -race).
func TestParallelUse(t *testing.T) {
	t.Parallel()
	srv := sdktest.NewServer(t)
	c := srv.Client()
	const n = 16
	for i := range n {
		srv.AddUser(sdktest.User{ID: fmt.Sprintf("u%d", i), Email: fmt.Sprintf("u%d@example.com", i)})
	}
	srv.AddRole("o", "org-a")
	pms, members := make([]string, n), make([]string, n)
	for i := range n {
		pms[i] = srv.AddPaymentMethod(sdktest.PaymentMethod{}).ID
		members[i] = srv.AddMember("")
	}
	// Every sub-client of one Client, from many goroutines at once.
	var wg sync.WaitGroup
	errs := make(chan error, 4*n)
	for i := range n {
		wg.Go(func() {
			ctx := context.Background()
			_, err := c.AccessMgmt.UpdateUser(ctx, fmt.Sprintf("u%d", i), accessmgmt.UpdateUserParams{LastName: new(fmt.Sprint("L", i))})
			errs <- err
			errs <- c.AccessMgmt.ReplaceRolePermissions(ctx, "o", "org-a", []string{fmt.Sprintf("p:%d", i)})
			_, err = c.Payments.UpdatePaymentMethod(ctx, pms[i], payments.UpdatePaymentMethodParams{ExpDate: new(payments.ExpDate(time.Month(i%12+1), 2030+i))})
			errs <- err
			_, err = c.Customer.UpsertMemberAddress(ctx, members[i], customer.UpsertMemberAddressParams{
				AddressLineOne: fmt.Sprint(i, " George St"), State: "NSW", Suburb: "Sydney", Postcode: "2000", Country: "AU"})
			errs <- err
		})
		wg.Go(func() { _ = srv.Requests() })
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	if got := len(srv.CreatedPermissions()); got != n {
		t.Errorf("created permissions = %d, want %d", got, n)
	}
	for i := range n {
		if pm, _ := srv.PaymentMethod(pms[i]); pm.ExpDate != payments.ExpDate(time.Month(i%12+1), 2030+i) {
			t.Errorf("payment method %d: expDate %q", i, pm.ExpDate)
		}
	}
	if got := srv.RequestCount(""); got != 4*n+srv.TokenRequests() {
		t.Errorf("recorded %d requests, want %d", got, 4*n+srv.TokenRequests())
	}
	if srv.TokensIssued() != 1 {
		t.Errorf("tokens issued = %d, want 1 (shared by all goroutines)", srv.TokensIssued())
	}
}

func TestStartAndClose(t *testing.T) {
	srv := sdktest.Start(sdktest.WithoutAuth())
	srv.AddUser(sdktest.User{ID: "u", Email: "u@example.com"})
	c, err := srv.NewClient()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.AccessMgmt.UpdateUser(t.Context(), "u", accessmgmt.UpdateUserParams{FirstName: new("A")}); err != nil {
		t.Fatal(err)
	}
	srv.Close()
	srv.Close() // idempotent
	_, err = c.AccessMgmt.UpdateUser(t.Context(), "u", accessmgmt.UpdateUserParams{FirstName: new("A")}, option.WithMaxRetries(0))
	if !errors.Is(err, apierrors.ErrTransport) {
		t.Errorf("after Close: err = %v, want a transport error", err)
	}
}

func TestEnvironmentDoesNotLeak(t *testing.T) {
	t.Setenv("MEMBERPLATFORM_BASE_URL", "https://elsewhere.invalid")
	t.Setenv("MEMBERPLATFORM_TOKEN", "env-token")
	srv := sdktest.NewServer(t)
	srv.AddUser(sdktest.User{ID: "u", Email: "u@example.com"})
	if _, err := srv.Client().AccessMgmt.UpdateUser(t.Context(), "u", accessmgmt.UpdateUserParams{FirstName: new("A")}); err != nil {
		t.Fatal(err)
	}
	if srv.TokensIssued() != 1 {
		t.Error("client did not use the server's SigV4 token flow")
	}
}

// Requests keep each request's query, so a test sees what its code sent.
func TestRequestsKeepTheQuery(t *testing.T) {
	srv := sdktest.NewServer(t)
	srv.AddUser(sdktest.User{ID: "user_1", Email: "ada@example.com"})
	if _, err := srv.Client().AccessMgmt.UpdateUser(t.Context(), "user_1", accessmgmt.UpdateUserParams{FirstName: new("Ada")},
		option.WithQuery(url.Values{"trace": {"a b"}})); err != nil {
		t.Fatal(err)
	}
	reqs := srv.Requests()
	if last := reqs[len(reqs)-1]; last.Operation != sdktest.OpUpdateUser || last.Query != "trace=a+b" {
		t.Fatalf("last request %s ?%s, want %s ?trace=a+b", last.Operation, last.Query, sdktest.OpUpdateUser)
	}
}
