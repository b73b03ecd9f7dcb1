package main

import (
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestServiceServesMetrics: the example serves the SDK's metrics on
// /metrics under the exporter's names, each with memberplatform_area, and
// stops cleanly when its context ends. (TestPrometheusEndToEnd checks the
// rest with a real Prometheus.)
func TestServiceServesMetrics(t *testing.T) {
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	served := make(chan error, 1)
	go func() {
		served <- run(ctx, lis, Phases{Healthy: 200 * time.Millisecond, Throttle: 200 * time.Millisecond, Outage: 200 * time.Millisecond}, io.Discard)
	}()

	client := &http.Client{Transport: &http.Transport{}}
	defer client.CloseIdleConnections()
	want := []string{
		`memberplatform_client_call_duration_seconds_count{`,
		`memberplatform_client_call_attempts_total{`,
		`http_client_request_duration_seconds_bucket{`,
		`memberplatform_client_token_fetch_duration_seconds_count{`,
		`memberplatform_client_retry_budget_available{`,
		`memberplatform_client_ratelimit_rate_per_second{`,
	}
	var body string
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		resp, err := client.Get("http://" + lis.Addr().String() + "/metrics")
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		body = string(b)
		if !strings.Contains(body, "memberplatform_client_") {
			continue
		}
		missing := false
		for _, w := range want {
			missing = missing || !strings.Contains(body, w)
		}
		if !missing {
			break
		}
	}
	for _, line := range strings.Split(body, "\n") {
		if (strings.HasPrefix(line, "memberplatform_client_") || strings.HasPrefix(line, "http_client_")) && !strings.Contains(line, `memberplatform_area="`) {
			t.Errorf("a series without memberplatform_area: %s", line)
		}
	}
	for _, w := range want {
		if !strings.Contains(body, w) {
			t.Errorf("/metrics has no %s...", w)
		}
	}
	cancel()
	select {
	case err := <-served:
		if err != nil {
			t.Errorf("run returned %v after its context ended, want nil", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("run did not return after its context ended")
	}
}
