package client_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// errorKinds returns the exported Err* variables of package errors, read
// from its source.
func errorKinds(t *testing.T) []string {
	t.Helper()
	p := packageDoc(t, filepath.Join("..", "errors"))
	var kinds []string
	for _, v := range p.Vars {
		for _, name := range v.Names {
			if strings.HasPrefix(name, "Err") {
				kinds = append(kinds, name)
			}
		}
	}
	return kinds
}

// docs/errors.md, which the README calls the place for "every error kind",
// has a row for each kind package errors exports: a new kind fails here.
func TestDocsErrorsNameEveryKind(t *testing.T) {
	text, err := os.ReadFile("../docs/errors.md")
	if err != nil {
		t.Fatal(err)
	}
	kinds := errorKinds(t)
	if len(kinds) < 15 {
		t.Fatalf("found %d Err* kinds in package errors, want 15 or more: %v", len(kinds), kinds)
	}
	for _, k := range kinds {
		if !strings.Contains(string(text), "\n| `"+k+"` | ") {
			t.Errorf("docs/errors.md's table of kinds has no row for %s: add \"| `%s` | what matches it |\"", k, k)
		}
	}
}
