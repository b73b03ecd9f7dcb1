// Package core is the SDK's request pipeline. Users reach it through the
// public packages client and option; the area packages describe their
// operations as data (Operation, Call in operation.go) and hand them to Do.
//
// One call, in the order its code runs (a retried call goes round the
// attempts once more):
//
//	call.go      Do: the call's settings (the client's, or a copy with the
//	             call's options), the URL (escaped path parameters, query)
//	             and JSON body, the 401 resend, then the 2xx result and
//	             the response handed to WithResponseInto, its secrets
//	             replaced
//	tokens.go    the bearer token, from the token cache
//	attempts.go  the boundary with go-retryablehttp (its hook order is
//	             documented there) and the state of one send, with all
//	             that changes it: the headers it owns, pacing, authorizing
//	             and signing each attempt, reading each body inside its
//	             attempt, the typed error for an error answer or for a send
//	             that got no final answer, with every secret the requests
//	             carried replaced (by internal/redact)
//	transport.go the *http.Client under the attempts: redirect policy,
//	             credentials kept on the origin, middleware
//	retry.go     the pure retry decision (RetryPolicy.Decide)
//	budget.go    the client's retry budget: pay for a retry, note it sent,
//	             refund it, settle it on the final answer
//
// With an observer (observe.go) or a logger (log.go), the attempts also
// call those. Beside the path: settings.go (what an option can change),
// ratelimit.go (the user's limiter and the adaptive limiter's errors; the
// limiter itself is internal/pacer), baseurl.go, nilcheck.go, client.go and
// areas.go (how client.New builds a Client).
package core
