package benchmarks_test

import (
	"context"
	"flag"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Benchmarks, by name (go run ./cmd/benchreport turns them into the budget
// table):
//
//	BenchmarkLoopback/<Operation>/{serial,parallel}
//	BenchmarkInMemory/<Operation>
//	BenchmarkErrors/{serviceErrors=1,serviceErrors=100,serviceErrors=1000,fieldErrors=100}
//	BenchmarkScale/{slugs=1,slugs=100,slugs=10000}
//
// Each row reports, per contender (sdk, raw, generated), its time per
// call as "<contender>-ns/call" and its allocations and bytes per call as
// "<contender>-allocs/call" and "<contender>-B/call"; its ns/op is the time
// of a turn (below). Loopback rows send over a loopback httptest server,
// parallel ones from b.RunParallel's GOMAXPROCS goroutines; the in-memory,
// error and scale rows use an http.RoundTripper that answers without a
// socket, so they measure the clients' own CPU and allocations. Allocation
// counts are process-wide: on loopback rows they include the server's, the
// same for every contender.

// rotate seeds the order the contenders of a row take in each turn, so
// that runs of a report draw different orders.
var rotate = flag.Int("rotate", 0, "seed of the order the contenders take in each turn")

type contender struct {
	name string
	call func(context.Context) error
}

// run times the contenders of a row in turns: a turn makes batch calls of
// each contender, in an order drawn anew each turn, and a contender's time
// per call is the mean over its turns with the fastest and the slowest
// tenth left out. Turns make a burst of noise on the machine slow every
// contender alike rather than the one that ran during it; the trim drops
// the rare turn a GC pause or a preempted vCPU stretches tenfold, and keeps
// the rest: loopback calls take one of two typical times here, and a mean
// over the middle 80 % counts how often each contender pays the slower
// one, where a median would report one of the two.
// In parallel, GOMAXPROCS goroutines take turns at once. ns/op is the
// timed turns' wall time per turn. Allocations are counted after the timed
// turns, serially, over allocCalls calls of each contender.
func run(b *testing.B, parallel bool, batch int, cs ...contender) {
	ctx := context.Background()
	// Check every contender succeeds (or fails as expected) and warm the
	// connection pools before timing anything.
	for _, c := range cs {
		if err := c.call(ctx); err != nil {
			b.Fatalf("%s: %v", c.name, err)
		}
	}
	var mu sync.Mutex
	perCall := make([][]float64, len(cs)) // ns per call, one entry per turn
	var goroutines atomic.Uint64
	takeTurns := func(next func() bool) {
		mine := make([][]float64, len(cs))
		order := rand.New(rand.NewPCG(uint64(*rotate), goroutines.Add(1)))
		for next() {
			for _, k := range order.Perm(len(cs)) {
				start := time.Now()
				for range batch {
					if err := cs[k].call(ctx); err != nil {
						b.Error(err)
						return
					}
				}
				mine[k] = append(mine[k], float64(time.Since(start))/float64(batch))
			}
		}
		mu.Lock()
		defer mu.Unlock()
		for k := range mine {
			perCall[k] = append(perCall[k], mine[k]...)
		}
	}
	b.ResetTimer()
	if parallel {
		b.RunParallel(func(pb *testing.PB) { takeTurns(pb.Next) })
	} else {
		takeTurns(b.Loop)
	}
	b.StopTimer()
	for k, c := range cs {
		allocs, bytes := allocsPerCall(ctx, c.call)
		b.ReportMetric(trimmedMean(perCall[k]), c.name+"-ns/call")
		b.ReportMetric(allocs, c.name+"-allocs/call")
		b.ReportMetric(bytes, c.name+"-B/call")
	}
}

// trimmedMean is the mean of xs without its lowest and highest tenth; NaN
// for none, which benchreport reports as not run.
func trimmedMean(xs []float64) float64 {
	slices.Sort(xs)
	cut := len(xs) / 10
	xs = xs[cut : len(xs)-cut]
	if len(xs) == 0 {
		return math.NaN()
	}
	sum := 0.0
	for _, x := range xs {
		sum += x
	}
	return sum / float64(len(xs))
}

// allocCalls is how many calls allocsPerCall averages over.
const allocCalls = 100

// allocsPerCall returns the allocations and bytes of one call, process-wide.
func allocsPerCall(ctx context.Context, call func(context.Context) error) (allocs, bytes float64) {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range allocCalls {
		_ = call(ctx)
	}
	runtime.ReadMemStats(&after)
	return float64(after.Mallocs-before.Mallocs) / allocCalls, float64(after.TotalAlloc-before.TotalAlloc) / allocCalls
}

// Calls per contender per turn: one on loopback, where a call takes tens of
// microseconds; more in memory, so the clock reads around a batch weigh
// nothing beside it.
const (
	loopbackBatch = 1
	inMemoryBatch = 16
)

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
			b.Run("serial", func(b *testing.B) { run(b, false, loopbackBatch, contenders(op, cl, true)...) })
			b.Run("parallel", func(b *testing.B) { run(b, true, loopbackBatch, contenders(op, cl, true)...) })
		})
	}
}

// BenchmarkInMemory runs every operation through the three contenders over
// the in-memory transport: the clients' own cost, without socket noise.
func BenchmarkInMemory(b *testing.B) {
	for _, op := range operations {
		b.Run(op.name, func(b *testing.B) {
			run(b, false, inMemoryBatch, contenders(op, inMemory(b, responder{}), true)...)
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
	{"serviceErrors=1", newCanned(422, "application/problem+json", problemBody(1)), 1, operationNamed("accessmgmt.ReplaceRolePermissions")},
	{"serviceErrors=100", newCanned(422, "application/problem+json", problemBody(100)), 100, operationNamed("accessmgmt.ReplaceRolePermissions")},
	{"serviceErrors=1000", newCanned(422, "application/problem+json", problemBody(1000)), 1000, operationNamed("accessmgmt.ReplaceRolePermissions")},
	{"fieldErrors=100", newCanned(400, "application/json", codeMessageBody(100)), 100, operationNamed("customer.UpsertMemberAddress")},
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
			run(b, false, inMemoryBatch, cs...)
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
	replace := routeOf("accessmgmt.ReplaceRolePermissions")
	for _, n := range scaleSizes {
		perms := slugs(n)
		b.Run("slugs="+strconv.Itoa(n), func(b *testing.B) {
			cl := inMemory(b, responder{})
			run(b, false, inMemoryBatch,
				contender{"sdk", func(ctx context.Context) error {
					return cl.sdk.AccessMgmt.ReplaceRolePermissions(ctx, orgID, roleSlug, perms)
				}},
				contender{"raw", func(ctx context.Context) error { return rawReplace(ctx, cl.raw, replace, perms) }},
			)
		})
	}
}
