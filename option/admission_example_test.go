package option_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"time"

	"github.com/memberplatform/memberplatform-go/accessmgmt"
	"github.com/memberplatform/memberplatform-go/client"
	apierrors "github.com/memberplatform/memberplatform-go/errors"
	"github.com/memberplatform/memberplatform-go/option"
)

// Access management is down: every answer a 503. With the defaults, once
// its recent attempts have all failed, the client refuses most of its
// calls at once without sending them; the error still matches
// ErrServiceUnavailable, and ErrLoadShed says it was refused locally.
// WithoutAdmissionControl sends every call.
func ExampleWithoutAdmissionControl() {
	var sent atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sent.Add(1)
		w.WriteHeader(http.StatusServiceUnavailable)
	}))
	defer srv.Close()
	update := func(c *client.Client) error {
		_, err := c.AccessMgmt.UpdateUser(context.Background(), "user_1", accessmgmt.UpdateUserParams{FirstName: new("Ada")})
		return err
	}

	c, err := client.New(option.WithBaseURL(srv.URL), option.WithTokenSource(nil), option.WithMaxRetries(0))
	if err != nil {
		log.Fatal(err)
	}
	for range 200 {
		err := update(c)
		if errors.Is(err, apierrors.ErrLoadShed) {
			wait, _ := apierrors.RetryAfterOf(err)
			fmt.Println("refused locally:", errors.Is(err, apierrors.ErrServiceUnavailable), wait <= 100*time.Millisecond)
			break
		}
	}

	off, err := client.New(option.WithBaseURL(srv.URL), option.WithTokenSource(nil), option.WithMaxRetries(0),
		option.WithoutAdmissionControl())
	if err != nil {
		log.Fatal(err)
	}
	sent.Store(0)
	for range 50 {
		_ = update(off)
	}
	fmt.Println("without admission control:", sent.Load(), "of 50 calls sent")
	// Output:
	// refused locally: true true
	// without admission control: 50 of 50 calls sent
}
