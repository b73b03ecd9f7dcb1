package client_test

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// The Go blocks of the README and of the topic documents under docs/
// compile: each is put in a function of a scratch package inside the module, beside the names the blocks take as given
// (readmeGivens), and the package is vetted. A block that cannot compile
// here says so on the line before its fence:
//
//	<!-- not compiled: why, and what compiles it instead -->

// readmeNotCompiled is the marker of a block left out, with its reason.
var readmeNotCompiled = regexp.MustCompile(`^<!-- not compiled: .+ -->$`)

// readmeGivens declares what the blocks use without declaring it: a
// context, a client, the last call's error, an ID and params, and
// placeholders for the user's own code.
const readmeGivens = `package readme

import (
	"context"
	"net/http"
	"time"

	"github.com/memberplatform/memberplatform-go/accessmgmt"
	"github.com/memberplatform/memberplatform-go/client"
)

var (
	ctx    = context.Background()
	c      *client.Client
	err    error
	id     string
	params accessmgmt.UpdateUserParams
	// metrics stands for the user's own metrics library.
	metrics interface{ Observe(method string, d time.Duration) }
	_       = http.MethodGet
)
`

// readmeImports are the packages the blocks may name, by the name they use.
var readmeImports = map[string]string{
	"context": "context", "errors": "errors", "fmt": "fmt", "log": "log", "http": "net/http", "os": "os", "time": "time",
	"strings": "strings", "json": "encoding/json", "slog": "log/slog",
	"memberplatform": "github.com/memberplatform/memberplatform-go",
	"accessmgmt":     "github.com/memberplatform/memberplatform-go/accessmgmt",
	"client":         "github.com/memberplatform/memberplatform-go/client",
	"customer":       "github.com/memberplatform/memberplatform-go/customer",
	"apierrors":      "github.com/memberplatform/memberplatform-go/errors",
	"option":         "github.com/memberplatform/memberplatform-go/option",
	"payments":       "github.com/memberplatform/memberplatform-go/payments",
	"observe":        "github.com/memberplatform/memberplatform-go/observe",
	"sdktest":        "github.com/memberplatform/memberplatform-go/sdktest",
	"nullable":       "github.com/oapi-codegen/nullable",
}

// docFiles are the documents whose Go blocks compile: the README and every
// topic document under docs/, as paths from this package's directory.
func docFiles(t *testing.T) []string {
	files, err := filepath.Glob("../docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	return append([]string{"../README.md"}, files...)
}

// readmeBlocks returns the Go blocks of the document at path and, apart,
// the lines of those marked as not compiled.
func readmeBlocks(t *testing.T, path string) (blocks []string, lines []int, skipped []int) {
	readme, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	all := strings.Split(string(readme), "\n")
	for i := 0; i < len(all); i++ {
		if all[i] != "```go" {
			continue
		}
		start := i + 1
		for i++; i < len(all) && all[i] != "```"; i++ {
		}
		if start >= 2 && readmeNotCompiled.MatchString(all[start-2]) {
			skipped = append(skipped, start)
			continue
		}
		blocks, lines = append(blocks, strings.Join(all[start:i], "\n")), append(lines, start)
	}
	return blocks, lines, skipped
}

// readmeFunc turns block into a function returning an error, as the code
// around a block may (`return err` compiles): its import block dropped
// (the file imports what the body names), and a "_ = name" for each name
// its top-level statements declare, which the README leaves unused.
func readmeFunc(t *testing.T, name, block string) (src string, imports []string) {
	if strings.HasPrefix(block, "import (") {
		_, block, _ = strings.Cut(block, "\n)\n")
	}
	src = "func " + name + "() error {\n" + block + "\n\treturn nil\n}\n" // a block may return an error
	f, err := parser.ParseFile(token.NewFileSet(), "", "package readme\n"+src, parser.SkipObjectResolution)
	if err != nil {
		return src, nil // vet reports it, at the block's line
	}
	var unused []string
	for _, st := range f.Decls[0].(*ast.FuncDecl).Body.List {
		var idents []ast.Expr
		switch st := st.(type) {
		case *ast.AssignStmt:
			if st.Tok == token.DEFINE {
				idents = st.Lhs
			}
		case *ast.DeclStmt:
			if g, ok := st.Decl.(*ast.GenDecl); ok && g.Tok == token.VAR {
				for _, s := range g.Specs {
					for _, n := range s.(*ast.ValueSpec).Names {
						idents = append(idents, n)
					}
				}
			}
		}
		for _, e := range idents {
			if id, ok := e.(*ast.Ident); ok && id.Name != "_" && !slices.Contains(unused, id.Name) {
				unused = append(unused, id.Name)
			}
		}
	}
	for _, n := range unused {
		src = strings.TrimSuffix(src, "\treturn nil\n}\n") + "\t_ = " + n + "\n\treturn nil\n}\n"
	}
	for short, path := range readmeImports {
		if regexp.MustCompile(`\b` + short + `\.`).MatchString(block) {
			imports = append(imports, fmt.Sprintf("%s %q", short, path))
		}
	}
	return src, imports
}

func TestREADMEGoBlocksCompile(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go vet")
	}
	dir, err := os.MkdirTemp("..", "_readmecheck") // inside the module: it builds against this checkout
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = os.RemoveAll(dir) }()
	if err := os.WriteFile(filepath.Join(dir, "givens.go"), []byte(readmeGivens), 0o600); err != nil {
		t.Fatal(err)
	}
	total, totalSkipped := 0, 0
	for d, doc := range docFiles(t) {
		blocks, lines, skipped := readmeBlocks(t, doc)
		total, totalSkipped = total+len(blocks), totalSkipped+len(skipped)
		name := strings.ToLower(strings.TrimSuffix(filepath.Base(doc), ".md"))
		name = strings.NewReplacer("-", "_", ".", "_").Replace(name)
		for i, block := range blocks {
			// One file per block, named by its document and line, so vet's
			// errors point at it.
			src, imports := readmeFunc(t, fmt.Sprintf("block%d_%d", d, i), block)
			file := "package readme\n\nimport (\n\t" + strings.Join(imports, "\n\t") + "\n)\n\n" + src
			if len(imports) == 0 {
				file = "package readme\n\n" + src
			}
			if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("%s_line_%d.go", name, lines[i])), []byte(file), 0o600); err != nil {
				t.Fatal(err)
			}
		}
	}
	if total < 8 {
		t.Fatalf("found %d Go blocks in README.md and docs/*.md (and %d marked not compiled)", total, totalSkipped)
	}
	cmd := exec.Command("go", "vet", "./"+filepath.Base(dir))
	cmd.Dir = ".."
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("the Go blocks of README.md and docs/*.md do not compile (DOC_line_N.go is the block starting on line N of DOC.md; "+
			"mark one that cannot compile with <!-- not compiled: why --> on the line before its fence):\n%s", out)
	}
}
