// Package promtest is what the monitoring module's tests share: finding the
// Prometheus binaries (Debian's prometheus package), running a Prometheus
// server on loopback for a test, querying it, and reading the rule and
// dashboard files.
package promtest
