package core

import (
	"context"
	"net/http"
)

// Operation describes one API operation as data.
type Operation struct {
	Name   string // "accessmgmt.UpdateUser": used in errors and logs
	Method string
	Path   string // with {name} placeholders (at most two) filled, in order, by Call.PathParams, escaped
	// Idempotent says the request may be repeated after it reached the server.
	Idempotent bool
	Auth       bool // the request carries the bearer token
	// Credential says the response carries a credential (the token call):
	// it is accepted only from the base URL's origin.
	Credential bool
}

// Call is one invocation of an Operation.
type Call struct {
	Op *Operation
	// PathParams is an array, not a slice, so that a Call and its
	// parameters stay on the caller's stack: the contract's paths have at
	// most two.
	PathParams [2]string
	Body       any // encoded to JSON once; nil sends no body
	// EncodedBody, when set, is sent as it is instead of Body.
	EncodedBody []byte
	// ReadBody, when set, returns the body to send instead (client.Execute's
	// io.Reader), read once under the call's deadline (its context with
	// option.WithTimeout applied). When the context ended during the read,
	// the call fails with a TransportError wrapping the context's error,
	// as any call that ran out of time does; any other error is returned
	// as it is.
	ReadBody func(ctx context.Context) ([]byte, error)
	// Result receives the decoded 2xx body (a *[]byte the raw bytes); nil
	// discards it, an empty body leaves it untouched.
	Result any
	// Sign, if set, signs every attempt after its other headers are final,
	// with the exact body bytes (SigV4).
	Sign   func(req *http.Request, body []byte) error
	Status *int // receives the final HTTP status, if set
	// Secrets, if set, receives the credentials the final response's
	// requests carried (its redirect chain's), for a caller that makes a
	// text of the 2xx body it reads (the SigV4 token source's error
	// snippet) to redact what a server echoed.
	Secrets *[]string
}
