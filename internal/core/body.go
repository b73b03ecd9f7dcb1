package core

import (
	"bytes"
	"io"
	"math"
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
	max := limit + 1 // one more byte tells that the body is longer than limit
	if max <= 0 {
		max = math.MaxInt64 // limit was math.MaxInt64: no limit
	}
	body, err := readAtMost(orig, max, resp.ContentLength)
	if err != nil || int64(len(body)) < max {
		// Read to EOF (or failed): nothing is left to drain.
		_ = orig.Close()
	} else {
		httpx.DrainAndClose(orig)
	}
	return body, err
}

// readAtMost reads r until EOF or max bytes. The buffer starts at the
// announced length (when known and within max) and otherwise doubles, never
// past max, so a body longer than max costs about 2·max of allocation, not
// its own size.
func readAtMost(r io.Reader, max, announced int64) ([]byte, error) {
	size := int64(bytes.MinRead)
	if announced > 0 && announced < max {
		size = announced + 1 // +1 to see EOF without growing
	}
	// Reserve at most what a body this size plausibly needs up front: a
	// huge Content-Length must not allocate before a byte arrives.
	size = min(size, max, 1<<20)
	buf := make([]byte, 0, size)
	for {
		if len(buf) == cap(buf) {
			if int64(len(buf)) >= max {
				return buf, nil
			}
			grown := make([]byte, len(buf), min(2*int64(cap(buf)), max, int64(cap(buf))+64<<20))
			copy(grown, buf)
			buf = grown
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return buf, err
		}
	}
}
