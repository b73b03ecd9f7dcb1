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
	const want = `created: 12 Collins Street, Melbourne (line two set: true)
updated: same id: true, line two set: false
missing: state
missing: suburb
missing: postcode
not found: code MEMBER_NOT_FOUND, message "member 7c5a3e1f-9d8b-4a6c-8e4f-2b0d9c7a5e3f not found"
forbidden: ask for the permission rather than retrying
internal error after 4 attempts: database unavailable
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
