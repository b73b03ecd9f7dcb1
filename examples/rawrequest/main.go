// Command rawrequest calls an endpoint the SDK does not wrap — a
// createUser-style POST, which the contract names without showing its shape —
// through client.Client.Execute, against an in-process sdktest platform
// whose HandleFunc fakes the endpoint behind the same authentication. The
// call gets everything the wrapped operations get: the cached SigV4-minted
// token, retries for idempotent methods, and typed errors in both formats.
//
//	go run ./examples/rawrequest
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"

	"github.com/memberplatform/memberplatform-go/accessmgmt"
	apierrors "github.com/memberplatform/memberplatform-go/errors"
	"github.com/memberplatform/memberplatform-go/option"
	"github.com/memberplatform/memberplatform-go/sdktest"
)

func main() {
	if err := run(context.Background(), os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "rawrequest:", err)
		os.Exit(1)
	}
}

// newUser is the createUser request body as this service understands it.
type newUser struct {
	Email     string `json:"email"`
	FirstName string `json:"firstName,omitempty"`
}

func run(ctx context.Context, w io.Writer) (err error) {
	out := new(strings.Builder) // written to w at the end; a failed write fails run
	defer func() { _, werr := io.WriteString(w, out.String()); err = errors.Join(err, werr) }()
	srv := sdktest.Start()
	defer srv.Close()
	fakeCreateUser(srv)
	c, err := srv.NewClient()
	if err != nil {
		return err
	}

	// The call itself: five lines.
	var created accessmgmt.ProviderUser
	err = c.Execute(ctx, http.MethodPost, "/auth/access-management/users", newUser{Email: "ada@example.com", FirstName: "Ada"}, &created)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "created %s <%s>\n", created.ID, created.Email)

	// A GET of the new user's profile: path segments are escaped by the caller.
	var fetched accessmgmt.ProviderUser
	var resp *http.Response
	path := "/auth/access-management/users/" + url.PathEscape(created.ID) + "/profile"
	if err := c.Execute(ctx, http.MethodGet, path, nil, &fetched, option.WithResponseInto(&resp)); err != nil {
		return err
	}
	fmt.Fprintf(out, "fetched %s (%s), status %d\n", fetched.ID, fetched.FirstName, resp.StatusCode)

	// Errors are the SDK's typed errors, whatever the endpoint.
	err = c.Execute(ctx, http.MethodPost, "/auth/access-management/users", newUser{}, nil)
	var apiErr *apierrors.Error
	if errors.Is(err, apierrors.ErrUnprocessableEntity) && errors.As(err, &apiErr) {
		for _, f := range apierrors.FieldErrorsOf(err) {
			fmt.Fprintf(out, "refused: %d %s: %s\n", apiErr.StatusCode, f.Field, f.Message)
		}
	}

	// A path that would leave the base URL is refused before sending.
	err = c.Execute(ctx, http.MethodGet, "/auth/../admin", nil, nil)
	fmt.Fprintln(out, "invalid input:", errors.Is(err, apierrors.ErrInvalidInput))
	fmt.Fprintln(out, "token requests:", srv.TokenRequests())
	return nil
}

// fakeCreateUser adds createUser and a user lookup to the fake platform.
func fakeCreateUser(srv *sdktest.Server) {
	srv.HandleFunc("POST /auth/access-management/users", func(w http.ResponseWriter, r *http.Request) {
		var in newUser
		if err := json.NewDecoder(r.Body).Decode(&in); err != nil || in.Email == "" {
			sdktest.WriteProblem(w, http.StatusUnprocessableEntity, apierrors.Problem{
				Detail:        "the user cannot be created",
				ServiceErrors: []apierrors.ServiceError{{Detail: "is required", Pointer: "/email"}},
			})
			return
		}
		u := srv.AddUser(accessmgmt.ProviderUser{ID: "user_ada", Email: in.Email, FirstName: in.FirstName})
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusCreated)
		_ = json.NewEncoder(w).Encode(u)
	})
	srv.HandleFunc("GET /auth/access-management/users/{id}/profile", func(w http.ResponseWriter, r *http.Request) {
		u, ok := srv.User(r.PathValue("id"))
		if !ok {
			sdktest.WriteProblem(w, http.StatusNotFound, apierrors.Problem{Detail: "no such user"})
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(u)
	})
}
