package sdktest

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/memberplatform/memberplatform-go/internal/core"
	"github.com/memberplatform/memberplatform-go/internal/opconst"
)

// The fake routes every operation the SDK declares and answers its errors
// in its declared format by itself; what stays written by hand per
// operation is its behaviour (handlers, in handlers.go); its Op* constant
// is generated. These tests fail when a declared operation lacks either.

func TestEveryOperationHasAHandler(t *testing.T) {
	handlers := (&Server{}).handlers()
	for _, op := range core.Operations() {
		if handlers[op.Name] == nil {
			t.Errorf("%s is declared but has no handler in (*Server).handlers (sdktest/handlers.go): sdktest answers it 501", op.Name)
		}
		delete(handlers, op.Name)
	}
	for name := range handlers {
		t.Errorf("handler %q serves no declared operation", name)
	}
}

// TestOpConstantsAreGenerated: the Op* constants are generated from the
// declarations, a new operation's included.
func TestOpConstantsAreGenerated(t *testing.T) {
	want, err := opconst.Source(core.Operations())
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(opconst.File)
	if err != nil || !bytes.Equal(got, want) {
		t.Errorf("sdktest/%s is not what the declared operations give (%v): run go generate ./sdktest", opconst.File, err)
	}
}

// A declared operation the fake has no handler for answers 501 Not
// Implemented in its own error format, naming it: the rest of the fake
// keeps working, and the SDK reports errors.ErrNotImplemented.
func TestOperationWithoutAHandler(t *testing.T) {
	s := NewServer(t, WithoutAuth())
	handlers := s.handlers()
	delete(handlers, OpUpdateUser)
	for _, tc := range []struct {
		path, body string
		status     int
		want       []string
	}{
		{"/auth/access-management/users/u", `{"firstName":"A"}`, http.StatusNotImplemented,
			[]string{`"detail":"sdktest does not implement accessmgmt.UpdateUser yet"`, `"serviceCode":"50100001"`}},
		{"/auth/access-management/organizations/o/roles/org-a/permissions", `{"permissions":[]}`, http.StatusNotFound,
			[]string{`"detail":"organization o not found"`}},
	} {
		rec := httptest.NewRecorder()
		s.routes(handlers).ServeHTTP(rec, httptest.NewRequest(http.MethodPut, tc.path, strings.NewReader(tc.body)))
		for _, want := range tc.want {
			if rec.Code != tc.status || !strings.Contains(rec.Body.String(), want) {
				t.Errorf("PUT %s: %d %s; want %d with %s", tc.path, rec.Code, rec.Body, tc.status, want)
			}
		}
	}
}
