package core

import (
	"bytes"
	"context"
	"crypto/tls"
	stderrors "errors"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync/atomic"
	"testing"
	"time"
)

// --- Connection faults --------------------------------------------------------

// rtReset hijacks the connection and closes it with an RST.
func rtReset(t *testing.T, w http.ResponseWriter) {
	conn, _, err := http.NewResponseController(w).Hijack()
	if err != nil {
		t.Errorf("hijack: %v", err)
		return
	}
	if tc, ok := conn.(*net.TCPConn); ok {
		_ = tc.SetLinger(0)
	}
	_ = conn.Close()
}

func TestConnectionResetMidRequest(t *testing.T) {
	t.Run("idempotent retried", func(t *testing.T) {
		srv := rtNewServer(t, func(w http.ResponseWriter, r *http.Request, hit int) {
			if hit == 1 {
				rtReset(t, w)
				return
			}
			rtJSON(w, 200, `{"ok":true}`)
		})
		c := rtNewClient(t, srv.URL, nil)
		var out struct{ OK bool }
		if err := c.do(context.Background(), rtCall(rtPutOp, &out)); err != nil {
			t.Fatal(err)
		}
		reqs := srv.recorded()
		if !out.OK || len(reqs) != 2 || !bytes.Equal(reqs[0].Body, reqs[1].Body) {
			t.Fatalf("out %+v, %d requests; want success on the identical second attempt", out, len(reqs))
		}
	})
	t.Run("exhausted", func(t *testing.T) {
		srv := rtNewServer(t, func(w http.ResponseWriter, r *http.Request, hit int) { rtReset(t, w) })
		c := rtNewClient(t, srv.URL, nil)
		err := c.do(context.Background(), rtCall(rtPutOp, nil))
		te := rtWantTransportError(t, err, 4)
		var ue *url.Error
		if !stderrors.As(err, &ue) || te.LastStatus != 0 || srv.hits() != 4 {
			t.Fatalf("err = %v (last status %d), hits %d; want a wrapped *url.Error after 4 hits", err, te.LastStatus, srv.hits())
		}
	})
	t.Run("non-idempotent written not retried", func(t *testing.T) {
		srv := rtNewServer(t, func(w http.ResponseWriter, r *http.Request, hit int) { rtReset(t, w) })
		c := rtNewClient(t, srv.URL, nil)
		rtWantTransportError(t, c.do(context.Background(), rtCall(rtPostOp, nil)), 1)
		if srv.hits() != 1 {
			t.Fatalf("server hits = %d, want 1", srv.hits())
		}
	})
}

func TestNonIdempotentRetriedWhenDialFails(t *testing.T) {
	srv := rtNewServer(t, func(w http.ResponseWriter, r *http.Request, hit int) { rtJSON(w, 200, `{}`) })
	refused := rtClosedAddr(t)
	var dials atomic.Int32
	tr := rtNewTransport(t)
	var d net.Dialer
	tr.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		if dials.Add(1) == 1 {
			return d.DialContext(ctx, network, refused) // connection refused
		}
		return d.DialContext(ctx, network, addr)
	}
	c := rtNewClient(t, srv.URL, func(s *Settings) { s.Transport = tr })
	if err := c.do(context.Background(), rtCall(rtPostOp, nil)); err != nil {
		t.Fatal(err)
	}
	if dials.Load() != 2 || srv.hits() != 1 {
		t.Fatalf("dials %d, hits %d; want 2, 1", dials.Load(), srv.hits())
	}
}

// rtClosedAddr returns a loopback address nothing listens on.
func rtClosedAddr(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	_ = l.Close()
	return addr
}

func TestConnectionRefusedExhausted(t *testing.T) {
	c := rtNewClient(t, "http://"+rtClosedAddr(t), nil)
	err := c.do(context.Background(), rtCall(rtPostOp, nil))
	rtWantTransportError(t, err, 4)
	var oe *net.OpError
	if !stderrors.As(err, &oe) || oe.Op != "dial" {
		t.Fatalf("err = %v, want the dial error reachable with errors.As", err)
	}
}

func TestServerNeverAnswersAttemptTimeout(t *testing.T) {
	release := make(chan struct{})
	srv := rtNewServer(t, func(w http.ResponseWriter, r *http.Request, hit int) {
		select {
		case <-r.Context().Done():
		case <-release:
		}
	})
	defer close(release) // before srv.Close, which waits for handlers
	// Attempts are counted where they start, in the transport: on a
	// starved machine an attempt may time out before its request reaches
	// the handler, so the server's count can be lower (it once read 2).
	var trips atomic.Int32
	tr := rtNewTransport(t)
	const timeout = 50 * time.Millisecond
	c := rtNewClient(t, srv.URL, func(s *Settings) {
		s.Transport = &rtCountingTransport{rt: tr, n: &trips}
		s.AttemptTimeout = timeout
		s.Retry.MaxRetries = 2
	})
	start := time.Now()
	err := c.do(context.Background(), rtCall(rtPutOp, nil))
	el := time.Since(start)
	te := rtWantTransportError(t, err, 3)
	if !te.Timeout() || trips.Load() != 3 || srv.hits() > 3 {
		t.Fatalf("err = %v (timeout %v), %d round trips, %d hits; want a timeout after 3 round trips", err, te.Timeout(), trips.Load(), srv.hits())
	}
	// Each attempt lasts at least the timeout (a timer never fires early);
	// the upper bound only catches a hang.
	if el < 3*timeout || el > 30*time.Second {
		t.Fatalf("took %v, want at least 3 × %v", el, timeout)
	}
}

func TestTruncatedBody(t *testing.T) {
	truncate := func(w http.ResponseWriter, status int) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Length", "100")
		w.WriteHeader(status)
		_, _ = io.WriteString(w, `{"ok":tr`)
	}
	t.Run("2xx retried", func(t *testing.T) {
		srv := rtNewServer(t, func(w http.ResponseWriter, r *http.Request, hit int) {
			if hit == 1 {
				truncate(w, 200)
				return
			}
			rtJSON(w, 200, `{"ok":true}`)
		})
		c := rtNewClient(t, srv.URL, nil)
		var out struct{ OK bool }
		if err := c.do(context.Background(), rtCall(rtPutOp, &out)); err != nil {
			t.Fatal(err)
		}
		if !out.OK || srv.hits() != 2 {
			t.Fatalf("out %+v, hits %d; want success on the second attempt", out, srv.hits())
		}
	})
	t.Run("2xx exhausted", func(t *testing.T) {
		srv := rtNewServer(t, func(w http.ResponseWriter, r *http.Request, hit int) { truncate(w, 200) })
		c := rtNewClient(t, srv.URL, nil)
		err := c.do(context.Background(), rtCall(rtPutOp, &struct{}{}))
		te := rtWantTransportError(t, err, 4)
		if !stderrors.Is(err, io.ErrUnexpectedEOF) || te.LastStatus != 200 {
			t.Fatalf("err = %v (last status %d), want io.ErrUnexpectedEOF after a 200", err, te.LastStatus)
		}
	})
	t.Run("2xx non-idempotent not retried", func(t *testing.T) {
		srv := rtNewServer(t, func(w http.ResponseWriter, r *http.Request, hit int) { truncate(w, 200) })
		c := rtNewClient(t, srv.URL, nil)
		rtWantTransportError(t, c.do(context.Background(), rtCall(rtPostOp, nil)), 1)
	})
	t.Run("4xx decided on status", func(t *testing.T) {
		srv := rtNewServer(t, func(w http.ResponseWriter, r *http.Request, hit int) { truncate(w, 400) })
		c := rtNewClient(t, srv.URL, nil)
		ae := rtWantAPIError(t, c.do(context.Background(), rtCall(rtPutOp, nil)), 400, 1)
		if !ae.BodyTruncated || string(ae.Body) != `{"ok":tr` {
			t.Fatalf("body %q truncated=%v; want the partial body, marked truncated", ae.Body, ae.BodyTruncated)
		}
	})
}

func TestTLSCertificateErrorNotRetried(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1) }))
	var handshakes atomic.Int32
	srv.Config.ErrorLog = log.New(io.Discard, "", 0)
	srv.TLS = &tls.Config{GetConfigForClient: func(*tls.ClientHelloInfo) (*tls.Config, error) {
		handshakes.Add(1)
		return nil, nil
	}}
	srv.StartTLS()
	defer srv.Close()
	c := rtNewClient(t, srv.URL, nil) // the transport does not trust the test CA
	err := c.do(context.Background(), rtCall(rtPutOp, nil))
	rtWantTransportError(t, err, 1)
	var cv *tls.CertificateVerificationError
	if !stderrors.As(err, &cv) || handshakes.Load() != 1 || hits.Load() != 0 {
		t.Fatalf("err = %v, %d handshakes, %d hits; want one failed verification", err, handshakes.Load(), hits.Load())
	}
}
