// Package benchmarks holds memberplatform-go's performance benchmarks: each
// operation through three contenders against the same canned responses.
//
//   - sdk: the SDK (github.com/memberplatform/memberplatform-go/client).
//   - raw: plain net/http and encoding/json into the benchmark's own plain
//     structs, the baseline a careful user writes by hand.
//   - generated: the oapi-codegen v2 client generated from the SDK's
//     api/openapi.yaml (internal/genclient).
//
// It is a module of its own so that the SDK's module never requires the
// generated client's runtime. The package's only code is Operations, the
// rows' list both the benchmarks and their report read; run the benchmarks
// with go test -run='^$' -bench=. or, for the budget table, go run
// ./cmd/benchreport (see README.md; the table is the SDK's docs/performance.md).
package benchmarks
