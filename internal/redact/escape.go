package redact

import (
	"html"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// unescape searches v.text[from:to] with up to maxLayers of JSON escapes,
// HTML references and percent-encoding undone, layer by layer.
func (sr *search) unescape(v *view, from, to, nesting int) {
	var layer view
	for range maxLayers {
		if !hasEscape(v.text[from:to]) {
			return
		}
		t := v.text[:to] // no escape reaches past the stretch
		layerAtEnd := v.atEnd && to == len(v.text)
		out := make([]byte, 0, to-from)
		starts, ends := make([]int32, 0, to-from), make([]int32, 0, to-from)
		changed, buf := false, [2 * utf8.UTFMax]byte{}
		for i := from; i < to; {
			n, decoded := 0, buf[:0]
			if c := t[i]; c == '\\' || c == '&' || c == '%' {
				n, decoded = escape(t[i:], decoded)
				if layerAtEnd && c == '&' && n > 0 && t[i+n-1] != ';' && partialEscape(t[i+n:]) == to-i-n {
					// "&#8" at the end of a cut text (or before an escape
					// the cut split) may be the beginning of "&#88;":
					// left as it is for findBeginning.
					n, decoded = 0, buf[:0]
				}
			}
			if n == 0 {
				out, starts, ends = append(out, t[i]), append(starts, int32(i)), append(ends, int32(i+1))
				i++
				continue
			}
			changed = true
			for _, c := range decoded {
				out, starts, ends = append(out, c), append(starts, int32(i)), append(ends, int32(i+n))
			}
			i += n
		}
		if !changed {
			return
		}
		layer = view{text: string(out), atEnd: layerAtEnd, parent: clone(v), from: starts, to: ends}
		v, from, to = &layer, 0, len(layer.text)
		sr.match(v, nesting)
	}
}

// partialEscape returns the length of the escape t ends with, cut short:
// `\` alone or `\u` and up to three hex digits; '%' and up to one; '&'
// and a name, or "&#" and digits, or "&#x" and hex digits, without the
// ';'. It returns 0 when t ends otherwise.
func partialEscape(t string) int {
	for i := len(t) - 1; i >= 0 && len(t)-i <= 2+maxNameRef; i-- {
		rest := t[i+1:]
		switch t[i] {
		case '\\':
			if rest == "" || rest[0] == 'u' && len(rest) <= 4 && all(rest[1:], isHex) {
				return len(t) - i
			}
			return 0
		case '%':
			if len(rest) <= 1 && all(rest, isHex) {
				return len(t) - i
			}
			return 0
		case '&':
			digits, digit := rest, isAlnum
			if strings.HasPrefix(rest, "#x") || strings.HasPrefix(rest, "#X") {
				digits, digit = rest[2:], isHex
			} else if strings.HasPrefix(rest, "#") {
				digits, digit = rest[1:], isDigit
			}
			if len(rest) <= maxNameRef && all(digits, digit) {
				return len(t) - i
			}
			return 0
		}
	}
	return 0
}

// all reports whether every byte of t is in class.
func all(t string, class func(byte) bool) bool {
	for i := range len(t) {
		if !class(t[i]) {
			return false
		}
	}
	return true
}

// hasEscape reports whether t may hold an escape.
func hasEscape(t string) bool {
	return strings.IndexByte(t, '\\') >= 0 || strings.IndexByte(t, '&') >= 0 || strings.IndexByte(t, '%') >= 0
}

// printable holds the bytes an escaped spelling is written with, non-ASCII
// included.
var printable = func() (class [256]bool) {
	for c := range class {
		class[c] = c >= ' ' && c != 0x7f || c == '\t' || c == '\n' || c == '\r'
	}
	return class
}()

// escape decodes the JSON escape, HTML reference or percent-encoded byte t
// starts with: its length (0 if none), its UTF-8 bytes appended to buf.
func escape(t string, buf []byte) (int, []byte) {
	r := rune(-1)
	switch {
	case t[0] == '&':
		return htmlReference(t, buf)
	case t[0] == '%' && len(t) >= 3:
		if r = hexValue(t[1:3]); r >= 0 {
			return 3, append(buf, byte(r))
		}
	case t[0] == '\\' && len(t) >= 2 && t[1] != 'u':
		if k := strings.IndexByte(`"\/bfnrt`, t[1]); k >= 0 {
			return 2, append(buf, "\"\\/\b\f\n\r\t"[k])
		}
	case t[0] == '\\' && len(t) >= 6:
		r = hexValue(t[2:6])
	}
	if r < 0 { // not a \uXXXX escape
		return 0, buf
	}
	if utf16.IsSurrogate(r) && len(t) >= 12 && t[6:8] == `\u` {
		if pair := utf16.DecodeRune(r, hexValue(t[8:12])); pair != utf8.RuneError {
			return 12, utf8.AppendRune(buf, pair)
		}
	}
	return 6, utf8.AppendRune(buf, r) // a lone surrogate reads U+FFFD
}

// htmlReference decodes the HTML reference t starts with: &name;, &#digits
// or &#xhex, the semicolon optional for numeric ones.
func htmlReference(t string, buf []byte) (int, []byte) {
	n, digit, limit := 1, isAlnum, maxNameRef
	if strings.HasPrefix(t, "&#x") || strings.HasPrefix(t, "&#X") {
		n, digit, limit = 3, isHex, 12
	} else if strings.HasPrefix(t, "&#") {
		n, digit, limit = 2, isDigit, 12
	}
	start := n
	for n < len(t) && n < limit && digit(t[n]) {
		n++
	}
	if n == start || start == 1 && (n == len(t) || t[n] != ';') {
		return 0, buf // a named reference must end with ';' here
	}
	if n < len(t) && t[n] == ';' {
		n++
	}
	if decoded := html.UnescapeString(t[:n]); decoded != t[:n] {
		return n, append(buf, decoded...)
	}
	return 0, buf
}

// hexValue returns the value of the hexadecimal digits t, or -1.
func hexValue(t string) rune {
	var r rune
	for i := range len(t) {
		if !isHex(t[i]) {
			return -1
		}
		r = r<<4 | rune(strings.IndexByte("0123456789abcdef", t[i]|0x20))
	}
	return r
}

// c|0x20 is the lower case of an ASCII letter and leaves digits alone.
func isDigit(c byte) bool { return '0' <= c && c <= '9' }
func isHex(c byte) bool   { return isDigit(c) || 'a' <= c|0x20 && c|0x20 <= 'f' }
func isAlnum(c byte) bool { return isDigit(c) || 'a' <= c|0x20 && c|0x20 <= 'z' }
