package exampletest

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// examples/mocking is the pattern the README tells users to copy into their
// own modules, where an internal/ package of this module cannot be
// imported: none of its files, tests included, may import one. The
// project's own checks of it (such as a goroutine leak check) live here or
// in the packages it uses, not beside it.
func TestMockingExampleImportsNoInternalPackage(t *testing.T) {
	root := filepath.Join("..", "..", "examples", "mocking")
	files := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") {
			return err
		}
		files++
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if p == "internal" || strings.HasPrefix(p, "internal/") || strings.Contains(p, "/internal/") || strings.HasSuffix(p, "/internal") {
				t.Errorf("%s imports %s: a user who copies examples/mocking into their module cannot import it; use the SDK's public packages (sdktest, option, ...), and put project-only checks outside examples/mocking", path, p)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 3 {
		t.Fatalf("found %d Go files under %s, want the example's (at least 3)", files, root)
	}
}
