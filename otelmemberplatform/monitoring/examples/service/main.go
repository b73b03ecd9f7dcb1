// Command service is a service that calls the member platform through
// memberplatform-go, instrumented by otelmemberplatform, and serves its
// metrics to Prometheus on /metrics through OpenTelemetry's Prometheus
// exporter, with the exporter's default names (the ones the rules and the
// dashboard of package monitoring read).
//
// It needs no platform: it starts sdktest, an in-process fake, and drives
// it in turn through healthy traffic, a throttle (429s) and an outage (503s,
// reset connections, failing token fetches, one access-management operation
// failing on its own), and answers one endpoint as deprecated, so that every
// rule and every dashboard panel has data:
//
//	go run github.com/memberplatform/memberplatform-go/otelmemberplatform/monitoring/examples/service@latest -listen 127.0.0.1:9464
//
// Point a Prometheus at it (scrape_configs: a job with target
// 127.0.0.1:9464) and load the rules of package monitoring.
package main

import (
	"context"
	"errors"
	"flag"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/memberplatform/memberplatform-go/client"
	"github.com/memberplatform/memberplatform-go/option"
	"github.com/memberplatform/memberplatform-go/otelmemberplatform"
	"github.com/memberplatform/memberplatform-go/sdktest"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	otelprom "go.opentelemetry.io/otel/exporters/prometheus"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
)

func main() {
	listen := flag.String("listen", "127.0.0.1:9464", "address to serve /metrics on")
	phase := flag.Duration("phase", 30*time.Second, "how long each phase (healthy, throttle, healthy, outage) lasts")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	lis, err := net.Listen("tcp", *listen)
	if err != nil {
		log.Fatal(err)
	}
	if err := run(ctx, lis, Phases{Healthy: *phase, Throttle: *phase, Outage: *phase}, os.Stdout); err != nil {
		log.Fatal(err)
	}
}

// run serves /metrics on lis and drives the fake platform through the
// phases, over and over, until ctx is done.
func run(ctx context.Context, lis net.Listener, phases Phases, logw io.Writer) error {
	svc, err := newService()
	if err != nil {
		return err
	}
	defer svc.Close()
	srv := &http.Server{Handler: svc.Handler(), ReadHeaderTimeout: 5 * time.Second}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(lis) }()
	logger := log.New(logw, "", log.LstdFlags)
	logger.Printf("serving metrics on http://%s/metrics", lis.Addr())

	svc.Drive(ctx, phases, func(p string) { logger.Printf("phase: %s", p) })

	shutdownCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdownCtx); err != nil {
		return err
	}
	if err := <-served; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// service is the example's instrumented client, the fake platform it
// calls, and the Prometheus registry its metrics are served from.
type service struct {
	registry *prometheus.Registry
	meters   *sdkmetric.MeterProvider
	platform *sdktest.Server
	client   *client.Client
}

// newService wires the OpenTelemetry metrics SDK to a Prometheus registry
// and instruments a client with it. This is all a real service needs; the
// rest of the example drives the fake platform.
func newService() (*service, error) {
	// The exporter's defaults, with a registerer only: no namespace, the
	// units and _total suffixes kept. The rules and the dashboard read
	// these names.
	registry := prometheus.NewRegistry()
	exporter, err := otelprom.New(otelprom.WithRegisterer(registry))
	if err != nil {
		return nil, err
	}
	meters := sdkmetric.NewMeterProvider(sdkmetric.WithReader(exporter))

	platform := sdktest.Start()
	seed(platform)
	// The default options but for a retry budget a tenth of the default
	// size (500): admission control sheds most of an outage's attempts,
	// so the budget would outlast the example's short outages and its
	// panel and rule would have no refusal to show.
	c, err := platform.NewClient(otelmemberplatform.WithMeterProvider(meters), option.WithRetryBudget(option.RetryBudget{Capacity: 50}))
	if err != nil {
		platform.Close()
		_ = meters.Shutdown(context.Background())
		return nil, err
	}
	return &service{registry: registry, meters: meters, platform: platform, client: c}, nil
}

// Handler serves the metrics.
func (s *service) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", promhttp.HandlerFor(s.registry, promhttp.HandlerOpts{}))
	return mux
}

// Close stops the fake platform and the meter provider.
func (s *service) Close() {
	s.client.CloseIdleConnections()
	s.platform.Close()
	_ = s.meters.Shutdown(context.Background())
}
