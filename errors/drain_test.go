package errors

import (
	"io"
	"net/http"
	"testing"

	"github.com/memberplatform/memberplatform-go/internal/httpx"
)

// endless is a body far longer than anything the SDK should read (8 MiB;
// finite, so an unbounded read fails the assertion instead of hanging); it
// counts what was read and whether it was closed.
type endless struct {
	read   int64
	closed bool
}

func (e *endless) Read(p []byte) (int, error) {
	if e.read >= 8<<20 {
		return 0, io.EOF
	}
	for i := range p {
		p[i] = 'x'
	}
	e.read += int64(len(p))
	return len(p), nil
}

func (e *endless) Close() error { e.closed = true; return nil }

func TestFromResponseReadsABoundedAmountOfAHugeBody(t *testing.T) {
	body := &endless{}
	e := FromResponse(&http.Response{StatusCode: 502, Header: http.Header{"Content-Type": {"text/plain"}}, Body: body})
	if limit := int64(MaxBodySnippet + 1 + httpx.MaxDrain + 64<<10); body.read > limit {
		t.Fatalf("read %d bytes of an 8 MiB body, want at most %d", body.read, limit)
	}
	if !body.closed {
		t.Fatal("body not closed")
	}
	if len(e.Body) != MaxBodySnippet || !e.BodyTruncated {
		t.Fatalf("snippet %d bytes, truncated %v; want %d, true", len(e.Body), e.BodyTruncated, MaxBodySnippet)
	}
}
