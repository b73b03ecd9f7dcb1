// Package observe is the SDK's extension point for telemetry. An Observer,
// given to client.New with option.WithObserver, sees what a client does:
// every operation call, every HTTP attempt, every token fetch, each retry
// decision, each wait for a rate limiter, each retry the retry budget
// refused and, through the optional ShedObserver, each attempt admission
// control refused locally, and through the optional DeprecationObserver,
// each answer that says its operation is deprecated. It can also read the client's load-control
// state for gauges (StateObserver).
//
// The OpenTelemetry adapter, module
// github.com/memberplatform/memberplatform-go/otelmemberplatform, is built
// on this package alone; the SDK's root module depends on no telemetry
// library. Write an Observer only to feed another telemetry system.
//
// # What is called, and when
//
// For each call of an operation (accessmgmt.UpdateUser, client.Execute,
// the SigV4 token call auth.Token...), in this order:
//
//	StartCall
//	  StartTokenFetch ... EndTokenFetch   when the call needs a fresh token;
//	                                      a SigV4 fetch is itself a call
//	                                      (auth.Token, Call.Token set) nested here
//	  RateLimitWait                       before an attempt, when a limiter, the
//	                                      pacer or a hot resource's hold is in play
//	  StartAttempt ... EndAttempt         once per HTTP attempt, or
//	  Shed                                (ShedObserver) in their place when
//	                                      admission control refused it unsent
//	  Retry | BudgetRefused               after an attempt the policy would retry
//	  ... more waits and attempts ...
//	  Deprecated                          (DeprecationObserver) when the final
//	                                      answer says the operation is deprecated
//	EndCall
//
// A call the SDK refuses before sending anything (invalid input, an
// *errors.ValidationError, for every operation and client.Execute) is a
// StartCall and an EndCall with that error and no attempt, so that refused
// calls show as calls of ErrorType ErrorInvalidInput.
//
// Each Start method returns the context the SDK then uses for what happens
// inside (the returned context must derive from the one given); the
// matching End method gets that context back. The other methods get the
// call's context, or one derived from it.
//
// # Cost
//
// With no observer the SDK calls nothing and allocates nothing for
// observation. With one, the methods run on the call's goroutine (a token
// fetch runs on the fetch's own goroutine), inside the call's latency:
// they must be fast, safe for concurrent use, and must not panic.
//
// # Stability
//
// Observer will not gain methods: new events come as new optional
// interfaces (as StateObserver and Combiner are), checked with a type
// assertion, and as new fields of the event structs. Reading a struct's
// fields by name keeps an Observer compiling across releases.
//
// # Secrets
//
// No event carries a token, a signature, a body, a query string or a path
// parameter: Call.URLTemplate is the path template with its {placeholders}.
// Attempt.Request is the one exception, the request itself; an Observer
// must not record its URL (path IDs, query values) or its credential
// headers.
package observe
