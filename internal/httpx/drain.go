package httpx

import "io"

// MaxDrain bounds how much of an unwanted body is read, so net/http can
// reuse the connection; a larger body is abandoned with it.
const MaxDrain = 256 << 10

// DrainAndClose discards at most MaxDrain bytes of body, if any, and closes it.
func DrainAndClose(body io.ReadCloser) {
	if body == nil {
		return
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(body, MaxDrain))
	_ = body.Close()
}
