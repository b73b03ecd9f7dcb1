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
	exampletest.CheckRun(t, run, `created: 12 Collins Street, Melbourne (line two set: true)
updated: same id: true, line two set: false
missing: state
missing: suburb
missing: postcode
not found: code MEMBER_NOT_FOUND, message "member 7c5a3e1f-9d8b-4a6c-8e4f-2b0d9c7a5e3f not found"
forbidden: ask for the permission rather than retrying
internal error after 4 attempts: database unavailable
`)
}
