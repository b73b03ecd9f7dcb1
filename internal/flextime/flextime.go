// Package flextime parses the date-time shapes servers actually send, since
// the contract does not pin them down.
package flextime

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"time"
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
		return fromEpoch(n), nil
	}
	return time.Time{}, errors.New("unrecognised date-time " + strconv.Quote(s))
}

// fromEpoch reads seconds, or milliseconds when the number is too large to
// be seconds (after the year 5138).
func fromEpoch(n float64) time.Time {
	if n > 1e11 {
		return time.UnixMilli(int64(n)).UTC()
	}
	sec := int64(n)
	return time.Unix(sec, int64((n-float64(sec))*1e9)).UTC()
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
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		if s == "" {
			return nil
		}
		v, err := Parse(s)
		t.Time = v
		return err
	}
	n, err := strconv.ParseFloat(string(b), 64)
	if err != nil {
		return errors.New("date-time is neither a string nor a number")
	}
	t.Time = fromEpoch(n)
	return nil
}
