package main

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/memberplatform/memberplatform-go/otelmemberplatform/monitoring"
	"github.com/memberplatform/memberplatform-go/otelmemberplatform/monitoring/internal/promtest"
)

// TestPrometheusHealthy: a service whose calls all succeed, scraped by a
// real Prometheus with the rules: every recording rule returns series,
// and every dashboard query returns a series for every area (0 where
// nothing happened: the waits of an area never paced, the errors of an
// area that never failed), not "No data"; no alert is pending or firing
// but the deprecation of the example's status endpoint.
func TestPrometheusHealthy(t *testing.T) {
	bin := promtest.Binary(t, "prometheus")
	rules, err := promtest.ParseRules(monitoring.Rules())
	if err != nil {
		t.Fatal(err)
	}
	dash, err := promtest.ParseDashboard(monitoring.Dashboard())
	if err != nil {
		t.Fatal(err)
	}
	prom := startEndToEnd(t, bin, Phases{Healthy: time.Hour})
	var problems []string
	for deadline := time.Now().Add(45 * time.Second); ; {
		time.Sleep(time.Second)
		problems = checkHealthy(t.Context(), prom, rules, dash)
		if len(problems) == 0 || time.Now().After(deadline) {
			break
		}
	}
	for _, p := range problems {
		t.Error(p)
	}
}

// tokenOnly are the dashboard's queries of token fetches, which only the
// token area has.
var tokenOnly = []string{"Token fetches A", "Token fetches B"}

func checkHealthy(ctx context.Context, prom *promtest.Server, rules promtest.RuleFile, dash promtest.Dashboard) []string {
	var problems []string
	fail := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	for _, r := range rules.Records() {
		s, err := prom.Query(ctx, r.Record)
		if err != nil || len(s) == 0 {
			fail("recording rule %s returns no series in a healthy run (%v)", r.Record, err)
		}
	}
	for _, p := range dash.Panels {
		for _, a := range areas {
			if slices.Contains(tokenOnly, p.Title+" "+p.RefID) && a != "token" {
				continue
			}
			s, err := prom.Query(ctx, promtest.Expand(p.Expr, a))
			if err != nil || len(s) == 0 {
				fail("panel %q (%s) reads No data for area %s in a healthy run (%v): %s", p.Title, p.RefID, a, err, p.Expr)
			}
		}
	}
	s, err := prom.Query(ctx, `ALERTS`)
	if err != nil {
		fail("%v", err)
	}
	for _, a := range s {
		if a.Metric["alertname"] == "MemberplatformOperationDeprecated" {
			continue // the example's status endpoint answers deprecated, healthy or not
		}
		fail("alert %s is %s in a healthy run: %v", a.Metric["alertname"], a.Metric["alertstate"], a.Metric)
	}
	// What a healthy run shows is 0.
	for _, q := range []string{
		`memberplatform_area:memberplatform_client_call_failures:ratio_rate2m`,
		`memberplatform_area:memberplatform_client_retry_budget_refused:rate5m`,
		`memberplatform_area:memberplatform_client_admission_shed:rate5m`,
		`memberplatform_area:memberplatform_client_ratelimit_waits:rate5m`,
	} {
		samples, _ := prom.Query(ctx, q)
		for _, v := range samples {
			if v.Value != 0 && !math.IsNaN(v.Value) { // NaN: no call in the window (a token fetch is rare)
				fail("%s%v = %v in a healthy run, want 0", q, v.Metric, v.Value)
			}
		}
	}
	return problems
}

// TestPrometheusOutageAlertFires: a service whose payments answer 503,
// customer resets its connections and token fetches fail, after a few
// healthy seconds: a real Prometheus evaluating the rules every second
// fires MemberplatformAreaOutage for payments.
func TestPrometheusOutageAlertFires(t *testing.T) {
	bin := promtest.Binary(t, "prometheus")
	prom := startEndToEnd(t, bin, Phases{Healthy: 3 * time.Second, Outage: time.Hour})
	start := time.Now()
	for deadline := start.Add(90 * time.Second); ; time.Sleep(time.Second) {
		s, err := prom.Query(t.Context(), `ALERTS{alertname="MemberplatformAreaOutage", alertstate="firing"}`)
		if err != nil {
			t.Fatal(err)
		}
		var firing []string
		for _, a := range s {
			firing = append(firing, a.Metric["memberplatform_area"])
		}
		if slices.Contains(firing, "payments") {
			t.Logf("MemberplatformAreaOutage firing for %s %v after the service started", strings.Join(firing, ", "), time.Since(start).Round(time.Second))
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("MemberplatformAreaOutage not firing for payments after 90 s (firing for %v)", firing)
		}
	}
}
