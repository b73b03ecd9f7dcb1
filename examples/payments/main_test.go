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
	exampletest.CheckRun(t, run, `updated: mastercard ending 5454, expires 03/2030, primary=true
invalid input: [id: must be a UUID (8-4-4-4-12 hexadecimal digits)]
not implemented: serviceCode "NOT_IMPLEMENTED" (free-form for payments)
rejected by the platform: expDate: must be MM/YYYY, MM/YY or YYYY-MM, such as 04/2031
succeeded after 3 attempts
status 503, temporary: true, service unavailable: true
`)
}
