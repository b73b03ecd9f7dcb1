package client_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"

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

func ExampleClient_Execute() {
	srv := sdktest.Start()
	defer srv.Close()
	// An endpoint the SDK does not wrap, faked behind the same auth.
	srv.HandleFunc("POST /auth/access-management/users", func(w http.ResponseWriter, r *http.Request) {
		var u accessmgmt.ProviderUser
		_ = json.NewDecoder(r.Body).Decode(&u)
		u = srv.AddUser(accessmgmt.ProviderUser{ID: "user_ada", Email: u.Email})
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusCreated)
		_ = json.NewEncoder(w).Encode(u)
	})
	c, err := srv.NewClient()
	if err != nil {
		log.Fatal(err)
	}

	// The client's token cache, retries and error decoding apply.
	var created accessmgmt.ProviderUser
	err = c.Execute(context.Background(), http.MethodPost, "/auth/access-management/users",
		map[string]string{"email": "ada@example.com"}, &created)
	fmt.Println(created.ID, created.Email, err)
	// Output: user_ada ada@example.com <nil>
}

// Execute sends a []byte, json.RawMessage, string or io.Reader as the JSON
// text it holds, and encodes any other value with encoding/json.
func ExampleClient_Execute_rawBody() {
	srv := sdktest.Start()
	defer srv.Close()
	// An endpoint the SDK does not wrap that answers with what it received.
	srv.HandleFunc("POST /auth/access-management/users", func(w http.ResponseWriter, r *http.Request) {
		got, _ := io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusCreated)
		_, _ = fmt.Fprintf(w, `{"contentType":%q,"received":%s}`, r.Header.Get("Content-Type"), got)
	})
	c, err := srv.NewClient()
	if err != nil {
		log.Fatal(err)
	}

	ctx := context.Background()
	for _, body := range []any{
		strings.NewReader(`{"email":"reader@example.com"}`), // read once; a retry resends the same bytes
		[]byte(`{"email":"bytes@example.com"}`),
		`{"email":"string@example.com"}`,
		map[string]string{"email": "map@example.com"}, // encoded to JSON
	} {
		var echo []byte // a *[]byte receives the raw 2xx body
		if err := c.Execute(ctx, http.MethodPost, "/auth/access-management/users", body, &echo); err != nil {
			log.Fatal(err)
		}
		fmt.Println(string(echo))
	}
	// Output:
	// {"contentType":"application/json","received":{"email":"reader@example.com"}}
	// {"contentType":"application/json","received":{"email":"bytes@example.com"}}
	// {"contentType":"application/json","received":{"email":"string@example.com"}}
	// {"contentType":"application/json","received":{"email":"map@example.com"}}
}

// RequestID reads a successful call's correlation ID from the headers the
// errors read it from: here an API gateway's X-Amzn-RequestId.
func ExampleRequestID() {
	gateway := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("X-Amzn-RequestId", "c6af9ac6-7b61-11e6-9a41-93e8deadbeef")
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"id":"user_1"}`)
	}))
	defer gateway.Close()
	c, err := client.New(option.WithBaseURL(gateway.URL), option.WithTokenSource(nil))
	if err != nil {
		log.Fatal(err)
	}
	defer c.CloseIdleConnections()

	var resp *http.Response
	var user struct{ ID string }
	if err := c.Execute(context.Background(), http.MethodGet, "/auth/access-management/users/user_1", nil, &user,
		option.WithResponseInto(&resp)); err != nil {
		log.Fatal(err)
	}
	fmt.Println(user.ID, client.RequestID(resp))
	// Output: user_1 c6af9ac6-7b61-11e6-9a41-93e8deadbeef
}
