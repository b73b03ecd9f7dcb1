package observe_test

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"time"

	"github.com/memberplatform/memberplatform-go/accessmgmt"
	"github.com/memberplatform/memberplatform-go/observe"
	"github.com/memberplatform/memberplatform-go/option"
	"github.com/memberplatform/memberplatform-go/sdktest"
)

// attemptPrinter prints each attempt's outcome and each retry decision;
// observe.Nop supplies the methods it does not need.
type attemptPrinter struct{ observe.Nop }

func (attemptPrinter) EndAttempt(_ context.Context, a observe.Attempt, r observe.AttemptResult) {
	fmt.Printf("%s attempt %d: %d %s\n", a.Call.Operation, a.Resend+1, r.StatusCode, observe.ErrorType(r.Err))
}

func (attemptPrinter) Retry(_ context.Context, r observe.Retry) {
	fmt.Printf("retrying after attempt %d: %s\n", r.Attempt, r.Reason)
}

// An observer for a telemetry system of your own, given to client.New with
// option.WithObserver (here through sdktest's client options).
func Example() {
	srv := sdktest.Start(sdktest.WithoutAuth())
	defer srv.Close()
	srv.AddUser(sdktest.User{ID: "user_1", Email: "ada@example.com"})
	srv.FailNext(1, sdktest.Fault{Operation: sdktest.OpUpdateUser, Status: http.StatusTooManyRequests})

	c := srv.Client(option.WithObserver(attemptPrinter{}))
	if _, err := c.AccessMgmt.UpdateUser(context.Background(), "user_1", accessmgmt.UpdateUserParams{FirstName: new("Ada")}); err != nil {
		fmt.Println(err)
	}
	// Output:
	// accessmgmt.UpdateUser attempt 1: 429 rate_limited
	// retrying after attempt 1: rate_limited
	// accessmgmt.UpdateUser attempt 2: 200
}

// deprecationPrinter is told of every answer that says its operation is
// deprecated.
type deprecationPrinter struct{ observe.Nop }

func (deprecationPrinter) Deprecated(_ context.Context, d observe.Deprecation) {
	fmt.Println(d.Operation, "deprecated; sunset", d.Sunset.Format(time.DateOnly), d.Link)
}

// A platform phasing an operation out: the observer sees every such answer,
// the client's logger one Warn record per operation.
func ExampleDeprecationObserver() {
	srv := sdktest.Start(sdktest.WithoutAuth())
	defer srv.Close()
	srv.AddUser(sdktest.User{ID: "user_1", Email: "ada@example.com"})
	srv.FailNext(2, sdktest.Fault{Operation: sdktest.OpUpdateUser, Status: http.StatusOK, Body: `{"id":"user_1"}`, Header: http.Header{
		"Deprecation": {"@1767225600"},
		"Sunset":      {"Wed, 01 Jul 2026 00:00:00 GMT"},
		"Link":        {`<https://example.com/deprecations/users-v1>; rel="deprecation"`},
	}})
	noTime := func(_ []string, a slog.Attr) slog.Attr {
		if a.Key == slog.TimeKey {
			return slog.Attr{}
		}
		return a
	}
	logger := slog.New(slog.NewTextHandler(os.Stdout, &slog.HandlerOptions{ReplaceAttr: noTime}))

	c := srv.Client(option.WithObserver(deprecationPrinter{}), option.WithLogger(logger))
	for range 2 {
		if _, err := c.AccessMgmt.UpdateUser(context.Background(), "user_1", accessmgmt.UpdateUserParams{FirstName: new("Ada")}); err != nil {
			fmt.Println(err)
		}
	}
	// Output:
	// accessmgmt.UpdateUser deprecated; sunset 2026-07-01 https://example.com/deprecations/users-v1
	// level=WARN msg="memberplatform: the platform says this operation is deprecated; move off it before its sunset" operation=accessmgmt.UpdateUser method=PUT path=/auth/access-management/users/{userId} deprecated=2026-01-01 sunset=2026-07-01 link=https://example.com/deprecations/users-v1
	// accessmgmt.UpdateUser deprecated; sunset 2026-07-01 https://example.com/deprecations/users-v1
}
