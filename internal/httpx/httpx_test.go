package httpx

import (
	"errors"
	"io"
	"testing"
)

// countingBody counts the bytes read from an endless (or sized) body and
// records Close.
type countingBody struct {
	size   int64 // < 0: endless
	read   int64
	closed bool
	err    error // returned once the size is reached, instead of io.EOF
}

func (b *countingBody) Read(p []byte) (int, error) {
	if b.size >= 0 && b.read >= b.size {
		if b.err != nil {
			return 0, b.err
		}
		return 0, io.EOF
	}
	n := int64(len(p))
	if b.size >= 0 {
		n = min(n, b.size-b.read)
	}
	b.read += n
	return int(n), nil
}

func (b *countingBody) Close() error { b.closed = true; return nil }

func TestDrainAndClose(t *testing.T) {
	tests := []struct {
		name     string
		body     *countingBody
		wantRead int64
	}{
		{"empty", &countingBody{size: 0}, 0},
		{"small body read to the end", &countingBody{size: 1000}, 1000},
		{"exactly MaxDrain", &countingBody{size: MaxDrain}, MaxDrain},
		{"larger body abandoned at MaxDrain", &countingBody{size: 10 * MaxDrain}, MaxDrain},
		{"endless body abandoned at MaxDrain", &countingBody{size: -1}, MaxDrain},
		{"read error still closes", &countingBody{size: 10, err: errors.New("reset")}, 10},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			DrainAndClose(tt.body)
			if tt.body.read != tt.wantRead {
				t.Errorf("read %d bytes, want %d", tt.body.read, tt.wantRead)
			}
			if !tt.body.closed {
				t.Error("body not closed")
			}
		})
	}
	DrainAndClose(nil) // must not panic
}

func TestIsLoopbackHost(t *testing.T) {
	for host, want := range map[string]bool{
		"localhost":          true,
		"LOCALHOST":          true,
		"localhost.":         true,
		"api.localhost":      true,
		"127.0.0.1":          true,
		"127.9.9.9":          true,
		"::1":                true,
		"[::1]":              true,
		"::ffff:127.0.0.1":   true,
		"0:0:0:0:0:0:0:1":    true,
		"localhost.evil.com": false,
		"127.0.0.1.nip.io":   false,
		"localhostx":         false,
		"evillocalhost":      false,
		"10.0.0.1":           false,
		"0.0.0.0":            false,
		"::":                 false,
		"128.0.0.1":          false,
		"example.com":        false,
		"127.1":              false,
		"":                   false,
		"[":                  false,
	} {
		if got := IsLoopbackHost(host); got != want {
			t.Errorf("IsLoopbackHost(%q) = %v, want %v", host, got, want)
		}
	}
}

func TestIsLoopbackHostAllocatesNothing(t *testing.T) {
	for _, host := range []string{"127.0.0.1", "[::1]", "localhost", "api.localhost", "example.com"} {
		if n := testing.AllocsPerRun(100, func() { IsLoopbackHost(host) }); n != 0 {
			t.Errorf("IsLoopbackHost(%q): %v allocations, want 0", host, n)
		}
	}
}
