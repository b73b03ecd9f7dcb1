// Package redact finds secrets (a bearer token, a SigV4 signature, a session
// token) in text a server sent back, whatever its spelling, and replaces
// them. It is the one redaction routine of the SDK: internal/core uses it
// for body snippets, headers, trailers, redirect chains, log records and
// transport errors, and package errors for (*errors.Error).Redact.
//
// A secret is recognised in any mix of these spellings:
//
//   - raw;
//   - JSON escapes of any character (\u002F, \u002f, \/, \", surrogate pairs);
//   - HTML character references of every kind: named (&sol;, &amp;),
//     decimal (&#47;) and hexadecimal (&#x2F;, &#X2f;), with or without the
//     semicolon for numeric ones;
//   - percent-encoding in any case (%2F, %2f);
//   - base64 in the standard and the URL alphabet, padded or not, at any
//     alignment inside a longer base64 run (then the characters that hold
//     bits of the secret are replaced), around any of these spellings
//     (base64 of a JSON-escaped, HTML-escaped, percent-encoded or
//     base64-encoded secret), up to maxNesting base64 layers deep;
//   - a secret made of hexadecimal digits (a SigV4 signature) in lower or
//     upper case.
//
// Escapes may mix character by character and nest (an HTML reference
// JSON-escaped, as Go's encoding/json writes "&#47;": \u0026#47;), up to
// maxLayers deep. Secrets shorter than MinLen bytes are left alone: no
// issuer hands out shorter credentials, and replacing a short string
// everywhere would garble unrelated text.
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

// maxLayers bounds how many layers of escaping are undone.
const maxLayers = 3

// maxNesting bounds how many layers of base64 are decoded to look for a
// secret spelled inside them (base64 of "\/"-escaped JSON, of base64...).
const maxNesting = 3

// minCut is the shortest beginning of a secret removed from the end of a
// text that was cut short.
const minCut = MinLen / 2

// Set is a set of secrets to find. The nil *Set holds none and leaves every
// text as it is. A Set is immutable, so it may be shared.
type Set struct {
	in []string // the secrets New was given, to reuse the set
	// patterns are the secrets and the base64 characters that depend only
	// on a secret's bytes (its cores); filter has the bit of each one's
	// anchor set.
	patterns []pattern
	anchors  map[uint64][]anchor
	filter   [1 << filterBits / 64]uint64
	stride   int
	// shortest is the length of the shortest raw secret or core: no
	// shorter text can hold a secret in any spelling (escaping and
	// encoding never make a spelling shorter than these).
	shortest int
	// minRun is the length of the shortest base64 run worth decoding:
	// the base64 of the shortest raw secret, in any spelling, is longer.
	minRun int
	// text holds the bytes a spelling of a secret may be written with:
	// those of text (see printable) and of the secrets themselves.
	text [256]bool
}

// last is the set New built last. A client sends the same credentials on
// call after call, so the error path of each reuses it instead of encoding
// the secrets again.
var last atomic.Pointer[Set]

// New returns the set of the secrets at least MinLen bytes long, or nil
// when there is none.
func New(secrets ...string) *Set {
	if prev := last.Load(); prev != nil && slices.Equal(prev.in, secrets) {
		return prev
	}
	var raw []string
	for _, s := range secrets {
		if len(s) < MinLen {
			continue
		}
		// A hex secret (a SigV4 signature, sent in lower case) may be
		// echoed in the other case: both are the same bytes to a reader.
		for _, variant := range hexCases(s) {
			if !slices.Contains(raw, variant) {
				raw = append(raw, variant)
			}
		}
	}
	if len(raw) == 0 {
		return nil
	}
	set := &Set{in: slices.Clone(secrets), shortest: math.MaxInt, minRun: math.MaxInt, text: printable}
	for _, s := range raw {
		set.add(s, false)
		set.minRun = min(set.minRun, 4*len(s)/3)
		for i := 0; i < len(s); i++ {
			set.text[s[i]] = true
		}
	}
	for _, s := range raw {
		if holdsAnother(s, raw) {
			// ("Bearer <token>"): the base64 of the token inside it is
			// found already, and the raw text is still replaced whole.
			continue
		}
		for align := range 3 {
			core := base64Core(s, align)
			set.add(core, true)
			set.add(toURLAlphabet(core), true)
		}
	}
	set.index()
	last.Store(set)
	return set
}

// hexCases returns s, and when s is all hexadecimal digits, its lower-
// and upper-case spellings too.
func hexCases(s string) []string {
	hasLetter := false
	for i := 0; i < len(s); i++ {
		if !isHex(s[i]) {
			return []string{s}
		}
		hasLetter = hasLetter || s[i] > '9'
	}
	if !hasLetter {
		return []string{s}
	}
	return []string{s, strings.ToLower(s), strings.ToUpper(s)}
}

func holdsAnother(s string, secrets []string) bool {
	for _, other := range secrets {
		if other != s && strings.Contains(s, other) {
			return true
		}
	}
	return false
}

func toURLAlphabet(s string) string {
	if !strings.ContainsAny(s, "+/") {
		return s
	}
	b := []byte(s)
	for i, c := range b {
		switch c {
		case '+':
			b[i] = '-'
		case '/':
			b[i] = '_'
		}
	}
	return string(b)
}

// base64Core returns the characters of the standard base64 encoding of
// secret, when it starts align bytes into a 3-byte group, that depend on
// the secret's bytes alone: whatever precedes and follows it, a base64 run
// that holds the secret holds these characters.
func base64Core(secret string, align int) string {
	plain := make([]byte, align+len(secret))
	copy(plain[align:], secret)
	enc := base64.RawStdEncoding.EncodeToString(plain)
	from := (8*align + 5) / 6           // first character all of whose bits are the secret's
	to := (8*align + 8*len(secret)) / 6 // past the last such character
	return enc[from:to]
}

// String returns s with every secret, in every spelling, replaced by
// Redacted. It returns s itself when there is none.
func (set *Set) String(s string) string {
	if set == nil || len(s) < set.shortest {
		return s
	}
	spans := set.find(s, false)
	if len(spans) == 0 {
		return s
	}
	return string(replace(s, spans))
}

// Bytes is String for a byte slice. It returns b itself when b holds no
// secret, and never writes into b.
func (set *Set) Bytes(b []byte) []byte {
	if set == nil || len(b) < set.shortest {
		return b
	}
	s := unsafe.String(unsafe.SliceData(b), len(b)) // read only, not kept
	spans := set.find(s, false)
	if len(spans) == 0 {
		return b
	}
	return replace(s, spans)
}

// Cut is Bytes for a text that was cut short: it also replaces the
// beginning of a secret (at least minCut bytes of it, in any spelling) left
// at the end of b.
func (set *Set) Cut(b []byte) []byte {
	if set == nil || len(b) < minCut {
		return b
	}
	s := unsafe.String(unsafe.SliceData(b), len(b))
	spans := set.find(s, true)
	if len(spans) == 0 {
		return b
	}
	return replace(s, spans)
}

// Header replaces the secrets in h's names and values, in place, and
// returns h.
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

// Contains reports whether s holds a secret in any spelling.
func (set *Set) Contains(s string) bool {
	return set != nil && len(s) >= set.shortest && len(set.find(s, false)) > 0
}

// span is a range [from, to) of the original text that spells a secret.
type span struct{ from, to int }

// view is the text after undoing some layers of escaping, with, for each
// of its bytes, the range of the original text it was decoded from (nil
// maps for the original text itself).
type view struct {
	text     string
	from, to []int32
}

func (v *view) origin(i, j int) span {
	if v.from == nil {
		return span{i, j}
	}
	return span{int(v.from[i]), int(v.to[j-1])}
}

// find returns the ranges of s that spell a secret, in every view of s;
// atEnd also looks for a secret's beginning at the end of each view.
func (set *Set) find(s string, atEnd bool) []span {
	budget := decodeBudget(len(s))
	return set.findNested(s, atEnd, maxNesting, &budget)
}

// decodeBudget is how many bytes the base64 runs of a text of n bytes may
// decode to, over all layers: decoding a run at its four alignments gives
// 3 bytes per character, and the next layer only finds long runs at the
// one alignment that was base64 text, so real nesting stays well within
// it, and an adversarial text costs at most a constant times its length.
func decodeBudget(n int) int { return 8*n + 4096 }

// findNested is find, decoding at most nesting layers of base64, within
// the budget left.
func (set *Set) findNested(s string, atEnd bool, nesting int, budget *int) []span {
	v := view{text: s}
	spans := set.findIn(&v, atEnd, nil)
	spans = set.findInBase64(&v, atEnd, nesting, budget, spans)
	return set.findEscaped(v, atEnd, nesting, budget, spans)
}

// findDecoded is findNested for the bytes a base64 run decodes to. Three
// of a run's four alignments decode to binary noise, where undoing escapes
// would cost most and find nothing: escaped spellings are looked for only
// in the stretches of text (no control bytes but the secrets' own) long
// enough to hold one, the raw secret and base64 runs everywhere.
func (set *Set) findDecoded(d string, atEnd bool, nesting int, budget *int) []span {
	v := view{text: d}
	spans := set.findIn(&v, atEnd, nil)
	spans = set.findInBase64(&v, atEnd, nesting, budget, spans)
	for from, to := range runsOf(d, &set.text, set.shortest) {
		if !hasEscape(d[from:to]) {
			continue
		}
		for _, found := range set.findEscaped(view{text: d[from:to]}, atEnd && to == len(d), nesting, budget, nil) {
			spans = append(spans, span{from + found.from, from + found.to})
		}
	}
	return spans
}

// findEscaped appends the ranges where the views of v with escapes undone,
// layer by layer, spell a secret.
func (set *Set) findEscaped(v view, atEnd bool, nesting int, budget *int, spans []span) []span {
	for range maxLayers {
		if !hasEscape(v.text) {
			break
		}
		next, changed := unescape(&v)
		if !changed {
			break
		}
		v = next
		spans = set.findIn(&v, atEnd, spans)
		spans = set.findInBase64(&v, atEnd, nesting, budget, spans)
	}
	return spans
}

// findInBase64 appends the ranges of the original text where a base64 run
// of v, decoded, holds a secret in any spelling (the base64 cores in
// set.patterns find the raw secret already; this finds the escaped and
// base64-encoded ones). It reads one byte in every set.minRun, as every
// run long enough to matter holds one of them, so a text without long
// runs costs little more than a sampling pass.
func (set *Set) findInBase64(v *view, atEnd bool, nesting int, budget *int, spans []span) []span {
	if nesting == 0 {
		return spans
	}
	for from, to := range runsOf(v.text, &base64Chars, set.minRun) {
		spans = set.decodeRun(v, from, to, atEnd && to == len(v.text), nesting, budget, spans)
	}
	return spans
}

// runsOf yields the maximal runs of t's bytes in class at least minLen
// long. It reads one byte in every minLen, as every such run holds one of
// them, and then the run around it: a text with only short runs costs a
// sampling pass.
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

// decodeRun decodes the base64 run v.text[from:to] at each of its four
// alignments, looks for the secrets in each decoding, and appends the
// ranges of the original text that hold a secret's bits: every character
// of the run with a bit of the found spelling (so, as for a raw secret in
// base64, the characters beside it go too), and the padding after it. A
// run the budget cannot decode any more is replaced whole: failing closed
// costs only a text built to exhaust the budget.
func (set *Set) decodeRun(v *view, from, to int, atEnd bool, nesting int, budget *int, spans []span) []span {
	run := v.text[from:to]
	if *budget < 3*len(run) {
		return append(spans, v.origin(from, set.padded(v.text, to)))
	}
	*budget -= 3 * len(run)
	std := []byte(run)
	for i, c := range std {
		switch c {
		case '-':
			std[i] = '+'
		case '_':
			std[i] = '/'
		}
	}
	decoded := make([]byte, base64.RawStdEncoding.DecodedLen(len(std)))
	for align := range 4 {
		chars := std[align:]
		if len(chars)%4 == 1 {
			chars = chars[:len(chars)-1] // 6 bits make no byte
		}
		n, err := base64.RawStdEncoding.Decode(decoded, chars)
		if err != nil || n < set.shortest {
			continue
		}
		for _, found := range set.findDecoded(string(decoded[:n]), atEnd, nesting-1, budget) {
			first := from + align + 8*found.from/6
			last := from + align + (8*found.to+5)/6
			if last >= to {
				last = set.padded(v.text, to)
			}
			spans = append(spans, v.origin(first, last))
		}
	}
	return spans
}

// padded returns the end of the base64 padding at t[to:].
func (set *Set) padded(t string, to int) int {
	for to < len(t) && t[to] == '=' {
		to++
	}
	return to
}

// findIn appends the ranges of the original text that v spells a secret
// in. It reads v once, and only one 8-byte window in every set.stride: a
// pattern at least stride+7 bytes long covers one such window whatever its
// position, at an offset below stride, and set.anchors holds the pattern's
// windows at those offsets. Windows whose bit is clear in set.filter, nearly
// all of them, cost a load and a multiplication. (strings.Index per pattern
// would read the text once each, and falls back to Rabin-Karp for patterns
// longer than 64 bytes, as credentials are.)
func (set *Set) findIn(v *view, atEnd bool, spans []span) []span {
	t := v.text
	b := unsafe.Slice(unsafe.StringData(t), len(t)) // read only
	for i := 0; i+8 <= len(b); i += set.stride {
		w := binary.LittleEndian.Uint64(b[i:])
		if h := hash(w); set.filter[h>>6]&(1<<(h&63)) == 0 {
			continue
		}
		for _, a := range set.anchors[w] {
			p := set.patterns[a.pattern]
			from := i - a.offset
			if from < 0 || !strings.HasPrefix(t[from:], p.text) {
				continue
			}
			to := from + len(p.text)
			if p.core {
				// The characters beside the core hold bits of the
				// secret too (and bits of its neighbours): replace
				// them as well, and the padding after it.
				if from > 0 && isBase64(t[from-1]) {
					from--
				}
				if to < len(t) && isBase64(t[to]) {
					to++
				}
				for to < len(t) && t[to] == '=' {
					to++
				}
			}
			spans = append(spans, v.origin(from, to))
		}
	}
	if atEnd {
		for _, p := range set.patterns {
			for n := min(len(p.text)-1, len(t)); n >= minCut; n-- {
				if strings.HasSuffix(t, p.text[:n]) {
					spans = append(spans, v.origin(len(t)-n, len(t)))
					break
				}
			}
		}
	}
	return spans
}

// pattern is a text to find: a secret, or the base64 core of one.
type pattern struct {
	text string
	core bool
}

// anchor is the 8-byte window of a pattern at offset.
type anchor struct{ pattern, offset int }

// maxStride bounds how far apart the windows findIn reads are.
const maxStride = 32

func (set *Set) add(text string, core bool) {
	for _, p := range set.patterns {
		if p.text == text {
			return
		}
	}
	set.patterns = append(set.patterns, pattern{text: text, core: core})
	set.shortest = min(set.shortest, len(text))
}

// index fills the anchors and the filter once every pattern is added.
func (set *Set) index() {
	set.stride = min(maxStride, set.shortest-7)
	set.anchors = make(map[uint64][]anchor)
	for k, p := range set.patterns {
		for offset := range set.stride {
			w := binary.LittleEndian.Uint64([]byte(p.text[offset : offset+8]))
			set.anchors[w] = append(set.anchors[w], anchor{pattern: k, offset: offset})
			h := hash(w)
			set.filter[h>>6] |= 1 << (h & 63)
		}
	}
}

// hash maps an 8-byte window to one of the filter's bits.
func hash(w uint64) uint64 { return (w * 0x9E3779B97F4A7C15) >> (64 - filterBits) }

// filterBits is log2 of the filter's size in bits: 16,384 bits, so that
// even 300 anchors (10 patterns of 32) leave 98 % of them clear.
const filterBits = 14

// hasEscape reports whether t may hold an escape (three IndexByte calls
// are much faster than strings.ContainsAny on a long text).
func hasEscape(t string) bool {
	return strings.IndexByte(t, '\\') >= 0 || strings.IndexByte(t, '&') >= 0 || strings.IndexByte(t, '%') >= 0
}

func isBase64(c byte) bool { return base64Chars[c] }

// base64Chars holds the characters of both base64 alphabets.
var base64Chars = func() (chars [256]bool) {
	for _, c := range []byte("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/-_") {
		chars[c] = true
	}
	return chars
}()

// printable holds the bytes an escaped spelling is written with: printable
// ASCII, tab and line breaks, and the bytes of UTF-8 text beyond ASCII (a
// secret's own non-ASCII bytes may be left raw among escaped ones).
var printable = func() (chars [256]bool) {
	for c := ' '; c <= '~'; c++ {
		chars[c] = true
	}
	for c := 0x80; c <= 0xff; c++ {
		chars[c] = true
	}
	chars['\t'], chars['\n'], chars['\r'] = true, true, true
	return chars
}()

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
		out = append(out, s[at:from]...)
		out = append(out, Redacted...)
		at = to
	}
	return append(out, s[at:]...)
}

// unescape undoes one layer of escaping in v: JSON escapes, HTML character
// references and percent-encoding, wherever they are, and reports whether
// it changed anything.
func unescape(v *view) (view, bool) {
	t := v.text
	out := make([]byte, 0, len(t))
	from, to := make([]int32, 0, len(t)), make([]int32, 0, len(t))
	changed := false
	emit := func(b []byte, i, j int) {
		o := v.origin(i, j)
		for _, c := range b {
			out = append(out, c)
			from = append(from, int32(o.from))
			to = append(to, int32(o.to))
		}
	}
	var buf [utf8.UTFMax * 2]byte
	for i := 0; i < len(t); {
		n, decoded := 0, buf[:0]
		switch t[i] {
		case '\\':
			n, decoded = jsonEscape(t[i:], decoded)
		case '&':
			n, decoded = htmlReference(t[i:], decoded)
		case '%':
			if i+2 < len(t) && isHex(t[i+1]) && isHex(t[i+2]) {
				n, decoded = 3, append(decoded, unhex(t[i+1])<<4|unhex(t[i+2]))
			}
		}
		if n == 0 {
			o := v.origin(i, i+1)
			out, from, to = append(out, t[i]), append(from, int32(o.from)), append(to, int32(o.to))
			i++
			continue
		}
		changed = true
		emit(decoded, i, i+n)
		i += n
	}
	return view{text: string(out), from: from, to: to}, changed
}

// jsonEscape decodes the JSON escape t starts with, returning its length
// (0 if it is none) and its UTF-8 bytes appended to buf.
func jsonEscape(t string, buf []byte) (int, []byte) {
	if len(t) < 2 {
		return 0, buf
	}
	switch c := t[1]; c {
	case '"', '\\', '/':
		return 2, append(buf, c)
	case 'b':
		return 2, append(buf, '\b')
	case 'f':
		return 2, append(buf, '\f')
	case 'n':
		return 2, append(buf, '\n')
	case 'r':
		return 2, append(buf, '\r')
	case 't':
		return 2, append(buf, '\t')
	case 'u':
		r, ok := hex4(t[2:])
		if !ok {
			return 0, buf
		}
		if utf16.IsSurrogate(r) {
			if len(t) >= 12 && t[6] == '\\' && t[7] == 'u' {
				if r2, ok := hex4(t[8:]); ok {
					if pair := utf16.DecodeRune(r, r2); pair != utf8.RuneError {
						return 12, utf8.AppendRune(buf, pair)
					}
				}
			}
			return 6, utf8.AppendRune(buf, utf8.RuneError)
		}
		return 6, utf8.AppendRune(buf, r)
	}
	return 0, buf
}

func hex4(t string) (rune, bool) {
	if len(t) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range []byte(t[:4]) {
		if !isHex(c) {
			return 0, false
		}
		r = r<<4 | rune(unhex(c))
	}
	return r, true
}

// htmlReference decodes the HTML character reference t starts with:
// &name; (any name html.UnescapeString knows), &#digits and &#xhex (the
// semicolon optional). It returns the reference's length (0 if it is none)
// and its UTF-8 bytes appended to buf.
func htmlReference(t string, buf []byte) (int, []byte) {
	n := 1
	switch {
	case len(t) > 2 && t[1] == '#' && (t[2] == 'x' || t[2] == 'X'):
		n = 3
		for n < len(t) && n < 12 && isHex(t[n]) {
			n++
		}
		if n == 3 {
			return 0, buf
		}
	case len(t) > 1 && t[1] == '#':
		n = 2
		for n < len(t) && n < 12 && t[n] >= '0' && t[n] <= '9' {
			n++
		}
		if n == 2 {
			return 0, buf
		}
	default:
		for n < len(t) && n < 40 && isAlnum(t[n]) {
			n++
		}
		if n == 1 || n == len(t) || t[n] != ';' {
			return 0, buf // a named reference must end with ';' here
		}
	}
	if n < len(t) && t[n] == ';' {
		n++
	}
	ref := t[:n]
	decoded := html.UnescapeString(ref)
	if decoded == ref {
		return 0, buf
	}
	return n, append(buf, decoded...)
}

func isAlnum(c byte) bool {
	return c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9'
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

func unhex(c byte) byte {
	switch {
	case c >= 'a':
		return c - 'a' + 10
	case c >= 'A':
		return c - 'A' + 10
	}
	return c - '0'
}
