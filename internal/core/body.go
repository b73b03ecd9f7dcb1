package core

import (
	"bytes"
	"io"
	"net/http"
)

// maxBuffered bounds how much of a response body is read inside an attempt.
// The platform's bodies are small JSON documents; a longer body keeps
// streaming the rest after the first maxBuffered bytes.
const maxBuffered = 1 << 20

// bufferBody reads resp.Body inside the attempt, so that the per-attempt
// timeout covers the body, a body cut short can be retried, and the
// connection goes back to the pool before any backoff (go-retryablehttp's
// own drain reads only 4 KiB before closing). A body that fits in
// maxBuffered is replaced by an in-memory copy and the original is closed;
// a longer one keeps streaming after the buffered prefix. On a read error the
// original is closed, the body keeps the bytes read so far followed by the
// error, and the error is returned.
//
// grow bounds the up-front reservation taken from Content-Length.
func bufferBody(resp *http.Response, grow int64) error {
	orig := resp.Body
	if orig == nil || orig == http.NoBody {
		return nil
	}
	var buf bytes.Buffer
	if n := resp.ContentLength; n > 0 {
		// Reserve what will be read, not what the header announces: an
		// error body is cut at the snippet (limitErrorBody) whatever its
		// Content-Length.
		buf.Grow(int(min(n, grow)) + bytes.MinRead)
	}
	_, err := buf.ReadFrom(io.LimitReader(orig, maxBuffered+1))
	b := buf.Bytes()
	switch {
	case err != nil:
		_ = orig.Close()
		resp.Body = &prefixedBody{prefix: b, rc: errBody{err}}
	case len(b) > maxBuffered:
		resp.Body = &prefixedBody{prefix: b, rc: orig}
	default:
		_ = orig.Close()
		resp.Body = &bufferedBody{Reader: bytes.NewReader(b), b: b}
	}
	return err
}

// bufferedBody is a response body held in memory.
type bufferedBody struct {
	*bytes.Reader
	b []byte
}

func (*bufferedBody) Close() error { return nil }

// errBody fails every read with err.
type errBody struct{ err error }

func (e errBody) Read([]byte) (int, error) { return 0, e.err }
func (errBody) Close() error               { return nil }

// prefixedBody replays bytes already read from a body before the rest of it.
type prefixedBody struct {
	prefix []byte
	rc     io.ReadCloser
}

func (b *prefixedBody) Read(p []byte) (int, error) {
	if len(b.prefix) > 0 {
		n := copy(p, b.prefix)
		b.prefix = b.prefix[n:]
		return n, nil
	}
	return b.rc.Read(p)
}

func (b *prefixedBody) Close() error { return b.rc.Close() }
