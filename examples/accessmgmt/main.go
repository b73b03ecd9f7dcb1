// Command accessmgmt shows idiomatic error handling for the
// access-management operations, against an in-process sdktest platform:
// input validation, not found, conflict with field errors, the provider's
// rate limit with Retry-After, and the provider-not-configured mode.
//
//	go run ./examples/accessmgmt
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

	"github.com/memberplatform/memberplatform-go/accessmgmt"
	apierrors "github.com/memberplatform/memberplatform-go/errors"
	"github.com/memberplatform/memberplatform-go/option"
	"github.com/memberplatform/memberplatform-go/sdktest"
)

func main() {
	if err := run(context.Background(), os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "accessmgmt:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, w io.Writer) (err error) {
	out := new(strings.Builder) // written to w at the end; a failed write fails run
	defer func() { _, werr := io.WriteString(w, out.String()); err = errors.Join(err, werr) }()
	srv := sdktest.Start()
	defer srv.Close()
	srv.AddUser(sdktest.User{ID: "user_ada", Email: "ada@example.com"})
	srv.AddUser(sdktest.User{ID: "user_grace", Email: "grace@example.com"})
	srv.AddRole("org_acme", "org-support", "tickets:read")
	c, err := srv.NewClient()
	if err != nil {
		return err
	}

	// Success, and contract rule 2: unknown permissions are created first.
	if err := c.AccessMgmt.ReplaceRolePermissions(ctx, "org_acme", "org-support", []string{"tickets:read", "tickets:write"}); err != nil {
		return err
	}
	fmt.Fprintf(out, "role updated; the provider created %v\n", srv.CreatedPermissions())

	// 1. Input the SDK refuses before sending: *apierrors.ValidationError.
	err = c.AccessMgmt.ReplaceRolePermissions(ctx, "org_acme", "support", []string{"Tickets:Read"})
	var ve *apierrors.ValidationError
	if errors.As(err, &ve) {
		for _, f := range ve.Fields {
			fmt.Fprintf(out, "invalid input: %s: %s\n", f.Field, f.Message)
		}
	}

	// 2. A kind of failure: errors.Is with the Err* sentinels.
	_, err = c.AccessMgmt.UpdateUser(ctx, "user_nobody", accessmgmt.UpdateUserParams{FirstName: new("N")})
	if errors.Is(err, apierrors.ErrNotFound) {
		fmt.Fprintln(out, "not found: create the user first")
	}

	// 3. The platform's own details: errors.As to *apierrors.Error.
	_, err = c.AccessMgmt.UpdateUser(ctx, "user_ada", accessmgmt.UpdateUserParams{Email: new("grace@example.com")})
	var apiErr *apierrors.Error
	if errors.As(err, &apiErr) && errors.Is(err, apierrors.ErrConflict) {
		fmt.Fprintf(out, "conflict: status %d, serviceCode %s\n", apiErr.StatusCode, apiErr.Problem.ServiceCode)
		for _, f := range apiErr.FieldErrors() {
			fmt.Fprintf(out, "  field %s (pointer %s): %s\n", f.Field, f.Pointer, f.Message)
		}
	}

	// 4. Rate limited for longer than the SDK waits on its own (20s by
	// default): the error carries RetryAfter, the caller decides.
	srv.FailNext(1, sdktest.Fault{Operation: sdktest.OpUpdateUser, Status: http.StatusTooManyRequests, RetryAfter: time.Minute})
	_, err = c.AccessMgmt.UpdateUser(ctx, "user_ada", accessmgmt.UpdateUserParams{FirstName: new("Ada")})
	if errors.As(err, &apiErr) && errors.Is(err, apierrors.ErrRateLimited) {
		fmt.Fprintf(out, "rate limited: retry after %v (temporary: %t)\n", apiErr.RetryAfter, apiErr.Temporary())
	}

	// A short Retry-After is honoured by the SDK itself: the call succeeds.
	srv.FailNext(1, sdktest.Fault{Operation: sdktest.OpUpdateUser, Status: http.StatusTooManyRequests, Header: http.Header{"Retry-After-Ms": {"10"}}})
	u, err := c.AccessMgmt.UpdateUser(ctx, "user_ada", accessmgmt.UpdateUserParams{FirstName: new("Ada")}, option.WithTimeout(5*time.Second))
	if err != nil {
		return fmt.Errorf("expected the SDK to retry a short Retry-After: %w", err)
	}
	fmt.Fprintf(out, "retried after a short Retry-After: %s %s\n", u.ID, u.FirstName)

	// 5. Configuration problems are not worth retrying.
	srv.SetProviderConfigured(false)
	_, err = c.AccessMgmt.UpdateUser(ctx, "user_ada", accessmgmt.UpdateUserParams{FirstName: new("Ada")})
	if errors.Is(err, apierrors.ErrProviderNotConfigured) && errors.As(err, &apiErr) {
		fmt.Fprintf(out, "provider not configured: status %d after %d attempt(s), temporary: %t\n", apiErr.StatusCode, apiErr.Attempts, apiErr.Temporary())
	}
	return nil
}
