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
