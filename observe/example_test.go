package observe_test

import (
	"context"
	"fmt"
	"net/http"

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
