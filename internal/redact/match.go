package redact

import (
	"encoding/base64"
	"encoding/binary"
	"iter"
	"strings"
	"unsafe"
)

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
// one layer down). The escape goes with the beginning, and counts as the
// character it may spell: "&#100" is "d" to html.UnescapeString, so minCut-1
// whole characters before a cut escape are a beginning too, and at most
// minCut-1 bytes of a secret are left readable.
func (sr *search) findBeginning(v *view) {
	t := v.text
	for end, layer := len(t), 0; ; layer++ {
		shortest := minCut
		if layer > 0 {
			shortest--
		}
		for _, p := range sr.set.patterns {
			for n := min(len(p)-1, end); n >= shortest; n-- {
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

// padded returns the end of the base64 padding at t[to:].
func padded(t string, to int) int {
	for to < len(t) && t[to] == '=' {
		to++
	}
	return to
}

// base64Chars holds the characters of both base64 alphabets.
var base64Chars = func() (class [256]bool) {
	for c := range class {
		class[c] = isAlnum(byte(c)) || strings.IndexByte("+/-_", byte(c)) >= 0
	}
	return class
}()
