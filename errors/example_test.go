package errors_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/memberplatform/memberplatform-go/accessmgmt"
	apierrors "github.com/memberplatform/memberplatform-go/errors"
	"github.com/memberplatform/memberplatform-go/option"
	"github.com/memberplatform/memberplatform-go/sdktest"
)

// Classify any SDK error: the sentinel kinds with errors.Is, the details
// with errors.As.
func Example() {
	srv := sdktest.Start()
	defer srv.Close()
	c, _ := srv.NewClient()

	_, err := c.AccessMgmt.UpdateUser(context.Background(), "user_404", accessmgmt.UpdateUserParams{FirstName: new("Ada")})
	var apiErr *apierrors.Error
	switch {
	case errors.Is(err, apierrors.ErrInvalidInput):
		fmt.Println("fix the input")
	case errors.Is(err, apierrors.ErrNotFound) && errors.As(err, &apiErr):
		fmt.Println("not found:", apiErr.StatusCode, apiErr.Problem.ServiceCode, apiErr.Problem.Detail)
	case errors.Is(err, apierrors.ErrTransport), errors.Is(err, apierrors.ErrTokenUnavailable):
		fmt.Println("could not reach the platform")
	case err != nil:
		fmt.Println("other failure:", err)
	}
	// Output: not found: 404 40400001 user user_404 not found
}

func ExampleError_FieldErrors() {
	// Decode turns any error body into an *Error; FieldErrors reads the
	// field-level errors of either format.
	problem := apierrors.Decode(http.StatusUnprocessableEntity, http.Header{"Content-Type": {"application/problem+json"}}, []byte(`{
		"type": "https://errors.example/unprocessable-entity", "title": "Unprocessable Entity", "status": 422,
		"serviceCode": "42200001",
		"serviceErrors": [{"detail": "must match ^[a-z0-9:._*-]+$", "pointer": "/permissions/2"}]}`))
	codeMessage := apierrors.Decode(http.StatusBadRequest, http.Header{"Content-Type": {"application/json"}}, []byte(`{
		"code": "VALIDATION_ERROR", "message": "Validation failed",
		"errors": [{"field": "postcode", "message": "is required"}]}`))
	for _, e := range []*apierrors.Error{problem, codeMessage} {
		for _, f := range e.FieldErrors() {
			fmt.Printf("%d %s %q: %s\n", e.StatusCode, f.Field, f.Pointer, f.Message)
		}
	}
	// Output:
	// 422 permissions[2] "/permissions/2": must match ^[a-z0-9:._*-]+$
	// 400 postcode "": is required
}

func ExampleValidationError() {
	srv := sdktest.Start()
	defer srv.Close()
	c, _ := srv.NewClient()

	err := c.AccessMgmt.ReplaceRolePermissions(context.Background(), "org_1", "Admins", []string{"users:read", "Users Write"})
	var ve *apierrors.ValidationError
	if errors.As(err, &ve) {
		for _, f := range ve.Fields {
			fmt.Println(f)
		}
	}
	fmt.Println("requests sent:", srv.RequestCount(""))
	// Output:
	// slug: must match ^org-[a-z0-9_-]+$, such as org-admin
	// permissions[1]: must match ^[a-z0-9:._*-]+$, such as users:read
	// requests sent: 0
}

func ExampleTransportError() {
	srv := sdktest.Start()
	defer srv.Close()
	srv.AddUser(sdktest.User{ID: "user_1", Email: "ada@example.com"})
	c, _ := srv.NewClient(option.WithMaxRetries(1))
	ctx := context.Background()
	if _, err := c.AccessMgmt.UpdateUser(ctx, "user_1", accessmgmt.UpdateUserParams{FirstName: new("Ada")}); err != nil { // fetch a token
		panic(err)
	}

	srv.FailNext(2, sdktest.Fault{Reset: true}) // two connection resets: the first is retried
	_, err := c.AccessMgmt.UpdateUser(ctx, "user_1", accessmgmt.UpdateUserParams{FirstName: new("Ada")})
	var te *apierrors.TransportError
	if errors.As(err, &te) {
		fmt.Println("no response after", te.Attempts, "attempts; timeout:", te.Timeout())
	}
	// Output: no response after 2 attempts; timeout: false
}

func ExampleFieldErrorsOf() {
	srv := sdktest.Start()
	defer srv.Close()
	c, _ := srv.NewClient()

	// One call reads the field errors of any SDK error: a validation error
	// found before sending, or the platform's answer in either format.
	_, err := c.AccessMgmt.UpdateUser(context.Background(), "user_1", accessmgmt.UpdateUserParams{
		MobileNumber: new("0412 345 678"), Email: new("not-an-email"),
	})
	for _, f := range apierrors.FieldErrorsOf(err) {
		fmt.Printf("%s: %s\n", f.Field, f.Message)
	}
	// Output:
	// mobileNumber: must be an E.164 number such as +61412345678
	// email: must be an email address such as ada@example.com
}

func ExampleRetryAfterOf() {
	srv := sdktest.Start()
	defer srv.Close()
	srv.FailNext(1, sdktest.Fault{Status: http.StatusTooManyRequests, RetryAfter: 2 * time.Minute})
	c, _ := srv.NewClient()

	// The platform asked for longer than the client waits on its own
	// (option.WithMaxRetryAfter, 20s by default): the call returns at once
	// and says how long to back off.
	_, err := c.AccessMgmt.UpdateUser(context.Background(), "user_1", accessmgmt.UpdateUserParams{FirstName: new("Ada")})
	var apiErr *apierrors.Error
	if wait, ok := apierrors.RetryAfterOf(err); ok && errors.As(err, &apiErr) {
		fmt.Println("rate limited; retry after", wait, "temporary:", apiErr.Temporary())
	}
	// Output: rate limited; retry after 2m0s temporary: true
}

// The one check for "the platform rejected my input", whichever status
// (400 or 422) and format it answered with; FieldErrorsOf says which
// fields, when the body names them.
func Example_rejectedInput() {
	problem := http.Header{"Content-Type": {"application/problem+json"}}
	codeMessage := http.Header{"Content-Type": {"application/json"}}
	for _, tc := range []struct {
		name string
		err  error
	}{
		{"400 VALIDATION_ERROR", apierrors.Decode(400, codeMessage, []byte(`{"code":"VALIDATION_ERROR","message":"Validation failed","errors":[{"field":"postcode","message":"is required"}]}`))},
		{"422 problem", apierrors.Decode(422, problem, []byte(`{"title":"Unprocessable Entity","status":422,"serviceErrors":[{"detail":"is unknown","pointer":"/permissions/0"}]}`))},
		{"400 from a proxy", apierrors.Decode(400, http.Header{"Content-Type": {"text/html"}}, []byte(`<html>Bad Request</html>`))},
		{"409 conflict", apierrors.Decode(409, problem, []byte(`{"title":"Conflict","status":409}`))},
		{"refused before sending", &apierrors.ValidationError{Fields: []apierrors.FieldError{{Field: "slug", Message: "is required"}}}},
	} {
		rejected := errors.Is(tc.err, apierrors.ErrBadRequest) || errors.Is(tc.err, apierrors.ErrUnprocessableEntity)
		fmt.Printf("%-22s rejected by the platform: %-5v fields: %v\n", tc.name, rejected, apierrors.FieldErrorsOf(tc.err))
	}
	// Output:
	// 400 VALIDATION_ERROR   rejected by the platform: true  fields: [postcode: is required]
	// 422 problem            rejected by the platform: true  fields: [permissions[0]: is unknown]
	// 400 from a proxy       rejected by the platform: true  fields: []
	// 409 conflict           rejected by the platform: false fields: []
	// refused before sending rejected by the platform: false fields: [slug: is required]
}
