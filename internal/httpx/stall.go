package httpx

import (
	"context"
	"net"
	"net/http"
	"sync/atomic"
	"time"
)

// BoundStalls makes every connection t dials fail a read that waits more
// than idle for data since the connection last sent or received a byte.
// A server that accepts a request and never answers, or sends the headers
// and then stalls the body, so ends the attempt with a timeout (a net.Error
// whose Timeout is true) instead of holding the call for good, without the
// per-attempt timer and goroutine that http.Client.Timeout costs. A
// connection idle in the pool for that long is closed, as idle ones are
// anyway.
//
// The deadline is moved only once it is more than idle/8 old, so most
// reads and writes cost one clock read: a stall is detected after between
// 7/8 of idle and idle.
func BoundStalls(t *http.Transport, idle time.Duration) {
	dial := t.DialContext
	if dial == nil {
		dial = (&net.Dialer{}).DialContext
	}
	t.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		conn, err := dial(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		c := &stallConn{Conn: conn, idle: idle, born: time.Now()}
		if err := c.arm(0); err != nil {
			_ = conn.Close()
			return nil, err
		}
		return c, nil
	}
}

// stallConn is a connection whose read deadline follows its traffic. A
// write moves it too: the transport's read loop is already blocked reading
// an idle connection when a request is written on it, and the answer gets
// the full idle time from the request.
type stallConn struct {
	net.Conn
	idle  time.Duration
	born  time.Time    // the monotonic origin of armed
	armed atomic.Int64 // when the read deadline was last set, as time since born; reads and writes run on two goroutines
}

// arm sets the read deadline idle from now (time since c.born).
func (c *stallConn) arm(now time.Duration) error {
	c.armed.Store(int64(now))
	return c.SetReadDeadline(c.born.Add(now + c.idle))
}

func (c *stallConn) rearm() error {
	if now := time.Since(c.born); now-time.Duration(c.armed.Load()) > c.idle/8 {
		return c.arm(now)
	}
	return nil
}

func (c *stallConn) Read(p []byte) (int, error) {
	if err := c.rearm(); err != nil {
		return 0, err
	}
	return c.Conn.Read(p)
}

func (c *stallConn) Write(p []byte) (int, error) {
	if err := c.rearm(); err != nil {
		return 0, err
	}
	return c.Conn.Write(p)
}
