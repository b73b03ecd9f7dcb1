// Package bench holds the SDK's performance benchmarks: each operation
// through the SDK against the same request made with plain net/http and
// encoding/json, on a loopback server. It has no non-test code beyond this
// file; run it with go test -run='^$' -bench=. ./internal/bench, or use
// go run ./internal/cmd/benchreport for the budget table.
package bench
