package fleet_test

import (
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/memberplatform/memberplatform-go/fleet/internal/redisserver"
	"github.com/redis/go-redis/v9"
	"go.uber.org/goleak"
)

// redisAddr is the address of the redis-server that TestMain starts for the
// examples (and tests that need no server of their own): examples run
// against a real Redis, as users' code does.
var redisAddr string

// TestMain starts the shared redis-server, runs the tests and examples, and
// fails the package when they leave a goroutine behind or redis-server
// cannot start (naming the package to install: these tests are not
// skipped). go-redis logs each failed dial to stderr; the outage tests make
// many on purpose, so its logger is quieted for the test binary.
func TestMain(m *testing.M) {
	redis.SetLogger(quietRedis{})
	srv, err := redisserver.Start()
	if err != nil {
		fmt.Fprintf(os.Stderr, "starting redis-server: %v\n", err)
		os.Exit(1)
	}
	redisAddr = srv.Addr
	code := m.Run()
	srv.Close()
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintf(os.Stderr, "goleak: errors on successful test run: %v\n", err)
			code = 1
		}
	}
	os.Exit(code)
}

// quietRedis discards go-redis's own log lines.
type quietRedis struct{}

func (quietRedis) Printf(context.Context, string, ...any) {}
