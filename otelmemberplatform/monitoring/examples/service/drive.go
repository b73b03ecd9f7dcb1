package main

import (
	"context"
	"net/http"
	"sync"
	"time"

	"github.com/memberplatform/memberplatform-go/accessmgmt"
	"github.com/memberplatform/memberplatform-go/customer"
	"github.com/memberplatform/memberplatform-go/payments"
	"github.com/memberplatform/memberplatform-go/sdktest"
)

// The records the example's calls update, seeded in the fake.
const (
	userID          = "user_01HEXAMPLE"
	paymentMethodID = "5a1e7c3d-9b2f-4d6a-8e1c-7f3b5d9a1c2e"
	memberID        = "2e4c6a8b-1d3f-4a5c-9e7b-0d2f4a6c8e1a"
	orgID           = "org_01HEXAMPLE"
	roleSlug        = "org-admin"
	// statusPath is an endpoint the SDK does not wrap, called with
	// client.Execute: its calls are area "other". The fake answers it as
	// a deprecated endpoint (Deprecation, Sunset and Link headers), so
	// that the deprecation rule and alert have data.
	statusPath = "/status"
	// statusSunset is the sunset date of statusPath.
	statusSunset = "Fri, 01 Jan 2027 00:00:00 GMT"
)

// Phases are how long each phase of the drive lasts. A cycle is healthy,
// throttle, healthy, outage.
type Phases struct {
	Healthy  time.Duration // every answer a success
	Throttle time.Duration // the platform admits 20 requests a second and answers the rest 429
	Outage   time.Duration // payments answers 503, customer resets connections, token fetches fail, ReplaceRolePermissions answers 500
}

func seed(platform *sdktest.Server) {
	platform.AddUser(sdktest.User{ID: userID, Email: "ada@example.com"})
	platform.AddPaymentMethod(sdktest.PaymentMethod{ID: paymentMethodID})
	platform.AddMember(memberID)
	platform.AddRole(orgID, roleSlug, "users:read")
	platform.HandleFunc("GET "+statusPath, func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Deprecation", "@1767225600")
		w.Header().Set("Sunset", statusSunset)
		w.Header().Set("Link", `<https://example.com/deprecations/status>; rel="deprecation"`)
		_, _ = w.Write([]byte(`{"status":"ok"}`))
	})
}

// Drive calls the platform from a few workers, in every area, through
// the phases in turn until ctx is done; it tells each phase's name to
// onPhase as it starts.
func (s *service) Drive(ctx context.Context, phases Phases, onPhase func(string)) {
	var wg sync.WaitGroup
	for range 2 {
		wg.Go(func() { s.work(ctx) })
	}
	defer wg.Wait()
	defer s.platform.ClearFaults()
	defer s.platform.SetRateLimit(0, 0)
	for {
		for _, p := range []struct {
			name string
			d    time.Duration
			run  func(ctx context.Context)
		}{
			{"healthy", phases.Healthy, nil},
			{"throttle", phases.Throttle, s.throttle},
			{"healthy", phases.Healthy, nil},
			{"outage", phases.Outage, s.outage},
		} {
			onPhase(p.name)
			phaseCtx, cancel := context.WithTimeout(ctx, p.d)
			if p.run != nil {
				p.run(phaseCtx)
			}
			<-phaseCtx.Done()
			cancel()
			if ctx.Err() != nil {
				return
			}
		}
	}
}

// throttle has the platform answer 429 beyond 20 requests a second until
// ctx is done.
func (s *service) throttle(ctx context.Context) {
	s.platform.SetRateLimit(20, time.Second)
	<-ctx.Done()
	s.platform.SetRateLimit(0, 0)
}

// outage has payments answer 503 and customer reset its connections,
// ReplaceRolePermissions alone of access management answer 500 (shed on
// its own while UpdateUser is served), and every second drops the
// client's token (a 401) and fails the token fetch that follows, until ctx
// is done.
func (s *service) outage(ctx context.Context) {
	const forever = 1 << 30
	s.platform.FailNext(forever, sdktest.Fault{Operation: sdktest.OpReplaceRolePermissions, Status: http.StatusInternalServerError})
	s.platform.FailNext(forever, sdktest.Fault{Operation: sdktest.OpUpdatePaymentMethod, Status: http.StatusServiceUnavailable})
	s.platform.FailNext(forever, sdktest.Fault{Operation: sdktest.OpUpsertMemberAddress, Reset: true})
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		s.platform.FailNext(1, sdktest.Fault{Operation: sdktest.OpUpdateUser, Status: http.StatusUnauthorized})
		s.platform.FailNext(4, sdktest.Fault{Operation: sdktest.OpToken, Status: http.StatusServiceUnavailable})
		select {
		case <-ctx.Done():
			s.platform.ClearFaults()
			return
		case <-tick.C:
		}
	}
}

// work calls one operation of each area, over and over, until ctx is
// done. Errors are the point of the phases: the metrics count them.
func (s *service) work(ctx context.Context) {
	for ctx.Err() == nil {
		for _, call := range []func(ctx context.Context) error{
			func(ctx context.Context) error {
				_, err := s.client.AccessMgmt.UpdateUser(ctx, userID, accessmgmt.UpdateUserParams{FirstName: new("Ada")})
				return err
			},
			func(ctx context.Context) error {
				return s.client.AccessMgmt.ReplaceRolePermissions(ctx, orgID, roleSlug, []string{"users:read"})
			},
			func(ctx context.Context) error {
				_, err := s.client.Payments.UpdatePaymentMethod(ctx, paymentMethodID, payments.UpdatePaymentMethodParams{SetAsPrimary: new(true)})
				return err
			},
			func(ctx context.Context) error {
				_, err := s.client.Customer.UpsertMemberAddress(ctx, memberID, customer.UpsertMemberAddressParams{
					AddressLineOne: "1 Example St", Suburb: "Carlton", State: "VIC", Postcode: "3053", Country: "AU"})
				return err
			},
			func(ctx context.Context) error {
				var out struct{ Status string }
				return s.client.Execute(ctx, http.MethodGet, statusPath, nil, &out)
			},
		} {
			callCtx, cancel := context.WithTimeout(ctx, 5*time.Second)
			_ = call(callCtx)
			cancel()
		}
		select {
		case <-ctx.Done():
		case <-time.After(50 * time.Millisecond):
		}
	}
}
