package main

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/memberplatform/memberplatform-go/accessmgmt"
	"github.com/memberplatform/memberplatform-go/client"
	apierrors "github.com/memberplatform/memberplatform-go/errors"
	"github.com/memberplatform/memberplatform-go/fleet"
	"github.com/memberplatform/memberplatform-go/option"
	"github.com/redis/go-redis/v9"
)

// childArgs tells a replica what to run.
type childArgs struct {
	Provider   string    `json:"provider"`
	Redis      string    `json:"redis"` // "" for default options only
	Rate       int       `json:"rate"`
	Burst      int       `json:"burst"`
	Goroutines int       `json:"goroutines"`
	Calls      int       `json:"calls"`
	Start      time.Time `json:"start"`
}

// childResult is what a replica reports on its stdout.
type childResult struct {
	Calls, Succeeded int64
	Failed           map[string]int64 // failed calls by cause
	Late             time.Duration    // how late after Start the replica began
	End              time.Time
}

// runChild is one replica: one client, Goroutines goroutines making Calls
// calls each. It prints a childResult as JSON.
func runChild(raw string) error {
	var args childArgs
	if err := json.Unmarshal([]byte(raw), &args); err != nil {
		return err
	}
	redis.SetLogger(quietRedis{}) // the outage scenario makes failed dials on purpose
	opts := []option.RequestOption{option.WithBaseURL(args.Provider), option.WithTokenSource(nil)}
	if args.Redis != "" {
		rdb := redis.NewClient(&redis.Options{Addr: args.Redis})
		defer func() { _ = rdb.Close() }()
		logger := slog.New(slog.NewTextHandler(os.Stderr, nil))
		opts = append(opts, option.WithRateLimiter(fleet.NewRedisLimiter(rdb, "provider", args.Rate, args.Burst, fleet.WithLogger(logger)), option.AreaAccessMgmt))
	}
	c, err := client.New(opts...)
	if err != nil {
		return err
	}
	defer c.CloseIdleConnections()

	time.Sleep(time.Until(args.Start))
	res := childResult{Late: max(0, time.Since(args.Start)), Failed: map[string]int64{}}
	var calls, succeeded atomic.Int64
	var mu sync.Mutex
	var wg sync.WaitGroup
	for range args.Goroutines {
		wg.Go(func() {
			for range args.Calls {
				ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				_, err := c.AccessMgmt.UpdateUser(ctx, "user_1", accessmgmt.UpdateUserParams{FirstName: new("Ada")})
				cancel()
				calls.Add(1)
				if err == nil {
					succeeded.Add(1)
					continue
				}
				mu.Lock()
				res.Failed[cause(err)]++
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	res.End = time.Now()
	res.Calls, res.Succeeded = calls.Load(), succeeded.Load()
	return json.NewEncoder(os.Stdout).Encode(res)
}

// cause names why a call failed, for the report.
func cause(err error) string {
	var waitErr *fleet.WaitError
	switch {
	case errors.As(err, &waitErr):
		return "fleet limiter refused"
	case errors.Is(err, apierrors.ErrRetryBudgetExhausted):
		return "retry budget exhausted"
	case errors.Is(err, apierrors.ErrRateLimited):
		return "429 after all retries"
	case errors.Is(err, context.DeadlineExceeded):
		return "call deadline"
	}
	return "other: " + err.Error()
}

// quietRedis discards go-redis's own log lines.
type quietRedis struct{}

func (quietRedis) Printf(context.Context, string, ...any) {}
