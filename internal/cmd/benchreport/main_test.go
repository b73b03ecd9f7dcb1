package main

import (
	"strings"
	"testing"
)

const sampleOutput = `goos: linux
pkg: github.com/memberplatform/memberplatform-go/internal/bench
BenchmarkUpdateUser/sdk-2         	   10179	     35000 ns/op	    9652 B/op	     110 allocs/op
BenchmarkUpdateUser/sdk-2         	   10179	     37000 ns/op	    9652 B/op	     110 allocs/op
BenchmarkUpdateUser/sdk-2         	   10179	     99000 ns/op	    9652 B/op	     110 allocs/op
BenchmarkUpdateUser/raw-2         	   10000	     36000 ns/op	    9101 B/op	     107 allocs/op
BenchmarkUpdateUser/sdk-parallel-2	   10000	     30000 ns/op	    9597 B/op	     140 allocs/op
BenchmarkUpdateUser/raw-parallel-2	   12477	     20000 ns/op	    9059 B/op	     106 allocs/op
BenchmarkTokenCacheGet/unknown-expiry-2 	818559867	         1.565 ns/op	       0 B/op	       0 allocs/op
PASS
`

func TestParseAndReport(t *testing.T) {
	st := parse(strings.NewReader(sampleOutput))
	m, ok := st.median("BenchmarkUpdateUser/sdk")
	if !ok || m.ns != 37000 || m.allocs != 110 || m.bytes != 9652 {
		t.Fatalf("median = %+v, %v", m, ok)
	}
	if f, _ := st.fastest("BenchmarkUpdateUser/sdk"); f.ns != 35000 {
		t.Fatalf("fastest = %+v", f)
	}
	if g, ok := st.median("BenchmarkTokenCacheGet/unknown-expiry"); !ok || g.ns != 1.565 {
		t.Fatalf("token median = %+v, %v", g, ok)
	}
	var b strings.Builder
	failed := report(&b, st, 3)
	out := b.String()
	if !failed {
		t.Error("report passed with missing benchmarks and a 1.5x parallel ratio")
	}
	for _, want := range []string{
		"| UpdateUser | 37.0 µs | 36.0 µs | 1.03× | 110 | 107 | 9652 | 9101 | PASS | PASS |",
		"| UpdateUser (parallel) | 30.0 µs | 20.0 µs | 1.50× | 140 | 106 | 9597 | 9059 | FAIL | FAIL |",
		"| ReplaceRolePermissions | missing |",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
}
