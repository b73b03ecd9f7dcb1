package customer_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/oapi-codegen/nullable"

	"github.com/memberplatform/memberplatform-go/customer"
	apierrors "github.com/memberplatform/memberplatform-go/errors"
	"github.com/memberplatform/memberplatform-go/sdktest"
)

func ExampleService_UpsertMemberAddress() {
	srv := sdktest.Start(sdktest.WithClock(func() time.Time { return time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC) }))
	defer srv.Close()
	member := srv.AddMember("2e4c6a8b-1d3f-4a5c-9e7b-0d2f4a6c8e1a")
	c, _ := srv.NewClient()
	ctx := context.Background()

	params := customer.UpsertMemberAddressParams{
		AddressLineOne: "12 Collins Street",
		AddressLineTwo: nullable.NewNullableWithValue("Suite 4"),
		Suburb:         "Melbourne", State: "VIC", Postcode: "3000", Country: "AU",
	}
	a, err := c.Customer.UpsertMemberAddress(ctx, member, params) // created
	if err != nil {
		panic(err)
	}
	fmt.Println(*a.AddressLineOne, *a.AddressLineTwo, *a.Suburb, *a.Postcode)

	params.AddressLineTwo = nullable.NewNullNullable[string]()   // explicit null clears it
	a, err = c.Customer.UpsertMemberAddress(ctx, member, params) // updated
	if err != nil {
		panic(err)
	}
	created, _ := a.Created()
	fmt.Println(a.AddressLineTwo == nil, created.Format(time.DateOnly))
	// Output:
	// 12 Collins Street Suite 4 Melbourne 3000
	// true 2025-06-01
}

func ExampleService_UpsertMemberAddress_errors() {
	srv := sdktest.Start()
	defer srv.Close()
	c, _ := srv.NewClient()
	ctx := context.Background()

	// Missing required fields are reported together, before sending.
	_, err := c.Customer.UpsertMemberAddress(ctx, "2e4c6a8b-1d3f-4a5c-9e7b-0d2f4a6c8e1a", customer.UpsertMemberAddressParams{AddressLineOne: "1 Main Rd"})
	var ve *apierrors.ValidationError
	if errors.As(err, &ve) {
		for _, f := range ve.Fields {
			fmt.Println("invalid:", f.Field, f.Message)
		}
	}

	// Errors of this operation use the code/message format.
	_, err = c.Customer.UpsertMemberAddress(ctx, "2e4c6a8b-1d3f-4a5c-9e7b-0d2f4a6c8e1a", customer.UpsertMemberAddressParams{
		AddressLineOne: "1 Main Rd", Suburb: "Hobart", State: "TAS", Postcode: "7000", Country: "AU"})
	var apiErr *apierrors.Error
	if errors.Is(err, apierrors.ErrNotFound) && errors.As(err, &apiErr) {
		fmt.Println(apiErr.StatusCode, apiErr.CodeMessage.Code)
	}
	// Output:
	// invalid: state is required
	// invalid: suburb is required
	// invalid: postcode is required
	// invalid: country is required
	// 404 MEMBER_NOT_FOUND
}

// Check a whole import before writing any of it: Validate runs the checks
// UpsertMemberAddress runs on its params and names the same fields.
func ExampleUpsertMemberAddressParams_Validate() {
	rows := []customer.UpsertMemberAddressParams{
		{AddressLineOne: "1 Main St", State: "NSW", Suburb: "Sydney", Postcode: "2000", Country: "AU"},
		{AddressLineOne: "2 High St", State: "VIC", Suburb: "Melbourne"},
	}
	bad := 0
	for i, row := range rows {
		if err := row.Validate(); err != nil {
			bad++
			fmt.Println("row", i, errors.Is(err, apierrors.ErrInvalidInput), apierrors.FieldErrorsOf(err))
		}
	}
	fmt.Println(bad, "of", len(rows), "rows refused; nothing written")
	// Output:
	// row 1 true [postcode: is required country: is required]
	// 1 of 2 rows refused; nothing written
}
