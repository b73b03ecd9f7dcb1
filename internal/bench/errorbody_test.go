package bench_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/memberplatform/memberplatform-go/accessmgmt"
	"github.com/memberplatform/memberplatform-go/client"
	apierrors "github.com/memberplatform/memberplatform-go/errors"
	"github.com/memberplatform/memberplatform-go/option"
)

// newSDK is the only place this package builds an SDK client: a static
// token, one retry with a 1ms backoff.
func newSDK(tb testing.TB, baseURL string) *client.Client {
	tb.Helper()
	c, err := client.New(
		option.WithBaseURL(baseURL),
		option.WithTokenSource(client.StaticToken("eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJzdmMtYmVuY2gifQ.c2ln")),
		option.WithMaxRetries(1),
		option.WithRetryBackoff(time.Millisecond, time.Millisecond),
	)
	if err != nil {
		tb.Fatal(err)
	}
	return c
}

// TestHugeErrorBodyIsNotBuffered serves a 64 MiB error body and checks that
// the SDK keeps only a bounded snippet: the heap allocated during the call
// (runtime.MemStats.TotalAlloc, which counts every allocation, freed or not,
// in the whole process, the server included) stays under 2 MiB, and the
// typed error says the body was truncated. Untimed.
func TestHugeErrorBodyIsNotBuffered(t *testing.T) {
	const size = 64 << 20
	const budget = 2 << 20
	chunk := make([]byte, 32<<10)
	for i := range chunk {
		chunk[i] = 'x'
	}
	for _, tc := range []struct {
		name   string
		status int
		sized  bool // Content-Length set (else chunked)
	}{
		{"400 with Content-Length", http.StatusBadRequest, true},
		{"400 chunked", http.StatusBadRequest, false},
		{"502 retried once", http.StatusBadGateway, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				h := w.Header()
				h["Content-Type"] = []string{"text/plain"}
				if tc.sized {
					h["Content-Length"] = []string{strconv.Itoa(size)}
				}
				w.WriteHeader(tc.status)
				for n := 0; n < size; n += len(chunk) {
					if _, err := w.Write(chunk); err != nil {
						return // the client hung up: expected
					}
				}
			}))
			defer srv.Close()
			c := newSDK(t, srv.URL)
			ctx := context.Background()

			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			_, err := c.AccessMgmt.UpdateUser(ctx, "user_01E4ZCR3C56J083X43JQXF3JK5", accessmgmt.UpdateUserParams{FirstName: new("Ada")})
			runtime.ReadMemStats(&after)

			grew := after.TotalAlloc - before.TotalAlloc
			t.Logf("heap allocated during the call: %d KiB for a %d MiB body", grew>>10, size>>20)
			if grew > budget {
				t.Errorf("allocated %d KiB during the call, want < %d KiB: the error body is being buffered", grew>>10, budget>>10)
			}
			var ae *apierrors.Error
			if !errors.As(err, &ae) {
				t.Fatalf("err = %v (%T), want *errors.Error", err, err)
			}
			if ae.StatusCode != tc.status || !ae.BodyTruncated {
				t.Errorf("StatusCode = %d, BodyTruncated = %v; want %d, true", ae.StatusCode, ae.BodyTruncated, tc.status)
			}
			if len(ae.Body) > apierrors.MaxBodySnippet {
				t.Errorf("len(Body) = %d, want <= %d", len(ae.Body), apierrors.MaxBodySnippet)
			}
			if len(err.Error()) > 2048 {
				t.Errorf("error string is %d bytes long", len(err.Error()))
			}
		})
	}
}
