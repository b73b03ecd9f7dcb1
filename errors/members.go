package errors

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/memberplatform/memberplatform-go/internal/jsonscan"
)

// The members the two formats define.
const (
	mType = iota
	mTitle
	mDetail
	mInstance
	mStatus
	mServiceCode
	mServiceMeta
	mServiceErrors
	mCode
	mMessage
	mErrors
	memberCount
	mOther = -1
)

var memberNames = [memberCount]string{"type", "title", "detail", "instance", "status", "serviceCode", "serviceMeta", "serviceErrors", "code", "message", "errors"}

// memberOf returns which of memberNames name matches, or mOther.
func memberOf(name []byte) int {
	for i, known := range memberNames {
		if jsonscan.Match(name, known) {
			return i
		}
	}
	return mOther
}

// decodeMembers reads members in order, as encoding/json reads them into a
// struct: a later member of the same name (in any case) overrides an earlier
// one. set decodes a member the format defines and reports whether its type
// was right. It returns the extensions: every other member, and every one
// set refused, decoded as a generic JSON value.
func decodeMembers(members []jsonscan.Member, set func(member int, raw []byte) bool) map[string]any {
	var ext map[string]any
	for _, m := range members {
		if k := memberOf(m.Name); k != mOther && set(k, m.Value) {
			continue
		}
		var v any
		if json.Unmarshal(m.Value, &v) == nil {
			if ext == nil {
				ext = make(map[string]any)
			}
			ext[string(m.Name)] = v
		}
	}
	return ext
}

// decodeItems reads an array of field-error objects, each with two string
// members (detail and pointer, or field and message), and calls add with
// each item that has either. null is an empty list. It returns false, so
// that the raw value is kept in the extensions as well, when the value is
// not an array or an item could not be read (not an object, a member of the
// wrong type, neither member).
func decodeItems(raw []byte, first, second string, add func(first, second string)) bool {
	if string(raw) == "null" {
		return true
	}
	if raw[0] != '[' {
		return false
	}
	all := true
	end := jsonscan.Elements(raw, 0, func(i int) int {
		if raw[i] != '{' {
			all = false
			return jsonscan.Value(raw, i, 0)
		}
		var a, b string
		readable := true
		end := jsonscan.Members(raw, i, func(name, v []byte) {
			switch {
			case jsonscan.Match(name, first):
				readable = decodeString(v, &a) && readable
			case jsonscan.Match(name, second):
				readable = decodeString(v, &b) && readable
			}
		})
		if a == "" && b == "" {
			readable = false
		} else {
			add(a, b)
		}
		all = all && readable
		return end
	})
	return all && end >= 0
}

// decodeString reads a JSON string into dst as json.Unmarshal would: null is
// accepted and leaves dst as it is, any other type is refused.
func decodeString(raw []byte, dst *string) bool {
	switch {
	case len(raw) == 0:
		return false
	case raw[0] == '"':
		*dst = jsonscan.Unquote(raw)
		return true
	}
	return string(raw) == "null"
}

// decodeStringOrNumber also accepts a number, kept as its literal text.
func decodeStringOrNumber(raw []byte, dst *string) bool {
	if decodeString(raw, dst) {
		return true
	}
	if len(raw) > 0 && (raw[0] == '-' || jsonscan.IsDigit(raw[0])) {
		*dst = string(raw)
		return true
	}
	return false
}

// decodeInt accepts an integral JSON number or a numeric string ("400").
func decodeInt(raw []byte, dst *int) bool {
	// Up to 15 bytes, an integer is exact in a float64: the float path below
	// would give the same value, slower.
	if n, err := strconv.Atoi(string(raw)); err == nil && len(raw) <= 15 {
		*dst = n
		return true
	}
	var f float64
	if json.Unmarshal(raw, &f) == nil && f == float64(int(f)) {
		*dst = int(f)
		return true
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		if n, err := strconv.Atoi(strings.TrimSpace(s)); err == nil {
			*dst = n
			return true
		}
	}
	return false
}
