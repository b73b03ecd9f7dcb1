package sdktest_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/memberplatform/memberplatform-go/accessmgmt"
	apierrors "github.com/memberplatform/memberplatform-go/errors"
	"github.com/memberplatform/memberplatform-go/sdktest"
)

// A program (or an Example) starts the fake with Start; tests use
// NewServer(t), which closes it when the test ends.
func ExampleStart() {
	srv := sdktest.Start()
	defer srv.Close()
	srv.AddUser(sdktest.User{ID: "user_1", Email: "ada@example.com"})
	srv.AddRole("org_1", "org-support", "members:read")

	c := srv.Client() // SigV4 token flow included
	ctx := context.Background()
	u, err := c.AccessMgmt.UpdateUser(ctx, "user_1", accessmgmt.UpdateUserParams{FirstName: new("Ada")})
	if err != nil {
		fmt.Println("error:", err)
		return
	}
	fmt.Println(u.ID, u.FirstName, u.Email)

	if err := c.AccessMgmt.ReplaceRolePermissions(ctx, "org_1", "org-support", []string{"members:read", "reports:export"}); err != nil {
		fmt.Println("error:", err)
		return
	}
	perms, _ := srv.RolePermissions("org_1", "org-support")
	fmt.Println(perms, "created at the provider:", srv.CreatedPermissions())
	fmt.Println("token requests:", srv.TokenRequests())
	// Output:
	// user_1 Ada ada@example.com
	// [members:read reports:export] created at the provider: [reports:export]
	// token requests: 1
}

// FailNext scripts the next responses, for testing how your code handles
// rate limiting.
func ExampleServer_FailNext() {
	srv := sdktest.Start()
	defer srv.Close()
	srv.AddUser(sdktest.User{ID: "user_1", Email: "ada@example.com"})
	srv.FailNext(1, sdktest.Fault{Status: http.StatusTooManyRequests, Header: http.Header{"Retry-After": {"120"}}})

	_, err := srv.Client().AccessMgmt.UpdateUser(context.Background(), "user_1", accessmgmt.UpdateUserParams{LastName: new("Lovelace")})
	var apiErr *apierrors.Error
	if errors.Is(err, apierrors.ErrRateLimited) && errors.As(err, &apiErr) {
		fmt.Println("rate limited; retry after", apiErr.RetryAfter)
	}
	// Output:
	// rate limited; retry after 2m0s
}
