package core

import (
	"bytes"
	"io"
	"net/http"

	"github.com/memberplatform/memberplatform-go/internal/httpx"
)

// DefaultMaxResponseBytes bounds a 2xx body the SDK reads (see
// option.WithMaxResponseBytes). The contract's largest response, a role
// with thousands of permission slugs, is a few hundred KiB; 8 MiB leaves
// room for growth while keeping a misbehaving server from exhausting memory.
const DefaultMaxResponseBytes = 8 << 20

// readBody reads resp's body inside the attempt, so that the per-attempt
// timeout covers it, a body cut short can be retried, and the connection
// goes back to the pool before any backoff. It reads at most limit+1 bytes
// (one more tells that the body is longer than limit), then drains a
// bounded amount more and closes the body, which is replaced by
// http.NoBody: the bytes are returned instead. On a read error, the bytes
// read so far are returned with the error.
func readBody(resp *http.Response, limit int64) ([]byte, error) {
	orig := resp.Body
	if orig == nil || orig == http.NoBody {
		return nil, nil
	}
	resp.Body = http.NoBody
	var buf bytes.Buffer
	if n := resp.ContentLength; n > 0 {
		// Reserve what will be read, not what the header announces.
		buf.Grow(int(min(n, limit+1)) + bytes.MinRead)
	}
	_, err := buf.ReadFrom(io.LimitReader(orig, limit+1))
	if err != nil {
		_ = orig.Close()
	} else {
		httpx.DrainAndClose(orig)
	}
	return buf.Bytes(), err
}
