package main

// The figure of admission control per operation (issue 40, figure 5), run
// after the others (go run ./internal/cmd/loadtest -figure N, N as
// printed):
//
//   - In access management, ReplaceRolePermissions answers 500 to every
//     call (a poison input, a broken sub-service) while UpdateUser is
//     healthy; 80 %, then 95 %, of the calls are the failing one; 16
//     goroutines per client for 4 s, the server answering after 2 ms.
//     Default options and WithoutAdmissionControl() side by side in the
//     same run, each with a server of its own. Targets: UpdateUser ≥ 0.9 ×
//     the other client's ok calls/s and no UpdateUser call fails; the
//     failing operation is still shed: ≤ 0.2 of its attempts per call
//     after its first second.
//
// 0.5.1 judged the whole area: 5,000–11,000 UpdateUser calls failed with
// ErrLoadShed in 4 s, and at 95 % UpdateUser ran at 0.07–0.15 × (issue 40).

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/memberplatform/memberplatform-go/client"
	apierrors "github.com/memberplatform/memberplatform-go/errors"
	"github.com/memberplatform/memberplatform-go/option"
)

// operationFigures are this file's figures, in the order they run.
var operationFigures = []func(context.Context, bool, int) bool{oneOperationFailing}

// operationTally is what one client of figure 40.5 saw.
type operationTally struct {
	updates, updatesOK, updatesShed      atomic.Int64
	failing, failingLate, failingShed    atomic.Int64 // calls of the failing operation; ending after its first second; refused locally
	failingAttempts, failingAttemptsLate atomic.Int64 // its attempts the server saw; after the first second
}

// 40.5 One operation of access management failing whole beside a healthy one.
func oneOperationFailing(ctx context.Context, _ bool, repeat int) bool {
	const g, d = 16, 4 * time.Second
	met := true
	for _, pct := range []int{80, 95} {
		for range repeat {
			fmt.Printf("40.5 ReplaceRolePermissions answers 500 to every call, %d%% of the calls; UpdateUser healthy; %d goroutines per client for %v, both clients at once\n", pct, g, d)
			fmt.Printf("  %-26s %10s %12s %9s %9s %11s %12s %14s\n", "client", "UpdateUser", "ok calls/s", "failed", "shed", "failing op", "shed", "attempts/call")
			clients := []clientConfig{{"default options", defaults}, {"WithoutAdmissionControl", []option.RequestOption{option.WithoutAdmissionControl()}}}
			var tallies [2]*operationTally
			var rates [2]float64
			var wg sync.WaitGroup
			for i, cfg := range clients {
				wg.Go(func() { tallies[i], rates[i] = runOperationFailing(ctx, cfg.opts, pct, g, d) })
			}
			wg.Wait()
			var perCall [2]float64
			for i, t := range tallies {
				perCall[i] = float64(t.failingAttemptsLate.Load()) / float64(max(t.failingLate.Load(), 1))
				fmt.Printf("  %-26s %10d %12.0f %9d %9d %11d %12d %14.3f\n", clients[i].name, t.updates.Load(), rates[i],
					t.updates.Load()-t.updatesOK.Load(), t.updatesShed.Load(), t.failing.Load(), t.failingShed.Load(), perCall[i])
			}
			ratio := rates[0] / max(rates[1], 1)
			failed := tallies[0].updates.Load() - tallies[0].updatesOK.Load()
			met = verdict(ratio >= 0.9 && failed == 0 && perCall[0] <= 0.2,
				"40.5 one operation failing, %d%% of calls: UpdateUser at %.2f × (≥ 0.9) the ok calls/s of WithoutAdmissionControl(), %d UpdateUser calls failed (0); "+
					"the failing operation %.3f ≤ 0.2 attempts per call after its first second (0.5.1: 5,000–11,000 UpdateUser calls failed, 0.07–0.15 × at 95%%)",
				pct, ratio, failed, perCall[0]) && met
		}
	}
	return met
}

// runOperationFailing runs g goroutines of access management calls for d
// through a client built with opts, pct % of them ReplaceRolePermissions
// (answered 500) and the rest UpdateUser, against a server of its own
// answering after 2 ms, and returns the tally and UpdateUser's ok calls/s.
func runOperationFailing(ctx context.Context, opts []option.RequestOption, pct, g int, d time.Duration) (*operationTally, float64) {
	t := &operationTally{}
	var late atomic.Bool // the failing operation's first second has passed
	p := newPlatform(func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			time.Sleep(2 * time.Millisecond)
			if strings.HasSuffix(r.URL.Path, "/permissions") {
				t.failingAttempts.Add(1)
				if late.Load() {
					t.failingAttemptsLate.Add(1)
				}
				reply(w, http.StatusInternalServerError, problemJSON, `{"title":"Internal Server Error","status":500,"serviceCode":"50000001"}`, false)
				return
			}
			next.ServeHTTP(w, r)
		})
	})
	defer p.Close()
	c := newClient(p.URL, opts...)
	defer c.CloseIdleConnections()
	start := time.Now()
	until := start.Add(d)
	timer := time.AfterFunc(time.Second, func() { late.Store(true) })
	defer timer.Stop()
	var wg sync.WaitGroup
	for range g {
		wg.Go(func() {
			for n := 0; ctx.Err() == nil && time.Now().Before(until); n++ {
				if n%20 < pct/5 {
					err := replacePermissions(ctx, c)
					t.failing.Add(1)
					if late.Load() {
						t.failingLate.Add(1)
					}
					if errors.Is(err, apierrors.ErrLoadShed) {
						t.failingShed.Add(1)
					}
					continue
				}
				err := call(ctx, c, access, callTimeout)
				t.updates.Add(1)
				if err == nil {
					t.updatesOK.Add(1)
					continue
				}
				if errors.Is(err, apierrors.ErrLoadShed) {
					t.updatesShed.Add(1)
				}
				if *verbose && t.updates.Load()-t.updatesOK.Load() <= 3 {
					fmt.Printf("  an UpdateUser failure (%s): %v\n", errKinds(err), err)
				}
			}
		})
	}
	wg.Wait()
	return t, float64(t.updatesOK.Load()) / time.Since(start).Seconds()
}

// replacePermissions makes one ReplaceRolePermissions call through c.
func replacePermissions(ctx context.Context, c *client.Client) error {
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	return c.AccessMgmt.ReplaceRolePermissions(ctx, "org_01EHZNVPK3SFK441A1RGBFSHRT", "org-admin", []string{"users:read", "users:write"})
}
