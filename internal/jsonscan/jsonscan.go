// Package jsonscan reads JSON error bodies without decoding them whole:
// members stay sub-slices of the body, names match as encoding/json matches
// struct fields, and it accepts exactly what encoding/json does (the oracle
// of its tests).
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
// repeated names included, up to the first syntax error.
func Object(b []byte) []Member {
	if len(b) == 0 || b[0] != '{' {
		return nil
	}
	var out []Member
	Members(b, 0, func(name, value []byte) { out = append(out, Member{Name: name, Value: value}) })
	return out
}

// Members calls fn with each unquoted name and value of the JSON object at
// b[i], and returns the end of the object, or -1 when it is not valid.
func Members(b []byte, i int, fn func(name, value []byte)) int {
	return walk(b, i, 0, func(name []byte, start int) int {
		end := Value(b, start, 0)
		if end >= 0 {
			fn(unquote(name), b[start:end])
		}
		return end
	})
}

// Elements calls fn with the start of each element of the JSON array at
// b[i]; fn returns the element's end or -1. Elements returns the array's.
func Elements(b []byte, i int, fn func(start int) int) int {
	return walk(b, i, 0, func(_ []byte, start int) int { return fn(start) })
}

// walk reads the object or array opened at b[i], calling fn with each
// quoted member name (nil in an array) and value start; fn returns the
// value's end or -1. A nil fn checks values with Value at depth (no indirect
// call). walk returns the end, or -1 at the first syntax error.
func walk(b []byte, i, depth int, fn func(name []byte, start int) int) int {
	object, closing := b[i] == '{', byte(']')
	if object {
		closing = '}'
	}
	if i = skipSpace(b, i+1); i < len(b) && b[i] == closing {
		return i + 1
	}
	for {
		var name []byte
		if object {
			if i >= len(b) || b[i] != '"' {
				return -1
			}
			end := scanString(b, i)
			if end < 0 {
				return -1
			}
			name = b[i:end]
			if i = skipSpace(b, end); i >= len(b) || b[i] != ':' {
				return -1
			}
			i = skipSpace(b, i+1)
		}
		if fn == nil {
			i = Value(b, i, depth)
		} else {
			i = fn(name, i)
		}
		if i < 0 {
			return -1
		}
		if i = skipSpace(b, i); i >= len(b) {
			return -1
		}
		switch b[i] {
		case closing:
			return i + 1
		case ',':
			i = skipSpace(b, i+1)
		default:
			return -1
		}
	}
}

// Match reports whether encoding/json would decode a member named name into
// the struct field of ASCII JSON name field: its case folding lets the
// Kelvin sign match K and the long s match S.
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

func skipSpace(b []byte, i int) int {
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	return i
}

// Value returns the end of the valid JSON value at b[i], or -1; depth is how
// many arrays and objects enclose it.
func Value(b []byte, i, depth int) int {
	if i >= len(b) {
		return -1
	}
	switch c := b[i]; {
	case c == '"':
		return scanString(b, i)
	case c == '{' || c == '[':
		if depth++; depth > maxNesting {
			return -1
		}
		return walk(b, i, depth, nil)
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

// number reads -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?, ending at the
// first byte that cannot continue it, as encoding/json does.
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

// scanString returns the end of the JSON string starting at b[i] == '"', or -1.
func scanString(b []byte, i int) int {
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

// Unquote returns the text of a valid JSON string, exactly as encoding/json
// decodes it (escapes, surrogates and invalid bytes alike).
func Unquote(raw []byte) string { return string(unquote(raw)) }

// unquote is Unquote without a copy when raw holds no escape and valid UTF-8.
func unquote(raw []byte) []byte {
	if s := raw[1 : len(raw)-1]; bytes.IndexByte(s, '\\') < 0 && utf8.Valid(s) {
		return s
	}
	var s string
	_ = json.Unmarshal(raw, &s)
	return []byte(s)
}
