package httpx

import (
	"math"
	"net/http"
	"strings"
	"testing"
	"time"
)

var now = time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)

func TestRetryAfter(t *testing.T) {
	const maxDur = time.Duration(math.MaxInt64)
	date := func(d time.Duration) string { return now.Add(d).Format(http.TimeFormat) }
	tests := []struct {
		name      string
		ms, after string // Retry-After-Ms and Retry-After; "" is absent
		want      time.Duration
		slack     time.Duration // tolerated difference from want
		ok        bool
	}{
		{name: "no headers"},
		{name: "seconds", after: "12", want: 12 * time.Second, ok: true},
		{name: "zero seconds, spaces", after: " 0 ", want: 0, ok: true},
		{name: "explicit plus sign", after: "+5", want: 5 * time.Second, ok: true},
		{name: "negative seconds", after: "-5"},
		{name: "fractional seconds are not delta-seconds", after: "1.5"},
		{name: "garbage", after: "soon"},
		{name: "HTTP-date ahead", after: date(45 * time.Second), want: 45 * time.Second, ok: true},
		{name: "RFC 850 date", after: now.Add(time.Minute).Format("Monday, 02-Jan-06 15:04:05 GMT"), want: time.Minute, ok: true},
		{name: "asctime date", after: now.Add(time.Hour).Format(time.ANSIC), want: time.Hour, ok: true},
		{name: "HTTP-date now", after: date(0), want: 0, ok: true},
		{name: "HTTP-date past", after: date(-time.Hour), want: 0, ok: true},
		{name: "HTTP-date year 9999 saturates", after: "Fri, 31 Dec 9999 23:59:59 GMT", want: maxDur, ok: true},
		{name: "largest seconds a Duration holds", after: "9223372036", want: 9223372036 * time.Second, ok: true},
		{name: "one second more is clamped", after: "9223372037", want: maxDur, ok: true},
		{name: "seconds beyond int64 are clamped", after: "99999999999999999999", want: maxDur, ok: true},
		{name: "negative seconds beyond int64", after: "-99999999999999999999"},
		{name: "milliseconds", ms: "1500", want: 1500 * time.Millisecond, ok: true},
		{name: "fractional milliseconds", ms: "1.5", want: 1500 * time.Microsecond, ok: true},
		{name: "zero milliseconds", ms: "0", want: 0, ok: true},
		{name: "milliseconds win over seconds", ms: "40", after: "9", want: 40 * time.Millisecond, ok: true},
		{name: "milliseconds overflowing a Duration are clamped", ms: "10000000000000", want: maxDur, ok: true},
		{name: "milliseconds beyond 2^53 are clamped", ms: "10000000000000000000", want: maxDur, ok: true},
		{name: "milliseconds beyond float64 are clamped", ms: "1" + strings.Repeat("0", 400), want: maxDur, ok: true},
		{name: "milliseconds just under the limit", ms: "9223372036853", want: 9223372036853 * time.Millisecond, slack: time.Microsecond, ok: true},
		{name: "negative milliseconds fall back to seconds", ms: "-1", after: "7", want: 7 * time.Second, ok: true},
		{name: "NaN milliseconds fall back", ms: "NaN", after: "3", want: 3 * time.Second, ok: true},
		{name: "Inf milliseconds are garbage", ms: "Inf"},
		{name: "garbage milliseconds, no seconds", ms: "soon"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := http.Header{}
			if tt.ms != "" {
				h.Set("Retry-After-Ms", tt.ms)
			}
			if tt.after != "" {
				h.Set("Retry-After", tt.after)
			}
			d, ok := RetryAfter(h, now)
			if ok != tt.ok || d < tt.want-tt.slack || d > tt.want+tt.slack {
				t.Errorf("RetryAfter(ms=%q, after=%q) = %v, %v; want %v, %v", tt.ms, tt.after, d, ok, tt.want, tt.ok)
			}
			if d < 0 {
				t.Errorf("negative wait %v", d)
			}
		})
	}
	if d, ok := RetryAfter(nil, now); d != 0 || ok {
		t.Errorf("RetryAfter(nil) = %v, %v", d, ok)
	}
}

func TestRequestIDPrecedence(t *testing.T) {
	// Each header, with every header after it in the order also present,
	// must be the one returned.
	order := []string{"X-Request-Id", "X-Amzn-RequestId", "X-Amz-Request-Id", "X-Correlation-Id", "Request-Id", "X-Amzn-Trace-Id", "Traceparent"}
	for i, name := range order {
		h := http.Header{}
		for _, later := range order[i:] {
			h.Set(later, "id-"+later)
		}
		if got := RequestID(h); got != "id-"+name {
			t.Errorf("with %v: RequestID = %q, want %q", order[i:], got, "id-"+name)
		}
	}
	if got := RequestID(http.Header{"X-Request-Id": {""}, "Request-Id": {"r"}}); got != "r" {
		t.Errorf("an empty X-Request-Id must be skipped: got %q", got)
	}
	if got := RequestID(http.Header{"x-request-id": {"raw"}}); got != "" {
		t.Errorf("a non-canonical map key is not a header Get finds: got %q", got)
	}
	if got := RequestID(http.Header{"X-Unrelated": {"u"}}); got != "" {
		t.Errorf("RequestID = %q, want empty", got)
	}
	if got := RequestID(nil); got != "" {
		t.Errorf("RequestID(nil) = %q", got)
	}
}
