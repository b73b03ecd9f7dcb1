// Package core is the SDK's request pipeline. Users reach it through the
// packages client and option; the area packages declare their operations
// as data (operation.go: Declare) and hand each call to Do.
//
// The files of one call retried once, in the order they first run:
//
//	internal/validate  the area checks the parameters (Call.Invalid: Do
//	                   refuses the call, observed, before anything is sent)
//	call.go            Do: the call's settings, URL, query and JSON body; the
//	                   401 resend; the 2xx result (kept in the result's
//	                   memberplatform.Raw through internal/rawjson)
//	jsonset.go         option.WithJSONSet's members set in the JSON body
//	tokens.go          the bearer token, from the token cache
//	attempts.go        the boundary with go-retryablehttp (its hook order is
//	                   documented there) and the state of one send: headers,
//	                   authorizing and signing each attempt, reading each
//	                   body, the typed error
//	admission.go       the area's admission control: an attempt refused
//	                   locally while nearly all of its operation's (or the
//	                   area's) recent attempts fail; each answer counted
//	                   (admission_call.go: the call's side; admission_key.go:
//	                   the operation's key, Execute's route)
//	scope.go           the area's load control: its pacer (internal/pacer)
//	                   and rate limiter, waited on before each attempt
//	resources.go       which resource (method and path) the area's
//	                   throttles hit: a few hot resources' kept from the pacer,
//	                   its retries spaced, its new calls refused meanwhile;
//	                   resourcehold.go an attempt held for its next admission
//	transport.go       the transport under the attempts: redirects,
//	                   credentials kept on the origin, middleware, stalls
//	internal/redact    secrets replaced in what a response hands back
//	internal/httpx     Retry-After and the request ID
//	internal/jsonscan  the error body, decoded by package errors
//	retry.go           whether to retry (RetryPolicy) and what a retry costs
//	                   (the area's RetryBudget); retrystatus.go the
//	                   caller's statuses (option.WithRetryOn); retryafter.go
//	                   spreads the retries after a Retry-After
//	deprecation.go     a final answer's Deprecation and Sunset (read by
//	                   internal/httpx): the logger warned once per
//	                   operation, a DeprecationObserver every time
//	callstate.go       the state of one send (callState), under the files
//	                   above that add its methods
//
// attempts.go calls the other files as leaves, so a call reads top-down:
// call.go, then attempts.go, down to callstate.go. A send's state
// (callState) is declared in callstate.go; the parts other files change
// are theirs (budgetState in retry.go, paceState in scope.go,
// admissionState in admission.go, logState in log.go). With an observer
// (observe.go) or a logger (log.go) the attempts call those too. Beside
// the path: operation.go, settings.go, baseurl.go, nilcheck.go, client.go
// and areas.go; query.go encodes a call's query (for call.go), and
// pager.go ranges over a list's pages, a call per page.
package core
