package client_test

import (
	"context"
	"fmt"
	"log"

	"github.com/memberplatform/memberplatform-go/accessmgmt"
	"github.com/memberplatform/memberplatform-go/client"
	"github.com/memberplatform/memberplatform-go/option"
	"github.com/memberplatform/memberplatform-go/sdktest"
)

func ExampleNew() {
	srv := sdktest.Start()
	defer srv.Close()
	srv.AddUser(sdktest.User{ID: "user_1", Email: "ada@example.com"})

	// In production: client.New() reads MEMBERPLATFORM_BASE_URL and
	// MEMBERPLATFORM_TOKEN or the AWS credentials. Here every setting is
	// explicit.
	c, err := client.New(
		option.WithBaseURL(srv.URL),
		option.WithTokenSource(client.StaticToken(srv.IssueToken())),
		option.WithAppInfo("billing-worker", "2.3.0"),
	)
	if err != nil {
		log.Fatal(err)
	}
	u, err := c.AccessMgmt.UpdateUser(context.Background(), "user_1", accessmgmt.UpdateUserParams{FirstName: new("Ada")})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(u.ID, u.FirstName)
	// Output: user_1 Ada
}
