package main

import (
	"bytes"
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
