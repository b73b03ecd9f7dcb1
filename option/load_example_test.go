package option_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"sync"
	"time"

	"golang.org/x/time/rate"

	"github.com/memberplatform/memberplatform-go/accessmgmt"
	"github.com/memberplatform/memberplatform-go/client"
	apierrors "github.com/memberplatform/memberplatform-go/errors"
	"github.com/memberplatform/memberplatform-go/option"
	"github.com/memberplatform/memberplatform-go/sdktest"
)

// A client that stays under a limit it knows: 100 requests per second with
// bursts of 10, for every attempt, retries and token calls included.
func ExampleWithRateLimiter() {
	srv := sdktest.Start(sdktest.WithoutAuth())
	defer srv.Close()
	srv.AddUser(sdktest.User{ID: "user_1", Email: "ada@example.com"})

	c, err := client.New(option.WithBaseURL(srv.URL), option.WithTokenSource(nil),
		option.WithRateLimiter(rate.NewLimiter(100, 10)))
	if err != nil {
		log.Fatal(err)
	}
	_, err = c.AccessMgmt.UpdateUser(context.Background(), "user_1", accessmgmt.UpdateUserParams{FirstName: new("Ada")})
	fmt.Println(err)
	// Output: <nil>
}

// sharedBucket is where the replicas of a service take their tokens from.
// In production it is a token bucket kept in Redis, one key per provider
// limit, updated atomically by a Lua script (or redis-cell's CL.THROTTLE),
// so that all replicas draw from the same bucket. memoryBucket below stands
// in for it here.
type sharedBucket interface {
	// Take reserves one token of the bucket key, which refills at perSecond
	// up to burst, and says how long to wait before using it. It reserves
	// nothing, and returns ok false, when the wait would end after
	// deadline (zero: none).
	Take(ctx context.Context, key string, perSecond float64, burst int, deadline time.Time) (wait time.Duration, ok bool, err error)
}

// fleetLimiter is an option.RateLimiter that keeps a whole fleet of
// replicas under one provider limit: each replica's client is given one,
// all pointing at the same key of the shared store.
type fleetLimiter struct {
	store     sharedBucket
	key       string
	perSecond float64
	burst     int
}

// Wait follows the option.RateLimiter contract: it never starts a wait that
// would end after ctx's deadline, and it returns when ctx is done.
func (l *fleetLimiter) Wait(ctx context.Context) error {
	deadline, _ := ctx.Deadline()
	wait, ok, err := l.store.Take(ctx, l.key, l.perSecond, l.burst, deadline)
	if err != nil {
		return err // the call fails; a limiter could also choose to fail open
	}
	if !ok {
		return fmt.Errorf("fleet limit %s: the next slot is %v away, after the deadline: %w", l.key, wait, context.DeadlineExceeded)
	}
	if wait <= 0 {
		return nil
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// memoryBucket is an in-process sharedBucket (GCRA: the time at which each
// key's next token is free).
type memoryBucket struct {
	mu    sync.Mutex
	next  map[string]time.Time
	takes int
}

func (m *memoryBucket) Take(_ context.Context, key string, perSecond float64, burst int, deadline time.Time) (time.Duration, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := time.Now()
	interval := time.Duration(float64(time.Second) / perSecond)
	free := m.next[key]
	if earliest := now.Add(-time.Duration(burst-1) * interval); free.Before(earliest) {
		free = earliest // an idle bucket holds at most burst tokens
	}
	start := free
	if start.Before(now) {
		start = now
	}
	if !deadline.IsZero() && start.After(deadline) {
		return start.Sub(now), false, nil
	}
	m.next[key] = free.Add(interval)
	m.takes++
	return start.Sub(now), true, nil
}

// Two replicas of a service share one access-provider limit of 50 requests
// per second: each one's client waits, for access management's calls
// only, on a fleetLimiter drawing from the same bucket, so together they
// never exceed it. In production use the Redis
// limiter of package github.com/memberplatform/memberplatform-go/fleet;
// the adaptive rate limit stays on beside it, dormant unless 429s come.
func ExampleWithRateLimiter_fleet() {
	srv := sdktest.Start(sdktest.WithoutAuth())
	defer srv.Close()
	srv.AddUser(sdktest.User{ID: "user_1", Email: "ada@example.com"})

	store := &memoryBucket{next: map[string]time.Time{}} // Redis, in production
	newReplica := func() *client.Client {
		c, err := client.New(option.WithBaseURL(srv.URL), option.WithTokenSource(nil),
			option.WithRateLimiter(&fleetLimiter{store: store, key: "memberplatform:provider", perSecond: 50, burst: 1}, option.AreaAccessMgmt))
		if err != nil {
			log.Fatal(err)
		}
		return c
	}
	replicas := []*client.Client{newReplica(), newReplica()}

	start := time.Now()
	for i := range 6 {
		c := replicas[i%2]
		if _, err := c.AccessMgmt.UpdateUser(context.Background(), "user_1", accessmgmt.UpdateUserParams{FirstName: new("Ada")}); err != nil {
			log.Fatal(err)
		}
	}
	// 6 calls at 50/s leave 20ms apart, whichever replica made them.
	fmt.Println("tokens taken:", store.takes, "at least 100ms:", time.Since(start) >= 100*time.Millisecond)

	// A wait that cannot end before the deadline is refused at once.
	ctx, cancel := context.WithTimeout(context.Background(), time.Millisecond)
	defer cancel()
	_, _ = replicas[0].AccessMgmt.UpdateUser(ctx, "user_1", accessmgmt.UpdateUserParams{FirstName: new("Ada")})
	_, err := replicas[1].AccessMgmt.UpdateUser(ctx, "user_1", accessmgmt.UpdateUserParams{FirstName: new("Ada")})
	var te *apierrors.TransportError
	fmt.Println(errors.As(err, &te), errors.Is(err, context.DeadlineExceeded))
	// Output:
	// tokens taken: 6 at least 100ms: true
	// true true
}
