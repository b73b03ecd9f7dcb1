// Package areatest holds the httpmock helpers the area packages'
// (accessmgmt, payments, customer) tests share: a per-test MockTransport
// that records every request, responders, and assertions on the requests
// and errors the SDK produces (areatest.go), and the checks every
// operation of every area must pass (operations.go). It is internal and
// used only by tests.
package areatest
