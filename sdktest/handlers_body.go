package sdktest

import (
	"bytes"
	"encoding/json"
	"sort"
	"strings"
)

// ---- request body checking ----

// object is a decoded JSON request body.
type object map[string]json.RawMessage

// parseObject decodes body as a JSON object and reports members not in
// allowed as field errors.
func parseObject(body []byte, allowed ...string) (object, *apiError) {
	var o object
	if err := json.Unmarshal(body, &o); err != nil || o == nil {
		return nil, newError("bad-request", "request body must be a JSON object")
	}
	var unknown []string
	for k := range o {
		if !contains(allowed, k) {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		var fs []fieldError
		for _, k := range unknown {
			fs = append(fs, fieldError{pointer: "/" + escapePointer(k), message: "unknown field"})
		}
		return nil, newError("bad-request", "request body has unknown fields", fs...)
	}
	return o, nil
}

func escapePointer(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

// str reads member key as a string. present is false when absent; null is
// reported through isNull (and is a type error unless the caller allows it).
func (o object) str(key string) (val string, present, isNull bool, typeErr *fieldError) {
	raw, ok := o[key]
	if !ok {
		return "", false, false, nil
	}
	raw = bytes.TrimSpace(raw)
	if string(raw) == "null" {
		return "", true, true, nil
	}
	if json.Unmarshal(raw, &val) != nil {
		return "", true, false, &fieldError{pointer: "/" + key, message: "must be a string"}
	}
	return val, true, false, nil
}
