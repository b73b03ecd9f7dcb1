// Command quickstart runs each of the SDK's operations (a test checks it
// sends every operation the SDK declares), one validation error and one API
// error, and prints what happened, a line each, led by the operation's name.
//
// With no environment it needs no setup: it starts sdktest, an in-process
// fake of the platform, and runs against it:
//
//	go run ./examples/quickstart
//
// or, without a clone of the repository, from any directory:
//
//	go run github.com/memberplatform/memberplatform-go/examples/quickstart@latest
//
// It is a demo, and so one of the few programs that import sdktest: a
// service imports sdktest only from its _test.go files (see sdktest).
//
// To run against a real platform, set MEMBERPLATFORM_BASE_URL and
// credentials (MEMBERPLATFORM_TOKEN, or AWS_ACCESS_KEY_ID,
// AWS_SECRET_ACCESS_KEY and AWS_REGION for the SigV4 token flow), plus the
// identifiers of the records to update; an operation whose identifier is
// not set is skipped:
//
//	MEMBERPLATFORM_USER_ID, MEMBERPLATFORM_ORG_ID and MEMBERPLATFORM_ROLE_SLUG,
//	MEMBERPLATFORM_PAYMENT_METHOD_ID, MEMBERPLATFORM_MEMBER_ID
//
// Careful: against a real platform the operations really update those
// records. The exit status is non-zero on any unexpected failure.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"time"

	"github.com/oapi-codegen/nullable"

	"github.com/memberplatform/memberplatform-go/accessmgmt"
	"github.com/memberplatform/memberplatform-go/client"
	"github.com/memberplatform/memberplatform-go/customer"
	apierrors "github.com/memberplatform/memberplatform-go/errors"
	"github.com/memberplatform/memberplatform-go/option"
	"github.com/memberplatform/memberplatform-go/payments"
	"github.com/memberplatform/memberplatform-go/sdktest"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Stdout, os.Getenv); err != nil {
		fmt.Fprintln(os.Stderr, "quickstart:", err)
		os.Exit(1)
	}
}

// targets are the records the quickstart updates.
type targets struct {
	userID, orgID, roleSlug, paymentMethodID, memberID string
}

// run is the whole program; getenv reads the environment.
func run(ctx context.Context, w io.Writer, getenv func(string) string) (err error) {
	out := new(strings.Builder) // written to w at the end; a failed write fails run
	defer func() { _, werr := io.WriteString(w, out.String()); err = errors.Join(err, werr) }()
	var (
		c *client.Client
		t targets
	)
	if getenv(client.EnvBaseURL) == "" {
		srv := sdktest.Start(sdktest.WithClock(func() time.Time { return time.Date(2025, 6, 1, 9, 30, 0, 0, time.UTC) }))
		defer srv.Close()
		t = seed(srv)
		fmt.Fprintln(out, "MEMBERPLATFORM_BASE_URL is not set: running against an in-process sdktest fake platform.")
		c, err = srv.NewClient(option.WithAppInfo("quickstart", "1.0"))
	} else {
		t = targets{
			userID: getenv("MEMBERPLATFORM_USER_ID"), orgID: getenv("MEMBERPLATFORM_ORG_ID"), roleSlug: getenv("MEMBERPLATFORM_ROLE_SLUG"),
			paymentMethodID: getenv("MEMBERPLATFORM_PAYMENT_METHOD_ID"), memberID: getenv("MEMBERPLATFORM_MEMBER_ID"),
		}
		fmt.Fprintf(out, "Running against %s.\n", getenv(client.EnvBaseURL))
		c, err = client.New(option.WithAppInfo("quickstart", "1.0")) // base URL and credentials from the environment
	}
	if err != nil {
		return fmt.Errorf("building the client: %w", err)
	}

	if err := demoOperations(ctx, out, c, t); err != nil {
		return err
	}
	demoValidationError(ctx, out, c)
	if err := demoAPIError(ctx, out, c); err != nil {
		return err
	}
	return nil
}

// seed fills the fake platform with the records the quickstart updates.
func seed(srv *sdktest.Server) targets {
	created := time.Date(2024, 11, 5, 8, 0, 0, 0, time.UTC)
	u := srv.AddUser(sdktest.User{ID: "user_01HZX3QK4B8P", Email: "ada@example.com", FirstName: "Ada"})
	srv.AddRole("org_01HZX3R7Y2NM", "org-support", "members:read")
	pm := srv.AddPaymentMethod(sdktest.PaymentMethod{ID: "6b1f3c9e-2d4a-4e8b-9c1d-3f5a7b9c1d2e", BillingAccountID: "0c9d8e7f-6a5b-4c3d-8e1f-2a3b4c5d6e7f",
		LastFourDigits: "4242", CardBrand: "visa", ExpDate: "09/2026", CreatedAt: created})
	m := srv.AddMember("3d6f9a2c-7b1e-4f5a-8c3d-9e2b4a6c8d0f")
	return targets{userID: u.ID, orgID: "org_01HZX3R7Y2NM", roleSlug: "org-support", paymentMethodID: pm.ID, memberID: m}
}

func skip(out *strings.Builder, step, vars string) {
	fmt.Fprintf(out, "%s: skipped (set %s)\n", step, vars)
}

func demoOperations(ctx context.Context, out *strings.Builder, c *client.Client, t targets) error {
	if t.userID == "" {
		skip(out, "UpdateUser", "MEMBERPLATFORM_USER_ID")
	} else {
		u, err := c.AccessMgmt.UpdateUser(ctx, t.userID, accessmgmt.UpdateUserParams{
			FirstName: new("Ada"), LastName: new("Lovelace"), MobileNumber: new("+61412345678"),
		})
		if err != nil {
			return fmt.Errorf("UpdateUser: %w", err)
		}
		fmt.Fprintf(out, "UpdateUser: %s is now %s %s <%s>, mobile %s\n", u.ID, u.FirstName, u.LastName, u.Email, u.MobileNumber)
	}

	if t.orgID == "" || t.roleSlug == "" {
		skip(out, "ReplaceRolePermissions", "MEMBERPLATFORM_ORG_ID and MEMBERPLATFORM_ROLE_SLUG")
	} else {
		perms := []string{"members:read", "members:write", "reports:export"}
		if err := c.AccessMgmt.ReplaceRolePermissions(ctx, t.orgID, t.roleSlug, perms); err != nil {
			return fmt.Errorf("ReplaceRolePermissions: %w", err)
		}
		fmt.Fprintf(out, "ReplaceRolePermissions: role %s of %s now has exactly [%s]\n", t.roleSlug, t.orgID, strings.Join(perms, " "))
	}

	if t.paymentMethodID == "" {
		skip(out, "UpdatePaymentMethod", "MEMBERPLATFORM_PAYMENT_METHOD_ID")
	} else {
		pm, err := c.Payments.UpdatePaymentMethod(ctx, t.paymentMethodID, payments.UpdatePaymentMethodParams{
			SetAsPrimary: new(true), ExpDate: new(payments.ExpDate(time.April, 2031)),
		})
		if err != nil {
			return fmt.Errorf("UpdatePaymentMethod: %w", err)
		}
		fmt.Fprintf(out, "UpdatePaymentMethod: %s ending %s, expires %s, primary=%t, updated %s\n",
			pm.CardBrand, pm.LastFourDigits, pm.ExpDate, pm.Primary, pm.UpdatedAt.UTC().Format(time.RFC3339))
	}

	if t.memberID == "" {
		skip(out, "UpsertMemberAddress", "MEMBERPLATFORM_MEMBER_ID")
	} else {
		a, err := c.Customer.UpsertMemberAddress(ctx, t.memberID, customer.UpsertMemberAddressParams{
			AddressLineOne: "1 George Street", AddressLineTwo: nullable.NewNullableWithValue("Level 2"),
			Suburb: "Sydney", State: "NSW", Postcode: "2000", Country: "AU",
		})
		if err != nil {
			return fmt.Errorf("UpsertMemberAddress: %w", err)
		}
		fmt.Fprintf(out, "UpsertMemberAddress: member %s lives at %s, %s, %s %s %s (tenant %s)\n", t.memberID,
			deref(a.AddressLineOne), deref(a.AddressLineTwo), deref(a.Suburb), deref(a.State), deref(a.Postcode), a.TenantID)
	}
	return nil
}

// demoValidationError shows the SDK refusing bad input before sending it,
// and listing every bad field at once.
func demoValidationError(ctx context.Context, out *strings.Builder, c *client.Client) {
	_, err := c.AccessMgmt.UpdateUser(ctx, "user_01HZX3QK4B8P", accessmgmt.UpdateUserParams{
		MobileNumber: new("0412 345 678"), Email: new("ada at example.com"),
	})
	var ve *apierrors.ValidationError
	if errors.As(err, &ve) {
		fmt.Fprintf(out, "Validation error (nothing was sent), errors.Is(err, apierrors.ErrInvalidInput) = %t:\n", errors.Is(err, apierrors.ErrInvalidInput))
		for _, f := range ve.Fields {
			fmt.Fprintf(out, "   - %s: %s\n", f.Field, f.Message)
		}
		return
	}
	fmt.Fprintf(out, "Validation error: unexpected result %v\n", err)
}

// demoAPIError shows an error answered by the platform.
func demoAPIError(ctx context.Context, out *strings.Builder, c *client.Client) error {
	_, err := c.AccessMgmt.UpdateUser(ctx, "user_does_not_exist", accessmgmt.UpdateUserParams{FirstName: new("Nobody")})
	var apiErr *apierrors.Error
	if !errors.As(err, &apiErr) {
		return fmt.Errorf("expected an API error for an unknown user, got %v", err)
	}
	fmt.Fprintf(out, "API error: status %d, errors.Is(err, apierrors.ErrNotFound) = %t\n", apiErr.StatusCode, errors.Is(err, apierrors.ErrNotFound))
	if p := apiErr.Problem; p != nil {
		fmt.Fprintf(out, "   problem: title %q, serviceCode %s, detail %q\n", p.Title, p.ServiceCode, p.Detail)
	}
	fmt.Fprintf(out, "   err.Error(): %v\n", err)
	return nil
}

func deref(s *string) string {
	if s == nil {
		return "<null>"
	}
	return *s
}
