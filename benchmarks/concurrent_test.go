package benchmarks_test

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/hashicorp/go-cleanhttp"
)

// concurrentCallers is how many goroutines BenchmarkConcurrent calls from:
// a service calling the platform from many goroutines at once.
const concurrentCallers = 32

// BenchmarkConcurrent runs accessmgmt.UpdateUser from concurrentCallers
// goroutines, over TLS with HTTP/1.1 (httptest.NewTLSServer) and over
// plain HTTP: the SDK on the pool client.New makes, raw on
// cleanhttp.DefaultPooledTransport with a pool that fits
// (MaxIdleConnsPerHost 64). Each contender has a server of its own, so
// "<contender>-conns" counts the connections that contender opened in the
// timed turns, after a warm-up that filled the pools: a pool smaller than
// the callers closes a connection at the end of most calls and opens (and,
// over TLS, handshakes) a new one for the next; one that fits opens none.
func BenchmarkConcurrent(b *testing.B) {
	op := operationNamed("accessmgmt.UpdateUser")
	for _, scheme := range []string{"tls", "plain"} {
		b.Run(scheme, func(b *testing.B) {
			sdkSrv, rawSrv := newConnCounter(b, scheme), newConnCounter(b, scheme)
			raw := cleanhttp.DefaultPooledTransport()
			raw.MaxIdleConnsPerHost = 64
			b.Cleanup(raw.CloseIdleConnections)
			cl := &clients{sdk: newSDK(b, sdkSrv.URL, nil), raw: newRaw(rawSrv.URL, raw)}
			cs := contenders(op, cl, false)
			warm(b, cs) // the pools hold a connection per caller before the turns are timed
			b.SetParallelism((concurrentCallers + runtime.GOMAXPROCS(0) - 1) / runtime.GOMAXPROCS(0))
			sdkWarm, rawWarm := sdkSrv.conns.Load(), rawSrv.conns.Load()
			run(b, true, loopbackBatch, cs...)
			b.ReportMetric(float64(sdkSrv.conns.Load()-sdkWarm), "sdk-conns")
			b.ReportMetric(float64(rawSrv.conns.Load()-rawWarm), "raw-conns")
		})
	}
}

// warm makes a few calls of each contender from concurrentCallers
// goroutines at once, so that the timed turns measure a pool that already
// holds what the callers use (its handshakes count in "<contender>-conns",
// not in the time; a pool that churns handshakes in the turns all the same).
func warm(b *testing.B, cs []contender) {
	for _, c := range cs {
		var wg sync.WaitGroup
		for range concurrentCallers {
			wg.Go(func() {
				for range 4 {
					if err := c.call(context.Background()); err != nil {
						b.Error(err)
						return
					}
				}
			})
		}
		wg.Wait()
	}
}

// connCounter is a loopback server answering like the platform that
// counts the connections opened to it.
type connCounter struct {
	*httptest.Server
	conns atomic.Int64
}

func newConnCounter(tb testing.TB, scheme string) *connCounter {
	tb.Helper()
	s := &connCounter{Server: httptest.NewUnstartedServer(responder{})}
	s.Config.ConnState = func(_ net.Conn, state http.ConnState) {
		if state == http.StateNew {
			s.conns.Add(1)
		}
	}
	if scheme == "tls" {
		s.StartTLS() // HTTP/1.1 only: httptest offers HTTP/2 only with EnableHTTP2
	} else {
		s.Start()
	}
	tb.Cleanup(s.Close)
	return s
}
