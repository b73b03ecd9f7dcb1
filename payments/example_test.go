package payments_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	apierrors "github.com/memberplatform/memberplatform-go/errors"
	"github.com/memberplatform/memberplatform-go/payments"
	"github.com/memberplatform/memberplatform-go/sdktest"
)

func ExampleService_UpdatePaymentMethod() {
	srv := sdktest.Start(sdktest.WithClock(func() time.Time { return time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC) }))
	defer srv.Close()
	card := srv.AddPaymentMethod(sdktest.PaymentMethod{ID: "5a1e7c3d-9b2f-4d6a-8e1c-7f3b5d9a1c2e", CardBrand: "visa", LastFourDigits: "4242"})
	c, _ := srv.NewClient()

	pm, err := c.Payments.UpdatePaymentMethod(context.Background(), card.ID, payments.UpdatePaymentMethodParams{
		SetAsPrimary: new(true),
		ExpDate:      new(payments.ExpDate(time.April, 2031)),
	})
	if err != nil {
		panic(err)
	}
	fmt.Println(pm.CardBrand, pm.LastFourDigits, pm.ExpDate, pm.Primary, pm.UpdatedAt.Format(time.RFC3339))
	// Output: visa 4242 04/2031 true 2025-06-01T12:00:00Z
}

func ExampleService_UpdatePaymentMethod_notImplemented() {
	srv := sdktest.Start()
	defer srv.Close()
	c, _ := srv.NewClient()

	_, err := c.Payments.UpdatePaymentMethod(context.Background(), "9f8e7d6c-5b4a-4c3d-8e2f-1a0b9c8d7e6f",
		payments.UpdatePaymentMethodParams{SetAsPrimary: new(true)})
	var apiErr *apierrors.Error
	if errors.Is(err, apierrors.ErrNotImplemented) && errors.As(err, &apiErr) {
		fmt.Println(apiErr.StatusCode, apiErr.Problem.Title, apiErr.Problem.ServiceCode)
	}
	// Output: 501 Not Implemented NOT_IMPLEMENTED
}

func ExampleExpDate() {
	fmt.Println(payments.ExpDate(time.March, 2030))
	// Output: 03/2030
}
