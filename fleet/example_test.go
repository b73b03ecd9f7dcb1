package fleet_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"time"

	"github.com/memberplatform/memberplatform-go/accessmgmt"
	apierrors "github.com/memberplatform/memberplatform-go/errors"
	"github.com/memberplatform/memberplatform-go/fleet"
	"github.com/memberplatform/memberplatform-go/option"
	"github.com/memberplatform/memberplatform-go/sdktest"
	"github.com/redis/go-redis/v9"
)

// Every replica of a service gives its client a limiter on the same Redis
// key: together they send at most 200 requests per second (bursts of 20) to
// the provider, however many replicas run. Keep the client's default
// adaptive rate limit on beside it.
//
// The second part shows the sharing with a budget of one attempt a second:
// once one replica has taken the turn, another replica's attempt under a
// 100 ms deadline is refused at once, with an error matching
// errors.ErrRateLimited.
func ExampleNewRedisLimiter() {
	ctx := context.Background()
	// In production, Addr is your Redis, the one every replica reaches;
	// here it is the redis-server the package's tests started.
	rdb := redis.NewClient(&redis.Options{Addr: redisAddr})
	defer rdb.Close()
	if err := rdb.Ping(ctx).Err(); err != nil {
		log.Fatal(err)
	}

	limiter := fleet.NewRedisLimiter(rdb, "access-provider", 200, 20)

	// In production: client.New(option.WithRateLimiter(limiter,
	// option.AreaAccessMgmt)), on the platform named by
	// MEMBERPLATFORM_BASE_URL: the limit is the access provider's, so only
	// access management's calls wait on it. Here the platform is fake.
	platform := sdktest.Start()
	defer platform.Close()
	platform.AddUser(sdktest.User{ID: "user_1", Email: "ada@example.com"})
	c, err := platform.NewClient(option.WithRateLimiter(limiter, option.AreaAccessMgmt))
	if err != nil {
		log.Fatal(err)
	}
	// Each attempt of the call, retries included, waited for its turn.
	u, err := c.AccessMgmt.UpdateUser(ctx, "user_1", accessmgmt.UpdateUserParams{FirstName: new("Ada")})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(u.ID, u.FirstName)

	// Two replicas (in production, two processes) on one key share a
	// budget of one attempt a second.
	replicaA := fleet.NewRedisLimiter(rdb, "slow-provider", 1, 1)
	replicaB := fleet.NewRedisLimiter(rdb, "slow-provider", 1, 1)
	fmt.Println("replica A:", replicaA.Wait(ctx))
	shortCtx, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
	defer cancel()
	err = replicaB.Wait(shortCtx)
	fmt.Println("replica B refused, rate limited:", errors.Is(err, apierrors.ErrRateLimited))
	// Output:
	// user_1 Ada
	// replica A: <nil>
	// replica B refused, rate limited: true
}

// Fail closed: while Redis cannot answer, attempts are refused at once (the
// error matches fleet.ErrUnavailable) instead of being admitted at the
// replica's share of the limit.
func ExampleWithFailClosed() {
	ctx := context.Background()
	// In production, Addr is your Redis; here it is the redis-server the
	// package's tests started.
	rdb := redis.NewClient(&redis.Options{Addr: redisAddr})
	if err := rdb.Ping(ctx).Err(); err != nil {
		log.Fatal(err)
	}

	limiter := fleet.NewRedisLimiter(rdb, "access-provider-closed", 200, 20,
		fleet.WithFailClosed(), fleet.WithLogger(nil))
	// Pass it to client.New with option.WithRateLimiter(limiter,
	// option.AreaAccessMgmt), as usual;
	// a call then fails with an *errors.TransportError wrapping the refusal.

	fmt.Println("Redis answers:", limiter.Wait(ctx))
	// Redis that cannot answer, here because its client is closed.
	_ = rdb.Close()
	err := limiter.Wait(ctx)
	fmt.Println("Redis cannot answer:", errors.Is(err, fleet.ErrUnavailable))
	fmt.Println(err)
	// Output:
	// Redis answers: <nil>
	// Redis cannot answer: true
	// fleet: rate limit "access-provider-closed": rate limit store unavailable: redis: client is closed
}
