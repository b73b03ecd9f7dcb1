package client_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jarcoal/httpmock"

	"github.com/memberplatform/memberplatform-go/client"
	apierrors "github.com/memberplatform/memberplatform-go/errors"
	"github.com/memberplatform/memberplatform-go/internal/areatest"
	"github.com/memberplatform/memberplatform-go/option"
)

// closeCounter is a reader that records whether Execute closed it, as
// net/http closes a request body.
type closeCounter struct {
	io.Reader
	closed atomic.Int32
}

func (c *closeCounter) Close() error { c.closed.Add(1); return nil }

// failingReader fails after its first bytes, as a broken pipe would.
type failingReader struct{ sent bool }

func (f *failingReader) Read(p []byte) (int, error) {
	if f.sent {
		return 0, errors.New("pipe broke")
	}
	f.sent = true
	return copy(p, `{"email"`), nil
}

// Execute sends []byte, json.RawMessage, string and every io.Reader as the
// JSON text they hold, and encodes everything else; a retry carries the
// same bytes. 0.2.0 sent a reader as {}, a []byte as a base64 string and a
// string as a JSON string literal.
func TestExecuteSendsRawBodiesAsTheyAre(t *testing.T) {
	t.Parallel()
	const payload = `{"email":"a@b.c"}`
	tests := []struct {
		name string
		body func() any
		want string // "" means no body and no Content-Type
	}{
		{"strings.Reader", func() any { return strings.NewReader(payload) }, payload},
		{"bytes.Buffer", func() any { return bytes.NewBufferString(payload) }, payload},
		{"bytes.Reader", func() any { return bytes.NewReader([]byte(payload)) }, payload},
		{"reader only", func() any { return io.MultiReader(strings.NewReader(payload[:5]), strings.NewReader(payload[5:])) }, payload},
		{"[]byte", func() any { return []byte(payload) }, payload},
		{"json.RawMessage", func() any { return json.RawMessage(payload) }, payload},
		{"string", func() any { return payload }, payload},
		{"not compacted", func() any { return "{ \"email\" : \"a@b.c\" }\n" }, "{ \"email\" : \"a@b.c\" }\n"},
		{"map", func() any { return map[string]string{"email": "a@b.c"} }, payload},
		{"struct", func() any {
			return struct {
				Email string `json:"email"`
			}{"a@b.c"}
		}, payload},
		{"named []byte is encoded", func() any { type blob []byte; return blob("hi") }, `"aGk="`},
		{"nil", func() any { return nil }, ""},
		{"empty []byte", func() any { return []byte{} }, ""},
		{"empty reader", func() any { return strings.NewReader("") }, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			m := areatest.NewMock(t)
			var n atomic.Int32
			m.On(http.MethodPost, usersPath, func(r *http.Request) (*http.Response, error) {
				if n.Add(1) == 1 {
					return httpmock.NewStringResponse(http.StatusServiceUnavailable, ""), nil
				}
				return httpmock.NewStringResponse(http.StatusCreated, `{"id":"user_new"}`), nil
			})
			c := m.Client(option.WithMaxRetries(1), option.WithRetryBackoff(time.Millisecond, time.Millisecond))
			var out createdUser
			if err := c.Execute(t.Context(), http.MethodPost, usersPath, tt.body(), &out, option.WithIdempotent()); err != nil {
				t.Fatal(err)
			}
			reqs := m.Requests()
			if len(reqs) != 2 {
				t.Fatalf("%d requests, want 2 (one retry)", len(reqs))
			}
			for i, r := range reqs {
				if string(r.Body) != tt.want {
					t.Errorf("attempt %d sent %q, want %q", i+1, r.Body, tt.want)
				}
				ct := r.Header.Get("Content-Type")
				if (tt.want != "") != (ct == "application/json") {
					t.Errorf("attempt %d: Content-Type %q with body %q", i+1, ct, r.Body)
				}
			}
		})
	}
}

// The resend after a 401 (a refreshed token) carries a reader's bytes too,
// and the reader is closed once, as net/http closes a request body.
func TestExecuteReaderSurvivesTheResendAfter401(t *testing.T) {
	t.Parallel()
	const payload = `{"email":"a@b.c"}`
	m := areatest.NewMock(t)
	var n atomic.Int32
	m.On(http.MethodPost, usersPath, func(r *http.Request) (*http.Response, error) {
		if n.Add(1) == 1 {
			return httpmock.NewStringResponse(http.StatusUnauthorized, ""), nil
		}
		return httpmock.NewStringResponse(http.StatusCreated, `{}`), nil
	})
	var tokens atomic.Int32
	c := m.Client(option.WithTokenSource(client.TokenSourceFunc(func(context.Context) (client.Token, error) {
		return client.Token{Value: fmt.Sprintf("tok-%d", tokens.Add(1))}, nil
	})))
	body := &closeCounter{Reader: strings.NewReader(payload)}
	if err := c.Execute(t.Context(), http.MethodPost, usersPath, body, nil); err != nil {
		t.Fatal(err)
	}
	reqs := m.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2", len(reqs))
	}
	for i, r := range reqs {
		if string(r.Body) != payload {
			t.Errorf("request %d sent %q", i+1, r.Body)
		}
	}
	if got := body.closed.Load(); got != 1 {
		t.Errorf("reader closed %d times, want 1", got)
	}
}

// A reader that fails, or a nil pointer reader, is refused before anything
// is sent.
func TestExecuteRefusesBrokenReaders(t *testing.T) {
	t.Parallel()
	for name, body := range map[string]any{
		"failing":            &failingReader{},
		"nil bytes.Buffer":   (*bytes.Buffer)(nil),
		"nil strings.Reader": (*strings.Reader)(nil),
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			m := areatest.NewMock(t)
			c := m.Client()
			err := c.Execute(t.Context(), http.MethodPost, usersPath, body, nil)
			var ve *apierrors.ValidationError
			if !errors.As(err, &ve) || len(ve.Fields) != 1 || ve.Fields[0].Field != "body" {
				t.Fatalf("err = %v, want a ValidationError on body", err)
			}
			if m.Calls() != 0 {
				t.Fatalf("%d requests sent", m.Calls())
			}
		})
	}
}

// stalledReader blocks in Read until release is closed (or, so that the
// old code fails instead of hanging, five seconds pass), then fails.
type stalledReader struct {
	release chan struct{}
	free    func() // closes release, once
	closed  atomic.Int32
}

func newStalledReader(t *testing.T) *stalledReader {
	r := &stalledReader{release: make(chan struct{})}
	r.free = sync.OnceFunc(func() { close(r.release) })
	t.Cleanup(r.free) // ends the reading goroutine
	return r
}

func (r *stalledReader) Read([]byte) (int, error) {
	select {
	case <-r.release:
	case <-time.After(5 * time.Second):
	}
	return 0, errors.New("stalled reader gave up")
}

func (r *stalledReader) Close() error { r.closed.Add(1); return nil }

// A reader that stalls is read under the call's deadline: the context's,
// or WithTimeout's. The call ends when it passes, with the *TransportError
// of any call that ran out of time (errors.Is context.DeadlineExceeded),
// or context.Canceled when cancelled, and sends nothing.
func TestExecuteReaderHonoursTheDeadline(t *testing.T) {
	t.Parallel()
	const bound = 200 * time.Millisecond
	for name, run := range map[string]func(c *client.Client, body io.Reader) error{
		"WithTimeout": func(c *client.Client, body io.Reader) error {
			return c.Execute(context.Background(), http.MethodPost, usersPath, body, nil, option.WithTimeout(bound))
		},
		"context deadline": func(c *client.Client, body io.Reader) error {
			ctx, cancel := context.WithTimeout(context.Background(), bound)
			defer cancel()
			return c.Execute(ctx, http.MethodPost, usersPath, body, nil)
		},
		"cancelled": func(c *client.Client, body io.Reader) error {
			ctx, cancel := context.WithCancel(context.Background())
			time.AfterFunc(bound, cancel)
			return c.Execute(ctx, http.MethodPost, usersPath, body, nil)
		},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			m := areatest.NewMock(t)
			c := m.Client()
			body := newStalledReader(t)
			start := time.Now()
			err := run(c, body)
			elapsed := time.Since(start)
			want := context.DeadlineExceeded
			if name == "cancelled" {
				want = context.Canceled
			}
			var te *apierrors.TransportError
			if !errors.As(err, &te) || !errors.Is(err, want) || te.Attempts != 0 {
				t.Fatalf("err = %v (after %v), want a *TransportError matching %v before any attempt", err, elapsed, want)
			}
			if elapsed > 2*time.Second { // 200 ms, with room for a loaded machine
				t.Fatalf("the call took %v, want about %v", elapsed, bound)
			}
			if m.Calls() != 0 {
				t.Fatalf("%d requests sent", m.Calls())
			}
			// The reader is closed when the call ends, once, also after
			// the Read left blocked returns.
			if body.closed.Load() != 1 {
				t.Fatalf("the reader was closed %d times when the call ended, want 1", body.closed.Load())
			}
			body.free()
			for wait := time.Now(); body.closed.Load() != 1; time.Sleep(time.Millisecond) {
				if time.Since(wait) > 5*time.Second {
					t.Fatalf("the reader was closed %d times after its Read returned, want 1", body.closed.Load())
				}
			}
		})
	}
	t.Run("already over", func(t *testing.T) {
		t.Parallel()
		m := areatest.NewMock(t)
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		body := &closeCounter{Reader: strings.NewReader(`{}`)}
		if err := m.Client().Execute(ctx, http.MethodPost, usersPath, body, nil); !errors.Is(err, context.Canceled) || body.closed.Load() != 1 {
			t.Fatalf("err = %v, reader closed %d times; want context.Canceled and closed once", err, body.closed.Load())
		}
	})
}

// A pipe that stalls (a proxied body whose upstream stopped) is closed when
// the call runs out of time, which ends the Read blocked on it: no
// goroutine is left behind (leakcheck, TestMain), and the writer learns
// the body is gone.
func TestExecuteClosesAStalledPipe(t *testing.T) {
	t.Parallel()
	m := areatest.NewMock(t)
	pr, pw := io.Pipe()
	err := m.Client().Execute(context.Background(), http.MethodPost, usersPath, pr, nil, option.WithTimeout(50*time.Millisecond))
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want DeadlineExceeded", err)
	}
	if _, err := pw.Write([]byte("{}")); !errors.Is(err, io.ErrClosedPipe) {
		t.Fatalf("writing to the pipe after the call: %v, want io.ErrClosedPipe (the reader closed)", err)
	}
}

// spaces hands out size spaces, counting what it hands out.
type spaces struct{ size, read int64 }

func (s *spaces) Read(p []byte) (int, error) {
	if s.read == s.size {
		return 0, io.EOF
	}
	p = p[:min(int64(len(p)), s.size-s.read)]
	for i := range p {
		p[i] = ' '
	}
	s.read += int64(len(p))
	return len(p), nil
}

// A reader body is capped at client.MaxRequestBodyBytes: a longer one is
// refused before sending, after reading no more than the cap (and one
// buffer), instead of reading any size into memory; one of exactly the
// cap is sent.
func TestExecuteReaderIsCapped(t *testing.T) {
	t.Parallel()
	m := areatest.NewMock(t)
	m.On(http.MethodPost, usersPath, areatest.JSON(http.StatusCreated, `{}`))
	c := m.Client()
	body := &spaces{size: 4 * client.MaxRequestBodyBytes}
	err := c.Execute(t.Context(), http.MethodPost, usersPath, body, nil)
	var ve *apierrors.ValidationError
	if !errors.As(err, &ve) || len(ve.Fields) != 1 || ve.Fields[0].Field != "body" || !strings.Contains(err.Error(), "8388608") {
		t.Fatalf("err = %v, want a ValidationError on body naming the 8388608-byte limit", err)
	}
	if body.read > client.MaxRequestBodyBytes+1<<20 {
		t.Fatalf("read %d bytes of a %d-byte reader, want no more than the limit and a buffer", body.read, body.size)
	}
	if m.Calls() != 0 {
		t.Fatalf("%d requests sent", m.Calls())
	}
	exact := io.MultiReader(strings.NewReader(`"`), &spaces{size: client.MaxRequestBodyBytes - 2}, strings.NewReader(`"`))
	if err := c.Execute(t.Context(), http.MethodPost, usersPath, exact, nil); err != nil {
		t.Fatalf("a body of exactly the limit: %v", err)
	}
	if reqs := m.Requests(); len(reqs) != 1 || len(reqs[0].Body) != client.MaxRequestBodyBytes {
		t.Fatalf("want one request with the %d-byte body", client.MaxRequestBodyBytes)
	}
}

// A reader body of a call refused for another reason (its method, its
// path, its out) is closed all the same, as net/http closes a request's
// body on any error, and never sent.
func TestExecuteClosesTheBodyOfARefusedCall(t *testing.T) {
	t.Parallel()
	c := newClient(t, option.WithBaseURL("http://127.0.0.1:1"), option.WithTokenSource(nil))
	for name, call := range map[string]func(body io.Reader) error{
		"method": func(body io.Reader) error { return c.Execute(t.Context(), "post", "/customer/members", body, nil) },
		"path":   func(body io.Reader) error { return c.Execute(t.Context(), "POST", "/customer/../admin", body, nil) },
		"out": func(body io.Reader) error {
			return c.Execute(t.Context(), "POST", "/customer/members", body, struct{}{})
		},
	} {
		body := &closeCounter{Reader: strings.NewReader(`{}`)}
		if err := call(body); !errors.Is(err, apierrors.ErrInvalidInput) {
			t.Fatalf("%s: %v, want ErrInvalidInput", name, err)
		}
		if got := body.closed.Load(); got != 1 {
			t.Errorf("%s: the refused call's body closed %d times, want 1", name, got)
		}
	}
}
