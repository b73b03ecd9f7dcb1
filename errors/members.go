package errors

import (
	"encoding/json"
	"slices"
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
	if i := slices.IndexFunc(memberNames[:], func(known string) bool { return jsonscan.Match(name, known) }); i >= 0 {
		return i
	}
	return mOther
}

// decodeMembers calls set with each member a format defines, in order (a
// later one wins, as in encoding/json); it returns the others as generic JSON.
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

// decodeItems calls add with each object of an array that has a string
// member first or second; it returns false, keeping raw in the extensions
// too, for no array or an item that is no object, has neither member, or
// has one that is no string.
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

// decodeString reads a JSON string into dst as json.Unmarshal would (null leaves it).
func decodeString(raw []byte, dst *string) bool {
	if len(raw) > 0 && raw[0] == '"' {
		*dst = jsonscan.Unquote(raw)
		return true
	}
	return string(raw) == "null"
}

// decodeStringOrNumber also accepts a number, kept as its literal text.
func decodeStringOrNumber(raw []byte, dst *string) bool {
	if len(raw) > 0 && (raw[0] == '-' || jsonscan.IsDigit(raw[0])) {
		*dst = string(raw)
		return true
	}
	return decodeString(raw, dst)
}

// decodeInt reads an integral JSON number ("422", "4.22e2") or a numeric
// string; null leaves dst as it is. Atoi comes first: exact past 2^53.
func decodeInt(raw []byte, dst *int) bool {
	text := string(raw)
	if raw[0] == '"' {
		text = strings.TrimSpace(jsonscan.Unquote(raw))
	}
	n, err := strconv.Atoi(text)
	if err != nil && jsonscan.IsDigit(raw[len(raw)-1]) { // a number with a fraction or exponent
		f, ferr := strconv.ParseFloat(text, 64)
		if n, err = int(f), ferr; float64(n) != f {
			return false
		}
	}
	if err == nil {
		*dst = n
	}
	return err == nil || string(raw) == "null"
}
