// Package redact finds secrets (bearer tokens, SigV4 signatures, session
// tokens) in text a server sent back and replaces them; internal/core and
// package errors both use it. A secret is found raw; JSON-escaped, as HTML
// references or percent-encoded, in any mix, up to maxLayers deep; in
// base64 of either alphabet at any alignment, up to maxNesting deep; and,
// if hex, in either case. A JWT's signature segment is a secret of its
// own. Secrets shorter than MinLen are left alone: no issuer hands out
// shorter ones, and replacing them would garble text.
//
// This file holds the Set and its replacements; match.go finds the
// spellings (windows, base64 runs, a cut text's end), escape.go undoes
// JSON escapes, HTML references and percent-encoding.
package redact

import (
	"encoding/base64"
	"encoding/binary"
	"math"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
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
// secret (minCut bytes or more, in any spelling; minCut-1 before a split
// escape, which may spell one more) left at the end of b, with the escape
// after it when the cut split one (`\u00`, `%6`, `&#8`).
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
