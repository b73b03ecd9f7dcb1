package promtest

import (
	"os"
	"os/exec"
	"testing"
)

// Binary returns the path of the named program (prometheus, promtool).
// Without it the test is skipped, with a message saying how to install it,
// unless the CI environment variable is set: CI must run these tests, so
// there a missing binary fails them (.ci/run installs it).
func Binary(t testing.TB, name string) string {
	t.Helper()
	path, err := exec.LookPath(name)
	if err == nil {
		return path
	}
	msg := name + " is not on PATH: install Debian's prometheus package (apt-get install prometheus), which brings prometheus and promtool; .ci/run does"
	if os.Getenv("CI") != "" {
		t.Fatal(msg + " (CI is set: these tests must run)")
	}
	t.Skip(msg)
	return ""
}
