// Package flextime parses the date-time shapes servers actually send, since
// the contract does not pin them down.
package flextime

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

var layouts = []string{
	time.RFC3339Nano,
	"2006-01-02T15:04:05.999999999Z0700",
	"2006-01-02T15:04:05.999999999", // no zone: UTC
	"2006-01-02 15:04:05.999999999Z07:00",
	"2006-01-02 15:04:05.999999999",
	"2006-01-02",
	time.RFC1123Z,
	time.RFC1123,
}

// Parse accepts RFC 3339 (with or without fractional seconds), the same
// without a zone or with a space instead of 'T' (read as UTC), a bare date,
// RFC 1123, and Unix epoch seconds or milliseconds as a decimal string.
func Parse(s string) (time.Time, error) {
	s = strings.TrimSpace(s)
	for _, l := range layouts {
		if t, err := time.Parse(l, s); err == nil {
			return t, nil
		}
	}
	if n, err := strconv.ParseFloat(s, 64); err == nil {
		if t, ok := fromEpoch(n); ok {
			return t, nil
		}
	}
	return time.Time{}, errors.New("unrecognised date-time " + strconv.Quote(s))
}

// fromEpoch reads seconds, or milliseconds past 1e11 (the year 5138). It
// refuses NaN and numbers that overflow an int64 (an arbitrary instant).
func fromEpoch(n float64) (time.Time, bool) {
	if math.IsNaN(n) || math.Abs(n) >= math.MaxInt64 {
		return time.Time{}, false
	}
	if n > 1e11 {
		return time.UnixMilli(int64(n)).UTC(), true
	}
	sec := int64(n)
	return time.Unix(sec, int64((n-float64(sec))*1e9)).UTC(), true
}

// Time decodes any shape Parse accepts, or a JSON number of epoch
// seconds/milliseconds; null and "" decode to the zero time.
type Time struct{ time.Time }

// UnmarshalJSON implements json.Unmarshaler.
func (t *Time) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) == 0 || string(b) == "null" {
		return nil
	}
	if b[0] == '"' {
		if v, ok := parseRFC3339(b); ok {
			t.Time = v
			return nil
		}
		s, err := unquote(b)
		if err != nil {
			return err
		}
		if s == "" {
			return nil
		}
		t.Time, err = Parse(s)
		return err
	}
	n, err := strconv.ParseFloat(string(b), 64)
	if err != nil {
		return errors.New("date-time is neither a string nor a number")
	}
	v, ok := fromEpoch(n)
	if !ok {
		return errors.New("date-time number is out of range")
	}
	t.Time = v
	return nil
}

// parseRFC3339 reads the JSON string b without copying when it has the
// common shape 2006-01-02T15:04:05[.fraction](Z|±hh:mm), where time's strict
// parser agrees with Parse (FuzzUnmarshalJSONMatchesParse).
func parseRFC3339(b []byte) (time.Time, bool) {
	if len(b) < 2 || b[len(b)-1] != '"' {
		return time.Time{}, false
	}
	s := b[1 : len(b)-1]
	if len(s) < len("2006-01-02T15:04:05Z") {
		return time.Time{}, false
	}
	for i, c := range s[:19] {
		want := "2006-01-02T15:04:05"[i] // a digit stands for any digit
		if isDigit(want) != isDigit(c) || !isDigit(want) && c != want {
			return time.Time{}, false
		}
	}
	zone := s[19:]
	if zone[0] == '.' {
		n := 1
		for n < len(zone) && zone[n] >= '0' && zone[n] <= '9' {
			n++
		}
		if n == 1 || n > 10 {
			return time.Time{}, false
		}
		zone = zone[n:]
	}
	switch {
	case len(zone) == 1 && zone[0] == 'Z':
	case len(zone) == 6 && (zone[0] == '+' || zone[0] == '-') && zone[3] == ':' &&
		isDigit(zone[1]) && isDigit(zone[2]) && isDigit(zone[4]) && isDigit(zone[5]):
	default:
		return time.Time{}, false
	}
	var t time.Time
	if t.UnmarshalText(s) != nil {
		return time.Time{}, false
	}
	return t, true
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// unquote returns the text of the JSON string b, through encoding/json only
// when the bytes between the quotes need decoding.
func unquote(b []byte) (string, error) {
	if len(b) >= 2 && b[len(b)-1] == '"' {
		if s := b[1 : len(b)-1]; utf8.Valid(s) && !bytes.ContainsFunc(s, func(r rune) bool { return r < 0x20 || r == '\\' || r == '"' }) {
			return string(s), nil
		}
	}
	var s string
	err := json.Unmarshal(b, &s)
	return s, err
}
