package core

import (
	"context"
	"net/http"
	"net/url"
	pathpkg "path"
	"slices"
	"strings"

	memberplatform "github.com/memberplatform/memberplatform-go"
)

// Operation declares one API operation: what the pipeline needs to send
// it, and what sdktest, the shared operation tests, the benchmarks and the
// docs read of it (Operations). An area package declares each of its
// operations once, with Declare, beside the method that calls it.
type Operation struct {
	Name   string // "accessmgmt.UpdateUser": used in errors, logs and telemetry
	Method string
	Path   string // with {name} placeholders (at most two) filled, in order, by Call.PathParams, escaped
	// Area is the backend the operation reaches: its calls share that
	// area's load control (scope.go).
	Area memberplatform.Area
	// Errors is the contract's format of the operation's error answers,
	// which sdktest answers in. The SDK decodes either whatever it says.
	Errors ErrorFormat
	// Idempotent says the request may be repeated after it reached the server.
	Idempotent bool
	Auth       bool // the request carries the bearer token
	// ResultRequired says a 2xx must carry a body (a read): an empty one is
	// ErrUnexpectedResponseBody. Writes accept an empty 2xx.
	ResultRequired bool
	// Credential says the response carries a credential (the token call):
	// it is accepted only from the base URL's origin.
	Credential bool
	// List says the operation is a cursor-paged list (pager.go): a GET
	// whose method ranges over its pages with Pages and Items. The shared
	// operation tests then check its iteration, and sdktest pages it.
	List bool
}

// ErrorFormat is one of the contract's error body formats.
type ErrorFormat int

// The formats.
const (
	ProblemErrors     ErrorFormat = iota // RFC 9457 problem, serviceCode of 8 digits (operations 1 and 2)
	ProblemTextErrors                    // a problem whose serviceCode is a free-form string (operation 3, the token call)
	CodeMessageErrors                    // {code, message, errors[{field, message}]} (operation 4)
)

// declared holds the operations, in the order their packages initialize
// (one goroutine initializes every package).
var declared []*Operation

// Declare records op among the Operations and returns it, for a package
// variable: var updateUserOp = core.Declare(core.Operation{...}).
func Declare(op Operation) *Operation {
	declared = append(declared, &op)
	return &op
}

// Operations returns the declared operations, in the order their packages
// were initialized: accessmgmt, client (auth.Token), customer, payments.
func Operations() []*Operation { return slices.Clone(declared) }

// Call is one invocation of an Operation.
type Call struct {
	Op *Operation
	// Invalid is what the caller's own checks of its input found (an
	// *errors.ValidationError, from internal/validate), or nil. Do refuses
	// a call with one: nothing is sent, and the observer sees the call
	// start and end with it. The area methods hand their validation here
	// rather than returning it, so that a refused call is observed the
	// same way for every operation.
	Invalid error
	// PathParams is an array, not a slice, so that a Call and its
	// parameters stay on the caller's stack: the contract's paths have at
	// most two.
	PathParams [2]string
	// Query is the query's parameters: the operation's params struct,
	// tagged for github.com/google/go-querystring (`url:"limit,omitempty"`)
	// and encoded as it encodes them, in one place for every operation
	// (query.go, which removes its cost for plain structs); a url.Values is
	// taken as it is. nil sends none. option.WithQuery's come after them.
	// A query parameter's field errors name it with the pointer "?name"
	// (errors.FieldError).
	Query any
	// Cursor, when set, is sent as the query parameter CursorParam in
	// place of Query's own: a list's page after the first (pager.go).
	Cursor string
	Body   any // encoded with encoding/json once; nil sends no body
	// EncodedBody, when set, is sent as it is instead of Body (client.Execute's raw JSON).
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

// areas are the platform's backends, each with a Scope of its own in
// Settings.Scopes, in this order.
var areas = [...]memberplatform.Area{memberplatform.AreaAccessMgmt, memberplatform.AreaPayments,
	memberplatform.AreaCustomer, memberplatform.AreaToken, memberplatform.AreaOther}

// AreaIndex returns a's place in Settings.Scopes; an unknown area is AreaOther's.
func AreaIndex(a memberplatform.Area) int {
	for i, known := range areas {
		if a == known {
			return i
		}
	}
	return len(areas) - 1
}

// AreaOf returns the area at index i of Settings.Scopes.
func AreaOf(i int) memberplatform.Area { return areas[i] }

// area is op's area, AreaOther for an operation that names none.
func (op *Operation) area() memberplatform.Area { return areas[AreaIndex(op.Area)] }

// AreaOfPath returns the area of a client.Execute path by its prefix: the
// prefix itself, or it followed by "/", in the path as a server may route
// it: %-escapes decoded, "." segments and doubled slashes gone, a segment's
// ";parameters" dropped (as Tomcat, Jetty and Spring do) and case folded
// (as case-insensitive routers do), so that /auth/access%2Dmanagement/users,
// /.//auth/access-management/users, /auth/access-management;v=1/users and
// /AUTH/Access-Management/users are access management's too. Erring
// towards an area costs only its load control, never a call.
func AreaOfPath(path string) memberplatform.Area {
	if decoded, err := url.PathUnescape(path); err == nil {
		path = decoded
	}
	path = strings.ToLower(path)
	if strings.Contains(path, ";") {
		segs := strings.Split(path, "/")
		for i, seg := range segs {
			segs[i], _, _ = strings.Cut(seg, ";")
		}
		path = strings.Join(segs, "/")
	}
	path = pathpkg.Clean("/" + path)
	for _, p := range areaPrefixes {
		if rest, ok := strings.CutPrefix(path, p.prefix); ok && (rest == "" || rest[0] == '/') {
			return p.area
		}
	}
	return memberplatform.AreaOther
}

var areaPrefixes = []struct {
	prefix string
	area   memberplatform.Area
}{
	{"/auth/access-management", memberplatform.AreaAccessMgmt},
	{"/auth/token", memberplatform.AreaToken},
	{"/payment-methods", memberplatform.AreaPayments},
	{"/customer", memberplatform.AreaCustomer},
}
