package main

import (
	"bytes"
	"errors"
	"testing"

	"github.com/memberplatform/memberplatform-go/internal/leakcheck"
)

func TestMain(m *testing.M) { leakcheck.VerifyTestMain(m) }

func TestRun(t *testing.T) {
	var out bytes.Buffer
	if err := run(t.Context(), &out); err != nil {
		t.Fatal(err)
	}
	const want = `role updated; the provider created [tickets:write]
invalid input: slug: must match ^org-[a-z0-9_-]+$, such as org-admin
invalid input: permissions[0]: must match ^[a-z0-9:._*-]+$, such as users:read
not found: create the user first
conflict: status 409, serviceCode 40900001
  field email (pointer /email): already used by another user
rate limited: retry after 1m0s (temporary: true)
retried after a short Retry-After: user_ada Ada
provider not configured: status 503 after 1 attempt(s), temporary: false
`
	if out.String() != want {
		t.Errorf("output:\n%s\nwant:\n%s", out.String(), want)
	}
}

// failingWriter fails every write, as a closed pipe does.
type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errWrite }

var errWrite = errors.New("write failed")

// Output that cannot be written fails the program instead of vanishing.
func TestRunReportsAWriteError(t *testing.T) {
	if err := run(t.Context(), failingWriter{}); !errors.Is(err, errWrite) {
		t.Fatalf("run = %v, want the write error", err)
	}
}
