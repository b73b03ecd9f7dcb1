// Package bench holds in-module tests of non-timing performance facts, such
// as the bounded heap for a huge error body (errorbody_test.go). It has no
// non-test code beyond this file. The benchmarks comparing the SDK with
// plain net/http and with a generated client live in the nested module
// benchmarks/ (see benchmarks/README.md), so that this module never
// requires the generated client's dependencies.
package bench
