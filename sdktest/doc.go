// Package sdktest is an in-memory, in-process fake of the member platform,
// served over HTTP by net/http/httptest, for testing code that uses the
// memberplatform-go SDK (and for the SDK's own tests and examples).
//
// The fake implements every operation the SDK wraps (the Op* constants name
// them), at the method and path the SDK declares for each, and POST
// /auth/token (AWS Signature Version 4; it answers a short-lived HS256 JWT).
//
// It applies the contract's validation rules, answers errors in each
// operation's format of the contract (RFC 9457 problem documents, or
// code/message bodies under /customer), and keeps its state in
// memory: seed it with AddUser, AddRole, AddPaymentMethod and AddMember,
// inspect it with User, RolePermissions, ProviderPermissions, PaymentMethod,
// MemberAddress, Requests and TokenRequests, and script failures with
// FailNext, SetLatency, SetRateLimit and SetProviderConfigured. Users,
// payment methods and addresses are the SDK's own types
// (accessmgmt.ProviderUser, payments.PaymentMethod, customer.MemberAddress),
// so what the fake stored compares directly with what a call returned.
//
// Endpoints the SDK does not wrap, such as the contract's createUser, can
// be added with HandleFunc; they sit behind the same authentication,
// faults and modes as the built-in ones.
//
// For tests that stub the SDK's HTTP with github.com/jarcoal/httpmock
// instead, ProblemResponse, ProblemResponder, CodeMessageResponse and
// CodeMessageResponder build error responses in the contract's wire format
// from the SDK's errors.Problem and errors.CodeMessage, so no test writes
// that format by hand (WriteProblem and WriteCodeMessage do the same for
// HandleFunc handlers).
//
// Every Server is independent (no package-level state) and safe for
// concurrent use, so parallel tests can each start their own.
//
// # Usage
//
//	func TestRename(t *testing.T) {
//		srv := sdktest.NewServer(t) // closed when the test ends
//		srv.AddUser(sdktest.User{ID: "user_1", Email: "ada@example.com"})
//		c := srv.Client() // a *client.Client wired to srv, SigV4 token flow included
//
//		u, err := c.AccessMgmt.UpdateUser(t.Context(), "user_1",
//			accessmgmt.UpdateUserParams{FirstName: new("Ada")})
//		if err != nil {
//			t.Fatal(err)
//		}
//		if u.FirstName != "Ada" {
//			t.Errorf("FirstName = %q", u.FirstName)
//		}
//
//		srv.FailNext(1, sdktest.Fault{Status: http.StatusInternalServerError})
//		// ... the next API call gets a 500 problem document (and the SDK retries it).
//	}
//
// Programs (examples, local demos) use Start and Close instead of NewServer.
//
// # Not in a production binary
//
// sdktest is test support, and a service's own (non-test) code does not
// import it. It is a fake: it issues bearer tokens to any request signed
// with its test credentials (by default DefaultAccessKeyID and
// DefaultSecretAccessKey, published in this package), keeps every record
// in memory, and serves on a loopback listener of its own; nothing in a
// service should talk to it outside tests. Linking it also brings
// net/http/httptest and github.com/jarcoal/httpmock into the binary, about
// 0.9 MB more for a program that builds a client (10.4 MB to 11.3 MB,
// Go 1.26, linux/amd64). The Go linker only includes packages the program
// imports, so importing sdktest only from _test.go files keeps all of it
// out of the service's binary. To check:
//
//	go list -deps ./cmd/yourservice | grep memberplatform-go/sdktest # prints nothing
//
// The demo programs of this repository (examples/quickstart) are the
// exception: they run against the fake on purpose.
//
// # Assumptions
//
// The contract does not show numeric status codes, the token operation's
// shape, or most error conditions. The fake's choices: 200 for updates,
// 201/200 for the address upsert (created/updated), 400 for malformed
// bodies, 422 for rule violations in access management, 401 for a missing
// or invalid bearer token, 404 for unknown users, roles and members, 409 for
// an email already used by another user, 429 for rate limiting, 501 "Not
// implemented" for unknown payment methods and 503 for the
// provider-not-configured mode. api/openapi.yaml states them response by
// response, and the README's table of operations
// (https://github.com/memberplatform/memberplatform-go#operations) gives
// each operation's HTTP method, path and error format, which an httpmock
// responder needs.
//
// The request format of a payment method's expDate is not shown either (the
// SDK sends it exactly as given), while the resource reports MM/YYYY. The
// fake accepts the common spellings of a card expiry, MM/YYYY, MM/YY
// (read as 20YY) and YYYY-MM (ISO 8601, as HTML month inputs give it), and
// stores and reports MM/YYYY, so its responses keep the resource's format;
// any other string is a 400 with a field error on expDate. A real platform
// may accept fewer formats: code that wants to be safe sends what
// payments.ExpDate builds.
package sdktest
