package areatest_test

import (
	"net/http"
	"testing"

	"github.com/memberplatform/memberplatform-go/internal/areatest"
	"github.com/memberplatform/memberplatform-go/option"
)

// failures records whether a check failed, instead of failing the test.
type failures struct {
	testing.TB
	failed bool
}

func (f *failures) Helper()               {}
func (f *failures) Errorf(string, ...any) { f.failed = true }

// CheckRequest holds a write to its JSON body and Content-Type, and a read
// to its query and to sending neither a body nor a Content-Type.
func TestCheckRequest(t *testing.T) {
	m := areatest.NewMock(t)
	m.On(http.MethodPut, "/things/t1", areatest.JSON(http.StatusOK, `{}`))
	m.On(http.MethodGet, "/things", areatest.JSON(http.StatusOK, `[]`))
	c := m.Client()
	if err := c.Execute(t.Context(), http.MethodPut, "/things/t1", map[string]int{"n": 1}, nil); err != nil {
		t.Fatal(err)
	}
	if err := c.Execute(t.Context(), http.MethodGet, "/things", nil, nil, option.WithQuery(struct {
		Limit int `url:"limit"`
	}{5})); err != nil {
		t.Fatal(err)
	}
	write, read := m.Requests()[0], m.Requests()[1]
	const auth = "Bearer " + areatest.Token
	for _, tc := range []struct {
		name                        string
		r                           areatest.Request
		method, target, body, token string
		wantFail                    bool
	}{
		{"write", write, http.MethodPut, "/things/t1", `{"n":1}`, auth, false},
		{"write, another body", write, http.MethodPut, "/things/t1", `{"n":2}`, auth, true},
		{"write, checked as a read", write, http.MethodPut, "/things/t1", "", auth, true},
		{"write, with a query", write, http.MethodPut, "/things/t1?limit=5", `{"n":1}`, auth, true},
		{"write, no token", write, http.MethodPut, "/things/t1", `{"n":1}`, "", true},
		{"read", read, http.MethodGet, "/things?limit=5", "", auth, false},
		{"read, another query", read, http.MethodGet, "/things?limit=6", "", auth, true},
		{"read, without its query", read, http.MethodGet, "/things", "", auth, true},
		{"read, checked as a write", read, http.MethodGet, "/things?limit=5", `{}`, auth, true},
		{"read, another method", read, http.MethodPost, "/things?limit=5", "", auth, true},
	} {
		f := &failures{TB: t}
		areatest.CheckRequest(f, tc.r, tc.method, tc.target, tc.body, tc.token)
		if f.failed != tc.wantFail {
			t.Errorf("%s: failed = %v, want %v", tc.name, f.failed, tc.wantFail)
		}
	}
	// A read that sent a Content-Type fails.
	read.Header.Set("Content-Type", "application/json")
	f := &failures{TB: t}
	if areatest.CheckRequest(f, read, http.MethodGet, "/things?limit=5", "", auth); !f.failed {
		t.Error("a read with a Content-Type passed")
	}
}
