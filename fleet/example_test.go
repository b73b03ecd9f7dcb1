package fleet_test

import (
	"context"
	"log"

	"github.com/memberplatform/memberplatform-go/accessmgmt"
	"github.com/memberplatform/memberplatform-go/client"
	"github.com/memberplatform/memberplatform-go/fleet"
	"github.com/memberplatform/memberplatform-go/option"
	"github.com/redis/go-redis/v9"
)

// Every replica of a service gives its client a limiter on the same Redis
// key: together they send at most 200 requests per second (bursts of 20) to
// the provider, however many replicas run. It needs a Redis server, so it is
// compiled but not run by go test.
func ExampleNewRedisLimiter() {
	rdb := redis.NewClient(&redis.Options{Addr: "localhost:6379"})
	defer rdb.Close()

	c, err := client.New(option.WithRateLimiter(fleet.NewRedisLimiter(rdb, "access-provider", 200, 20)))
	if err != nil {
		log.Fatal(err)
	}
	if _, err := c.AccessMgmt.UpdateUser(context.Background(), "user_01E4ZCR3C56J083X43JQXF3JK5",
		accessmgmt.UpdateUserParams{FirstName: new("Ada")}); err != nil {
		log.Print(err)
	}
}

// Fail closed: while Redis cannot answer, calls fail at once (their error
// matches fleet.ErrUnavailable) instead of being admitted at the replica's
// share of the limit.
func ExampleWithFailClosed() {
	rdb := redis.NewClient(&redis.Options{Addr: "localhost:6379"})
	defer rdb.Close()

	limiter := fleet.NewRedisLimiter(rdb, "access-provider", 200, 20, fleet.WithFailClosed())
	if _, err := client.New(option.WithRateLimiter(limiter)); err != nil {
		log.Fatal(err)
	}
}
