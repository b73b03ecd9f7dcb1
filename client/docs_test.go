package client_test

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/memberplatform/memberplatform-go/client"
	"github.com/memberplatform/memberplatform-go/internal/core"
)

// readmeMaxBytes bounds the README: a landing page (what the SDK is,
// install, the two commands, the operations, the common tasks, links),
// whose depth lives in docs/*.md.
const readmeMaxBytes = 25_000

// readREADME returns the repository's README.md.
func readREADME(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// readmeSection returns the text under the README's "## title" heading,
// up to the next "## " heading.
func readmeSection(t *testing.T, readme, title string) string {
	t.Helper()
	_, sec, ok := strings.Cut(readme, "\n## "+title+"\n")
	if !ok {
		t.Fatalf("README.md has no %q section", "## "+title)
	}
	sec, _, _ = strings.Cut(sec, "\n## ")
	return sec
}

// errorFormats is how the operations table states each error format, with
// the sdktest responder that answers in it.
var errorFormats = map[core.ErrorFormat]string{
	core.ProblemErrors:     "RFC 9457 problem, `serviceCode` of 8 digits (`sdktest.ProblemResponder`)",
	core.ProblemTextErrors: "RFC 9457 problem, free-form `serviceCode` (`sdktest.ProblemResponder`)",
	core.CodeMessageErrors: "code/message (`sdktest.CodeMessageResponder`)",
}

// goMethod returns how a user calls op: c.Field.Method, the Client field
// being the Service of op's package (the part of its name before the dot)
// and Method a method of it; "" for an operation no method is (the token
// call).
func goMethod(op *core.Operation) string {
	pkg, method, _ := strings.Cut(op.Name, ".")
	ct := reflect.TypeFor[client.Client]()
	for i := range ct.NumField() {
		f := ct.Field(i)
		if !f.IsExported() || f.Type.Kind() != reflect.Pointer || f.Type.Elem().Kind() != reflect.Struct {
			continue
		}
		if filepath.Base(f.Type.Elem().PkgPath()) != pkg {
			continue
		}
		if _, ok := f.Type.MethodByName(method); ok {
			return "`c." + f.Name + "." + method + "`"
		}
	}
	return ""
}

// wantOperationRow returns the cells the README's operations table must
// hold for op, derived from its declaration: the Go method (for the token
// call, a first cell starting with its name), the HTTP method and path,
// the error format and whether it is retried.
func wantOperationRow(t *testing.T, op *core.Operation) (first string, exact bool, rest []string) {
	t.Helper()
	format, ok := errorFormats[op.Errors]
	if !ok {
		t.Fatalf("%s: error format %d has no wording in errorFormats: add one", op.Name, op.Errors)
	}
	retried := "yes"
	if !op.Idempotent {
		retried = "no (not idempotent)"
	}
	rest = []string{"`" + op.Method + " " + op.Path + "`", format, retried}
	if m := goMethod(op); m != "" {
		return m, true, rest
	}
	return "`" + op.Name + "`", false, rest
}

// The README's operations table has one row per declared operation, its
// cells derived from the declaration (core.Operations), and no other row:
// a new operation fails here with the row to add.
func TestDocsNameEveryOperation(t *testing.T) {
	table := readmeSection(t, readREADME(t), "Operations")
	var rows [][]string
	for _, line := range strings.Split(table, "\n") {
		if !strings.HasPrefix(line, "| `") {
			continue // text, the header and its rule
		}
		cells := strings.Split(strings.Trim(line, "|"), " | ")
		for i := range cells {
			cells[i] = strings.TrimSpace(cells[i])
		}
		rows = append(rows, cells)
	}
	used := make([]bool, len(rows))
	for _, op := range core.Operations() {
		first, exact, rest := wantOperationRow(t, op)
		want := "| " + first + " | " + strings.Join(rest, " | ") + " |"
		if !exact {
			want = "| " + first + ", what calls it | " + strings.Join(rest, " | ") + " |"
		}
		found := -1
		for i, r := range rows {
			if r[0] == first || (!exact && strings.HasPrefix(r[0], first)) {
				found = i
			}
		}
		if found < 0 {
			t.Errorf("README.md's Operations table has no row for %s: add\n%s", op.Name, want)
			continue
		}
		used[found] = true
		if got := rows[found][1:]; !reflect.DeepEqual(got, rest) {
			t.Errorf("README.md's Operations row of %s says %q; its declaration says\n%s", op.Name, got, want)
		}
	}
	for i, r := range rows {
		if !used[i] {
			t.Errorf("README.md's Operations table has a row %q that no declared operation matches: remove it, or declare the operation", r[0])
		}
	}
	if len(rows) == 0 {
		t.Fatal("README.md's Operations section has no table rows")
	}
}

// The README stays a landing page: its depth goes to docs/*.md.
func TestREADMEIsALandingPage(t *testing.T) {
	readme := readREADME(t)
	if n := len(readme); n > readmeMaxBytes {
		t.Errorf("README.md is %d bytes, over the %d of a landing page: move depth to a document under docs/ and link it", n, readmeMaxBytes)
	}
	for _, title := range []string{"Install", "The two commands", "Operations", "Usage", "Documentation"} {
		readmeSection(t, readme, title)
	}
	for _, cmd := range []string{"go run ./examples/quickstart", "go test ./..."} {
		if !strings.Contains(readme, "\n"+cmd+"\n") {
			t.Errorf("README.md does not give the command %q on a line of its own", cmd)
		}
	}
}

// Every relative link of the README and of docs/*.md names a file that
// exists, so moving a document cannot leave a link behind.
func TestDocsLinksResolve(t *testing.T) {
	link := regexp.MustCompile(`\]\(([^)#\s]+)(#[^)\s]*)?\)`)
	for _, doc := range docFiles(t) {
		text, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range link.FindAllStringSubmatch(string(text), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			if _, err := os.Stat(filepath.Join(filepath.Dir(doc), target)); err != nil {
				t.Errorf("%s links to %s: %v", doc, target, fmt.Sprint(err))
			}
		}
	}
}
