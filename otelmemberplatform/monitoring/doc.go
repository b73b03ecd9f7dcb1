// Package monitoring ships what an SRE team needs to run services built on
// memberplatform-go in production with Prometheus and Grafana: recording
// and alerting rules for the metrics that otelmemberplatform records, each
// alert with a runbook line, promtool unit tests for every alert, and a
// Grafana dashboard with one row per memberplatform.area. The files are in
// the module (prometheus/memberplatform.rules.yml,
// prometheus/memberplatform.rules_test.yml, grafana/memberplatform-go.json)
// and embedded in this package: Rules, RulesTests and Dashboard return
// them, for a program that provisions Prometheus or Grafana.
//
// To copy them from the module cache instead:
//
//	go mod download github.com/memberplatform/memberplatform-go/otelmemberplatform/monitoring@latest
//	dir=$(go list -m -f '{{.Dir}}' github.com/memberplatform/memberplatform-go/otelmemberplatform/monitoring@latest)
//	cp "$dir"/prometheus/memberplatform.rules.yml "$dir"/grafana/memberplatform-go.json .
//
// # The names they read
//
// The rules read the names OpenTelemetry's Prometheus exporter
// (go.opentelemetry.io/otel/exporters/prometheus) gives by default, created
// with a registerer only (prometheus.New(prometheus.WithRegisterer(reg))):
// no namespace, the unit a suffix (s: _seconds; {request}/s: _per_second;
// 1: _ratio; a {annotation} unit none), counters ending in _total, dots
// turned to underscores, so the attribute memberplatform.area is the label
// memberplatform_area and error.type is error_type:
//
//	memberplatform.client.call.duration            memberplatform_client_call_duration_seconds (histogram)
//	memberplatform.client.call.attempts            memberplatform_client_call_attempts_total
//	memberplatform.client.call.errors              memberplatform_client_call_errors_total
//	http.client.request.duration                   http_client_request_duration_seconds (histogram)
//	memberplatform.client.token.fetch.duration     memberplatform_client_token_fetch_duration_seconds (histogram)
//	memberplatform.client.ratelimit.wait.duration  memberplatform_client_ratelimit_wait_duration_seconds (histogram)
//	memberplatform.client.ratelimit.rate           memberplatform_client_ratelimit_rate_per_second
//	memberplatform.client.retry_budget.available   memberplatform_client_retry_budget_available
//	memberplatform.client.retry_budget.refused     memberplatform_client_retry_budget_refused_total
//	memberplatform.client.admission.shed           memberplatform_client_admission_shed_total
//	memberplatform.client.admission.shed_ratio     memberplatform_client_admission_shed_ratio
//	memberplatform.client.ratelimit.unfollowed_ratio memberplatform_client_ratelimit_unfollowed_ratio
//	memberplatform.client.ratelimit.throttled_resources memberplatform_client_ratelimit_throttled_resources
//
// Another exporter, a namespace or an OTLP pipeline into Prometheus may
// spell them otherwise: then rename in the rules.
//
// otelmemberplatform starts every counter at 0 for each area (a point with
// memberplatform_area alone) at the client's first collection, so a
// healthy service's rates and panels read 0, not "No data".
//
// The rules select no job, instance or service label (scrape under any job
// name) and keep every value per job and memberplatform_area. The
// recording rules, in group memberplatform-go.rules, compute the values
// (calls per second by outcome, error ratio by error.type, p50 and p99
// latency, the share of attempts answered 429, the pacer's rate, waits,
// retry budget, token fetches and their failures, attempts shed by
// admission control, HTTP attempts per call);
// the alerts, in group memberplatform-go.alerts, hold the thresholds:
// MemberplatformProviderThrottling, MemberplatformPacerEngaged,
// MemberplatformCallsShed, MemberplatformTokenFetchesFailing,
// MemberplatformErrorRatioHigh and MemberplatformLatencyHigh; group
// memberplatform-go.outage holds MemberplatformAreaOutage (critical: it
// pages for a whole outage of an area) with the two ratios it reads: the
// share of calls failing for a reason the caller's input does not explain
// over 2 and 5 minutes. Group
// memberplatform-go.admission-operations records the attempts of each
// operation shed on its own (memberplatform_admission_scope="operation":
// one operation failing while the rest of its area is served) and alerts
// on them: MemberplatformOperationShed. Group
// memberplatform-go.deprecations counts the answers that said an operation
// is deprecated over the last hour, by operation and sunset date, and
// alerts on them: MemberplatformOperationDeprecated. Group
// memberplatform-go.pacer-unfollowed records the share of answers the
// adaptive pacer found throttled whatever rate it sends (a hot key, a lock,
// jitter at a strict limiter), which it does not slow down for, and alerts
// when it lasts: MemberplatformThrottlesNotFollowingRate; it also records
// how many resources (an operation and its path parameters) the provider
// throttles on their own, whose throttles do not slow the area (a panel,
// no alert). The repository's
// docs/observability.md lists the alerts with their runbook lines, says
// how late each fires in an outage, and describes the dashboard.
//
// Beside the hand-written unit tests (prometheus/memberplatform.rules_test.yml)
// the module holds promtool tests of series the exporter really served:
// prometheus/recorded/*_15s_test.yml (15 s evaluation) and
// prometheus/recorded/*_1m_test.yml (1 minute), recorded by
// the module's tests from a client with the default options in virtual
// time (testing/synctest) through outages of 5 minutes, 1 minute and 30 s,
// one 503 in ten and a paced throttle, and regenerated and compared by
// them.
//
// The rules load in Prometheus 2.42 and later. The module's tests run
// promtool's checks and unit tests, and start a real Prometheus scraping
// the example service (examples/service), which drives throttles and an
// outage through sdktest: every recording rule and every panel of the
// dashboard must then return series.
//
// # Series for ad-hoc queries
//
// The rules and the dashboard read every counter and gauge above, the
// histograms' _count, the call duration's _bucket and the waits' _sum.
// These series the exporter serves too, which no rule reads, are for
// ad-hoc queries:
//
//	memberplatform_client_call_duration_seconds_sum            the mean call: rate of _sum over rate of _count
//	http_client_request_duration_seconds_bucket                one attempt's latency, without retries or waits (histogram_quantile, by url_template)
//	http_client_request_duration_seconds_sum                   the mean attempt
//	memberplatform_client_token_fetch_duration_seconds_bucket  a token fetch's latency
//	memberplatform_client_token_fetch_duration_seconds_sum     the mean token fetch
//	memberplatform_client_ratelimit_wait_duration_seconds_bucket  how long one wait for the pacer, the limiter or a hot user's next admission lasts
package monitoring
