// Command customer shows idiomatic error handling for the member-address
// upsert, whose errors use the code/message format, against an in-process
// sdktest platform: create then update (with a null addressLineTwo),
// missing fields, member not found, forbidden, and an internal error the
// SDK retried before giving up.
//
//	go run ./examples/customer
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"

	"github.com/oapi-codegen/nullable"

	"github.com/memberplatform/memberplatform-go/customer"
	apierrors "github.com/memberplatform/memberplatform-go/errors"
	"github.com/memberplatform/memberplatform-go/sdktest"
)

func main() {
	if err := run(context.Background(), os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "customer:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, w io.Writer) (err error) {
	out := new(strings.Builder) // written to w at the end; a failed write fails run
	defer func() { _, werr := io.WriteString(w, out.String()); err = errors.Join(err, werr) }()
	srv := sdktest.Start()
	defer srv.Close()
	member := srv.AddMember("2e4c6a8b-1d3f-4a5c-9e7b-0d2f4a6c8e1a")
	c, err := srv.NewClient()
	if err != nil {
		return err
	}

	addr := customer.UpsertMemberAddressParams{
		AddressLineOne: "12 Collins Street", AddressLineTwo: nullable.NewNullableWithValue("Suite 4"),
		Suburb: "Melbourne", State: "VIC", Postcode: "3000", Country: "AU",
	}
	a, err := c.Customer.UpsertMemberAddress(ctx, member, addr)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "created: %s, %s (line two set: %t)\n", *a.AddressLineOne, *a.Suburb, a.AddressLineTwo != nil)

	// Explicit null clears addressLineTwo; leaving it unset would keep it.
	addr.AddressLineTwo = nullable.NewNullNullable[string]()
	updated, err := c.Customer.UpsertMemberAddress(ctx, member, addr)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "updated: same id: %t, line two set: %t\n", updated.ID == a.ID, updated.AddressLineTwo != nil)

	// Every missing field at once, before anything is sent.
	_, err = c.Customer.UpsertMemberAddress(ctx, member, customer.UpsertMemberAddressParams{AddressLineOne: "1 Main Rd", Country: "AU"})
	var ve *apierrors.ValidationError
	if errors.As(err, &ve) {
		for _, f := range ve.FieldErrors() {
			fmt.Fprintf(out, "missing: %s\n", f.Field)
		}
	}

	// Member not found: the code/message body is in CodeMessage.
	_, err = c.Customer.UpsertMemberAddress(ctx, "7c5a3e1f-9d8b-4a6c-8e4f-2b0d9c7a5e3f", addr)
	var apiErr *apierrors.Error
	if errors.Is(err, apierrors.ErrNotFound) && errors.As(err, &apiErr) {
		fmt.Fprintf(out, "not found: code %s, message %q\n", apiErr.CodeMessage.Code, apiErr.CodeMessage.Message)
	}

	// Forbidden: the caller lacks the required permission.
	srv.FailNext(1, sdktest.Fault{Operation: sdktest.OpUpsertMemberAddress, Status: http.StatusForbidden})
	_, err = c.Customer.UpsertMemberAddress(ctx, member, addr)
	if errors.Is(err, apierrors.ErrForbidden) {
		fmt.Fprintln(out, "forbidden: ask for the permission rather than retrying")
	}

	// Internal errors are retried (the upsert is idempotent); after the
	// last attempt the error says how many were made.
	srv.FailNext(4, sdktest.Fault{Operation: sdktest.OpUpsertMemberAddress, Status: http.StatusInternalServerError,
		Body: `{"code":"INTERNAL_ERROR","message":"database unavailable"}`})
	_, err = c.Customer.UpsertMemberAddress(ctx, member, addr)
	if errors.Is(err, apierrors.ErrInternal) && errors.As(err, &apiErr) {
		fmt.Fprintf(out, "internal error after %d attempts: %s\n", apiErr.Attempts, apiErr.CodeMessage.Message)
	}
	return nil
}
