package core

import (
	"context"
	"io"
	"math"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"golang.org/x/time/rate"

	"github.com/memberplatform/memberplatform-go/internal/pacer"
)

// cannedTransport answers every request in memory with one status and
// body, so that allocation counts are the pipeline's own.
type cannedTransport struct {
	code                      int
	status, contentType, body string
}

// okTransport answers with a 200 and a small JSON body.
var okTransport = cannedTransport{http.StatusOK, "200 OK", "application/json", `{"ok":true}`}

// problemTransport answers with a 422 problem: an error answer the
// provider's limit admitted.
var problemTransport = cannedTransport{http.StatusUnprocessableEntity, "422 Unprocessable Entity", "application/problem+json", `{"title":"Unprocessable Entity","status":422}`}

func (t cannedTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Body != nil {
		_, _ = io.Copy(io.Discard, r.Body)
		_ = r.Body.Close()
	}
	return &http.Response{
		StatusCode: t.code, Status: t.status, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header:        http.Header{"Content-Type": []string{t.contentType}},
		Body:          io.NopCloser(strings.NewReader(t.body)),
		ContentLength: int64(len(t.body)), Request: r,
	}, nil
}

// loadConfigs are the success-path variants of the load settings: each
// must cost what the pipeline without any of them costs.
var loadConfigs = []struct {
	name string
	set  func(*Settings)
}{
	{"none", func(s *Settings) { other(s).Budget, other(s).Pacer, other(s).Admission = nil, nil, nil }},
	{"defaults", func(s *Settings) {}}, // a full budget and a dormant adaptive limiter
	{"budget-refilling", func(s *Settings) {
		other(s).Budget = NewRetryBudget(DefaultBudgetConfig())
		other(s).Budget.take(400) // every success now writes a refill
	}},
	{"budget-only", func(s *Settings) { other(s).Pacer = nil }},
	{"adaptive-dormant-only", func(s *Settings) { other(s).Budget = nil }},
	{"adaptive-engaged-no-wait", func(s *Settings) {
		// So fast that no attempt waits: it costs the lock and no
		// allocation. (Admitted answers never let go of it here: the
		// curve's clock grows by 1/rate per answer.)
		other(s).Pacer = pacer.New()
		other(s).Pacer.Engage(1e12)
	}},
	{"x-time-rate-limiter", func(s *Settings) { other(s).Limiter = rate.NewLimiter(rate.Inf, 1) }},
	{"admission-counting", func(s *Settings) { // after a failure: answers are counted, under its lock
		other(s).Admission = NewAdmission()
		other(s).Admission.answered(failedUnavailable)
		other(s).Admission.watchUntil.Store(math.MaxInt64)
	}},
}

func loadClient(tb testing.TB, set func(*Settings)) *Client {
	tb.Helper()
	s := DefaultSettings()
	s.BaseURL, _ = url.Parse("http://api.example.test")
	s.Transport = okTransport
	set(&s)
	c, err := New(s, nil)
	if err != nil {
		tb.Fatal(err)
	}
	return c
}

// TestLoadSuccessPathAllocs is the guard for the budget: the retry
// budget and the rate limiters add no allocation to a successful call.
func TestLoadSuccessPathAllocs(t *testing.T) {
	call := func(c *Client) func() {
		return func() {
			var out struct{ OK bool }
			if err := c.do(context.Background(), &Call{Op: rtPutOp, PathParams: [2]string{"t-1"}, Result: &out}); err != nil {
				t.Fatal(err)
			}
		}
	}
	base := testing.AllocsPerRun(200, call(loadClient(t, loadConfigs[0].set)))
	for _, cfg := range loadConfigs[1:] {
		if got := testing.AllocsPerRun(200, call(loadClient(t, cfg.set))); got != base {
			t.Errorf("%s: %v allocs per call, want %v as without it", cfg.name, got, base)
		}
	}
}

// The dormant adaptive limiter must not cost an error answer either: it
// has to tell a throttle from other errors, and doing so with
// Is(ErrRateLimited) cost a 422 three allocations.
func TestLoadErrorPathAllocs(t *testing.T) {
	call := func(c *Client) func() {
		return func() {
			if err := c.do(context.Background(), &Call{Op: rtPutOp, PathParams: [2]string{"t-1"}}); err == nil {
				t.Fatal("want the 422")
			}
		}
	}
	without := loadClient(t, func(s *Settings) { s.Transport, other(s).Pacer = problemTransport, nil })
	dormant := loadClient(t, func(s *Settings) { s.Transport = problemTransport })
	if a, b := testing.AllocsPerRun(200, call(without)), testing.AllocsPerRun(200, call(dormant)); a != b {
		t.Fatalf("%v allocs per 422 with the dormant limiter, want %v as without it", b, a)
	}
}

// BenchmarkLoadSuccessPath measures a successful call through the in-memory
// pipeline under each load setting; compare each with "none".
func BenchmarkLoadSuccessPath(b *testing.B) {
	for _, cfg := range loadConfigs {
		b.Run(cfg.name, func(b *testing.B) {
			c := loadClient(b, cfg.set)
			ctx := context.Background()
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					var out struct{ OK bool }
					if err := c.do(ctx, &Call{Op: rtPutOp, PathParams: [2]string{"t-1"}, Result: &out}); err != nil {
						b.Error(err)
						return
					}
				}
			})
		})
	}
}
