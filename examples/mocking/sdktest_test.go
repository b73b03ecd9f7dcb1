package mocking_test

import (
	"errors"
	"testing"

	"github.com/memberplatform/memberplatform-go/examples/mocking"
	"github.com/memberplatform/memberplatform-go/sdktest"
)

func TestDirectoryAgainstFakePlatform(t *testing.T) {
	t.Parallel()
	srv := sdktest.NewServer(t)
	srv.AddUser(sdktest.User{ID: "user_1", Email: "ada@example.com"})
	srv.AddUser(sdktest.User{ID: "user_2", Email: "grace@example.com"})
	d := &mocking.Directory{Client: srv.Client()}

	name, err := d.Rename(t.Context(), "user_1", "Ada Lovelace")
	if err != nil {
		t.Fatal(err)
	}
	if u, _ := srv.User("user_1"); name != "Ada Lovelace" || u.LastName != "Lovelace" {
		t.Errorf("name %q, stored %+v", name, u)
	}

	if err := d.ChangeEmail(t.Context(), "user_1", "grace@example.com"); !errors.Is(err, mocking.ErrEmailTaken) {
		t.Errorf("taken email: err = %v", err)
	}
	if _, err := d.Rename(t.Context(), "user_9", "X"); !errors.Is(err, mocking.ErrNoSuchUser) {
		t.Errorf("unknown user: err = %v", err)
	}
	if u, _ := srv.User("user_1"); u.Email != "ada@example.com" {
		t.Errorf("failed change altered the email: %+v", u)
	}
}

func TestDirectorySurvivesTransientFailures(t *testing.T) {
	t.Parallel()
	srv := sdktest.NewServer(t)
	srv.AddUser(sdktest.User{ID: "user_1", Email: "ada@example.com"})
	d := &mocking.Directory{Client: srv.Client()}
	srv.FailNext(1, sdktest.Fault{Reset: true})
	srv.FailNext(1, sdktest.Fault{Status: 503})
	if _, err := d.Rename(t.Context(), "user_1", "Ada"); err != nil {
		t.Fatalf("transient failures were not retried: %v", err)
	}
	if n := srv.RequestCount(sdktest.OpUpdateUser); n != 3 {
		t.Errorf("attempts = %d, want 3", n)
	}
}
