// Command payments shows idiomatic error handling for the payment-method
// operation, against an in-process sdktest platform: success, the "Not
// implemented" answer, server-side field errors, and transient failures the
// SDK retries on its own.
//
//	go run ./examples/payments
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"

	apierrors "github.com/memberplatform/memberplatform-go/errors"
	"github.com/memberplatform/memberplatform-go/option"
	"github.com/memberplatform/memberplatform-go/payments"
	"github.com/memberplatform/memberplatform-go/sdktest"
)

func main() {
	if err := run(context.Background(), os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "payments:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, w io.Writer) (err error) {
	out := new(strings.Builder) // written to w at the end; a failed write fails run
	defer func() { _, werr := io.WriteString(w, out.String()); err = errors.Join(err, werr) }()
	srv := sdktest.Start(sdktest.WithClock(func() time.Time { return time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC) }))
	defer srv.Close()
	card := srv.AddPaymentMethod(sdktest.PaymentMethod{ID: "5a1e7c3d-9b2f-4d6a-8e1c-7f3b5d9a1c2e", CardBrand: "mastercard", LastFourDigits: "5454"})
	c, err := srv.NewClient()
	if err != nil {
		return err
	}

	pm, err := c.Payments.UpdatePaymentMethod(ctx, card.ID, payments.UpdatePaymentMethodParams{
		SetAsPrimary: new(true), ExpDate: new(payments.ExpDate(time.March, 2030)),
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "updated: %s ending %s, expires %s, primary=%t\n", pm.CardBrand, pm.LastFourDigits, pm.ExpDate, pm.Primary)

	// Refused before sending: the ID must be a UUID.
	_, err = c.Payments.UpdatePaymentMethod(ctx, "card-1", payments.UpdatePaymentMethodParams{SetAsPrimary: new(true)})
	var ve *apierrors.ValidationError
	if errors.Is(err, apierrors.ErrInvalidInput) && errors.As(err, &ve) {
		fmt.Fprintf(out, "invalid input: %v\n", ve.Fields)
	}

	// A platform that cannot update this payment method answers "Not implemented".
	_, err = c.Payments.UpdatePaymentMethod(ctx, "9f8e7d6c-5b4a-4c3d-8e2f-1a0b9c8d7e6f", payments.UpdatePaymentMethodParams{SetAsPrimary: new(true)})
	var apiErr *apierrors.Error
	if errors.Is(err, apierrors.ErrNotImplemented) && errors.As(err, &apiErr) {
		fmt.Fprintf(out, "not implemented: serviceCode %q (free-form for payments)\n", apiErr.Problem.ServiceCode)
	}

	// The request format of expDate is not fixed by the contract, so the SDK
	// sends it as given; the platform reports the field it rejected.
	_, err = c.Payments.UpdatePaymentMethod(ctx, card.ID, payments.UpdatePaymentMethodParams{ExpDate: new("March 2030")})
	if errors.As(err, &apiErr) && errors.Is(err, apierrors.ErrBadRequest) {
		for _, f := range apiErr.FieldErrors() {
			fmt.Fprintf(out, "rejected by the platform: %s: %s\n", f.Field, f.Message)
		}
	}

	// Transient failures (502/503/504, resets) are retried by the SDK.
	srv.FailNext(2, sdktest.Fault{Operation: sdktest.OpUpdatePaymentMethod, Status: http.StatusBadGateway})
	before := srv.RequestCount(sdktest.OpUpdatePaymentMethod)
	if _, err := c.Payments.UpdatePaymentMethod(ctx, card.ID, payments.UpdatePaymentMethodParams{SetAsPrimary: new(true)}); err != nil {
		return fmt.Errorf("expected the retries to succeed: %w", err)
	}
	fmt.Fprintf(out, "succeeded after %d attempts\n", srv.RequestCount(sdktest.OpUpdatePaymentMethod)-before)

	// With retries off, the caller sees the failure and can ask Temporary.
	srv.FailNext(1, sdktest.Fault{Operation: sdktest.OpUpdatePaymentMethod, Status: http.StatusServiceUnavailable})
	_, err = c.Payments.UpdatePaymentMethod(ctx, card.ID, payments.UpdatePaymentMethodParams{}, option.WithMaxRetries(0))
	if errors.As(err, &apiErr) {
		fmt.Fprintf(out, "status %d, temporary: %t, service unavailable: %t\n", apiErr.StatusCode, apiErr.Temporary(), errors.Is(err, apierrors.ErrServiceUnavailable))
	}
	return nil
}
