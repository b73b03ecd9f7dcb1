package mocking_test

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"testing"

	"github.com/jarcoal/httpmock"

	"github.com/memberplatform/memberplatform-go/accessmgmt"
	"github.com/memberplatform/memberplatform-go/client"
	apierrors "github.com/memberplatform/memberplatform-go/errors"
	"github.com/memberplatform/memberplatform-go/examples/mocking"
	"github.com/memberplatform/memberplatform-go/option"
	"github.com/memberplatform/memberplatform-go/sdktest"
)

const baseURL = "https://api.example.test"

// newMockedDirectory returns a Directory whose client sends through a
// private httpmock transport: no global state, safe with t.Parallel.
func newMockedDirectory(t *testing.T) (*mocking.Directory, *httpmock.MockTransport) {
	t.Helper()
	mt := httpmock.NewMockTransport()
	c, err := client.New(
		option.WithBaseURL(baseURL),
		option.WithTransport(mt),
		option.WithTokenSource(client.StaticToken("test-token")), // explicit: no env leaks in
		option.WithMaxRetries(0),
	)
	if err != nil {
		t.Fatal(err)
	}
	return &mocking.Directory{Client: c}, mt
}

func TestRenameSendsOnlyTheNames(t *testing.T) {
	t.Parallel()
	d, mt := newMockedDirectory(t)
	var sent map[string]any
	mt.RegisterResponder(http.MethodPut, baseURL+"/auth/access-management/users/user_1",
		func(req *http.Request) (*http.Response, error) {
			if got := req.Header.Get("Authorization"); got != "Bearer test-token" {
				t.Errorf("Authorization = %q", got)
			}
			b, _ := io.ReadAll(req.Body)
			if err := json.Unmarshal(b, &sent); err != nil {
				t.Errorf("body %s: %v", b, err)
			}
			// The SDK's own type marshals to the resource's wire format.
			return httpmock.NewJsonResponse(http.StatusOK, accessmgmt.ProviderUser{
				ID: "user_1", Email: "ada@example.com", FirstName: "Ada", LastName: "Lovelace",
			})
		})

	name, err := d.Rename(t.Context(), "user_1", "Ada Lovelace")
	if err != nil {
		t.Fatal(err)
	}
	if name != "Ada Lovelace" {
		t.Errorf("name = %q", name)
	}
	if len(sent) != 2 || sent["firstName"] != "Ada" || sent["lastName"] != "Lovelace" {
		t.Errorf("request body = %v, want only firstName and lastName", sent)
	}
	if n := mt.GetTotalCallCount(); n != 1 {
		t.Errorf("calls = %d, want 1", n)
	}
}

func TestRenameUnknownUser(t *testing.T) {
	t.Parallel()
	d, mt := newMockedDirectory(t)
	// sdktest builds the problem document in the contract's wire format
	// (application/problem+json, serviceCode and the rest filled in).
	mt.RegisterResponder(http.MethodPut, baseURL+"/auth/access-management/users/user_404",
		sdktest.ProblemResponder(http.StatusNotFound, apierrors.Problem{Detail: "user not found"}))

	_, err := d.Rename(t.Context(), "user_404", "Nobody")
	if !errors.Is(err, mocking.ErrNoSuchUser) || !errors.Is(err, apierrors.ErrNotFound) {
		t.Errorf("err = %v, want ErrNoSuchUser wrapping the SDK's not found", err)
	}
}

func TestChangeEmailTaken(t *testing.T) {
	t.Parallel()
	d, mt := newMockedDirectory(t)
	mt.RegisterResponder(http.MethodPut, baseURL+"/auth/access-management/users/user_1",
		sdktest.ProblemResponder(http.StatusConflict, apierrors.Problem{
			Detail:        "email address is already used by another user",
			ServiceErrors: []apierrors.ServiceError{{Detail: "already used by another user", Pointer: "/email"}},
		}))

	err := d.ChangeEmail(t.Context(), "user_1", "grace@example.com")
	var apiErr *apierrors.Error
	if !errors.Is(err, mocking.ErrEmailTaken) || !errors.As(err, &apiErr) {
		t.Fatalf("err = %v, want ErrEmailTaken wrapping the SDK's conflict", err)
	}
	if fs := apiErr.FieldErrors(); len(fs) != 1 || fs[0].Field != "email" {
		t.Errorf("field errors = %v, want one on email", fs)
	}
}

func TestChangeEmailOddGatewayError(t *testing.T) {
	t.Parallel()
	d, mt := newMockedDirectory(t)
	mt.RegisterResponder(http.MethodPut, baseURL+"/auth/access-management/users/user_1",
		httpmock.NewStringResponder(http.StatusBadGateway, "<html><title>502 Bad Gateway</title></html>"))

	err := d.ChangeEmail(t.Context(), "user_1", "ada@example.com")
	var apiErr *apierrors.Error
	if !errors.As(err, &apiErr) || apiErr.StatusCode != http.StatusBadGateway || errors.Is(err, mocking.ErrNoSuchUser) {
		t.Errorf("err = %v", err)
	}
}

func TestInvalidEmailNeverSent(t *testing.T) {
	t.Parallel()
	d, mt := newMockedDirectory(t)
	err := d.ChangeEmail(t.Context(), "user_1", "not an email")
	if !errors.Is(err, apierrors.ErrInvalidInput) {
		t.Errorf("err = %v", err)
	}
	if n := mt.GetTotalCallCount(); n != 0 {
		t.Errorf("%d requests sent for invalid input", n)
	}
}
