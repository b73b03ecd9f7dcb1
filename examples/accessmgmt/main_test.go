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
	exampletest.CheckRun(t, run, `role updated; the provider created [tickets:write]
invalid input: slug: must match ^org-[a-z0-9_-]+$, such as org-admin
invalid input: permissions[0]: must match ^[a-z0-9:._*-]+$, such as users:read
not found: create the user first
conflict: status 409, serviceCode 40900001
  field email (pointer /email): already used by another user
rate limited: retry after 1m0s (temporary: true)
retried after a short Retry-After: user_ada Ada
provider not configured: status 503 after 1 attempt(s), temporary: false
`)
}
