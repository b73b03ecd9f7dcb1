package client_test

import (
	"errors"
	"io"
	"math"
	"net/http"
	"net/url"
	"runtime"
	"strings"
	"testing"

	"github.com/memberplatform/memberplatform-go/client"
	apierrors "github.com/memberplatform/memberplatform-go/errors"
	"github.com/memberplatform/memberplatform-go/option"
)

func TestSuccessBodyIsBounded(t *testing.T) {
	t.Parallel()
	t.Run("option", func(t *testing.T) {
		t.Parallel()
		srv := newCountingServer(t, func(w http.ResponseWriter, _ *http.Request) {
			_, _ = io.WriteString(w, `{"id":"`+strings.Repeat("a", 4096)+`"}`)
		})
		c := newClient(t, option.WithBaseURL(srv.URL), option.WithTokenSource(nil), option.WithMaxResponseBytes(1024))
		err := updateFirstName(t.Context(), c)
		var apiErr *apierrors.Error
		if !errors.Is(err, apierrors.ErrUnexpectedResponseBody) || !errors.As(err, &apiErr) || apiErr.Attempts != 1 || srv.reqs.Load() != 1 {
			t.Fatalf("err = %v after %d requests, want ErrUnexpectedResponseBody after one", err, srv.reqs.Load())
		}
		if !strings.Contains(err.Error(), "1024-byte limit") {
			t.Fatalf("err = %v, want it to name the limit", err)
		}
		if len(apiErr.Body) != 1024 || !apiErr.BodyTruncated {
			t.Fatalf("Body has %d bytes, BodyTruncated = %v; want the 1024 read and true", len(apiErr.Body), apiErr.BodyTruncated)
		}
		if _, err := client.New(option.WithBaseURL(srv.URL), option.WithMaxResponseBytes(0)); !errors.Is(err, apierrors.ErrInvalidInput) {
			t.Fatalf("WithMaxResponseBytes(0): %v, want ErrInvalidInput", err)
		}
	})
}

func TestUnlimitedResponseBytes(t *testing.T) {
	t.Parallel()
	srv := newCountingServer(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("chunked") != "" {
			w.(http.Flusher).Flush() // no Content-Length
		}
		_, _ = io.WriteString(w, `{"id":"`+strings.Repeat("a", 2000)+`"}`)
	})
	c := newClient(t, option.WithBaseURL(srv.URL), option.WithTokenSource(nil), option.WithMaxResponseBytes(math.MaxInt64))
	for _, q := range []string{"", "1"} {
		var raw []byte
		if err := c.Execute(t.Context(), http.MethodGet, "/x", nil, &raw, option.WithQuery(url.Values{"chunked": {q}})); err != nil || len(raw) != 2009 {
			t.Fatalf("chunked=%q: %d bytes, %v; want the whole 2009-byte body", q, len(raw), err)
		}
	}
}

// A 200 MiB 2xx body costs at most about the 8 MiB limit's heap. Not
// parallel, so that no other test allocates while it measures the heap.
func TestSuccessBodyOf200MiBIsBounded(t *testing.T) {
	chunk := strings.Repeat("a", 1<<20)
	srv := newCountingServer(t, func(w http.ResponseWriter, _ *http.Request) {
		_, _ = io.WriteString(w, `{"id":"`)
		for range 200 {
			if _, err := io.WriteString(w, chunk); err != nil {
				return // the client stopped reading, as it should
			}
		}
		_, _ = io.WriteString(w, `"}`)
	})
	c := newClient(t, option.WithBaseURL(srv.URL), option.WithTokenSource(nil), option.WithMaxRetries(0))
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	err := updateFirstName(t.Context(), c)
	runtime.ReadMemStats(&after)
	if !errors.Is(err, apierrors.ErrUnexpectedResponseBody) {
		t.Fatalf("err = %v, want ErrUnexpectedResponseBody", err)
	}
	t.Logf("allocated %d MiB", (after.TotalAlloc-before.TotalAlloc)>>20)
	if grown := (after.TotalAlloc - before.TotalAlloc) >> 20; grown > 40 {
		t.Fatalf("allocated %d MiB for a body cut at 8 MiB, want it bounded by the limit", grown)
	}
	c.CloseIdleConnections()
}
