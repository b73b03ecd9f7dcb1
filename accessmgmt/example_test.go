package accessmgmt_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"github.com/memberplatform/memberplatform-go/accessmgmt"
	apierrors "github.com/memberplatform/memberplatform-go/errors"
	"github.com/memberplatform/memberplatform-go/sdktest"
)

func ExampleService_UpdateUser() {
	srv := sdktest.Start() // an in-process fake platform; use client.New against a real one
	defer srv.Close()
	srv.AddUser(sdktest.User{ID: "user_01E4ZCR3C56J083X43JQXF3JK5", Email: "ada@example.com"})
	c, err := srv.NewClient()
	if err != nil {
		panic(err)
	}

	u, err := c.AccessMgmt.UpdateUser(context.Background(), "user_01E4ZCR3C56J083X43JQXF3JK5", accessmgmt.UpdateUserParams{
		FirstName:    new("Ada"),
		LastName:     new("Lovelace"),
		MobileNumber: new("+61412345678"),
	})
	if err != nil {
		panic(err)
	}
	fmt.Println(u.FirstName, u.LastName, u.Email, u.MobileNumber)
	// Output: Ada Lovelace ada@example.com +61412345678
}

func ExampleService_UpdateUser_errors() {
	srv := sdktest.Start()
	defer srv.Close()
	srv.AddUser(sdktest.User{ID: "user_1", Email: "ada@example.com"})
	srv.AddUser(sdktest.User{ID: "user_2", Email: "grace@example.com"})
	c, _ := srv.NewClient()
	ctx := context.Background()

	// Refused before sending: every invalid field is listed.
	_, err := c.AccessMgmt.UpdateUser(ctx, "user_1", accessmgmt.UpdateUserParams{MobileNumber: new("0412 345 678")})
	var ve *apierrors.ValidationError
	if errors.As(err, &ve) {
		fmt.Println(errors.Is(err, apierrors.ErrInvalidInput), ve.Fields)
	}

	// Answered by the platform.
	_, err = c.AccessMgmt.UpdateUser(ctx, "user_404", accessmgmt.UpdateUserParams{FirstName: new("N")})
	fmt.Println("not found:", errors.Is(err, apierrors.ErrNotFound))

	_, err = c.AccessMgmt.UpdateUser(ctx, "user_1", accessmgmt.UpdateUserParams{Email: new("grace@example.com")})
	var apiErr *apierrors.Error
	if errors.As(err, &apiErr) && errors.Is(err, apierrors.ErrConflict) {
		fmt.Println("conflict:", apiErr.StatusCode, apiErr.Problem.ServiceCode, apiErr.FieldErrors())
	}
	// Output:
	// true [mobileNumber: must be an E.164 number such as +61412345678]
	// not found: true
	// conflict: 409 40900001 [email: already used by another user]
}

func ExampleService_ReplaceRolePermissions() {
	srv := sdktest.Start()
	defer srv.Close()
	srv.AddRole("org_01EHZNVPK3SFK441A1RGBFSHRT", "org-support", "tickets:read")
	c, _ := srv.NewClient()

	// The set replaces the role's permissions; "tickets:write" is unknown to
	// the provider, so the platform creates it first.
	err := c.AccessMgmt.ReplaceRolePermissions(context.Background(), "org_01EHZNVPK3SFK441A1RGBFSHRT", "org-support",
		[]string{"tickets:read", "tickets:write"})
	if err != nil {
		panic(err)
	}
	perms, _ := srv.RolePermissions("org_01EHZNVPK3SFK441A1RGBFSHRT", "org-support")
	fmt.Println(perms, srv.CreatedPermissions())
	// Output: [tickets:read tickets:write] [tickets:write]
}

func ExampleService_ReplaceRolePermissions_providerNotConfigured() {
	srv := sdktest.Start()
	defer srv.Close()
	srv.AddRole("org_1", "org-admin")
	srv.SetProviderConfigured(false)
	c, _ := srv.NewClient()

	err := c.AccessMgmt.ReplaceRolePermissions(context.Background(), "org_1", "org-admin", []string{"users:read"})
	var apiErr *apierrors.Error
	if errors.Is(err, apierrors.ErrProviderNotConfigured) && errors.As(err, &apiErr) {
		// Not retried: configuration does not fix itself.
		fmt.Println(apiErr.StatusCode, apiErr.Attempts, apiErr.Temporary())
	}
	// Output: 503 1 false
}

// Pre-flight validation: check every input before the first write, with
// the same checks (and the same *errors.ValidationError) UpdateUser runs.
func ExampleUpdateUserParams_Validate() {
	batch := []accessmgmt.UpdateUserParams{
		{FirstName: new("Ada")},
		{MobileNumber: new("0412 345 678"), Email: new("ada at example.com")},
		{}, // nothing to change
	}
	for i, params := range batch {
		if err := params.Validate(); err != nil {
			fmt.Println(i, apierrors.FieldErrorsOf(err))
			continue
		}
		fmt.Println(i, "ok")
	}
	// Output:
	// 0 ok
	// 1 [mobileNumber: must be an E.164 number such as +61412345678 email: must be an email address such as ada@example.com]
	// 2 [params: at least one of mobileNumber, email, firstName or lastName must be set]
}

// A field the platform sends before the SDK knows it: decode RawJSON, the
// body the user was decoded from, into a struct of your own.
func ExampleProviderUser_RawJSON() {
	srv := sdktest.Start()
	defer srv.Close()
	// The platform's answer carries "department", which ProviderUser has no field for.
	srv.FailNext(1, sdktest.Fault{Operation: sdktest.OpUpdateUser, Status: http.StatusOK,
		Body: `{"id":"user_1","email":"ada@example.com","firstName":"Ada","department":"R&D"}`})
	c, err := srv.NewClient()
	if err != nil {
		panic(err)
	}

	u, err := c.AccessMgmt.UpdateUser(context.Background(), "user_1", accessmgmt.UpdateUserParams{FirstName: new("Ada")})
	if err != nil {
		panic(err)
	}
	var extra struct {
		Department string `json:"department"`
	}
	if err := json.Unmarshal(u.RawJSON(), &extra); err != nil {
		panic(err)
	}
	fmt.Println(u.FirstName, extra.Department)
	// Output: Ada R&D
}
