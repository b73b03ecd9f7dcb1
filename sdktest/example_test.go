package sdktest_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/jarcoal/httpmock"

	"github.com/memberplatform/memberplatform-go/accessmgmt"
	"github.com/memberplatform/memberplatform-go/client"
	"github.com/memberplatform/memberplatform-go/customer"
	apierrors "github.com/memberplatform/memberplatform-go/errors"
	"github.com/memberplatform/memberplatform-go/option"
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

// HandleFunc fakes an endpoint the SDK does not wrap, here the contract's
// createUser (its shape is assumed), behind the fake's own authentication.
// The handler stores the user in the fake, so the SDK's UpdateUser finds it.
func ExampleServer_HandleFunc() {
	srv := sdktest.Start()
	defer srv.Close()
	srv.HandleFunc("POST /auth/access-management/users", func(w http.ResponseWriter, r *http.Request) {
		var u accessmgmt.ProviderUser
		if err := json.NewDecoder(r.Body).Decode(&u); err != nil || u.Email == "" {
			sdktest.WriteProblem(w, http.StatusBadRequest, apierrors.Problem{Detail: "email is required"})
			return
		}
		u = srv.AddUser(u) // stored in the fake; an empty ID would be generated
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusCreated)
		_ = json.NewEncoder(w).Encode(u)
	})

	createUser := func(token string) {
		req, _ := http.NewRequest(http.MethodPost, srv.URL+"/auth/access-management/users", strings.NewReader(`{"id":"user_ada","email":"ada@example.com"}`))
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := srv.HTTPClient().Do(req)
		if err != nil {
			fmt.Println("error:", err)
			return
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		fmt.Println(resp.StatusCode, resp.Header.Get("Content-Type"), strings.TrimSpace(string(body)))
	}
	createUser("")               // refused like any built-in operation
	createUser(srv.IssueToken()) // a token the fake's token endpoint would issue

	u, err := srv.Client().AccessMgmt.UpdateUser(context.Background(), "user_ada", accessmgmt.UpdateUserParams{FirstName: new("Ada")})
	if err != nil {
		fmt.Println("error:", err)
		return
	}
	fmt.Println(u.ID, u.FirstName, u.Email)
	fmt.Println("createUser requests:", srv.RequestCount("POST /auth/access-management/users"))
	// Output:
	// 401 application/problem+json {"type":"https://sdktest.memberplatform.invalid/problems/unauthorized","title":"Unauthorized","status":401,"detail":"missing bearer token","instance":"/auth/access-management/users","serviceCode":"40100001"}
	// 201 application/json {"id":"user_ada","email":"ada@example.com"}
	// user_ada Ada ada@example.com
	// createUser requests: 2
}

// ProblemResponse builds an error response in the contract's problem
// format for an httpmock responder; members left empty are filled as the
// fake fills its own, so the document is valid against the contract.
func ExampleProblemResponse() {
	resp := sdktest.ProblemResponse(http.StatusNotFound, apierrors.Problem{
		Detail:        "No provider user user_404",
		ServiceErrors: []apierrors.ServiceError{{Detail: "unknown user", Pointer: "/userId"}},
	})
	body, _ := io.ReadAll(resp.Body)
	fmt.Println(resp.StatusCode, resp.Header.Get("Content-Type"))
	fmt.Println(string(body))
	// Output:
	// 404 application/problem+json
	// {"type":"https://sdktest.memberplatform.invalid/problems/not-found","title":"Not Found","status":404,"detail":"No provider user user_404","serviceCode":"40400001","serviceErrors":[{"detail":"unknown user","pointer":"/userId"}]}
}

// ProblemResponder stubs an access-management error for a client that
// sends through an httpmock transport.
func ExampleProblemResponder() {
	mt := httpmock.NewMockTransport()
	mt.RegisterResponder(http.MethodPut, "https://api.example.test/auth/access-management/users/user_1",
		sdktest.ProblemResponder(http.StatusTooManyRequests, apierrors.Problem{
			Detail: "The configured access provider rate limited the request",
		}).HeaderSet(http.Header{"Retry-After": {"30"}}))
	c, err := client.New(
		option.WithBaseURL("https://api.example.test"),
		option.WithTransport(mt),
		option.WithTokenSource(client.StaticToken("test-token")),
		option.WithMaxRetries(0),
	)
	if err != nil {
		fmt.Println("error:", err)
		return
	}

	_, err = c.AccessMgmt.UpdateUser(context.Background(), "user_1", accessmgmt.UpdateUserParams{FirstName: new("Ada")})
	var apiErr *apierrors.Error
	if errors.As(err, &apiErr) && errors.Is(err, apierrors.ErrRateLimited) {
		fmt.Println("rate limited:", apiErr.Problem.ServiceCode, apiErr.Problem.Detail, "retry after", apiErr.RetryAfter)
	}
	// Output:
	// rate limited: 42900001 The configured access provider rate limited the request retry after 30s
}

// CodeMessageResponder stubs the member-address operation's validation
// error, in its code/message format, with field errors.
func ExampleCodeMessageResponder() {
	const memberID = "6f1c2d3e-4a5b-4c6d-8e7f-9a0b1c2d3e4f"
	mt := httpmock.NewMockTransport()
	mt.RegisterResponder(http.MethodPost, "https://api.example.test/customer/members/"+memberID+"/address",
		sdktest.CodeMessageResponder(http.StatusBadRequest, apierrors.CodeMessage{
			Message: "Validation failed",
			Errors:  []apierrors.CodeMessageFieldError{{Field: "postcode", Message: "is not a postcode in NSW"}},
		}))
	c, err := client.New(
		option.WithBaseURL("https://api.example.test"),
		option.WithTransport(mt),
		option.WithTokenSource(client.StaticToken("test-token")),
	)
	if err != nil {
		fmt.Println("error:", err)
		return
	}

	_, err = c.Customer.UpsertMemberAddress(context.Background(), memberID, customer.UpsertMemberAddressParams{
		AddressLineOne: "1 George St", State: "NSW", Suburb: "Sydney", Postcode: "3000", Country: "AU",
	})
	var apiErr *apierrors.Error
	if errors.As(err, &apiErr) && errors.Is(err, apierrors.ErrBadRequest) {
		fmt.Println(apiErr.CodeMessage.Code, apiErr.CodeMessage.Message)
		for _, f := range apiErr.FieldErrors() {
			fmt.Println(" -", f)
		}
	}
	// Output:
	// VALIDATION_ERROR Validation failed
	//  - postcode: is not a postcode in NSW
}
