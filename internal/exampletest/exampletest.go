// Package exampletest checks the programs under examples/, for their tests:
// run writes exactly the expected output, and fails when it cannot write.
package exampletest

import (
	"bytes"
	"context"
	"errors"
	"io"
	"testing"
)

// ErrWrite is the error every write to FailingWriter returns.
var ErrWrite = errors.New("write failed")

// FailingWriter fails every write, as a closed pipe does.
type FailingWriter struct{}

// Write returns ErrWrite.
func (FailingWriter) Write([]byte) (int, error) { return 0, ErrWrite }

// CheckRun runs run into a buffer and wants exactly want, then runs it into
// a FailingWriter and wants ErrWrite back.
func CheckRun(t *testing.T, run func(context.Context, io.Writer) error, want string) {
	t.Helper()
	t.Run("output", func(t *testing.T) {
		var out bytes.Buffer
		if err := run(t.Context(), &out); err != nil {
			t.Fatalf("run: %v\n%s", err, out.String())
		}
		if out.String() != want {
			t.Errorf("output:\n%s\nwant:\n%s", out.String(), want)
		}
	})
	t.Run("write error", func(t *testing.T) {
		if err := run(t.Context(), FailingWriter{}); !errors.Is(err, ErrWrite) {
			t.Fatalf("run = %v, want the write error", err)
		}
	})
}
