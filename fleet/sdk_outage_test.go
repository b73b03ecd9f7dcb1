package fleet_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/memberplatform/memberplatform-go/accessmgmt"
	"github.com/memberplatform/memberplatform-go/client"
	apierrors "github.com/memberplatform/memberplatform-go/errors"
	"github.com/memberplatform/memberplatform-go/fleet"
	"github.com/memberplatform/memberplatform-go/fleet/internal/redisserver"
	"github.com/memberplatform/memberplatform-go/option"
	"github.com/memberplatform/memberplatform-go/sdktest"
	"github.com/redis/go-redis/v9"
)

// fleetClient is a client of an sdktest server whose access-management
// calls wait on a fleet limiter of rdb, with opts.
func fleetClient(t *testing.T, rdb *redis.Client, perSecond, burst int, opts ...fleet.Option) (*client.Client, *sdktest.Server) {
	t.Helper()
	srv := sdktest.Start(sdktest.WithoutAuth())
	t.Cleanup(srv.Close)
	srv.AddUser(sdktest.User{ID: "user_1", Email: "ada@example.com"})
	limiter := fleet.NewRedisLimiter(rdb, "provider-"+t.Name(), perSecond, burst, append([]fleet.Option{fleet.WithLogger(nil)}, opts...)...)
	c, err := client.New(option.WithBaseURL(srv.URL), option.WithTokenSource(nil),
		option.WithRateLimiter(limiter, option.AreaAccessMgmt))
	if err != nil {
		t.Fatal(err)
	}
	return c, srv
}

// Through the SDK, a fail-closed limiter whose Redis is down refuses the
// call with an outage, not a rate limit: the error matches ErrUnavailable
// and ErrTransport, not ErrRateLimited, knows no Retry-After, and nothing
// was sent.
func TestFailClosedOutageIsNoRateLimit(t *testing.T) {
	rs, err := redisserver.Start()
	if err != nil {
		t.Fatalf("starting redis-server: %v", err)
	}
	defer rs.Close()
	rdb := redis.NewClient(&redis.Options{Addr: rs.Addr, MaxRetries: -1})
	defer func() { _ = rdb.Close() }()
	c, srv := fleetClient(t, rdb, 100, 10, fleet.WithFailClosed())
	params := accessmgmt.UpdateUserParams{FirstName: new("Ada")}
	if _, err := c.AccessMgmt.UpdateUser(context.Background(), "user_1", params); err != nil {
		t.Fatalf("call with Redis up: %v", err)
	}
	sent := len(srv.Requests())

	rs.Stop()
	_, err = c.AccessMgmt.UpdateUser(context.Background(), "user_1", params)
	var transportErr *apierrors.TransportError
	var waitErr *fleet.WaitError
	switch {
	case !errors.Is(err, fleet.ErrUnavailable), errors.Is(err, apierrors.ErrRateLimited):
		t.Errorf("call while Redis is down = %v; want an error matching fleet.ErrUnavailable, not ErrRateLimited", err)
	case !errors.As(err, &transportErr) || transportErr.Attempts != 0 || !errors.Is(err, apierrors.ErrTransport):
		t.Errorf("call while Redis is down = %#v; want a *TransportError after 0 attempts", err)
	case !errors.As(err, &waitErr) || waitErr.RateLimited():
		t.Errorf("call while Redis is down = %v; want a *fleet.WaitError whose RateLimited is false", err)
	}
	if wait, ok := apierrors.RetryAfterOf(err); ok {
		t.Errorf("RetryAfterOf(outage) = %v; want none known", wait)
	}
	if n := len(srv.Requests()); n != sent {
		t.Errorf("%d requests sent while the limiter refused; want none", n-sent)
	}
}

// A call cancelled while it waits for its fleet turn still matches
// ErrRateLimited (the rate limit is what it waited for) and the context's
// error.
func TestCancelledWhileWaitingForAFleetTurn(t *testing.T) {
	rs, err := redisserver.Start()
	if err != nil {
		t.Fatalf("starting redis-server: %v", err)
	}
	defer rs.Close()
	rdb := redis.NewClient(&redis.Options{Addr: rs.Addr})
	defer func() { _ = rdb.Close() }()
	c, _ := fleetClient(t, rdb, 1, 1, fleet.WithFailClosed())
	params := accessmgmt.UpdateUserParams{FirstName: new("Ada")}
	if _, err := c.AccessMgmt.UpdateUser(context.Background(), "user_1", params); err != nil {
		t.Fatalf("first call: %v", err) // the burst: the next turn is 1 s away
	}
	ctx, cancel := context.WithCancel(context.Background())
	timer := time.AfterFunc(50*time.Millisecond, cancel)
	defer timer.Stop()
	_, err = c.AccessMgmt.UpdateUser(ctx, "user_1", params)
	var waitErr *fleet.WaitError
	if !errors.Is(err, apierrors.ErrRateLimited) || !errors.Is(err, context.Canceled) || !errors.As(err, &waitErr) || errors.Is(err, fleet.ErrUnavailable) {
		t.Errorf("call cancelled while waiting = %v; want a *fleet.WaitError matching ErrRateLimited and context.Canceled", err)
	}
}
