// Package mocking is a tiny user service built on the SDK, with the two
// testing patterns users should copy:
//
//   - httpmock_test.go stubs the SDK's HTTP with
//     github.com/jarcoal/httpmock through option.WithTransport (no global
//     httpmock.Activate, so tests can run in parallel), to pin down exactly
//     which requests are sent and how odd responses are handled. Error
//     responses come from sdktest.ProblemResponder and
//     sdktest.CodeMessageResponder, and success bodies from the SDK's own
//     types, so no test writes the platform's wire format by hand;
//   - sdktest_test.go runs the service against package sdktest, the
//     in-process fake platform, to test behaviour end to end, token flow
//     and error formats included.
package mocking

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/memberplatform/memberplatform-go/accessmgmt"
	"github.com/memberplatform/memberplatform-go/client"
	apierrors "github.com/memberplatform/memberplatform-go/errors"
)

// ErrNoSuchUser is returned when the provider does not know the user.
var ErrNoSuchUser = errors.New("no such user")

// ErrEmailTaken is returned when another user already has the email.
var ErrEmailTaken = errors.New("email already taken")

// Directory renames users and changes their emails at the access provider.
type Directory struct {
	Client *client.Client
}

// Rename sets a user's names from a display name ("Ada Lovelace") and
// returns the name as the provider now holds it.
func (d *Directory) Rename(ctx context.Context, userID, displayName string) (string, error) {
	first, last, _ := strings.Cut(strings.TrimSpace(displayName), " ")
	p := accessmgmt.UpdateUserParams{FirstName: &first}
	if last != "" {
		p.LastName = &last
	}
	u, err := d.Client.AccessMgmt.UpdateUser(ctx, userID, p)
	if err != nil {
		return "", translate(err)
	}
	return strings.TrimSpace(u.FirstName + " " + u.LastName), nil
}

// ChangeEmail changes a user's email address.
func (d *Directory) ChangeEmail(ctx context.Context, userID, email string) error {
	_, err := d.Client.AccessMgmt.UpdateUser(ctx, userID, accessmgmt.UpdateUserParams{Email: &email})
	return translate(err)
}

// translate maps SDK errors to the service's own.
func translate(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, apierrors.ErrNotFound):
		return fmt.Errorf("%w: %w", ErrNoSuchUser, err)
	case errors.Is(err, apierrors.ErrConflict):
		return fmt.Errorf("%w: %w", ErrEmailTaken, err)
	}
	return fmt.Errorf("directory: %w", err)
}
