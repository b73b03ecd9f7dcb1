package client_test

import (
	"encoding/json"
	"errors"
	"net/http"
	"sync/atomic"
	"testing"

	"github.com/memberplatform/memberplatform-go/accessmgmt"
	apierrors "github.com/memberplatform/memberplatform-go/errors"
	"github.com/memberplatform/memberplatform-go/option"
	"github.com/memberplatform/memberplatform-go/sdktest"
)

// Execute against the fake platform: endpoints added with HandleFunc sit
// behind the same SigV4-minted token, faults and error formats as the
// wrapped ones.
func TestExecuteAgainstSdktest(t *testing.T) {
	t.Parallel()
	srv := sdktest.NewServer(t)
	const create = "POST /auth/access-management/users"
	const lookup = "GET /auth/access-management/users/{id}/profile"
	srv.HandleFunc(create, func(w http.ResponseWriter, r *http.Request) {
		var in struct{ Email string }
		if json.NewDecoder(r.Body).Decode(&in) != nil || in.Email == "" {
			sdktest.WriteCodeMessage(w, http.StatusUnprocessableEntity, apierrors.CodeMessage{Code: "VALIDATION_ERROR", Message: "invalid user",
				Errors: []apierrors.CodeMessageFieldError{{Field: "email", Message: "is required"}}})
			return
		}
		u := srv.AddUser(accessmgmt.ProviderUser{ID: "user_new", Email: in.Email})
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusCreated)
		_ = json.NewEncoder(w).Encode(u)
	})
	srv.HandleFunc(lookup, func(w http.ResponseWriter, r *http.Request) {
		u, ok := srv.User(r.PathValue("id"))
		if !ok {
			sdktest.WriteProblem(w, http.StatusNotFound, apierrors.Problem{Detail: "no user " + r.PathValue("id")})
			return
		}
		_ = json.NewEncoder(w).Encode(u)
	})
	var attempts atomic.Int32
	count := func(req *http.Request, next option.MiddlewareNext) (*http.Response, error) {
		if req.URL.Path != "/auth/token" {
			attempts.Add(1)
		}
		return next(req)
	}
	c, err := srv.NewClient(option.WithMiddleware(count))
	if err != nil {
		t.Fatal(err)
	}

	var created accessmgmt.ProviderUser
	if err := c.Execute(t.Context(), http.MethodPost, "/auth/access-management/users", map[string]string{"email": "ada@example.com"}, &created); err != nil {
		t.Fatal(err)
	}
	if created.ID != "user_new" || created.Email != "ada@example.com" {
		t.Fatalf("created = %+v", created)
	}

	err = c.Execute(t.Context(), http.MethodGet, "/auth/access-management/users/nobody/profile", nil, nil)
	var apiErr *apierrors.Error
	if !errors.Is(err, apierrors.ErrNotFound) || !errors.As(err, &apiErr) || apiErr.Problem == nil || apiErr.Problem.Detail != "no user nobody" {
		t.Fatalf("404: %v", err)
	}

	err = c.Execute(t.Context(), http.MethodPost, "/auth/access-management/users", map[string]string{}, nil)
	if fields := apierrors.FieldErrorsOf(err); !errors.Is(err, apierrors.ErrUnprocessableEntity) || len(fields) != 1 || fields[0].Field != "email" {
		t.Fatalf("422: %v, fields %+v", err, fields)
	}

	// Two scripted 503s, then the real answer: three attempts, one token.
	attempts.Store(0)
	srv.FailNext(2, sdktest.Fault{Operation: lookup, Status: http.StatusServiceUnavailable})
	var fetched accessmgmt.ProviderUser
	var resp *http.Response
	if err := c.Execute(t.Context(), http.MethodGet, "/auth/access-management/users/user_new/profile", nil, &fetched, option.WithResponseInto(&resp)); err != nil {
		t.Fatal(err)
	}
	if attempts.Load() != 3 || fetched.ID != "user_new" || resp.StatusCode != http.StatusOK {
		t.Fatalf("%d attempts, fetched %+v, status %d; want 3 attempts and the user", attempts.Load(), fetched, resp.StatusCode)
	}
	if n := srv.TokenRequests(); n != 1 {
		t.Fatalf("%d token requests, want 1", n)
	}
}
