package fleet_test

import (
	"context"
	"errors"
	"strings"
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

// Through the SDK, a call that cannot get a turn before its deadline fails
// at once, without an attempt, with an error that matches ErrRateLimited and
// DeadlineExceeded; the call before it is admitted.
func TestClientCallsWaitTheirTurn(t *testing.T) {
	rs, err := redisserver.Start()
	if err != nil {
		t.Fatalf("starting redis-server: %v", err)
	}
	defer rs.Close()
	rdb := redis.NewClient(&redis.Options{Addr: rs.Addr})
	defer func() { _ = rdb.Close() }()

	srv := sdktest.Start(sdktest.WithoutAuth())
	defer srv.Close()
	srv.AddUser(sdktest.User{ID: "user_1", Email: "ada@example.com"})
	c, err := client.New(option.WithBaseURL(srv.URL), option.WithTokenSource(nil),
		option.WithRateLimiter(fleet.NewRedisLimiter(rdb, "provider", 1, 1, fleet.WithLogger(nil)), option.AreaAccessMgmt))
	if err != nil {
		t.Fatal(err)
	}
	params := accessmgmt.UpdateUserParams{FirstName: new("Ada")}
	if _, err := c.AccessMgmt.UpdateUser(context.Background(), "user_1", params); err != nil {
		t.Fatalf("first call: %v", err)
	}

	start := time.Now()
	_, err = c.AccessMgmt.UpdateUser(context.Background(), "user_1", params, option.WithTimeout(300*time.Millisecond))
	var transportErr *apierrors.TransportError
	var waitErr *fleet.WaitError
	switch {
	case !errors.Is(err, apierrors.ErrRateLimited), !errors.Is(err, context.DeadlineExceeded):
		t.Errorf("second call = %v; want an error matching ErrRateLimited and DeadlineExceeded", err)
	case !errors.As(err, &transportErr) || transportErr.Attempts != 0:
		t.Errorf("second call = %#v; want a *TransportError after 0 attempts", err)
	case !errors.As(err, &waitErr) || waitErr.Delay <= 300*time.Millisecond:
		t.Errorf("second call = %v; want a *fleet.WaitError with the delay it refused", err)
	}
	if wait, ok := apierrors.RetryAfterOf(err); !ok || waitErr == nil || wait != waitErr.Delay {
		t.Errorf("RetryAfterOf(second call) = %v, %v; want the limiter's delay", wait, ok)
	}
	if elapsed := time.Since(start); elapsed > 250*time.Millisecond {
		t.Errorf("the refused call took %v; want it to fail at once", elapsed)
	}
}

// A limiter built from unusable arguments fails client.New, naming them,
// rather than every call as a rate limit.
func TestMisconfiguredLimiterFailsNew(t *testing.T) {
	_, err := client.New(option.WithBaseURL("https://api.example.com"), option.WithTokenSource(nil),
		option.WithRateLimiter(fleet.NewRedisLimiter(nil, "k", 0, 1, fleet.WithLogger(nil)), option.AreaAccessMgmt))
	if !errors.Is(err, apierrors.ErrInvalidInput) || !strings.Contains(err.Error(), "rdb: is nil") || !strings.Contains(err.Error(), "perSecond") {
		t.Fatalf("client.New = %v; want a ValidationError naming rdb and perSecond", err)
	}
}
