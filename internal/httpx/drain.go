package httpx

import "io"

// MaxDrain bounds how much of an unwanted response body is read before the
// body is closed. Reading the rest lets net/http reuse the connection; a body
// larger than this is abandoned (the connection closes) rather than read.
const MaxDrain = 256 << 10

// DrainAndClose discards at most MaxDrain bytes of body and closes it. It is
// safe to call with a nil body.
func DrainAndClose(body io.ReadCloser) {
	if body == nil {
		return
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(body, MaxDrain))
	_ = body.Close()
}
