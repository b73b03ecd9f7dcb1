// Package jsonscan reads JSON error bodies without decoding them whole: it
// finds where values end, so members can be kept as sub-slices of the body
// and decoded only when wanted, and it matches member names as
// encoding/json matches them to struct fields.
//
// It validates exactly as encoding/json does (the same grammar, the same
// string escapes, control characters refused in strings, any other byte,
// invalid UTF-8 included, accepted, the same nesting limit); the tests hold
// it to encoding/json as the oracle. Reading an error body this way is 4–10×
// faster than encoding/json with 5–9× fewer allocations (measured on 0.2.0).
package jsonscan

import (
	"bytes"
	"encoding/json"
	"unicode"
	"unicode/utf8"
)

// maxNesting is encoding/json's limit on how deeply arrays and objects nest.
const maxNesting = 10000

// Member is one member of a JSON object: its name, unquoted, and its value
// exactly as sent (a sub-slice of the input).
type Member struct {
	Name  []byte
	Value []byte
}

// Object returns the members of the JSON object b starts with, in order,
// repeated names included, stopping at the first syntax error or at the end
// of the input: every member read completely is returned. This is what
// encoding/json's Decoder reads when it reads the object token by token.
func Object(b []byte) []Member {
	if len(b) == 0 || b[0] != '{' {
		return nil
	}
	var out []Member
	i := 1
	for first := true; ; first = false {
		i = SkipSpace(b, i)
		if i == len(b) || b[i] == '}' || b[i] == ']' {
			break
		}
		if !first {
			if b[i] != ',' {
				break
			}
			if i = SkipSpace(b, i+1); i == len(b) {
				break
			}
		}
		if b[i] != '"' {
			break
		}
		end := String(b, i)
		if end < 0 {
			break
		}
		name := unquoteName(b[i:end])
		if i = SkipSpace(b, end); i == len(b) || b[i] != ':' {
			break
		}
		start := SkipSpace(b, i+1)
		if i = Value(b, start, 0); i < 0 {
			break
		}
		out = append(out, Member{Name: name, Value: b[start:i]})
	}
	return out
}

// Match reports whether encoding/json would decode a member named name into
// a struct field whose JSON name is field: the same name, or the same after
// encoding/json's case folding (ASCII letters in any case; a non-ASCII
// letter whose case-folding set holds the field's letter, such as the
// Kelvin sign for K or the long s for S). field must be ASCII.
func Match(name []byte, field string) bool {
	if string(name) == field {
		return true
	}
	j := 0
	for i := 0; i < len(name); {
		if j == len(field) {
			return false
		}
		c := name[i]
		if c < utf8.RuneSelf {
			i++
		} else {
			r, n := utf8.DecodeRune(name[i:])
			i += n
			r = foldRune(r)
			if r >= utf8.RuneSelf {
				return false
			}
			c = byte(r)
		}
		if upper(c) != upper(field[j]) {
			return false
		}
		j++
	}
	return j == len(field)
}

// foldRune is encoding/json's: the smallest rune of r's case-folding set.
func foldRune(r rune) rune {
	for {
		r2 := unicode.SimpleFold(r)
		if r2 <= r {
			return r2
		}
		r = r2
	}
}

func upper(c byte) byte {
	if 'a' <= c && c <= 'z' {
		return c - ('a' - 'A')
	}
	return c
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// IsDigit reports whether c is an ASCII digit.
func IsDigit(c byte) bool { return c >= '0' && c <= '9' }

func isHex(c byte) bool { return IsDigit(c) || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }

// SkipSpace returns the index of the first byte at or after i that is not
// JSON white space.
func SkipSpace(b []byte, i int) int {
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	return i
}

// Value returns the end of the JSON value starting at b[i], or -1 when the
// input does not hold a complete, valid value there. depth is how many
// arrays and objects enclose it.
func Value(b []byte, i, depth int) int {
	if i >= len(b) {
		return -1
	}
	switch c := b[i]; {
	case c == '"':
		return String(b, i)
	case c == '{':
		if depth++; depth > maxNesting {
			return -1
		}
		if i = SkipSpace(b, i+1); i < len(b) && b[i] == '}' {
			return i + 1
		}
		for {
			if i >= len(b) || b[i] != '"' {
				return -1
			}
			if i = String(b, i); i < 0 {
				return -1
			}
			if i = SkipSpace(b, i); i >= len(b) || b[i] != ':' {
				return -1
			}
			if i = Value(b, SkipSpace(b, i+1), depth); i < 0 {
				return -1
			}
			if i = SkipSpace(b, i); i >= len(b) {
				return -1
			}
			switch b[i] {
			case '}':
				return i + 1
			case ',':
				i = SkipSpace(b, i+1)
			default:
				return -1
			}
		}
	case c == '[':
		if depth++; depth > maxNesting {
			return -1
		}
		if i = SkipSpace(b, i+1); i < len(b) && b[i] == ']' {
			return i + 1
		}
		for {
			if i = Value(b, i, depth); i < 0 {
				return -1
			}
			if i = SkipSpace(b, i); i >= len(b) {
				return -1
			}
			switch b[i] {
			case ']':
				return i + 1
			case ',':
				i = SkipSpace(b, i+1)
			default:
				return -1
			}
		}
	case c == 't':
		return literal(b, i, "true")
	case c == 'f':
		return literal(b, i, "false")
	case c == 'n':
		return literal(b, i, "null")
	case c == '-' || IsDigit(c):
		return number(b, i)
	}
	return -1
}

func literal(b []byte, i int, lit string) int {
	if len(b)-i < len(lit) || string(b[i:i+len(lit)]) != lit {
		return -1
	}
	return i + len(lit)
}

// number reads -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?; like
// encoding/json it ends the number at the first byte that cannot continue
// it, and fails only where the grammar needs a digit.
func number(b []byte, i int) int {
	if b[i] == '-' {
		if i++; i == len(b) {
			return -1
		}
	}
	switch {
	case b[i] == '0':
		i++
	case IsDigit(b[i]):
		for i++; i < len(b) && IsDigit(b[i]); i++ {
		}
	default:
		return -1
	}
	if i < len(b) && b[i] == '.' {
		if i++; i == len(b) || !IsDigit(b[i]) {
			return -1
		}
		for i++; i < len(b) && IsDigit(b[i]); i++ {
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		if i++; i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if i == len(b) || !IsDigit(b[i]) {
			return -1
		}
		for i++; i < len(b) && IsDigit(b[i]); i++ {
		}
	}
	return i
}

// String returns the end of the JSON string starting at b[i] == '"', or -1.
func String(b []byte, i int) int {
	for i++; i < len(b); i++ {
		switch c := b[i]; {
		case c == '"':
			return i + 1
		case c == '\\':
			if i++; i == len(b) {
				return -1
			}
			switch b[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if len(b)-i <= 4 || !isHex(b[i+1]) || !isHex(b[i+2]) || !isHex(b[i+3]) || !isHex(b[i+4]) {
					return -1
				}
				i += 4
			default:
				return -1
			}
		case c < 0x20:
			return -1
		}
	}
	return -1
}

// Unquote returns the text of a valid JSON string. Only a string holding
// escapes or invalid UTF-8 goes through encoding/json, so that escapes,
// surrogates and invalid bytes come out exactly as encoding/json makes them.
func Unquote(raw []byte) string {
	if s := raw[1 : len(raw)-1]; bytes.IndexByte(s, '\\') < 0 && utf8.Valid(s) {
		return string(s)
	}
	var s string
	_ = json.Unmarshal(raw, &s)
	return s
}

// unquoteName is Unquote for a member name: without escapes or invalid
// UTF-8 it is the bytes between the quotes, not copied.
func unquoteName(raw []byte) []byte {
	if s := raw[1 : len(raw)-1]; bytes.IndexByte(s, '\\') < 0 && utf8.Valid(s) {
		return s
	}
	return []byte(Unquote(raw))
}

// Members walks the members of the valid JSON object starting at b[i],
// calling fn with each name (unquoted only when it must be) and value, and
// returns the end of the object, or -1.
func Members(b []byte, i int, fn func(name, value []byte)) int {
	for i = SkipSpace(b, i+1); i < len(b) && b[i] != '}'; {
		end := String(b, i)
		if end < 0 {
			return -1
		}
		name := unquoteName(b[i:end])
		if i = SkipSpace(b, end); i == len(b) || b[i] != ':' {
			return -1
		}
		start := SkipSpace(b, i+1)
		if i = Value(b, start, 0); i < 0 {
			return -1
		}
		fn(name, b[start:i])
		if i = SkipSpace(b, i); i < len(b) && b[i] == ',' {
			i = SkipSpace(b, i+1)
		}
	}
	if i == len(b) {
		return -1
	}
	return i + 1
}

// Elements walks the elements of the valid JSON array starting at b[i],
// calling fn with the start of each, and returns the end of the array, or
// -1. fn returns the end of the element, which it may read itself, or -1.
func Elements(b []byte, i int, fn func(start int) int) int {
	for i = SkipSpace(b, i+1); i < len(b) && b[i] != ']'; {
		if i = fn(i); i < 0 {
			return -1
		}
		if i = SkipSpace(b, i); i < len(b) && b[i] == ',' {
			i = SkipSpace(b, i+1)
		}
	}
	if i == len(b) {
		return -1
	}
	return i + 1
}
