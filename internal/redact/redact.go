// Package redact finds secrets (bearer tokens, SigV4 signatures, session
// tokens) in text a server sent back and replaces them; internal/core and
// package errors both use it. A secret is found raw; JSON-escaped, as HTML
// references or percent-encoded, in any mix, up to maxLayers deep; in
// base64 of either alphabet at any alignment, up to maxNesting deep; and,
// if hex, in either case. A JWT's signature segment is a secret of its
// own. Secrets shorter than MinLen are left alone: no issuer hands out
// shorter ones, and replacing them would garble text.
package redact

import (
	"encoding/base64"
	"encoding/binary"
	"html"
	"iter"
	"math"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"
)

// Redacted is what replaces a secret.
const Redacted = "[REDACTED]"

// MinLen is the length of the shortest secret a Set looks for.
const MinLen = 8

const (
	maxLayers  = 3          // layers of escaping undone
	maxNesting = 3          // layers of base64 decoded
	minCut     = MinLen / 2 // the shortest beginning of a secret Cut removes
	maxStride  = 32         // the farthest apart findIn's windows are
	filterBits = 14         // 16,384 bits: 10 patterns of 32 anchors leave 98 % clear
	maxNameRef = 40         // the longest HTML reference read, '&' and ';' aside
)

// Set is a set of secrets to find. The nil *Set holds none and leaves every
// text as it is. A Set is immutable, so it may be shared.
type Set struct {
	in       []string // New's arguments, to reuse the set
	patterns []string // the secrets, then from [raw] on their base64 cores
	raw      int
	anchors  map[uint64][]anchor
	filter   [1 << filterBits / 64]uint64
	stride   int
	shortest int       // no shorter text spells a secret in any way
	minRun   int       // no shorter base64 run holds one
	text     [256]bool // the bytes an escaped spelling may be written with
}

// anchor is the 8-byte window of a pattern at offset.
type anchor struct{ pattern, offset int }

// last is the set New built last, for the next call's same credentials.
var last atomic.Pointer[Set]

// New returns the set of the secrets at least MinLen bytes long, and of
// the signature segment of each shaped as a JWT (see jwtSignature), or nil
// when there is none.
func New(secrets ...string) *Set {
	if prev := last.Load(); prev != nil && slices.Equal(prev.in, secrets) {
		return prev
	}
	var raw []string
	add := func(v string) {
		if len(v) >= MinLen && !slices.Contains(raw, v) {
			raw = append(raw, v)
		}
	}
	for _, s := range secrets {
		add(s)
		// A hex secret (a SigV4 signature) may be echoed in the other case.
		if strings.Trim(s, "0123456789abcdefABCDEF") == "" {
			add(strings.ToLower(s))
			add(strings.ToUpper(s))
		}
	}
	whole := len(raw)
	for _, s := range secrets {
		// A JWT's signature is its secret part, and servers echo it alone
		// ("signature … does not verify").
		add(jwtSignature(s))
	}
	if len(raw) == 0 {
		return nil
	}
	set := &Set{in: slices.Clone(secrets), shortest: math.MaxInt, minRun: math.MaxInt, text: printable}
	for _, s := range raw {
		set.add(s)
		set.minRun = min(set.minRun, 4*len(s)/3)
		for i := range len(s) {
			set.text[s[i]] = true
		}
	}
	set.raw = len(set.patterns)
	for _, s := range raw {
		// "Bearer <token>" needs no core: the token's is found inside it.
		// A token keeps its own beside its signature's: all of its
		// characters go, not only the signature's.
		if slices.ContainsFunc(raw[:whole], func(other string) bool { return other != s && strings.Contains(s, other) }) {
			continue
		}
		for align := range 3 {
			enc := base64.RawStdEncoding.EncodeToString(append(make([]byte, align), s...))
			core := enc[(8*align+5)/6 : (8*align+8*len(s))/6]
			set.add(core)
			set.add(toURL.Replace(core))
		}
	}
	set.stride = min(maxStride, set.shortest-7)
	set.anchors = make(map[uint64][]anchor)
	for k, p := range set.patterns {
		for offset := range set.stride {
			w := binary.LittleEndian.Uint64([]byte(p[offset : offset+8]))
			set.anchors[w] = append(set.anchors[w], anchor{pattern: k, offset: offset})
			set.filter[hash(w)>>6] |= 1 << (hash(w) & 63)
		}
	}
	last.Store(set)
	return set
}

// jwtSignature returns the signature segment of a secret shaped as a JWT,
// bare or after "Bearer ": three non-empty dot-separated segments of the
// base64url alphabet. It returns "" for any other secret.
func jwtSignature(s string) string {
	s = strings.TrimPrefix(s, "Bearer ")
	header, rest, _ := strings.Cut(s, ".")
	payload, signature, _ := strings.Cut(rest, ".")
	for _, segment := range []string{header, payload, signature} {
		if segment == "" || !all(segment, isBase64URL) {
			return ""
		}
	}
	return signature
}

func isBase64URL(c byte) bool { return isAlnum(c) || c == '-' || c == '_' }

// toURL turns the standard base64 alphabet into the URL one.
var toURL = strings.NewReplacer("+", "-", "/", "_")

func (set *Set) add(pattern string) {
	if !slices.Contains(set.patterns, pattern) {
		set.patterns = append(set.patterns, pattern)
		set.shortest = min(set.shortest, len(pattern))
	}
}

// hash maps an 8-byte window to one of the filter's bits.
func hash(w uint64) uint64 { return (w * 0x9E3779B97F4A7C15) >> (64 - filterBits) }

// String returns s with every secret, in every spelling, replaced by
// Redacted. It returns s itself when there is none.
func (set *Set) String(s string) string {
	if set == nil || len(s) < set.shortest {
		return s
	}
	if spans := set.find(s, false); len(spans) > 0 {
		return string(replace(s, spans))
	}
	return s
}

// Bytes is String for a byte slice: b itself when it holds no secret; it
// never writes into b.
func (set *Set) Bytes(b []byte) []byte { return set.bytes(b, false) }

// Cut is Bytes for a text cut short: it also replaces the beginning of a
// secret (minCut bytes or more, in any spelling) left at the end of b,
// with the escape after it when the cut split one (`\u00`, `%6`, `&#8`).
func (set *Set) Cut(b []byte) []byte { return set.bytes(b, true) }

func (set *Set) bytes(b []byte, cut bool) []byte {
	if set == nil || len(b) < minCut || !cut && len(b) < set.shortest {
		return b
	}
	s := unsafe.String(unsafe.SliceData(b), len(b)) // read only, not kept
	if spans := set.find(s, cut); len(spans) > 0 {
		return replace(s, spans)
	}
	return b
}

// Header replaces the secrets in h's names and values, in place.
func (set *Set) Header(h http.Header) http.Header {
	for name, values := range h {
		for i, v := range values {
			values[i] = set.String(v)
		}
		if clean := set.String(name); clean != name {
			delete(h, name)
			h[clean] = append(h[clean], values...)
		}
	}
	return h
}

// replace returns s with each span replaced by Redacted, overlapping and
// adjacent spans merged.
func replace(s string, spans []span) []byte {
	slices.SortFunc(spans, func(a, b span) int { return a.from - b.from })
	out := make([]byte, 0, len(s))
	at := 0
	for k := 0; k < len(spans); {
		from, to := spans[k].from, spans[k].to
		for k++; k < len(spans) && spans[k].from <= to; k++ {
			to = max(to, spans[k].to)
		}
		out = append(append(out, s[at:from]...), Redacted...)
		at = to
	}
	return append(out, s[at:]...)
}

// span is a range [from, to) of the original text that spells a secret.
type span struct{ from, to int }

// view is the original text (parent nil) or a decoding of part of its
// parent, with what maps positions back: per byte for an unescaped one;
// the run's start, end and padding end for base64.
type view struct {
	text               string
	atEnd              bool // text ends where the original does
	parent             *view
	from, to           []int32
	start, end, padEnd int
}

// clone copies v for a child to point to, so that v stays on the stack.
func clone(v *view) *view {
	c := *v
	return &c
}

// origin maps v.text[i:j] to the range of the original text that spells it.
func (v *view) origin(i, j int) span {
	switch {
	case v.parent == nil:
		return span{i, j}
	case v.from != nil:
		return v.parent.origin(int(v.from[i]), int(v.to[j-1]))
	}
	// Every character with a bit of v.text[i:j] goes, and trailing padding.
	first, last := v.start+8*i/6, v.start+(8*j+5)/6
	if last >= v.end {
		last = v.padEnd
	}
	return v.parent.origin(first, last)
}

// search is one search of a text: the spans found, and the bytes its
// base64 runs may still decode to (8 per byte: linear time on any text).
type search struct {
	set    *Set
	spans  []span
	budget int
}

// find returns the ranges of s that spell a secret; atEnd also looks for a
// secret's beginning at the end of s.
func (set *Set) find(s string, atEnd bool) []span {
	sr := search{set: set, budget: 8*len(s) + 4096}
	sr.view(&view{text: s, atEnd: atEnd}, maxNesting)
	return sr.spans
}

// view searches v, its base64 runs, and v with escapes undone. In decoded
// base64 it unescapes only printable stretches long enough to hold a
// spelling: most alignments decode to binary noise.
func (sr *search) view(v *view, nesting int) {
	sr.match(v, nesting)
	if v.parent == nil {
		sr.unescape(v, 0, len(v.text), nesting)
		return
	}
	for from, to := range runsOf(v.text, &sr.set.text, sr.set.shortest) {
		sr.unescape(v, from, to, nesting)
	}
}

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

// match searches v and, nesting layers deep, its base64 runs.
func (sr *search) match(v *view, nesting int) {
	sr.findIn(v)
	if nesting == 0 {
		return
	}
	for from, to := range runsOf(v.text, &base64Chars, sr.set.minRun) {
		sr.decodeRun(v, from, to, nesting)
	}
}

// decodeRun searches the base64 run v.text[from:to] decoded at each of its
// four alignments. A run past the budget is replaced whole (fails closed).
func (sr *search) decodeRun(v *view, from, to, nesting int) {
	padEnd := padded(v.text, to)
	if sr.budget < 3*(to-from) {
		sr.spans = append(sr.spans, v.origin(from, padEnd))
		return
	}
	sr.budget -= 3 * (to - from)
	// One buffer: the run in the standard alphabet, then its decoding.
	buf := make([]byte, to-from+base64.RawStdEncoding.DecodedLen(to-from))
	std, decoded := buf[:to-from], buf[to-from:]
	for i := range std {
		switch c := v.text[from+i]; c {
		case '-':
			std[i] = '+'
		case '_':
			std[i] = '/'
		default:
			std[i] = c
		}
	}
	// v, for the children to point to, and the child, in one allocation
	// for every alignment: no search keeps a view past its own (spans are
	// positions; a view's children point to copies).
	views := &[2]view{*v}
	parent, child := &views[0], &views[1]
	for align := range 4 {
		chars := std[align:]
		if len(chars)%4 == 1 {
			chars = chars[:len(chars)-1] // 6 bits make no byte
		}
		n, err := base64.RawStdEncoding.Decode(decoded, chars)
		if err == nil && n >= sr.set.shortest {
			// The text is read in place: the next alignment decodes into
			// the buffer only after this one's search.
			*child = view{text: unsafe.String(&decoded[0], n), atEnd: v.atEnd && to == len(v.text), parent: parent,
				start: from + align, end: to, padEnd: padEnd}
			sr.view(child, nesting-1)
		}
	}
}

// runsOf yields the maximal runs of t's bytes in class at least minLen
// long, reading one byte in every minLen (each such run holds one).
func runsOf(t string, class *[256]bool, minLen int) iter.Seq2[int, int] {
	return func(yield func(from, to int) bool) {
		for i := minLen - 1; i < len(t); i += minLen {
			if !class[t[i]] {
				continue
			}
			from, to := i, i+1
			for from > 0 && class[t[from-1]] {
				from--
			}
			for to < len(t) && class[t[to]] {
				to++
			}
			if to-from >= minLen && !yield(from, to) {
				return
			}
			i = to - minLen // the next byte read is t[to], not in class
		}
	}
}

// findIn records where v spells a pattern, reading one 8-byte window in
// every set.stride: each pattern has one at an offset below stride, in
// set.anchors (one pass for all patterns, unlike strings.Index per pattern).
func (sr *search) findIn(v *view) {
	set, t := sr.set, v.text
	b := unsafe.Slice(unsafe.StringData(t), len(t)) // read only
	for i := 0; i+8 <= len(b); i += set.stride {
		w := binary.LittleEndian.Uint64(b[i:])
		if h := hash(w); set.filter[h>>6]&(1<<(h&63)) == 0 {
			continue
		}
		for _, a := range set.anchors[w] {
			p := set.patterns[a.pattern]
			from := i - a.offset
			if from < 0 || !strings.HasPrefix(t[from:], p) {
				continue
			}
			to := from + len(p)
			if a.pattern >= set.raw { // the characters beside a core hold bits of the secret
				if from > 0 && base64Chars[t[from-1]] {
					from--
				}
				if to < len(t) && base64Chars[t[to]] {
					to++
				}
				to = padded(t, to)
			}
			sr.spans = append(sr.spans, v.origin(from, to))
		}
	}
	if v.atEnd {
		sr.findBeginning(v)
	}
}

// findBeginning records a secret's beginning at the end of v, a text cut
// short: right at the end, or before an escape the cut split (`\u00`,
// `%6`, `&#8`), left undecoded in every layer, and before up to
// maxLayers of those (`%26%2`, a percent-encoded "&#" cut, reads "&%2"
// one layer down). The escape goes with the beginning.
func (sr *search) findBeginning(v *view) {
	t := v.text
	for end, layer := len(t), 0; ; layer++ {
		for _, p := range sr.set.patterns {
			for n := min(len(p)-1, end); n >= minCut; n-- {
				if strings.HasSuffix(t[:end], p[:n]) {
					sr.spans = append(sr.spans, v.origin(end-n, len(t)))
					break
				}
			}
		}
		cut := partialEscape(t[:end])
		if cut == 0 || layer == maxLayers {
			return
		}
		end -= cut
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

// padded returns the end of the base64 padding at t[to:].
func padded(t string, to int) int {
	for to < len(t) && t[to] == '=' {
		to++
	}
	return to
}

// hasEscape reports whether t may hold an escape.
func hasEscape(t string) bool {
	return strings.IndexByte(t, '\\') >= 0 || strings.IndexByte(t, '&') >= 0 || strings.IndexByte(t, '%') >= 0
}

// base64Chars holds the characters of both base64 alphabets.
var base64Chars = func() (class [256]bool) {
	for c := range class {
		class[c] = isAlnum(byte(c)) || strings.IndexByte("+/-_", byte(c)) >= 0
	}
	return class
}()

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
