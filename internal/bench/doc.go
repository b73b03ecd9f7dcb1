// Package bench holds in-module tests of performance facts that are not
// timings (errorbody_test.go); the benchmarks against plain net/http live in
// the nested module benchmarks/, so this module never requires their
// dependencies.
package bench
