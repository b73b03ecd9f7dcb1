package option_test

import (
	"context"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/aws/aws-sdk-go-v2/credentials"

	"github.com/memberplatform/memberplatform-go/accessmgmt"
	"github.com/memberplatform/memberplatform-go/client"
	"github.com/memberplatform/memberplatform-go/option"
	"github.com/memberplatform/memberplatform-go/sdktest"
)

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

func ExampleWithResponseInto() {
	srv := sdktest.Start()
	defer srv.Close()
	srv.AddUser(sdktest.User{ID: "user_1", Email: "ada@example.com"})
	c, err := srv.NewClient()
	if err != nil {
		log.Fatal(err)
	}

	// The final response of a successful call: its status and the request
	// ID to quote when talking to the platform's operators.
	var resp *http.Response
	_, err = c.AccessMgmt.UpdateUser(context.Background(), "user_1", accessmgmt.UpdateUserParams{FirstName: new("Ada")},
		option.WithResponseInto(&resp))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(resp.StatusCode, resp.Header.Get("X-Request-Id") != "", resp.Request.Header.Get("Authorization"))
	// Output: 200 true [REDACTED]
}

func ExampleWithMiddleware() {
	srv := sdktest.Start()
	defer srv.Close()
	srv.AddUser(sdktest.User{ID: "user_1", Email: "ada@example.com"})
	srv.FailNext(1, sdktest.Fault{Status: http.StatusServiceUnavailable}) // one 503, then the real answer

	// The middleware runs once per attempt, after the token is set, and for
	// the SigV4 token request too (sdktest's clients use SigV4): here it
	// records what each attempt sent and got.
	var attempts []string
	trace := func(req *http.Request, next option.MiddlewareNext) (*http.Response, error) {
		resp, err := next(req)
		if err == nil {
			attempts = append(attempts, fmt.Sprintf("%s %s %d retry=%q bearer=%t", req.Method, req.URL.Path, resp.StatusCode,
				req.Header.Get("X-Retry-Attempt"), strings.HasPrefix(req.Header.Get("Authorization"), "Bearer ")))
		}
		return resp, err
	}
	c, err := srv.NewClient(option.WithMiddleware(trace))
	if err != nil {
		log.Fatal(err)
	}
	if _, err := c.AccessMgmt.UpdateUser(context.Background(), "user_1", accessmgmt.UpdateUserParams{FirstName: new("Ada")}); err != nil {
		log.Fatal(err)
	}
	fmt.Println(strings.Join(attempts, "\n"))
	// Output:
	// POST /auth/token 200 retry="" bearer=false
	// PUT /auth/access-management/users/user_1 503 retry="" bearer=true
	// PUT /auth/access-management/users/user_1 200 retry="1" bearer=true
}

// A request field the platform accepts before the SDK knows it: the
// platform receives it beside the typed fields. (sdktest, like a platform
// that does not know a field, answers 400 to a member it does not know:
// this platform is one that does.)
func ExampleWithJSONSet() {
	platform := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		fmt.Println("the platform receives:", string(body))
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"id":"user_1","email":"ada@example.com","firstName":"Ada"}`)
	}))
	defer platform.Close()
	c, err := client.New(option.WithBaseURL(platform.URL), option.WithTokenSource(nil))
	if err != nil {
		log.Fatal(err)
	}

	_, err = c.AccessMgmt.UpdateUser(context.Background(), "user_1", accessmgmt.UpdateUserParams{FirstName: new("Ada")},
		option.WithJSONSet("department", "Research"), option.WithJSONSet("groups", []string{"finance", "ops"}))
	if err != nil {
		log.Fatal(err)
	}
	// Output: the platform receives: {"firstName":"Ada","department":"Research","groups":["finance","ops"]}
}

// A conflict that clears by itself (a version race): retried like a 503,
// for this call only.
func ExampleWithRetryOn() {
	srv := sdktest.Start()
	defer srv.Close()
	srv.AddUser(sdktest.User{ID: "user_1", Email: "ada@example.com"})
	srv.FailNext(1, sdktest.Fault{Operation: sdktest.OpUpdateUser, Status: http.StatusConflict})
	c, err := srv.NewClient()
	if err != nil {
		log.Fatal(err)
	}

	u, err := c.AccessMgmt.UpdateUser(context.Background(), "user_1", accessmgmt.UpdateUserParams{FirstName: new("Ada")},
		option.WithRetryOn(http.StatusConflict))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(u.FirstName, srv.Requests()[len(srv.Requests())-1].Status)
	// Output: Ada 200
}
