package monitoring_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	otelprom "go.opentelemetry.io/otel/exporters/prometheus"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"

	"github.com/memberplatform/memberplatform-go/accessmgmt"
	"github.com/memberplatform/memberplatform-go/client"
	"github.com/memberplatform/memberplatform-go/option"
	"github.com/memberplatform/memberplatform-go/otelmemberplatform"
	"github.com/memberplatform/memberplatform-go/otelmemberplatform/monitoring/internal/promtest"
	"github.com/memberplatform/memberplatform-go/payments"
)

// A scenario is what the fake platform does to a service that calls
// payments and access management 10 times a second each, over virtual
// time (testing/synctest): the SDK's own clock, timers, backoffs, pacer
// and admission control run as they would, minutes pass in a moment.
type scenario struct {
	name   string
	length time.Duration
	// Every payments answer is a 503 from down[0] to down[1] (none when
	// both are 0): an outage that must page.
	down [2]time.Duration
	// The same from blip[0] to blip[1]: an outage too short to page.
	blip [2]time.Duration
	// Every oneIn-th payments answer is a 503 (none when 0), and so is
	// every oneIn-th answer to a POST the service sends through
	// client.Execute 10 times a second (area other), which is not retried.
	oneIn int
	// From throttle[0] to throttle[1] the provider admits limit access
	// management requests a second and answers the rest 429; the service
	// sends them in bursts of 20 every 2 s (10 a second on average), so
	// the adaptive pacer has to spread them.
	throttle [2]time.Duration
	limit    int
}

// about says what sc does and what its promtool tests assert.
func (sc scenario) about(pageBy time.Duration) string {
	switch {
	case sc.down != [2]time.Duration{}:
		blip := ""
		if sc.blip != [2]time.Duration{} {
			blip = fmt.Sprintf(" (and from %s to %s, which must not page)", promDuration(sc.blip[0]), promDuration(sc.blip[1]))
		}
		return fmt.Sprintf("Every payments answer a 503 from %s to %s%s, 10 calls a second:\n# the outage alert fires by %s after the start and is resolved %s after the heal; nothing fires before.",
			promDuration(sc.down[0]), promDuration(sc.down[1]), blip, promDuration(pageBy), promDuration(resolveBy))
	case sc.oneIn > 0:
		return fmt.Sprintf("One answer in %d a 503, 10 calls a second each, to payments (retried) and to a\n"+
			"# POST through client.Execute (area other, not retried): the outage alert never fires; the\n"+
			"# POST's 10%% failing fires MemberplatformErrorRatioHigh (a warning) after 10 minutes.", sc.oneIn)
	default:
		return fmt.Sprintf("Access management admits %d requests a second from %s to %s, the service sends\n# 20 every 2 s: the adaptive pacer rides it out, no alert fires.", sc.limit, promDuration(sc.throttle[0]), promDuration(sc.throttle[1]))
	}
}

// The recorded scenarios; the promtool tests built from them state when
// each alert may and must fire.
var scenarios = []scenario{
	{name: "outage", length: 20 * time.Minute, down: [2]time.Duration{5 * time.Minute, 10 * time.Minute}},
	{name: "short-outages", length: 20 * time.Minute, blip: [2]time.Duration{3 * time.Minute, 3*time.Minute + 30*time.Second},
		down: [2]time.Duration{10 * time.Minute, 11 * time.Minute}},
	{name: "one-in-ten", length: 20 * time.Minute, oneIn: 10},
	{name: "throttle", length: 20 * time.Minute, throttle: [2]time.Duration{2 * time.Minute, 17 * time.Minute}, limit: 12},
}

// step is the scrape interval of the recordings.
const step = 15 * time.Second

// fakePlatform answers the two operations the scenario calls, in process:
// an http.RoundTripper, no network, so that synctest's clock runs.
type fakePlatform struct {
	sc    scenario
	start time.Time

	mu          sync.Mutex
	payments    int       // payments requests so far
	orders      int       // POST /orders requests so far
	windowStart time.Time // the provider's rate-limit window
	inWindow    int
}

func (f *fakePlatform) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Body != nil {
		_, _ = io.Copy(io.Discard, req.Body)
		_ = req.Body.Close()
	}
	now := time.Now()
	since := now.Sub(f.start)
	in := func(w [2]time.Duration) bool { return since >= w[0] && since < w[1] }
	f.mu.Lock()
	defer f.mu.Unlock()
	switch {
	case req.URL.Path == "/orders":
		f.orders++
		if f.sc.oneIn > 0 && f.orders%f.sc.oneIn == 0 {
			return answer(req, http.StatusServiceUnavailable, `{"type":"about:blank","title":"Service Unavailable","status":503}`, "application/problem+json"), nil
		}
		return answer(req, http.StatusOK, `{"id":"o1"}`, "application/json"), nil
	case strings.HasPrefix(req.URL.Path, "/payment-methods/"):
		f.payments++
		if in(f.sc.down) || in(f.sc.blip) || (f.sc.oneIn > 0 && f.payments%f.sc.oneIn == 0) {
			return answer(req, http.StatusServiceUnavailable, `{"type":"about:blank","title":"Service Unavailable","status":503}`, "application/problem+json"), nil
		}
		return answer(req, http.StatusOK, `{"id":"`+paymentMethodID+`","billingAccountId":"b1","lastFourDigits":"4242","cardBrand":"visa","expDate":"12/2030","primary":true,"createdAt":"2026-01-01T00:00:00Z","updatedAt":"2026-01-01T00:00:00Z"}`, "application/json"), nil
	default:
		if in(f.sc.throttle) {
			if now.Sub(f.windowStart) >= time.Second {
				f.windowStart, f.inWindow = now.Truncate(time.Second), 0
			}
			f.inWindow++
			if f.inWindow > f.sc.limit {
				resp := answer(req, http.StatusTooManyRequests, `{"type":"about:blank","title":"Too Many Requests","status":429}`, "application/problem+json")
				resp.Header.Set("Retry-After", "1")
				return resp, nil
			}
		}
		return answer(req, http.StatusOK, `{"id":"`+userID+`","email":"ada@example.com","firstName":"Ada"}`, "application/json"), nil
	}
}

func answer(req *http.Request, status int, body, contentType string) *http.Response {
	return &http.Response{StatusCode: status, Status: strconv.Itoa(status) + " " + http.StatusText(status), Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: http.Header{"Content-Type": {contentType}}, Body: io.NopCloser(strings.NewReader(body)), ContentLength: int64(len(body)), Request: req}
}

const (
	userID          = "user_01HEXAMPLE"
	paymentMethodID = "5a1e7c3d-9b2f-4d6a-8e1c-7f3b5d9a1c2e"
)

// record runs sc in a synctest bubble: a client with the default options,
// instrumented by otelmemberplatform into OpenTelemetry's Prometheus
// exporter with its default names, scraped every 15 s of virtual time.
func record(t *testing.T, sc scenario) *promtest.Recording {
	t.Helper()
	var rec *promtest.Recording
	synctest.Test(t, func(t *testing.T) {
		rec = promtest.NewRecording()
		registry := prometheus.NewRegistry()
		exporter, err := otelprom.New(otelprom.WithRegisterer(registry))
		if err != nil {
			t.Fatal(err)
		}
		meters := sdkmetric.NewMeterProvider(sdkmetric.WithReader(exporter))
		defer func() { _ = meters.Shutdown(context.Background()) }()
		platform := &fakePlatform{sc: sc, start: time.Now()}
		c, err := client.New(option.WithBaseURL("https://platform.example.test"), option.WithTransport(platform),
			option.WithTokenSource(nil), option.WithLogger(nil), otelmemberplatform.WithMeterProvider(meters))
		if err != nil {
			t.Fatal(err)
		}
		ctx, stop := context.WithCancel(t.Context())
		var calls sync.WaitGroup
		call := func(f func(ctx context.Context)) {
			calls.Go(func() {
				ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
				defer cancel()
				f(ctx)
			})
		}
		pay := func(ctx context.Context) {
			_, _ = c.Payments.UpdatePaymentMethod(ctx, paymentMethodID, payments.UpdatePaymentMethodParams{SetAsPrimary: new(true)})
		}
		order := func(ctx context.Context) {
			var out struct{ ID string }
			_ = c.Execute(ctx, http.MethodPost, "/orders", map[string]string{"item": "x"}, &out)
		}
		user := func(ctx context.Context) {
			_, _ = c.AccessMgmt.UpdateUser(ctx, userID, accessmgmt.UpdateUserParams{FirstName: new("Ada")})
		}
		calls.Go(func() { // the service's demand: 10 a second per area
			tick := time.NewTicker(100 * time.Millisecond)
			defer tick.Stop()
			for n := 0; ; n++ {
				select {
				case <-ctx.Done():
					return
				case <-tick.C:
				}
				call(pay)
				if sc.oneIn > 0 {
					call(order)
				}
				if n%20 == 0 { // accessmgmt: a burst of 20 every 2 s
					for range 20 {
						call(user)
					}
				}
			}
		})
		scrape := func() {
			families, err := registry.Gather()
			if err != nil {
				t.Fatal(err)
			}
			rec.Add(families, map[string]string{"job": "checkout", "instance": "10.0.0.1:9464"}, func(name string) bool {
				return strings.HasPrefix(name, "memberplatform_client_") || strings.HasPrefix(name, "http_client_")
			})
		}
		// Scrapes at 50 ms, 15.05 s...: between the ticks, never on a
		// phase's edge, so a sample at promtool's time T is the state
		// 50 ms after T of the scenario.
		time.Sleep(50 * time.Millisecond)
		for range int(sc.length / step) {
			scrape()
			time.Sleep(step)
		}
		stop()
		calls.Wait()
		c.CloseIdleConnections()
	})
	return rec
}
