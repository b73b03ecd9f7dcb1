package core

import "net/http"

// Operation describes one API operation as data. The pipeline reads
// everything it needs from here: the method and path template to build the
// request, whether a repeat is safe (retries), and whether the bearer token
// goes with it.
type Operation struct {
	Name   string // "accessmgmt.UpdateUser": used in errors and logs
	Method string
	// Path is the path template, with {name} placeholders filled, in order,
	// by Call.PathParams (each escaped, see escapeSegment).
	Path string
	// Idempotent says whether the request may be repeated after it reached
	// the server. Non-idempotent requests are retried only when the
	// connection failed before the request was written.
	Idempotent bool
	// Auth says whether the request carries the bearer token.
	Auth bool
	// Credential says the response carries a credential (the token call):
	// it is accepted only from the base URL's origin, whatever redirects
	// the user's policy followed.
	Credential bool
}

// Call is one invocation of an Operation.
type Call struct {
	Op         *Operation
	PathParams []string
	// Body is encoded to JSON once, before the first attempt; nil sends no
	// body.
	Body any
	// EncodedBody, when set, is sent instead of Body, as it is: an area
	// that can encode its body without encoding/json's reflection does so
	// (see accessmgmt's rolePermissionsBody).
	EncodedBody []byte
	// Result receives the decoded 2xx body; nil discards it. A *[]byte gets
	// the raw bytes. An empty 2xx body leaves Result untouched.
	Result any
	// Sign, if set, is called before every attempt, after all other headers
	// are final, with the exact body bytes (SigV4).
	Sign func(req *http.Request, body []byte) error
	// Status, if set, receives the final HTTP status.
	Status *int
}
