// Package memberplatform is the root of memberplatform-go, the Go client SDK
// for the member platform's HTTP API. It holds the SDK's Version, the
// bearer-token vocabulary (Token, TokenSource) that package client
// re-exports, and the areas of the platform (Area) that package option
// re-exports; the API lives in the sub-packages:
//
//   - client: New builds the Client and exposes the three areas below as
//     fields; Execute calls endpoints the SDK does not wrap.
//   - option: every option of client.New and of a single call (base URL,
//     token source, retries, timeouts, logging, middleware...).
//   - accessmgmt: the access provider's users and organization role
//     permissions.
//   - payments: payment methods.
//   - customer: member addresses.
//   - errors: the typed errors every operation returns (import it as
//     apierrors).
//   - sdktest: an in-process fake of the platform for tests and examples;
//     import it from _test.go files only, never from a service's own code
//     (its package documentation says why).
//
// # Quick start
//
//	import (
//		"github.com/memberplatform/memberplatform-go/accessmgmt"
//		"github.com/memberplatform/memberplatform-go/client"
//		apierrors "github.com/memberplatform/memberplatform-go/errors"
//	)
//
//	c, err := client.New() // MEMBERPLATFORM_BASE_URL, MEMBERPLATFORM_TOKEN or AWS credentials
//	if err != nil {
//		log.Fatal(err)
//	}
//	u, err := c.AccessMgmt.UpdateUser(ctx, "user_01E4ZCR3C56J083X43JQXF3JK5",
//		accessmgmt.UpdateUserParams{FirstName: new("Ada")})
//	switch {
//	case errors.Is(err, apierrors.ErrInvalidInput): // refused before sending
//	case errors.Is(err, apierrors.ErrNotFound):
//	case err != nil:
//		var apiErr *apierrors.Error
//		if errors.As(err, &apiErr) {
//			log.Println(apiErr.StatusCode, apiErr.RequestID, apiErr.FieldErrors())
//		}
//	}
//
// # Install
//
//	go get github.com/memberplatform/memberplatform-go
//	go mod tidy # once your code imports the SDK's packages: records their modules in go.sum
//
// # Try it
//
// Run the quick-start example against an in-process fake, with no setup,
// from a clone:
//
//	go run ./examples/quickstart
//
// or without one, from any directory:
//
//	go run github.com/memberplatform/memberplatform-go/examples/quickstart@latest
//
// The second form works once the module is on a module proxy you can reach:
// before its first public release, or from a private repository, the public
// proxy refuses it (403 Forbidden, 404 or 410). Run it from a clone then, or
// set GOPRIVATE or GOPROXY as RELEASING.md says.
package memberplatform
