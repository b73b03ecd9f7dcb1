package client_test

import (
	"go/ast"
	"go/doc"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memberplatform/memberplatform-go/internal/core"
)

// serviceMethodDoc returns the godoc of method of type Service in the
// package in directory dir, its whitespace collapsed to single spaces.
func serviceMethodDoc(t *testing.T, dir, method string) string {
	t.Helper()
	p := packageDoc(t, dir)
	for _, typ := range p.Types {
		if typ.Name != "Service" {
			continue
		}
		for _, m := range typ.Methods {
			if m.Name == method {
				return strings.Join(strings.Fields(m.Doc), " ")
			}
		}
	}
	t.Fatalf("%s: no method Service.%s", dir, method)
	return ""
}

// Each operation's godoc names the HTTP request it sends, as its
// declaration says, so a user writing an httpmock responder from `go doc`
// finds the method and path without the README or api/openapi.yaml.
func TestOperationGodocNamesItsRequest(t *testing.T) {
	checked := 0
	for _, op := range core.Operations() {
		if goMethod(op) == "" {
			continue // no method of its own (the token call)
		}
		pkg, method, _ := strings.Cut(op.Name, ".")
		got := serviceMethodDoc(t, filepath.Join("..", pkg), method)
		if want := op.Method + " " + op.Path; !strings.Contains(got, want) {
			t.Errorf("the godoc of %s does not name its request %q: add \"It sends %s ...\"", op.Name, want, want)
		}
		checked++
	}
	if checked < 4 {
		t.Errorf("checked %d operations' godoc, want every operation with a method (4 or more)", checked)
	}
}

// packageDoc parses the non-test Go files of the package in directory dir
// with their comments, as godoc reads them.
func packageDoc(t *testing.T, dir string) *doc.Package {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	var files []*ast.File
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".go") || strings.HasSuffix(e.Name(), "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, e.Name()), nil, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	p, err := doc.NewFromFiles(fset, files, "example.com/"+filepath.Base(dir))
	if err != nil {
		t.Fatal(err)
	}
	return p
}
