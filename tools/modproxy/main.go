// Command modproxy publishes modules of this repository to a directory laid
// out as a Go module proxy, so that a consumer can use them with
// GOPROXY=file://DIR exactly as it would use them after the release tags
// are pushed: at the versions the modules state, with no replace directive.
//
// Usage:
//
//	modproxy -o DIR MODULE_DIR...
//
// For each module directory it takes the module path from go.mod and the
// version from the Version constant of version.go ("0.4.0" is published as
// v0.4.0), zips the files git tracks in the directory (with their contents
// in the work tree, so uncommitted edits are published too, and untracked
// files are not, as a tag would not have them) with golang.org/x/mod/zip,
// and writes DIR/<escaped module path>/@v/ list, <version>.info,
// <version>.mod and <version>.zip.
//
// It refuses to publish when a module requires another of the published
// modules at a version other than the one published: a consumer would then
// need a release that this tree does not contain; and when a module has no
// LICENSE file of its own that git tracks.
//
// It prints one line per module, "path version h1:hash", the hash being the
// one a consumer's go.sum records for the zip.
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"golang.org/x/mod/modfile"
	"golang.org/x/mod/module"
	"golang.org/x/mod/sumdb/dirhash"
	"golang.org/x/mod/zip"
)

func main() {
	out := flag.String("o", "", "directory to write the proxy layout to (created; must not hold these modules yet)")
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), "usage: modproxy -o DIR MODULE_DIR...\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	if *out == "" || flag.NArg() == 0 {
		flag.Usage()
		os.Exit(2)
	}
	mods, err := publish(*out, flag.Args())
	if err != nil {
		fmt.Fprintln(os.Stderr, "modproxy:", err)
		os.Exit(1)
	}
	for _, m := range mods {
		fmt.Println(m.path, m.version, m.hash)
	}
}

// mod is one module to publish.
type mod struct {
	path, version string // module path; "v" + its Version constant
	dir           string // its directory
	gomod         []byte // its go.mod, served as <version>.mod
	file          *modfile.File
	hash          string // h1: hash of the zip, set when written
}

func (m *mod) mv() module.Version { return module.Version{Path: m.path, Version: m.version} }

// publish reads the modules in dirs, checks that their requirements on one
// another name the published versions, and writes them to out.
func publish(out string, dirs []string) ([]*mod, error) {
	var mods []*mod
	for _, dir := range dirs {
		m, err := readModule(dir)
		if err != nil {
			return nil, err
		}
		mods = append(mods, m)
	}
	if err := checkRequirements(mods); err != nil {
		return nil, err
	}
	if err := checkLicenses(mods); err != nil {
		return nil, err
	}
	for _, m := range mods {
		if err := write(out, m); err != nil {
			return nil, fmt.Errorf("%s@%s: %w", m.path, m.version, err)
		}
	}
	return mods, nil
}

// readModule reads the module path from dir/go.mod and its version from
// dir/version.go.
func readModule(dir string) (*mod, error) {
	gomod, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	if err != nil {
		return nil, err
	}
	f, err := modfile.Parse(filepath.Join(dir, "go.mod"), gomod, nil)
	if err != nil {
		return nil, err
	}
	if f.Module == nil {
		return nil, fmt.Errorf("%s/go.mod has no module line", dir)
	}
	v, err := statedVersion(filepath.Join(dir, "version.go"))
	if err != nil {
		return nil, err
	}
	m := &mod{path: f.Module.Mod.Path, version: v, dir: dir, gomod: gomod, file: f}
	if err := module.Check(m.path, m.version); err != nil {
		return nil, fmt.Errorf("%s/version.go: %w", dir, err)
	}
	return m, nil
}

// statedVersion returns "v" + the string constant Version declared in file.
func statedVersion(file string) (string, error) {
	f, err := parser.ParseFile(token.NewFileSet(), file, nil, 0)
	if err != nil {
		return "", err
	}
	for _, d := range f.Decls {
		gd, ok := d.(*ast.GenDecl)
		if !ok || gd.Tok != token.CONST {
			continue
		}
		for _, s := range gd.Specs {
			vs := s.(*ast.ValueSpec)
			for i, name := range vs.Names {
				if name.Name != "Version" || i >= len(vs.Values) {
					continue
				}
				lit, ok := vs.Values[i].(*ast.BasicLit)
				if !ok || lit.Kind != token.STRING {
					return "", fmt.Errorf("%s: Version is not a string literal", file)
				}
				v, err := strconv.Unquote(lit.Value)
				if err != nil {
					return "", fmt.Errorf("%s: %w", file, err)
				}
				return "v" + v, nil
			}
		}
	}
	return "", fmt.Errorf("%s: no const Version", file)
}

// checkRequirements fails when a module requires another of mods at a
// version other than the one published.
func checkRequirements(mods []*mod) error {
	published := map[string]*mod{}
	for _, m := range mods {
		if published[m.path] != nil {
			return fmt.Errorf("%s is given twice (%s and %s)", m.path, published[m.path].dir, m.dir)
		}
		published[m.path] = m
	}
	var errs []error
	for _, m := range mods {
		for _, r := range m.file.Require {
			p := published[r.Mod.Path]
			if p == nil || r.Mod.Version == p.version {
				continue
			}
			errs = append(errs, fmt.Errorf("%s/go.mod requires %s %s, but this tree publishes it at %s (%s): "+
				"the nested modules require a root version that this commit does not publish; "+
				"set both to the release being made (.ci/set-version, see RELEASING.md)",
				m.dir, r.Mod.Path, r.Mod.Version, p.version, filepath.Join(p.dir, "version.go")))
		}
	}
	return errors.Join(errs...)
}

// checkLicenses fails when a module's zip would hold no LICENSE file at
// its root: pkg.go.dev shows no documentation for a module without a
// license it recognises, and a nested module's zip does not hold the
// root's LICENSE (zip.Create keeps only the module's own directory).
func checkLicenses(mods []*mod) error {
	var errs []error
	for _, m := range mods {
		files, err := trackedFiles(m.dir)
		if err != nil {
			return err
		}
		if !slices.ContainsFunc(files, func(f zip.File) bool { return f.Path() == "LICENSE" }) {
			errs = append(errs, fmt.Errorf("%s: no LICENSE file tracked by git: every published module needs its own "+
				"(a copy of the root's; a nested module's zip does not include the root's), see RELEASING.md", m.dir))
		}
	}
	return errors.Join(errs...)
}

// write adds m to the proxy layout under out and sets m.hash.
func write(out string, m *mod) error {
	escPath, err := module.EscapePath(m.path)
	if err != nil {
		return err
	}
	escVersion, err := module.EscapeVersion(m.version)
	if err != nil {
		return err
	}
	dir := filepath.Join(out, filepath.FromSlash(escPath), "@v")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	list := filepath.Join(dir, "list")
	if _, err := os.Stat(list); err == nil {
		return fmt.Errorf("%s already exists", list)
	}
	files, err := trackedFiles(m.dir)
	if err != nil {
		return err
	}
	zipFile := filepath.Join(dir, escVersion+".zip")
	if err := writeZip(zipFile, m.mv(), files); err != nil {
		return err
	}
	if m.hash, err = dirhash.HashZip(zipFile, dirhash.Hash1); err != nil {
		return err
	}
	info, err := json.Marshal(struct {
		Version string
		Time    time.Time
	}{m.version, time.Now().UTC().Truncate(time.Second)})
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, escVersion+".info"), info, 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, escVersion+".mod"), m.gomod, 0o644); err != nil {
		return err
	}
	return os.WriteFile(list, []byte(m.version+"\n"), 0o644)
}

func writeZip(name string, v module.Version, files []zip.File) error {
	f, err := os.Create(name)
	if err != nil {
		return err
	}
	if err := zip.Create(f, v, files); err != nil {
		_ = f.Close()
		return err
	}
	return f.Close()
}

// trackedFiles lists the files git tracks under dir, read from the work
// tree. zip.Create leaves out those of nested modules and vendor
// directories. A tracked file deleted in the work tree is left out.
func trackedFiles(dir string) ([]zip.File, error) {
	cmd := exec.Command("git", "ls-files", "-z", "--cached", "--", ".")
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	listed, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("git ls-files in %s: %v: %s", dir, err, strings.TrimSpace(stderr.String()))
	}
	var files []zip.File
	for _, rel := range strings.Split(strings.TrimSuffix(string(listed), "\x00"), "\x00") {
		if rel == "" {
			continue
		}
		full := filepath.Join(dir, filepath.FromSlash(rel))
		info, err := os.Lstat(full)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		files = append(files, workFile{rel: rel, full: full, info: info})
	}
	return files, nil
}

// workFile is a file of the work tree, as zip.Create takes it.
type workFile struct {
	rel, full string
	info      os.FileInfo
}

func (f workFile) Path() string                 { return f.rel }
func (f workFile) Lstat() (os.FileInfo, error)  { return f.info, nil }
func (f workFile) Open() (io.ReadCloser, error) { return os.Open(f.full) }
