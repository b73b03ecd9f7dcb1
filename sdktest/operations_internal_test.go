package sdktest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/memberplatform/memberplatform-go/internal/core"
)

// The fake routes every operation the SDK declares and answers its errors
// in its declared format by itself; what stays written by hand per
// operation is its behaviour (handlers) and its Op* constant, side by side
// in handlers.go. These tests fail when a declared operation lacks one.

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

// TestEveryOperationHasAnOpConstant reads the package's source: constants
// cannot be listed at run time.
func TestEveryOperationHasAnOpConstant(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	consts := map[string]string{} // value -> name
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(token.NewFileSet(), f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(file, func(n ast.Node) bool {
			if spec, ok := n.(*ast.ValueSpec); ok && len(spec.Values) == len(spec.Names) {
				for i, name := range spec.Names {
					if lit, ok := spec.Values[i].(*ast.BasicLit); ok && strings.HasPrefix(name.Name, "Op") {
						v, _ := strconv.Unquote(lit.Value)
						consts[v] = name.Name
					}
				}
			}
			return true
		})
	}
	for _, op := range core.Operations() {
		if consts[op.Name] == "" {
			t.Errorf("%s is declared but no Op* constant names it: add one beside the others in sdktest/handlers.go", op.Name)
		}
		delete(consts, op.Name)
	}
	for v, name := range consts {
		t.Errorf("%s = %q names no declared operation", name, v)
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
