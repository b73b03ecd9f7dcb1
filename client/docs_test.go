package client_test

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/memberplatform/memberplatform-go/internal/core"
)

// The README's usage section, the docs' one list of operations, names every
// declared operation by its method, such as UpdateUser (the token call
// aside: no method of the SDK is it). The area packages' godoc lists their
// methods by itself.
func TestDocsNameEveryOperation(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, usage, _ := strings.Cut(string(readme), "\n## Usage\n")
	usage, _, _ = strings.Cut(usage, "\n## ")
	for _, op := range core.Operations() {
		_, method, _ := strings.Cut(op.Name, ".")
		if op.Name == "auth.Token" {
			continue
		}
		if !regexp.MustCompile(`\b` + method + `\b`).MatchString(usage) {
			t.Errorf("README.md's Usage section does not name %s: add a short example of it under its area's heading", op.Name)
		}
	}
}
