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
	const want = `created user_ada <ada@example.com>
fetched user_ada (Ada), status 200
refused: 422 email: is required
invalid input: true
token requests: 1
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
