package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-cleanhttp"

	"github.com/memberplatform/memberplatform-go/accessmgmt"
	"github.com/memberplatform/memberplatform-go/internal/testtls"
	"github.com/memberplatform/memberplatform-go/option"
)

// Figure 17 (issue 33): connections under concurrency. 32 goroutines call
// UpdateUser for 4 s against a loopback server answering after 1 ms, over
// plain HTTP, TLS with HTTP/1.1 only, and TLS offering HTTP/2: the SDK
// with default options, raw net/http + encoding/json on a pool that fits
// (MaxIdleConnsPerHost 64) and, with -old, the SDK on 0.4.0's pool
// (go-cleanhttp's, GOMAXPROCS+1 idle per host). Targets: the SDK opens ≤ 48
// connections and no call fails; over TLS its calls/s ≥ 0.85 × raw's;
// HTTP/2 stays HTTP/2; 200 calls one at a time use one connection.

const (
	connG       = 32
	connFor     = 4 * time.Second
	connLatency = time.Millisecond
)

// connServer answers after connLatency and counts connections and the
// requests made over HTTP/2.
type connServer struct {
	*httptest.Server
	conns, http2 atomic.Int64
}

func newConnServer(scheme string) *connServer {
	s := &connServer{}
	s.Server = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		if r.ProtoMajor == 2 {
			s.http2.Add(1)
		}
		time.Sleep(connLatency)
		ok200(w)
	}))
	s.Config.ConnState = func(_ net.Conn, state http.ConnState) {
		if state == http.StateNew {
			s.conns.Add(1)
		}
	}
	s.Config.ErrorLog = log.New(io.Discard, "", 0)
	switch scheme {
	case "plain":
		s.Start()
	case "h2":
		s.EnableHTTP2 = true
		s.StartTLS()
	default:
		s.StartTLS()
	}
	return s
}

// rawUpdateUser is UpdateUser written with net/http and encoding/json.
func rawUpdateUser(ctx context.Context, hc *http.Client, baseURL string) error {
	body, err := json.Marshal(struct {
		FirstName string `json:"firstName"`
	}{"Ada"})
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPut, baseURL+"/auth/access-management/users/user_1", bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := hc.Do(req)
	if err != nil {
		return err
	}
	defer func() { _ = resp.Body.Close() }()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("status %d", resp.StatusCode)
	}
	var u struct {
		ID, Email, FirstName string
	}
	return json.NewDecoder(resp.Body).Decode(&u)
}

// callFor calls call from g goroutines until d has passed and returns the
// calls made and failed.
func callFor(ctx context.Context, g int, d time.Duration, call func(context.Context) error) (calls, failed int64) {
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	var wg sync.WaitGroup
	var n, bad atomic.Int64
	for range g {
		wg.Go(func() {
			for ctx.Err() == nil {
				callCtx, stop := context.WithTimeout(context.Background(), callTimeout)
				err := call(callCtx)
				stop()
				if ctx.Err() != nil && err != nil {
					return // the figure ended during the call
				}
				n.Add(1)
				if err != nil {
					bad.Add(1)
				}
			}
		})
	}
	wg.Wait()
	return n.Load(), bad.Load()
}

// connections is figure 17.
func connections(ctx context.Context, old bool, _ int) bool {
	fmt.Printf("17. connections: %d goroutines for %s, server answering after %s\n", connG, connFor, connLatency)
	cleanup, err := testtls.TrustHTTPTestCert() // as a service trusts a private CA
	if err != nil {
		log.Fatal(err)
	}
	defer cleanup()
	fmt.Printf("  %-6s %-34s %8s %8s %9s %7s\n", "server", "client", "calls/s", "failed", "conns", "HTTP/2")
	params := accessmgmt.UpdateUserParams{FirstName: new("Ada")}
	ok := true
	for _, scheme := range []string{"plain", "tls", "h2"} {
		type contender struct {
			name string
			call func(ctx context.Context, baseURL string) (func(context.Context) error, func())
		}
		sdk := func(opts ...option.RequestOption) func(context.Context, string) (func(context.Context) error, func()) {
			return func(_ context.Context, baseURL string) (func(context.Context) error, func()) {
				c := newClient(baseURL, opts...)
				return func(ctx context.Context) error {
					_, err := c.AccessMgmt.UpdateUser(ctx, "user_1", params)
					return err
				}, c.CloseIdleConnections
			}
		}
		cs := []contender{
			{"SDK, default options", sdk()},
			{"raw, MaxIdleConnsPerHost 64", func(_ context.Context, baseURL string) (func(context.Context) error, func()) {
				t := cleanhttp.DefaultPooledTransport()
				t.MaxIdleConnsPerHost = 64
				hc := &http.Client{Transport: t}
				return func(ctx context.Context) error { return rawUpdateUser(ctx, hc, baseURL) }, t.CloseIdleConnections
			}},
		}
		if old {
			cs = append(cs, contender{"SDK on 0.4.0's pool (GOMAXPROCS+1)", func(ctx context.Context, baseURL string) (func(context.Context) error, func()) {
				t := cleanhttp.DefaultPooledTransport()
				call, _ := sdk(option.WithTransport(t))(ctx, baseURL)
				return call, t.CloseIdleConnections
			}})
		}
		rates := map[string]float64{}
		for _, c := range cs {
			srv := newConnServer(scheme)
			call, closeIdle := c.call(ctx, srv.URL)
			calls, failed := callFor(ctx, connG, connFor, call)
			closeIdle()
			srv.Close()
			perSecond := float64(calls) / connFor.Seconds()
			rates[c.name] = perSecond
			fmt.Printf("  %-6s %-34s %8.0f %8d %9d %6.0f%%\n", scheme, c.name, perSecond, failed, srv.conns.Load(), 100*float64(srv.http2.Load())/float64(max(calls, 1)))
			if c.name == cs[0].name {
				ok = verdict(srv.conns.Load() <= 48 && failed == 0 && (scheme != "h2" || srv.http2.Load() >= calls),
					"17. connections, %s: the SDK opened %d connections (≤ 48), %d of %d calls failed (0)%s",
					scheme, srv.conns.Load(), failed, calls, map[bool]string{true: ", every call over HTTP/2"}[scheme == "h2"]) && ok
			}
		}
		if scheme == "tls" {
			ratio := rates[cs[0].name] / rates[cs[1].name]
			ok = verdict(ratio >= 0.85, "17. connections, tls: the SDK's calls/s %.2f × raw's (≥ 0.85)", ratio) && ok
		}
		srv := newConnServer(scheme)
		c := newClient(srv.URL)
		for range 200 {
			if _, err := c.AccessMgmt.UpdateUser(ctx, "user_1", params); err != nil {
				log.Fatal(err)
			}
		}
		c.CloseIdleConnections()
		srv.Close()
		ok = verdict(srv.conns.Load() == 1, "17. connections, %s: 200 calls one at a time opened %d connection(s) (1)", scheme, srv.conns.Load()) && ok
	}
	return ok
}
