package main

import (
	"testing"

	"github.com/memberplatform/memberplatform-go/internal/exampletest"
	"github.com/memberplatform/memberplatform-go/internal/leakcheck"
)

func TestMain(m *testing.M) { leakcheck.VerifyTestMain(m) }

// TestRun checks the program's whole output, and that output that
// cannot be written fails the program instead of vanishing.
func TestRun(t *testing.T) {
	exampletest.CheckRun(t, run, `created user_ada <ada@example.com>
fetched user_ada (Ada), status 200
refused: 422 email: is required
invalid input: true
token requests: 1
`)
}
