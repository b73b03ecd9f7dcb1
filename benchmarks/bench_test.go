package benchmarks_test

import (
	"context"
	"flag"
	"strconv"
	"testing"
)

// Benchmarks, by name (go run ./cmd/benchreport turns them into the budget
// table):
//
//	BenchmarkLoopback/<Operation>/{serial,parallel}/{sdk,raw,generated}
//	BenchmarkInMemory/<Operation>/{sdk,raw,generated}
//	BenchmarkErrors/{serviceErrors=1,serviceErrors=100,serviceErrors=1000,fieldErrors=100}/{sdk,raw}
//	BenchmarkScale/{slugs=1,slugs=100,slugs=10000}/{sdk,raw}
//
// Loopback rows send over a loopback httptest server, parallel ones from
// b.RunParallel's GOMAXPROCS goroutines; the in-memory, error and scale rows
// use an http.RoundTripper that answers without a socket, so they measure
// the clients' own CPU and allocations. Allocation counts are process-wide:
// on loopback rows they include the server's, the same for every contender.

// rotate shifts the order the contenders run in, so that a report
// interleaving several runs does not always time the same contender first.
var rotate = flag.Int("rotate", 0, "run the contenders of each row rotated by this many places")

type contender struct {
	name string
	call func(context.Context) error
}

// run times each contender as a sub-benchmark, in rotated order.
func run(b *testing.B, parallel bool, cs ...contender) {
	ctx := context.Background()
	// Check every contender succeeds (or fails as expected) and warm the
	// connection pools before timing anything.
	for _, c := range cs {
		if err := c.call(ctx); err != nil {
			b.Fatalf("%s: %v", c.name, err)
		}
	}
	k := 0
	if len(cs) > 0 {
		k = ((*rotate % len(cs)) + len(cs)) % len(cs)
	}
	for _, c := range append(cs[k:len(cs):len(cs)], cs[:k]...) {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			if !parallel {
				for b.Loop() {
					if err := c.call(ctx); err != nil {
						b.Fatal(err)
					}
				}
				return
			}
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					if err := c.call(ctx); err != nil {
						b.Error(err)
						return
					}
				}
			})
		})
	}
}

func contenders(op operation, cl *clients, withGen bool) []contender {
	cs := []contender{
		{"sdk", func(ctx context.Context) error { return op.sdk(ctx, cl.sdk) }},
		{"raw", func(ctx context.Context) error { return op.raw(ctx, cl.raw) }},
	}
	if withGen {
		cs = append(cs, contender{"generated", func(ctx context.Context) error { return op.gen(ctx, cl.gen) }})
	}
	return cs
}

// BenchmarkLoopback runs every operation through the three contenders
// against one loopback server, serially and in parallel.
func BenchmarkLoopback(b *testing.B) {
	for _, op := range operations {
		b.Run(op.name, func(b *testing.B) {
			cl := loopback(b, responder{})
			b.Run("serial", func(b *testing.B) { run(b, false, contenders(op, cl, true)...) })
			b.Run("parallel", func(b *testing.B) { run(b, true, contenders(op, cl, true)...) })
		})
	}
}

// BenchmarkInMemory runs every operation through the three contenders over
// the in-memory transport: the clients' own cost, without socket noise.
func BenchmarkInMemory(b *testing.B) {
	for _, op := range operations {
		b.Run(op.name, func(b *testing.B) {
			run(b, false, contenders(op, inMemory(b, responder{}), true)...)
		})
	}
}

// errorCase is an error response and the call that receives it.
type errorCase struct {
	name  string
	resp  *canned
	items int // serviceErrors or field errors in the body
	op    operation
}

var errorCases = []errorCase{
	{"serviceErrors=1", newCanned(422, "application/problem+json", problemBody(1)), 1, operations[1]},
	{"serviceErrors=100", newCanned(422, "application/problem+json", problemBody(100)), 100, operations[1]},
	{"serviceErrors=1000", newCanned(422, "application/problem+json", problemBody(1000)), 1000, operations[1]},
	{"fieldErrors=100", newCanned(400, "application/json", codeMessageBody(100)), 100, operations[3]},
}

// expectError turns a call that must fail into one that must not.
func expectError(call func(context.Context) error) func(context.Context) error {
	return func(ctx context.Context) error {
		if call(ctx) == nil {
			return errUnexpectedSuccess
		}
		return nil
	}
}

type benchError string

func (e benchError) Error() string { return string(e) }

const errUnexpectedSuccess = benchError("the call succeeded; the benchmark expects an error response")

// BenchmarkErrors decodes error responses in memory: a 422 problem document
// with 1, 100 and 1,000 serviceErrors (ReplaceRolePermissions, operation 2)
// and a 400 code/message body with 100 field errors (UpsertMemberAddress,
// operation 4, the one that uses that format).
func BenchmarkErrors(b *testing.B) {
	for _, ec := range errorCases {
		b.Run(ec.name, func(b *testing.B) {
			cs := contenders(ec.op, inMemory(b, responder{fixed: ec.resp}), false)
			for i := range cs {
				cs[i].call = expectError(cs[i].call)
			}
			run(b, false, cs...)
		})
	}
}

// slugs returns n distinct permission slugs of a realistic shape.
func slugs(n int) []string {
	verbs := []string{"read", "write", "delete", "admin"}
	out := make([]string, n)
	for i := range out {
		out[i] = "resource-" + strconv.Itoa(i/len(verbs)) + ".items:" + verbs[i%len(verbs)]
	}
	return out
}

var scaleSizes = []int{1, 100, 10000}

// BenchmarkScale replaces a role's permissions with 1, 100 and 10,000 slugs
// in memory, the SDK's validation of every slug included.
func BenchmarkScale(b *testing.B) {
	for _, n := range scaleSizes {
		perms := slugs(n)
		b.Run("slugs="+strconv.Itoa(n), func(b *testing.B) {
			cl := inMemory(b, responder{})
			run(b, false,
				contender{"sdk", func(ctx context.Context) error {
					return cl.sdk.AccessMgmt.ReplaceRolePermissions(ctx, orgID, roleSlug, perms)
				}},
				contender{"raw", func(ctx context.Context) error { return rawReplace(ctx, cl.raw, perms) }},
			)
		})
	}
}
