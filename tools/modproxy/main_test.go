package main

import (
	"archive/zip"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"golang.org/x/mod/sumdb/dirhash"
	modzip "golang.org/x/mod/zip"
)

const (
	rootPath   = "example.com/repo"
	nestedPath = "example.com/repo/nested"
)

// repo writes a git repository holding a root module and a nested one that
// requires the root at requireRoot, and returns its directory.
func repo(t *testing.T, rootVersion, requireRoot string) string {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		"go.mod":            "module " + rootPath + "\n\ngo 1.26.0\n",
		"version.go":        "package repo\n\n// Version is the release.\nconst Version = \"" + rootVersion + "\"\n",
		"repo.go":           "package repo\n",
		"testdata/body.txt": "data\n",
		"nested/go.mod": "module " + nestedPath + "\n\ngo 1.26.0\n\nrequire " + rootPath + " " + requireRoot +
			"\n\nreplace " + rootPath + " => ../\n",
		"nested/version.go": "package nested\n\nconst (\n\tName    = \"nested\"\n\tVersion = \"0.1.0\"\n)\n",
		"nested/nested.go":  "package nested\n",
		"LICENSE":           "Apache License\n",
		"nested/LICENSE":    "Apache License\n",
	}
	for name, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{{"init", "-q"}, {"add", "."}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	// Not added: a tag would not hold it, so the zip must not either.
	if err := os.WriteFile(filepath.Join(dir, "untracked.go"), []byte("package repo\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestPublish(t *testing.T) {
	dir := repo(t, "0.4.0", "v0.4.0")
	out := filepath.Join(t.TempDir(), "proxy")
	mods, err := publish(out, []string{dir, filepath.Join(dir, "nested")})
	if err != nil {
		t.Fatal(err)
	}
	if len(mods) != 2 || mods[0].path != rootPath || mods[0].version != "v0.4.0" ||
		mods[1].path != nestedPath || mods[1].version != "v0.1.0" {
		t.Fatalf("published %v", mods)
	}

	root := filepath.Join(out, "example.com", "repo", "@v")
	if b, err := os.ReadFile(filepath.Join(root, "list")); err != nil || string(b) != "v0.4.0\n" {
		t.Errorf("list = %q, %v; want v0.4.0", b, err)
	}
	var info struct{ Version string }
	if b, err := os.ReadFile(filepath.Join(root, "v0.4.0.info")); err != nil || json.Unmarshal(b, &info) != nil || info.Version != "v0.4.0" {
		t.Errorf("info = %q, %v", b, err)
	}
	if b, err := os.ReadFile(filepath.Join(out, "example.com", "repo", "nested", "@v", "v0.1.0.mod")); err != nil || !strings.Contains(string(b), "require "+rootPath+" v0.4.0") {
		t.Errorf("nested .mod = %q, %v; want the nested go.mod", b, err)
	}

	zipFile := filepath.Join(root, "v0.4.0.zip")
	if _, err := modzip.CheckZip(mods[0].mv(), zipFile); err != nil {
		t.Errorf("CheckZip: %v", err)
	}
	if want, err := dirhash.HashZip(zipFile, dirhash.Hash1); err != nil || mods[0].hash != want {
		t.Errorf("hash %q, want %q (%v)", mods[0].hash, want, err)
	}
	z, err := zip.OpenReader(zipFile)
	if err != nil {
		t.Fatal(err)
	}
	defer z.Close()
	var names []string
	for _, f := range z.File {
		names = append(names, strings.TrimPrefix(f.Name, rootPath+"@v0.4.0/"))
	}
	slices.Sort(names)
	if want := []string{"LICENSE", "go.mod", "repo.go", "testdata/body.txt", "version.go"}; !slices.Equal(names, want) {
		t.Errorf("root zip holds %q, want %q (no nested module, no untracked file)", names, want)
	}
}

// TestPublishRefusesMismatch: a nested module requiring a root version
// other than the one the tree states is refused, and nothing is written.
func TestPublishRefusesMismatch(t *testing.T) {
	dir := repo(t, "0.3.3", "v0.4.0")
	out := filepath.Join(t.TempDir(), "proxy")
	_, err := publish(out, []string{dir, filepath.Join(dir, "nested")})
	if err == nil {
		t.Fatal("published a nested module that requires an unpublished root version")
	}
	for _, want := range []string{"requires " + rootPath + " v0.4.0", "publishes it at v0.3.3", "version.go"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("%s written despite the error (%v)", out, err)
	}
}

// TestPublishRefusesAModuleWithoutLicense: a module without a LICENSE of
// its own that git tracks is refused (the root's is not in a nested
// module's zip), and nothing is written.
func TestPublishRefusesAModuleWithoutLicense(t *testing.T) {
	for _, tc := range []struct{ name, git string }{
		{"deleted", "rm -f"},
		{"untracked", "rm --cached"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := repo(t, "0.4.0", "v0.4.0")
			cmd := exec.Command("git", append(strings.Fields(tc.git), "-q", "nested/LICENSE")...)
			cmd.Dir = dir
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("git %s: %v\n%s", tc.git, err, out)
			}
			out := filepath.Join(t.TempDir(), "proxy")
			_, err := publish(out, []string{dir, filepath.Join(dir, "nested")})
			if err == nil || !strings.Contains(err.Error(), filepath.Join(dir, "nested")+": no LICENSE") {
				t.Fatalf("publish = %v; want the nested module refused for its missing LICENSE", err)
			}
			if strings.Contains(err.Error(), dir+": no LICENSE") {
				t.Errorf("the root, which has its LICENSE, refused too: %v", err)
			}
			if _, err := os.Stat(out); !os.IsNotExist(err) {
				t.Errorf("%s written despite the error (%v)", out, err)
			}
		})
	}
}

func TestStatedVersion(t *testing.T) {
	for _, tc := range []struct{ src, want, err string }{
		{src: "package p\nconst Version = \"1.2.3\"\n", want: "v1.2.3"},
		{src: "package p\nconst (\n\tA, Version = \"a\", `0.1.0`\n)\n", want: "v0.1.0"},
		{src: "package p\nvar Version = \"1.2.3\"\n", err: "no const Version"},
		{src: "package p\nconst Version = 3\n", err: "not a string literal"},
	} {
		f := filepath.Join(t.TempDir(), "version.go")
		if err := os.WriteFile(f, []byte(tc.src), 0o644); err != nil {
			t.Fatal(err)
		}
		got, err := statedVersion(f)
		if got != tc.want || (tc.err == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("%q: %q, %v; want %q, error %q", tc.src, got, err, tc.want, tc.err)
		}
	}
}
