package client_test

import (
	"context"
	"fmt"
	"log"

	"github.com/aws/aws-sdk-go-v2/credentials"

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

func ExampleWithSigV4() {
	srv := sdktest.Start(sdktest.WithCredentials("AKIDEXAMPLE", "example-secret", ""), sdktest.WithRegion("ap-southeast-2"))
	defer srv.Close()
	srv.AddUser(sdktest.User{ID: "user_1", Email: "ada@example.com"})

	// The client obtains its service JWT from POST /auth/token, signed with
	// SigV4, and refreshes it before it expires. Any aws.CredentialsProvider
	// works (profiles, SSO, instance roles).
	creds := credentials.NewStaticCredentialsProvider("AKIDEXAMPLE", "example-secret", "")
	c, err := client.New(option.WithBaseURL(srv.URL), option.WithSigV4(creds, "ap-southeast-2"))
	if err != nil {
		log.Fatal(err)
	}
	for range 3 {
		if _, err := c.AccessMgmt.UpdateUser(context.Background(), "user_1", accessmgmt.UpdateUserParams{FirstName: new("Ada")}); err != nil {
			log.Fatal(err)
		}
	}
	fmt.Println("token requests:", srv.TokenRequests())
	// Output: token requests: 1
}

func ExampleWithTokenSource_localDevelopment() {
	srv := sdktest.Start(sdktest.WithoutAuth()) // like a platform in local-development mode
	defer srv.Close()
	srv.AddUser(sdktest.User{ID: "user_1", Email: "ada@example.com"})

	c, err := client.New(option.WithBaseURL(srv.URL), option.WithTokenSource(nil)) // no Authorization header
	if err != nil {
		log.Fatal(err)
	}
	_, err = c.AccessMgmt.UpdateUser(context.Background(), "user_1", accessmgmt.UpdateUserParams{LastName: new("Lovelace")})
	fmt.Println(err, srv.Requests()[0].Header.Get("Authorization") == "")
	// Output: <nil> true
}
