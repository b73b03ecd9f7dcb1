package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/memberplatform/memberplatform-go/observe"
	"github.com/memberplatform/memberplatform-go/otelmemberplatform/monitoring"
	"github.com/memberplatform/memberplatform-go/otelmemberplatform/monitoring/internal/promtest"
)

// The documented label values.
var (
	areas = []string{"accessmgmt", "customer", "other", "payments", "token"}
	// errorTypes are observe.ErrorType's values: error.type of the calls,
	// token fetches, refused retries and shed attempts.
	errorTypes = []string{observe.ErrorRateLimited, observe.ErrorCanceled, observe.ErrorTimeout, observe.ErrorInvalidInput,
		observe.ErrorTokenUnavailable, observe.ErrorTransport, observe.ErrorProviderNotConfigured, observe.ErrorBadRequest,
		observe.ErrorUnauthorized, observe.ErrorForbidden, observe.ErrorNotFound, observe.ErrorConflict, observe.ErrorUnprocessableEntity,
		observe.ErrorInternal, observe.ErrorNotImplemented, observe.ErrorServiceUnavailable, observe.ErrorUnexpectedResponseBody,
		"1xx", "2xx", "3xx", "4xx", "5xx", observe.ErrorOther}
	// attemptErrorType is error.type of http.client.request.duration: the
	// HTTP conventions' status code, else the failure's type.
	attemptErrorType = regexp.MustCompile(`^([1-5][0-9][0-9]|timeout|canceled|transport)$`)
)

// job is the scrape job's name: any name, since the rules select none.
const job = "e2e-checkout-service"

// TestPrometheusEndToEnd starts the example service on loopback and a real
// Prometheus (Debian's package) that scrapes it every second and loads the
// rules, while the service goes through healthy traffic, a throttle and an
// outage. Then every recording rule and every dashboard query must return
// series through Prometheus' HTTP API, with the documented label values,
// and every series the rules name must be one the service exports.
func TestPrometheusEndToEnd(t *testing.T) {
	bin := promtest.Binary(t, "prometheus")
	rules, err := promtest.ParseRules(monitoring.Rules())
	if err != nil {
		t.Fatal(err)
	}
	dash, err := promtest.ParseDashboard(monitoring.Dashboard())
	if err != nil {
		t.Fatal(err)
	}

	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() {
		served <- run(ctx, lis, Phases{Healthy: 2 * time.Second, Throttle: 4 * time.Second, Outage: 4 * time.Second}, io.Discard)
	}()
	t.Cleanup(func() {
		cancel()
		if err := <-served; err != nil {
			t.Errorf("the example service: %v", err)
		}
	})
	prom := promtest.StartPrometheus(t, bin, promtest.Config{Job: job, Target: lis.Addr().String(), Rules: monitoring.Rules(), Interval: time.Second})

	// Wait for a whole cycle (healthy, throttle, healthy, outage: 12 s)
	// to be scraped and evaluated, and for everything the checks below
	// expect; then check, and report all that is missing.
	deadline := time.Now().Add(45 * time.Second)
	var problems []string
	for {
		time.Sleep(time.Second)
		problems = check(t.Context(), prom, rules, dash)
		if len(problems) == 0 || time.Now().After(deadline) {
			break
		}
	}
	for _, p := range problems {
		t.Error(p)
	}
	if t.Failed() {
		return
	}
	// The deprecation alert fires for the deprecated endpoint, once its
	// for (30 s) has passed.
	firing := `ALERTS{alertname="MemberplatformOperationDeprecated",alertstate="firing",memberplatform_operation="client.Execute",memberplatform_sunset="2027-01-01"}`
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(time.Second) {
		s, err := prom.Query(t.Context(), firing)
		if err != nil {
			t.Fatal(err)
		}
		if len(s) > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the deprecated status endpoint's answers did not fire %s", firing)
		}
	}

	// The check catches a rule that names a series as the translation
	// does not spell it (units dropped, no _total).
	broken := strings.NewReplacer("memberplatform_client_call_errors_total", "memberplatform_client_call_errors",
		"http_client_request_duration_seconds_count", "http_client_request_duration_count").Replace(string(monitoring.Rules()))
	brokenRules, err := promtest.ParseRules([]byte(broken))
	if err != nil {
		t.Fatal(err)
	}
	exported, err := exportedNames(t.Context(), prom)
	if err != nil {
		t.Fatal(err)
	}
	got := unexported(brokenRules, dash, exported)
	for _, want := range []string{"memberplatform_client_call_errors", "http_client_request_duration_count"} {
		if !slices.ContainsFunc(got, func(p string) bool { return strings.Contains(p, " "+want+",") }) {
			t.Errorf("a rule naming %s, which the service does not export, went unnoticed; problems: %v", want, got)
		}
	}
}

// check returns what is wrong or missing, in words; nil when all is there.
func check(ctx context.Context, prom *promtest.Server, rules promtest.RuleFile, dash promtest.Dashboard) []string {
	var problems []string
	fail := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	query := func(q string) []promtest.Sample {
		s, err := prom.Query(ctx, q)
		if err != nil {
			fail("%v", err)
		}
		return s
	}

	health, err := prom.RuleHealth(ctx)
	if err != nil {
		return []string{err.Error()}
	}
	for _, r := range append(rules.Records(), rules.Alerts()...) {
		name := r.Record + r.Alert
		if h, ok := health[name]; !ok || strings.HasPrefix(h, "err") {
			fail("rule %s: Prometheus reports %q (loaded: %v)", name, h, ok)
		}
	}

	exported, err := exportedNames(ctx, prom)
	if err != nil {
		return []string{err.Error()}
	}
	problems = append(problems, unexported(rules, dash, exported)...)

	// Every recording rule returns series, per job and documented area.
	for _, r := range rules.Records() {
		samples := query(r.Record)
		if len(samples) == 0 {
			fail("recording rule %s returns no series", r.Record)
			continue
		}
		for _, s := range samples {
			if s.Metric["job"] != job || !slices.Contains(areas, s.Metric["memberplatform_area"]) {
				fail("recording rule %s: series %v, want job %q and a documented memberplatform_area", r.Record, s.Metric, job)
			}
			if et, ok := s.Metric["error_type"]; ok && !slices.Contains(errorTypes, et) {
				fail("recording rule %s: error_type %q is not one of observe.ErrorType's", r.Record, et)
			}
			if o, ok := s.Metric["outcome"]; ok && o != "ok" && !slices.Contains(errorTypes, o) {
				fail("recording rule %s: outcome %q, want ok or one of observe.ErrorType's", r.Record, o)
			}
		}
	}

	// Every dashboard query returns series for some area, the traffic
	// panels for every area; the variables list the job and every area.
	everyArea := []string{"Calls per second by outcome A", "Call latency A", "Call latency B", "Attempts answered 429 A",
		"Adaptive pacer rate A", "Retry budget A"}
	for _, p := range dash.Panels {
		var with []string
		for _, a := range areas {
			if len(query(promtest.Expand(p.Expr, a))) > 0 {
				with = append(with, a)
			}
		}
		switch {
		case len(with) == 0:
			fail("panel %q (%s) returns no series for any area: %s", p.Title, p.RefID, p.Expr)
		case slices.Contains(everyArea, p.Title+" "+p.RefID) && len(with) != len(areas):
			fail("panel %q (%s) returns series for areas %v only, want all of %v", p.Title, p.RefID, with, areas)
		}
	}
	for _, v := range dash.Variables {
		q := strings.ReplaceAll(v.Query, `"$job"`, `".+"`)
		m := regexp.MustCompile(`^label_values\((.*), *([a-z_]+)\)$`).FindStringSubmatch(q)
		if m == nil {
			fail("variable %s: query %q is not label_values(series, label)", v.Name, v.Query)
			continue
		}
		var values []string
		for _, s := range query("group by (" + m[2] + ") (" + m[1] + ")") {
			values = append(values, s.Metric[m[2]])
		}
		sort.Strings(values)
		want := map[string][]string{"job": {job}, "area": areas}[v.Name]
		if !slices.Equal(values, want) {
			fail("variable %s lists %v, want %v", v.Name, values, want)
		}
	}

	// Every series of the SDK carries a documented memberplatform_area,
	// and error_type holds the documented values.
	sdk := `{__name__=~"memberplatform_client_.+|http_client_.+"}`
	var seen []string
	for _, s := range query("group by (memberplatform_area) (" + sdk + ")") {
		seen = append(seen, s.Metric["memberplatform_area"])
	}
	sort.Strings(seen)
	if !slices.Equal(seen, areas) {
		fail("memberplatform_area values %v, want every one of %v and no series without it", seen, areas)
	}
	for _, s := range query(`group by (__name__, error_type) ({__name__=~"memberplatform_client_.+", error_type!=""})`) {
		if !slices.Contains(errorTypes, s.Metric["error_type"]) {
			fail("%s: error_type %q is not one of observe.ErrorType's", s.Metric["__name__"], s.Metric["error_type"])
		}
	}
	for _, s := range query(`group by (error_type) (http_client_request_duration_seconds_count{error_type!=""})`) {
		if !attemptErrorType.MatchString(s.Metric["error_type"]) {
			fail("http_client_request_duration_seconds: error_type %q is neither a status code nor timeout, canceled or transport", s.Metric["error_type"])
		}
	}

	// What the phases drove shows where it should.
	for q, what := range map[string]string{
		`memberplatform_area:http_client_request_throttled:ratio_rate5m{memberplatform_area="accessmgmt"}`:                                                                                                   "the throttle's 429s",
		`memberplatform_area:memberplatform_client_ratelimit_rate_per_second:max{memberplatform_area="accessmgmt"}`:                                                                                          "the pacer engaged by the throttle",
		`memberplatform_area:memberplatform_client_ratelimit_waits:rate5m{memberplatform_area="accessmgmt"}`:                                                                                                 "waits for the pacer",
		`memberplatform_area_error_type:memberplatform_client_call_errors:ratio_rate5m{memberplatform_area="payments",error_type="service_unavailable"}`:                                                     "the outage's 503s",
		`memberplatform_area_error_type:memberplatform_client_call_errors:ratio_rate5m{memberplatform_area="customer",error_type="transport"}`:                                                               "the outage's reset connections",
		`memberplatform_area:memberplatform_client_token_fetch_failures:ratio_rate5m{memberplatform_area="token"}`:                                                                                           "the outage's failed token fetches",
		`memberplatform_area:memberplatform_client_retry_budget_refused:rate5m{memberplatform_area="payments"}`:                                                                                              "the retries the budget refused in the outage",
		`memberplatform_area:memberplatform_client_admission_shed:rate5m{memberplatform_area="payments"}`:                                                                                                    "the attempts admission control shed in the outage",
		`memberplatform_area:memberplatform_client_admission_shed_ratio:max{memberplatform_area="payments"}`:                                                                                                 "admission control refusing a share in the outage",
		`memberplatform_area_operation_sunset:memberplatform_client_deprecated_answers:increase1h{memberplatform_area="other",memberplatform_operation="client.Execute",memberplatform_sunset="2027-01-01"}`: "the deprecated status endpoint's answers",
	} {
		if s := query("max_over_time(" + q + "[2m]) > 0"); len(s) == 0 {
			fail("no sign of %s: %s was never above 0", what, q)
		}
	}
	// One operation of access management shed on its own (issue 40).
	q := `memberplatform_area_operation:memberplatform_client_admission_shed_operation:rate5m{memberplatform_area="accessmgmt",memberplatform_operation="accessmgmt.ReplaceRolePermissions"}`
	if s := query("max_over_time(" + q + "[2m]) > 0"); len(s) == 0 {
		fail("no sign of ReplaceRolePermissions shed on its own in the outage: %s was never above 0", q)
	}
	return problems
}

// exportedNames returns the names of the SDK's series Prometheus scraped.
func exportedNames(ctx context.Context, prom *promtest.Server) (map[string]bool, error) {
	samples, err := prom.Query(ctx, `group by (__name__) ({__name__=~"memberplatform_client_.+|http_client_.+"})`)
	if err != nil {
		return nil, err
	}
	names := map[string]bool{}
	for _, s := range samples {
		names[s.Metric["__name__"]] = true
	}
	return names, nil
}

// unexported returns a problem for every series a rule or a panel names
// that the service does not export.
func unexported(rules promtest.RuleFile, dash promtest.Dashboard, exported map[string]bool) []string {
	var problems []string
	where := map[string]string{}
	for _, r := range append(rules.Records(), rules.Alerts()...) {
		where[r.Record+r.Alert] = r.Expr
	}
	for _, p := range dash.Panels {
		where["panel "+p.Title+" "+p.RefID] = p.Expr
	}
	for _, v := range dash.Variables {
		where["variable "+v.Name] = v.Query
	}
	for name, expr := range where {
		for _, n := range promtest.ExportedNames(expr) {
			if !exported[n] {
				problems = append(problems, fmt.Sprintf("%s names series %s, which the example service does not export", name, n))
			}
		}
	}
	sort.Strings(problems)
	return problems
}
