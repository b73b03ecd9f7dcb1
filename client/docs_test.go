package client_test

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/memberplatform/memberplatform-go/internal/core"
)

// The README's usage section and the package list of the root package's
// doc name every declared operation by its method, such as UpdateUser (the
// token call aside: no method of the SDK is it), the list in its package's
// item ("  - accessmgmt: UpdateUser and ...").
func TestDocsNameEveryOperation(t *testing.T) {
	read := func(name string) string {
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	_, usage, _ := strings.Cut(read("../README.md"), "\n## Usage\n")
	usage, _, _ = strings.Cut(usage, "\n## ")
	doc := read("../doc.go")
	for _, op := range core.Operations() {
		pkg, method, _ := strings.Cut(op.Name, ".")
		if op.Name == "auth.Token" {
			continue
		}
		word := regexp.MustCompile(`\b` + method + `\b`)
		if !word.MatchString(usage) {
			t.Errorf("README.md's Usage section does not name %s", op.Name)
		}
		item := regexp.MustCompile(`(?m)^//   - ` + pkg + `:.*(\n//     .*)*`).FindString(doc)
		if !word.MatchString(item) {
			t.Errorf("doc.go's package list does not name %s in the item of package %s: %q", op.Name, pkg, item)
		}
	}
}
