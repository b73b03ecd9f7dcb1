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
	const want = `updated: mastercard ending 5454, expires 03/2030, primary=true
invalid input: [id: must be a UUID (8-4-4-4-12 hexadecimal digits)]
not implemented: serviceCode "NOT_IMPLEMENTED" (free-form for payments)
rejected by the platform: expDate: must be MM/YYYY, MM/YY or YYYY-MM, such as 04/2031
succeeded after 3 attempts
status 503, temporary: true, service unavailable: true
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
