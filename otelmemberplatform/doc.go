// Package otelmemberplatform instruments a memberplatform-go client with
// OpenTelemetry: a span for every operation call, HTTP attempt and token
// fetch, events for every retry decision, rate-limit wait and retry-budget
// refusal, and the metrics below. Give any of its options to client.New:
//
//	c, err := client.New(
//		option.WithBaseURL("https://api.example.com"),
//		otelmemberplatform.WithTracerProvider(tp), // nil: otel.GetTracerProvider()
//		otelmemberplatform.WithMeterProvider(mp),  // nil: otel.GetMeterProvider()
//		otelmemberplatform.WithPropagator(propagation.TraceContext{}), // nil: otel.GetTextMapPropagator()
//	)
//
// The options build one instrumentation per client; the providers and the
// propagator not given are the global ones. It is a module of its own, so
// that the SDK's root module, and programs that do not import this package,
// carry no OpenTelemetry dependency. It is built on the SDK's extension
// point, package github.com/memberplatform/memberplatform-go/observe.
//
// # Spans
//
//   - One span per operation call, kind INTERNAL, named by the operation
//     (accessmgmt.UpdateUser, client.Execute...), with attribute
//     memberplatform.operation. It is the parent of everything the call
//     does. When the call fails its status is Error, with the error.type
//     (below) as description and attribute.
//   - One span per HTTP attempt, kind CLIENT, named "{method} {url.template}"
//     ("PUT /auth/access-management/users/{userId}"; just the method for
//     client.Execute, whose path may hold IDs), with the HTTP client
//     semantic conventions' http.request.method, server.address,
//     server.port, url.template, http.response.status_code,
//     http.request.resend_count (on a resend: 1 for the first retry or the
//     resend after a 401, 2 for the next...) and, on failure, error.type
//     (the status code of an error response, else the failure's type) and
//     status Error. The attempt's context is injected into the request with
//     the propagator, before the SigV4 signature, which then covers it.
//   - One span per token fetch, kind INTERNAL, named auth.Token, under the
//     call that triggered it. With a SigV4 token source the token call's
//     attempts are its children.
//   - Events on the operation span (or the token fetch span, for the token
//     call): memberplatform.retry (memberplatform.retry.attempt,
//     memberplatform.retry.reason, memberplatform.retry.delay in seconds),
//     memberplatform.ratelimit.wait (memberplatform.ratelimit.wait.duration
//     in seconds), memberplatform.retry_budget.refused
//     (memberplatform.retry.attempt, memberplatform.retry.reason) and
//     memberplatform.admission.shed (memberplatform.area, error.type and
//     memberplatform.admission.scope: an attempt admission control refused
//     locally, never sent; scope "operation" when the call's operation was
//     shed on its own while others of its area were served, "area" when the
//     whole area is down) and memberplatform.deprecated
//     (memberplatform.operation, memberplatform.sunset,
//     memberplatform.deprecation.link: the final answer said the operation
//     is deprecated).
//
// # Metrics
//
// Every metric carries memberplatform.area, the backend the call reaches
// (accessmgmt, payments, customer, token, other), so that each area's
// throttling and outages show apart:
//
//	memberplatform.client.call.duration            histogram s         memberplatform.area, memberplatform.operation,
//	                                                                   error.type when it failed
//	memberplatform.client.call.attempts            counter {attempt}   memberplatform.area, memberplatform.operation
//	memberplatform.client.call.errors              counter {error}     memberplatform.area, memberplatform.operation, error.type
//	http.client.request.duration                   histogram s         per attempt: memberplatform.area (its call's),
//	                                                                   http.request.method, server.address, server.port,
//	                                                                   url.template, http.response.status_code, error.type
//	memberplatform.client.token.fetch.duration     histogram s         memberplatform.area (token), error.type when it failed
//	memberplatform.client.ratelimit.wait.duration  histogram s         memberplatform.area: time an attempt waited for the
//	                                                                   pacer, the limiter of option.WithRateLimiter, or
//	                                                                   the next admission of a user the provider limits
//	memberplatform.client.retry_budget.available   gauge {token}       memberplatform.area: tokens left in the retry budget
//	memberplatform.client.retry_budget.refused     counter {retry}     memberplatform.area, error.type of the attempt not
//	                                                                   retried: retries the budget refused
//	memberplatform.client.ratelimit.rate           gauge {request}/s   memberplatform.area: the adaptive pacer's rate;
//	                                                                   0 while it is dormant
//	memberplatform.client.ratelimit.throttled_resources
//	                                               gauge {resource}    memberplatform.area: resources (an operation and its
//	                                                                   path parameters) throttled on their own, which do
//	                                                                   not slow the area
//	memberplatform.client.admission.shed           counter {attempt}   memberplatform.area, memberplatform.operation,
//	                                                                   error.type of the operation's recent failures,
//	                                                                   memberplatform.admission.scope (operation: shed on
//	                                                                   its own; area: the area is down): attempts
//	                                                                   admission control refused, unsent
//	memberplatform.client.admission.shed_ratio     gauge 1             memberplatform.area: the share of attempts admission
//	                                                                   control refused over the last 2 s; 0 while healthy
//	memberplatform.client.deprecated_answers       counter {answer}    memberplatform.area, memberplatform.operation,
//	                                                                   memberplatform.sunset (a date such as 2026-07-01,
//	                                                                   when given): calls whose final answer carried
//	                                                                   Deprecation or Sunset headers
//
// The gauges are read at collection time from the clients. Clients that
// share a MeterProvider report together, per area, the smallest retry
// budget and the largest pacer rate, shed ratio and count of resources
// throttled on their own among them (a gauge
// keeps one point per attribute set, and the client in the most trouble is
// what an alert needs); a client that is no longer used stops counting
// once it is garbage collected.
//
// # Alerts and dashboard
//
// The module github.com/memberplatform/memberplatform-go/otelmemberplatform/monitoring
// holds Prometheus recording and alerting rules for these metrics (each
// alert with a runbook line and promtool unit tests) and a Grafana
// dashboard with one row per area, proved against a real Prometheus
// scraping an example service that exports the metrics through
// go.opentelemetry.io/otel/exporters/prometheus; see
// https://pkg.go.dev/github.com/memberplatform/memberplatform-go/otelmemberplatform/monitoring
// for the names the metrics take in Prometheus, and the repository's
// docs/observability.md, "Alerts and a dashboard for Prometheus and Grafana"
// (https://github.com/memberplatform/memberplatform-go/blob/main/docs/observability.md#alerts-and-a-dashboard-for-prometheus-and-grafana)
// for the alerts table and the dashboard's description.
//
// # error.type
//
// On operation spans and the memberplatform.* metrics, error.type is the
// failure's kind (observe.ErrorType): rate_limited, canceled, timeout,
// invalid_input, token_unavailable, transport, provider_not_configured,
// bad_request, unauthorized, forbidden, not_found, conflict,
// unprocessable_entity, internal, not_implemented, service_unavailable,
// unexpected_response_body, or the status class of an error response of
// no known kind ("4xx", "5xx"; "_OTHER" outside 100-599), so that it stays
// low-cardinality whatever statuses a server invents. On attempt spans and
// http.client.request.duration it follows the HTTP semantic conventions:
// the status code of an error response ("503", "418"), else timeout,
// canceled or transport.
//
// # What is never recorded
//
// No span name, attribute, event or status and no metric attribute holds a
// token, a SigV4 signature or secret, a session token, a URL (so no query
// value and no path ID: url.template has the {placeholders}), a request or
// response body, or an error's text. Attributes stay low-cardinality: no
// user, member, role or payment method ID.
package otelmemberplatform
