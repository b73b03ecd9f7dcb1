package core

import "io"

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

// readFull reads until buf is full, EOF, or an error.
func readFull(r io.Reader, buf []byte) (int, error) {
	n, err := io.ReadFull(r, buf)
	if err == io.ErrUnexpectedEOF || err == io.EOF {
		err = nil
	}
	return n, err
}
