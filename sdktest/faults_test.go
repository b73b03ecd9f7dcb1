package sdktest_test

import (
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/memberplatform/memberplatform-go/accessmgmt"
	"github.com/memberplatform/memberplatform-go/client"
	"github.com/memberplatform/memberplatform-go/customer"
	apierrors "github.com/memberplatform/memberplatform-go/errors"
	"github.com/memberplatform/memberplatform-go/option"
	"github.com/memberplatform/memberplatform-go/payments"
	"github.com/memberplatform/memberplatform-go/sdktest"
)

func TestFaults(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	params := accessmgmt.UpdateUserParams{FirstName: new("A")}
	setup := func(t *testing.T, opts ...option.RequestOption) (*sdktest.Server, *client.Client) {
		srv := sdktest.NewServer(t)
		srv.AddUser(sdktest.User{ID: "u", Email: "u@example.com"})
		return srv, srv.Client(opts...)
	}
	t.Run("retried 503s then success", func(t *testing.T) {
		t.Parallel()
		srv, c := setup(t)
		srv.FailNext(2, sdktest.Fault{Status: http.StatusServiceUnavailable})
		if _, err := c.AccessMgmt.UpdateUser(ctx, "u", params); err != nil {
			t.Fatal(err)
		}
		var statuses []int
		for _, r := range srv.Requests() {
			if r.Operation == sdktest.OpUpdateUser {
				statuses = append(statuses, r.Status)
			}
		}
		if !slices.Equal(statuses, []int{503, 503, 200}) || srv.PendingFaults() != 0 {
			t.Errorf("statuses = %v, pending %d", statuses, srv.PendingFaults())
		}
		if srv.TokenRequests() != 1 {
			t.Errorf("the fault was used on the token endpoint")
		}
	})
	t.Run("429 with Retry-After-Ms is honoured", func(t *testing.T) {
		t.Parallel()
		srv, c := setup(t)
		srv.FailNext(1, sdktest.Fault{Operation: sdktest.OpUpdateUser, Status: 429, Header: http.Header{"Retry-After-Ms": {"30"}}})
		start := time.Now()
		if _, err := c.AccessMgmt.UpdateUser(ctx, "u", params); err != nil {
			t.Fatal(err)
		}
		if d := time.Since(start); d < 30*time.Millisecond {
			t.Errorf("retried after %v, before the asked 30ms", d)
		}
	})
	t.Run("long Retry-After is returned to the caller", func(t *testing.T) {
		t.Parallel()
		srv, c := setup(t)
		srv.FailNext(1, sdktest.Fault{Status: 429, RetryAfter: 90 * time.Second})
		_, err := c.AccessMgmt.UpdateUser(ctx, "u", params)
		var apiErr *apierrors.Error
		if !errors.As(err, &apiErr) || apiErr.RetryAfter != 90*time.Second || !errors.Is(err, apierrors.ErrRateLimited) {
			t.Fatalf("err = %v", err)
		}
		if !strings.Contains(apiErr.Problem.Detail, "access provider rate limited") {
			t.Errorf("detail = %q", apiErr.Problem.Detail)
		}
	})
	t.Run("scripted body and operation filter", func(t *testing.T) {
		t.Parallel()
		srv, c := setup(t)
		m := srv.AddMember("")
		srv.FailNext(1, sdktest.Fault{Operation: sdktest.OpUpsertMemberAddress, Status: 500, Body: `{"code":"DB_DOWN","message":"database unavailable"}`})
		if _, err := c.AccessMgmt.UpdateUser(ctx, "u", params); err != nil {
			t.Fatalf("fault for another operation was used: %v", err)
		}
		_, err := c.Customer.UpsertMemberAddress(ctx, m, customer.UpsertMemberAddressParams{AddressLineOne: "1", State: "s", Suburb: "s", Postcode: "1", Country: "AU"}, option.WithMaxRetries(0))
		var apiErr *apierrors.Error
		if !errors.As(err, &apiErr) || apiErr.CodeMessage == nil || apiErr.CodeMessage.Code != "DB_DOWN" {
			t.Errorf("err = %v", err)
		}
	})
	t.Run("connection reset", func(t *testing.T) {
		t.Parallel()
		srv, c := setup(t)
		srv.FailNext(1, sdktest.Fault{Reset: true})
		_, err := c.AccessMgmt.UpdateUser(ctx, "u", params, option.WithMaxRetries(0))
		if !errors.Is(err, apierrors.ErrTransport) {
			t.Fatalf("err = %v, want a transport error", err)
		}
		srv.FailNext(1, sdktest.Fault{Reset: true})
		if _, err := c.AccessMgmt.UpdateUser(ctx, "u", params); err != nil {
			t.Errorf("idempotent call not retried after a reset: %v", err)
		}
	})
	t.Run("latency", func(t *testing.T) {
		t.Parallel()
		srv, c := setup(t)
		if _, err := c.AccessMgmt.UpdateUser(ctx, "u", params); err != nil { // fetch the token first
			t.Fatal(err)
		}
		srv.SetLatency(200 * time.Millisecond)
		_, err := c.AccessMgmt.UpdateUser(ctx, "u", params, option.WithTimeout(40*time.Millisecond))
		var te *apierrors.TransportError
		if !errors.As(err, &te) || !te.Timeout() {
			t.Errorf("err = %v, want a timeout", err)
		}
		srv.SetLatency(0)
		srv.FailNext(1, sdktest.Fault{Delay: 20 * time.Millisecond})
		start := time.Now()
		if _, err := c.AccessMgmt.UpdateUser(ctx, "u", params); err != nil || time.Since(start) < 20*time.Millisecond {
			t.Errorf("delay-only fault: err %v after %v", err, time.Since(start))
		}
	})
	t.Run("provider not configured", func(t *testing.T) {
		t.Parallel()
		srv, c := setup(t)
		srv.AddRole("o", "org-a")
		srv.SetProviderConfigured(false)
		_, err := c.AccessMgmt.UpdateUser(ctx, "u", params)
		err2 := c.AccessMgmt.ReplaceRolePermissions(ctx, "o", "org-a", nil)
		for _, e := range []error{err, err2} {
			var apiErr *apierrors.Error
			if !errors.As(e, &apiErr) || apiErr.StatusCode != 503 || !errors.Is(e, apierrors.ErrProviderNotConfigured) || apiErr.Attempts != 1 {
				t.Errorf("err = %v, want one 503 provider-not-configured attempt", e)
			}
		}
		pm := srv.AddPaymentMethod(sdktest.PaymentMethod{})
		if _, err := c.Payments.UpdatePaymentMethod(ctx, pm.ID, payments.UpdatePaymentMethodParams{}); err != nil {
			t.Errorf("payments affected by the access provider: %v", err)
		}
		srv.SetProviderConfigured(true)
		if _, err := c.AccessMgmt.UpdateUser(ctx, "u", params); err != nil {
			t.Error(err)
		}
	})
	t.Run("rate limit", func(t *testing.T) {
		t.Parallel()
		srv, c := setup(t, option.WithMaxRetries(0))
		srv.SetRateLimit(2, time.Minute)
		for i := range 2 {
			if _, err := c.AccessMgmt.UpdateUser(ctx, "u", params); err != nil {
				t.Fatalf("request %d: %v", i+1, err)
			}
		}
		_, err := c.AccessMgmt.UpdateUser(ctx, "u", params)
		var apiErr *apierrors.Error
		if !errors.As(err, &apiErr) || apiErr.StatusCode != 429 || apiErr.RetryAfter < 50*time.Second || apiErr.RetryAfter > time.Minute {
			t.Fatalf("third request: err = %v", err)
		}
		srv.SetRateLimit(0, 0)
		if _, err := c.AccessMgmt.UpdateUser(ctx, "u", params); err != nil {
			t.Errorf("after removing the limit: %v", err)
		}
	})
	t.Run("token endpoint fault", func(t *testing.T) {
		t.Parallel()
		srv, c := setup(t, option.WithMaxRetries(0))
		srv.FailNext(1, sdktest.Fault{Operation: sdktest.OpToken, Status: 500})
		_, err := c.AccessMgmt.UpdateUser(ctx, "u", params)
		if !errors.Is(err, apierrors.ErrTokenUnavailable) || srv.RequestCount(sdktest.OpUpdateUser) != 0 {
			t.Errorf("err = %v; API requests sent without a token: %d", err, srv.RequestCount(sdktest.OpUpdateUser))
		}
	})
}
