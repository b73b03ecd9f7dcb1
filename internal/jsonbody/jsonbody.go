// Package jsonbody writes the operations' request bodies member by member,
// in the very bytes json.Marshal writes for their parameter structs.
// json.Marshal finds a struct's fields and encoders by reflection on every
// call; on a loopback call that work runs with cold caches after the
// previous round trip, and it was about 3 % of an UpsertMemberAddress
// (0.3.2, benchmarks module). The oracle of its tests is json.Marshal.
package jsonbody

import (
	"encoding/json"
	"strconv"
)

// Object is a JSON object being written. Member names are written as they
// are: they must need no escaping.
type Object struct{ buf []byte }

// Start begins an object with room for size bytes.
func Start(size int) Object { return Object{append(make([]byte, 0, size), '{')} }

// End closes the object and returns its bytes.
func (o *Object) End() []byte { return append(o.buf, '}') }

// String writes name with the string v.
func (o *Object) String(name, v string) {
	o.name(name)
	o.buf = appendString(o.buf, v)
}

// OptionalString writes name with *v, or nothing when v is nil (omitempty).
func (o *Object) OptionalString(name string, v *string) {
	if v != nil {
		o.String(name, *v)
	}
}

// OptionalBool writes name with *v, or nothing when v is nil (omitempty).
func (o *Object) OptionalBool(name string, v *bool) {
	if v != nil {
		o.name(name)
		o.buf = strconv.AppendBool(o.buf, *v)
	}
}

// Null writes name with null.
func (o *Object) Null(name string) {
	o.name(name)
	o.buf = append(o.buf, "null"...)
}

func (o *Object) name(name string) {
	if len(o.buf) > 1 {
		o.buf = append(o.buf, ',')
	}
	o.buf = append(o.buf, '"')
	o.buf = append(o.buf, name...)
	o.buf = append(o.buf, '"', ':')
}

// appendString appends s quoted as it is when none of its bytes needs
// escaping (printable ASCII but '"', '\\' and the '<', '>' and '&' that
// json.Marshal escapes for HTML), else json.Marshal's own encoding of it.
func appendString(buf []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			quoted, _ := json.Marshal(s) // a string always encodes
			return append(buf, quoted...)
		}
	}
	buf = append(buf, '"')
	buf = append(buf, s...)
	return append(buf, '"')
}
