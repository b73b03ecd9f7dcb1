package client

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync"
	"testing"

	apierrors "github.com/memberplatform/memberplatform-go/errors"
	"github.com/memberplatform/memberplatform-go/payments"
)

// A backend rejecting every token (payments, after a bad key rotation)
// makes one token fetch, not one per call, and the other areas' calls
// keep the token and succeed.
func TestUnauthorizedStormInOneAreaLeavesTheTokenAlone(t *testing.T) {
	srv := newTestServer(t, nil, func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/payment-methods") {
			problem401(w)
			return
		}
		writeJSON(w, userJSON)
	})
	src := &countingSource{}
	c := newTestClient(t, srv.URL, src)
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for range 25 {
				_, err := c.Payments.UpdatePaymentMethod(context.Background(), "3fa85f64-5717-4562-b3fc-2c963f66afa6",
					payments.UpdatePaymentMethodParams{SetAsPrimary: new(true)})
				if !errors.Is(err, apierrors.ErrUnauthorized) {
					t.Errorf("payments: %v, want its 401", err)
				}
			}
		})
		wg.Go(func() {
			for range 25 {
				if err := updateUser(context.Background(), c); err != nil {
					t.Errorf("access management: %v", err)
				}
			}
		})
	}
	wg.Wait()
	if n := src.n.Load(); n > 2 {
		t.Fatalf("%d token fetches for 100 rejected payments calls, want at most 2: the first token and one refresh", n)
	}
}
