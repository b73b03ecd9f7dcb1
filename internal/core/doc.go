// Package core is the SDK's request pipeline. Users reach it through the
// packages client and option; the area packages describe their operations
// as data (operation.go) and hand them to Do.
//
// The files of one call retried once, in the order they first run:
//
//	internal/validate  the area checks the parameters before anything is sent
//	call.go            the area's JSON body (JSONBody); Do: the call's
//	                   settings and URL; the 401 resend; the 2xx result
//	tokens.go          the bearer token, from the token cache
//	attempts.go        the boundary with go-retryablehttp (its hook order is
//	                   documented there) and the state of one send: headers,
//	                   pacing, authorizing and signing each attempt, reading
//	                   each body, the typed error
//	internal/pacer     the adaptive limiter's turn
//	transport.go       the transport under the attempts: redirects,
//	                   credentials kept on the origin, middleware, stalls
//	internal/redact    secrets replaced in what a response hands back
//	internal/httpx     Retry-After and the request ID
//	internal/jsonscan  the error body, decoded by package errors
//	retry.go           whether to retry (RetryPolicy) and what a retry costs
//	                   (RetryBudget)
//
// attempts.go calls the other files as leaves, so a call reads top-down:
// call.go, then attempts.go. With an observer (observe.go) or a logger
// (log.go) the attempts call those too. Beside the path: settings.go,
// ratelimit.go, baseurl.go, nilcheck.go, client.go and areas.go.
package core
