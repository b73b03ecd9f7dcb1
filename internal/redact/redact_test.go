package redact

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"html"
	"math/rand/v2"
	"net/url"
	"strings"
	"testing"
)

const token = "eyJhbGciOi.J9/x+y=z_Q-7~" // a static token with every character class a credential holds

// spell writes each byte of s with the spelling choose picks for it.
func spell(s string, choose func(i int) int) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch choose(i) % 9 {
		case 0:
			b.WriteByte(c)
		case 1:
			fmt.Fprintf(&b, `\u%04x`, c)
		case 2:
			fmt.Fprintf(&b, `\u%04X`, c)
		case 3:
			fmt.Fprintf(&b, "&#%d;", c)
		case 4:
			fmt.Fprintf(&b, "&#x%x;", c)
		case 5:
			fmt.Fprintf(&b, "&#X%02X", c) // numeric reference without its semicolon
		case 6:
			fmt.Fprintf(&b, "%%%02x", c)
		case 7:
			fmt.Fprintf(&b, "%%%02X", c)
		case 8:
			if named, ok := namedRefs[c]; ok {
				b.WriteString(named)
			} else {
				b.WriteByte(c)
			}
		}
	}
	return b.String()
}

// encodings are base64 in both alphabets, padded or not.
var encodings = map[string]*base64.Encoding{"std": base64.StdEncoding, "url": base64.URLEncoding, "raw std": base64.RawStdEncoding, "raw url": base64.RawURLEncoding}

var namedRefs = map[byte]string{'/': "&sol;", '+': "&plus;", '=': "&equals;", '.': "&period;", '_': "&lowbar;", '&': "&amp;", ':': "&colon;"}

func TestSpellings(t *testing.T) {
	set := New(token)
	jsonEscaped, _ := json.Marshal(token)
	cases := map[string]string{
		"raw":                           token,
		"encoding/json":                 strings.Trim(string(jsonEscaped), `"`),
		"html.EscapeString":             html.EscapeString(token),
		"QueryEscape":                   url.QueryEscape(token),
		"PathEscape upper":              strings.ReplaceAll(url.PathEscape(token), "/", "%2F"),
		"percent lower":                 strings.NewReplacer("/", "%2f", "+", "%2b", "=", "%3d").Replace(token),
		"JSON \\/":                      strings.ReplaceAll(token, "/", `\/`),
		"JSON of HTML":                  strings.ReplaceAll(strings.ReplaceAll(token, "/", `\u0026#47;`), "+", `\u0026#x2B;`),
		"HTML of percent":               strings.ReplaceAll(token, "/", "&#37;2F"),
		"surrogate-free \\u everywhere": spell(token, func(int) int { return 1 }),
		"named references":              spell(token, func(int) int { return 8 }),
		"decimal":                       spell(token, func(int) int { return 3 }),
		"hex no semicolon":              spell(token, func(int) int { return 5 }),
		"mixed":                         spell(token, func(i int) int { return i }),
		"mixed reversed":                spell(token, func(i int) int { return 8 - i%9 }),
	}
	for name, spelled := range cases {
		t.Run(name, func(t *testing.T) {
			text := `{"detail":"echo ` + spelled + ` end"}`
			got := set.String(text)
			if want := `{"detail":"echo ` + Redacted + ` end"}`; got != want {
				t.Errorf("String(%q)\n = %q\nwant %q", text, got, want)
			}
			if gotBytes := set.Bytes([]byte(text)); string(gotBytes) != got {
				t.Errorf("Bytes and String disagree: %q vs %q", gotBytes, got)
			}
			if !contains(set, text) {
				t.Error("Contains = false")
			}
		})
	}
}

// TestBase64 encodes the token inside longer texts, at every alignment, in
// both alphabets, padded or not, and checks that every character holding a
// bit of the token is replaced.
func TestBase64(t *testing.T) {
	set := New(token)
	for name, enc := range encodings {
		for before := range 7 {
			for after := range 4 {
				plain := strings.Repeat("p", before) + token + strings.Repeat("s", after)
				encoded := enc.EncodeToString([]byte(plain))
				first := 8 * before / 6                 // first character with a bit of the token
				last := (8*(before+len(token)) - 1) / 6 // last one
				text := "x:" + encoded + " y"
				got := set.String(text)
				i := strings.Index(got, Redacted)
				if i < 0 {
					t.Errorf("%s, %d before, %d after: %q not redacted", name, before, after, text)
					continue
				}
				kept, rest := got[2:i], got[i+len(Redacted):]
				if len(kept) > first || !strings.HasPrefix(encoded, kept) {
					t.Errorf("%s, %d before: kept %q before the redaction, more than the %d characters without the token", name, before, kept, first)
				}
				tail := strings.TrimSuffix(rest, " y")
				if len(tail) > len(encoded)-last-1 || !strings.HasSuffix(encoded, tail) {
					t.Errorf("%s, %d before, %d after: kept %q after the redaction", name, before, after, tail)
				}
			}
		}
	}
}

func TestLeftAlone(t *testing.T) {
	if New("", "short", "1234567") != nil {
		t.Error("secrets under MinLen make a set")
	}
	var none *Set
	if none.String("text "+token) != "text "+token || contains(none, token) {
		t.Error("the nil set changed a text")
	}
	set := New(token)
	for _, text := range []string{"", "plain text without it", `{"a":"\u0041 &amp; %41 &unknown; &#xZZ; \q"}`, token[:len(token)-1]} {
		if got := set.String(text); got != text {
			t.Errorf("String(%q) = %q", text, got)
		}
	}
	b := []byte("no secret here at all")
	if got := set.Bytes(b); &got[0] != &b[0] {
		t.Error("Bytes copied a text without a secret")
	}
}

func TestSupersetsAndSeveral(t *testing.T) {
	set := New("Bearer "+token, token, "AKIDSIGNATURE0123456789abcdef")
	text := "Authorization: Bearer " + token + " sig=AKIDSIGNATURE0123456789abcdef"
	// The whole Authorization value goes, not only the token inside it.
	if got, want := set.String(text), "Authorization: "+Redacted+" sig="+Redacted; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	// Two occurrences side by side merge into one replacement.
	if got := set.String(token + token); got != Redacted {
		t.Errorf("adjacent: %q", got)
	}
}

func TestCut(t *testing.T) {
	set := New(token)
	for _, n := range []int{minCut, len(token) / 2, len(token) - 1} {
		for name, spelled := range map[string]string{"raw": token[:n], "escaped": spell(token[:n], func(i int) int { return i })} {
			body := []byte(`{"detail":"` + spelled)
			got := set.Cut(body)
			if want := `{"detail":"` + Redacted; string(got) != want {
				t.Errorf("%s beginning of %d bytes: Cut = %q, want %q", name, n, got, want)
			}
			if string(set.Bytes(body)) != string(body) {
				t.Errorf("Bytes removed a beginning of %d bytes from an uncut text", n)
			}
		}
	}
}

// FuzzRedact is the oracle test: a secret spelled with any mix of escapes,
// inside any text, never survives, and its decoding with the standard
// library's decoders (JSON, HTML, percent) never shows it.
func FuzzRedact(f *testing.F) {
	f.Add("prefix ", " suffix", uint64(1), "s3cr3t-t0ken/+=")
	f.Add(`{"k":"`, `"}`, uint64(99), token)
	f.Fuzz(func(t *testing.T, before, after string, seed uint64, secret string) {
		if len(secret) < MinLen || len(before) > 200 || len(after) > 200 {
			return
		}
		rng := rand.New(rand.NewPCG(seed, seed>>7))
		spelled := spell(secret, func(int) int { return rng.IntN(9) })
		set := New(secret)
		got := set.String(before + spelled + after)
		if strings.Contains(got, secret) {
			t.Fatalf("secret left raw in %q", got)
		}
		for _, decoded := range decodings(got) {
			if strings.Contains(decoded, secret) {
				t.Fatalf("secret %q visible after decoding %q: %q", secret, got, decoded)
			}
		}
		if contains(set, got) {
			t.Fatalf("output %q still holds the secret", got)
		}
	})
}

// decodings decodes s with the standard library's decoders, one layer each.
func decodings(s string) []string {
	var out []string
	var fromJSON string
	if json.Unmarshal([]byte(`"`+strings.ReplaceAll(s, `"`, `\"`)+`"`), &fromJSON) == nil {
		out = append(out, fromJSON)
	}
	out = append(out, html.UnescapeString(s))
	if p, err := url.PathUnescape(s); err == nil {
		out = append(out, p)
	}
	return out
}

// TestEveryPosition: findIn reads one window per stride; a secret is found
// wherever it starts, in a text of any length around it.
func TestEveryPosition(t *testing.T) {
	long := strings.Repeat("k", 200) + "/+=" // a stride of 32
	for _, secret := range []string{"12345678", token, long} {
		set := New(secret)
		for before := range 70 {
			for _, after := range []int{0, 1, 7, 40} {
				text := strings.Repeat("x", before) + secret + strings.Repeat("y", after)
				if got, want := set.String(text), strings.Repeat("x", before)+Redacted+strings.Repeat("y", after); got != want {
					t.Fatalf("secret of %d bytes at %d: got %q", len(secret), before, got)
				}
			}
		}
	}
}

// nestedSpellings are spellings of a secret with base64 as the outer layer
// around another spelling, as servers write them (PHP's json_encode writes
// "\/" before a debug blob is base64-encoded).
var nestedSpellings = map[string]func(string) string{
	"base64 of JSON \\/": func(s string) string {
		return `{"auth":"Bearer ` + strings.ReplaceAll(s, "/", `\/`) + `"}`
	},
	"base64 of JSON \\u": func(s string) string { return `{"auth":"` + spell(s, func(int) int { return 1 }) + `"}` },
	"base64 of HTML &#47;": func(s string) string {
		return "<p>" + strings.ReplaceAll(s, "/", "&#47;") + "</p>"
	},
	"base64 of HTML mixed": func(s string) string { return "<p>" + spell(s, func(i int) int { return 3 + i%3 }) + "</p>" },
	"base64 of percent %2F": func(s string) string {
		return "auth=" + strings.NewReplacer("/", "%2F", "+", "%2B", "=", "%3D").Replace(s) + "&x=1"
	},
	"base64 of base64": func(s string) string { return "inner:" + base64.StdEncoding.EncodeToString([]byte("\x00"+s)) },
	"base64 of base64 of JSON": func(s string) string {
		return base64.RawURLEncoding.EncodeToString([]byte(`{"t":"` + strings.ReplaceAll(s, "/", `\/`) + `"}`))
	},
}

// TestBase64AroundOtherSpellings wraps each nested spelling in base64, in
// both alphabets, padded or not, at every alignment, inside a longer run
// and beside text: the secret must go, and no decoding of what is left may
// show it; the text outside the run stays.
func TestBase64AroundOtherSpellings(t *testing.T) {
	set := New(token)
	for name, nest := range nestedSpellings {
		for encName, enc := range encodings {
			for offset := range 3 {
				for _, runBefore := range []string{"", "abc", "Zm9v"} {
					inner := strings.Repeat("p", offset) + nest(token)
					encoded := runBefore + enc.EncodeToString([]byte(inner))
					text := `{"detail":"debug=` + encoded + ` end"}`
					got := set.String(text)
					if !strings.Contains(got, Redacted) || !strings.HasPrefix(got, `{"detail":"debug=`) || !strings.HasSuffix(got, ` end"}`) {
						t.Errorf("%s, %s, offset %d, %q before: String(%q) = %q", name, encName, offset, runBefore, text, got)
						continue
					}
					if contains(set, got) {
						t.Errorf("%s, %s, offset %d, %q before: %q still holds the secret", name, encName, offset, runBefore, got)
					}
					if strings.Contains(got, encoded[len(runBefore)+len(encoded)/3:len(runBefore)+len(encoded)/2]) {
						t.Errorf("%s, %s, offset %d: the middle of the run is left in %q", name, encName, offset, got)
					}
				}
			}
		}
	}
}

// TestBase64NestingKeepsTheRest: only the characters with bits of the
// nested spelling go, the run's characters well before and after stay.
func TestBase64NestingKeepsTheRest(t *testing.T) {
	set := New(token)
	before, after := strings.Repeat("a", 30), strings.Repeat("z", 30)
	encoded := base64.StdEncoding.EncodeToString([]byte(before + strings.ReplaceAll(token, "/", `\/`) + after))
	got := set.String(encoded)
	spelledEnd := len(before) + len(strings.ReplaceAll(token, "/", `\/`))
	want := encoded[:8*len(before)/6] + Redacted + encoded[(8*spelledEnd+5)/6:]
	if got != want {
		t.Errorf("String(%q)\n = %q\nwant %q", encoded, got, want)
	}
	// A long run that holds no secret in any layer is left as it is.
	inner := base64.StdEncoding.EncodeToString([]byte(strings.Repeat(`{"k":"v\/w&#47;%2F"}`, 50)))
	text := "blob " + base64.RawURLEncoding.EncodeToString([]byte(inner)) + " end"
	if got := set.String(text); got != text {
		t.Errorf("changed a run without the secret: %q", got)
	}
}

// TestHexCase: a SigV4 signature is sent in lower-case hex; an echo in
// upper case, or base64 of one, is the same secret.
func TestHexCase(t *testing.T) {
	const signature = "5d672d79c15b13162d9279b0855cfba6789a8edb4c82c400e06b5924a6f2b5d7"
	set := New("AWS4-HMAC-SHA256 Credential=AKID/20260101/us-east-1/execute-api/aws4_request, SignedHeaders=host, Signature="+signature, signature)
	upper := strings.ToUpper(signature)
	for name, text := range map[string]string{
		"upper":           "sig " + upper + " end",
		"lower":           "sig " + signature + " end",
		"upper in base64": "sig " + base64.StdEncoding.EncodeToString([]byte(upper)) + " end",
		"upper escaped":   "sig " + spell(upper, func(i int) int { return i }) + " end",
	} {
		if got, want := set.String(text), "sig "+Redacted+" end"; got != want {
			t.Errorf("%s: String(%q) = %q, want %q", name, text, got, want)
		}
	}
	if got := New("0123456789012345").String("0123456789012345"); got != Redacted {
		t.Errorf("a secret of digits only: %q", got)
	}
}

// FuzzBase64Nested is the property for nested spellings: the secret,
// spelled with any mix of escapes, then base64-encoded in either alphabet
// after any prefix, never survives, and decoding what is left at every
// alignment never shows it.
func FuzzBase64Nested(f *testing.F) {
	f.Add("debug=", "abc", uint64(1), "s3cr3t-t0ken/+=", uint8(0))
	f.Add(`{"k":"`, "", uint64(99), token, uint8(3))
	f.Fuzz(func(t *testing.T, before, prefix string, seed uint64, secret string, encoding uint8) {
		if len(secret) < MinLen || len(before) > 200 || len(prefix) > 200 {
			return
		}
		rng := rand.New(rand.NewPCG(seed, seed>>7))
		// (Not a numeric reference without its semicolon: before a hex
		// digit, "&#X30" + "0" reads as U+0300, so it spells no secret.)
		spelled := spell(secret, func(int) int { return []int{0, 1, 2, 3, 4, 6, 7, 8}[rng.IntN(8)] })
		enc := []*base64.Encoding{base64.StdEncoding, base64.URLEncoding, base64.RawStdEncoding, base64.RawURLEncoding}[encoding%4]
		set := New(secret)
		got := set.String(before + " " + enc.EncodeToString([]byte(prefix+spelled)) + " end")
		if contains(set, got) {
			t.Fatalf("output %q still holds the secret", got)
		}
		for _, field := range strings.Fields(got) {
			for align := range 4 {
				if align > len(field) {
					break
				}
				chars := strings.NewReplacer("-", "+", "_", "/", "=", "").Replace(field[align:])
				if len(chars)%4 == 1 {
					chars = chars[:len(chars)-1]
				}
				if decoded, err := base64.RawStdEncoding.DecodeString(chars); err == nil && contains(set, string(decoded)) {
					t.Fatalf("secret %q visible after decoding %q: %q", secret, got, decoded)
				}
			}
		}
	})
}

// contains reports whether s holds a secret of set in any spelling.
func contains(set *Set, s string) bool {
	return set != nil && len(s) >= set.shortest && len(set.find(s, false)) > 0
}

// TestCutInsideAnEscape cuts an escaped spelling of a JWT-shaped token at
// every byte, also inside an escape (`\u00`, `%6`, `&#8`, a lone `\`
// before `/`), as the 64 KiB error-body snippet may: whenever the cut
// leaves minCut or more of the token's characters whole, Cut replaces
// them and the partial escape after them, and nothing of them is left.
func TestCutInsideAnEscape(t *testing.T) {
	const jwt = "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJzdmMvYmlsbGluZyJ9.c2lnbmF0dXJl/Ynl0ZXM+Zm9y/dGVzdA"
	set := New(jwt)
	per := func(f func(c byte) string) func(string) []string {
		return func(s string) []string {
			out := make([]string, len(s))
			for i := range len(s) {
				out[i] = f(s[i])
			}
			return out
		}
	}
	only := func(class string, f func(c byte) string) func(string) []string {
		return per(func(c byte) string {
			if strings.IndexByte(class, c) >= 0 {
				return f(c)
			}
			return string(c)
		})
	}
	spellings := map[string]func(string) []string{
		"json \\u":         per(func(c byte) string { return fmt.Sprintf(`\u%04x`, c) }),
		"json \\/":         only("/", func(byte) string { return `\/` }),
		"percent":          per(func(c byte) string { return fmt.Sprintf("%%%02X", c) }),
		"html decimal":     per(func(c byte) string { return fmt.Sprintf("&#%d;", c) }),
		"html hex":         per(func(c byte) string { return fmt.Sprintf("&#x%x;", c) }),
		"html named":       only("/+.", func(c byte) string { return namedRefs[c] }),
		"json of html":     per(func(c byte) string { return fmt.Sprintf(`\u0026#%d;`, c) }),
		"percent of html":  per(func(c byte) string { return fmt.Sprintf("%%26%%23%d%%3B", c) }),
		"html of json \\u": per(func(c byte) string { return fmt.Sprintf(`&#92;u%04x`, c) }),
		"mixed":            mixed,
	}
	const prefix = `{"detail":"token `
	for name, spellOf := range spellings {
		chars := spellOf(jwt)
		spelled := strings.Join(chars, "")
		for n := 1; n < len(spelled); n++ {
			whole, at := 0, 0 // the token's characters spelled whole in spelled[:n]
			for _, c := range chars {
				if at += len(c); at > n {
					break
				}
				whole++
			}
			if whole < minCut {
				continue
			}
			body := []byte(prefix + spelled[:n])
			got := string(set.Cut(body))
			if want := prefix + Redacted; got != want {
				t.Errorf("%s cut after %d bytes (%d characters whole, then %q): Cut = …%q, want …%q",
					name, n, whole, spelled[at-len(chars[whole]):n], tail(got), tail(want))
			}
		}
	}
}

// mixed spells each character of s another way, in turn.
func mixed(s string) []string {
	out := make([]string, len(s))
	for i := range len(s) {
		out[i] = spell(s[i:i+1], func(int) int { return []int{1, 3, 4, 6, 7}[i%5] })
	}
	return out
}

func tail(s string) string { return s[max(0, len(s)-24):] }

// TestJWTSignatureIsASecretOfItsOwn: a server may echo a JWT's signature
// segment alone ("signature X does not verify"); it is the token's secret
// part, found in every spelling and cut, while the whole token still goes
// whole.
func TestJWTSignatureIsASecretOfItsOwn(t *testing.T) {
	const (
		header    = "eyJhbGciOiJSUzI1NiJ9"
		payload   = "eyJzdWIiOiJzdmMtYmlsbGluZyJ9"
		signature = "c2lnbmF0dXJlLWJ5dGVz_Zm9yLXRlc3Rz-w"
		jwt       = header + "." + payload + "." + signature
	)
	set := New("Bearer "+jwt, jwt)
	for name, spelled := range map[string]string{
		"raw":      signature,
		"json \\u": spell(signature, func(int) int { return 1 }),
		"mixed":    spell(signature, func(i int) int { return i }),
		"base64":   base64.StdEncoding.EncodeToString([]byte(signature)),
	} {
		text := "signature " + spelled + " does not verify"
		if got, want := set.String(text), "signature "+Redacted+" does not verify"; got != want {
			t.Errorf("%s: String(%q) = %q, want %q", name, text, got, want)
		}
	}
	if got, want := string(set.Cut([]byte("bad signature "+signature[:12]))), "bad signature "+Redacted; got != want {
		t.Errorf("a cut signature: Cut = %q, want %q", got, want)
	}
	// The whole token, base64-encoded, still goes whole, not only its
	// signature's characters.
	encoded := base64.StdEncoding.EncodeToString([]byte(jwt))
	if got := set.String("x " + encoded + " y"); got != "x "+Redacted+" y" {
		t.Errorf("base64 of the token: %q, want it replaced whole", got)
	}
	// The header and payload alone are no secret; a signature under MinLen,
	// or a token of another shape, adds none.
	for _, tc := range []struct{ secret, text string }{
		{jwt, "header " + header + " payload " + payload},
		{header + "." + payload + ".abc1234", "sig abc1234"},
		{"opaque.token-with.dots/and+more", "seg dots/and+more"},
		{"two.segments-only-here", "seg segments-only-here"},
	} {
		if got := New(tc.secret).String(tc.text); got != tc.text {
			t.Errorf("New(%q).String(%q) = %q, want it unchanged", tc.secret, tc.text, got)
		}
	}
}

// TestCutLeavesAtMostThreeBytes cuts every spelling of TestCutInsideAnEscape
// at every byte and decodes what Cut left with the standard library's
// decoders, which read a numeric HTML reference without its ';' ("&#100"
// at the end is "d"): no decoding shows minCut bytes of the token in a row,
// so a cut escape counts as the character it may spell.
func TestCutLeavesAtMostThreeBytes(t *testing.T) {
	const jwt = "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJzdmMvYmlsbGluZyJ9.c2lnbmF0dXJl/Ynl0ZXM+Zm9y/dGVzdA"
	set := New(jwt)
	spellings := map[string]func(c byte) string{
		"html decimal": func(c byte) string { return fmt.Sprintf("&#%d;", c) },
		"html hex":     func(c byte) string { return fmt.Sprintf("&#x%x;", c) },
		"json \\u":     func(c byte) string { return fmt.Sprintf(`\u%04x`, c) },
		"percent":      func(c byte) string { return fmt.Sprintf("%%%02X", c) },
	}
	const prefix = `{"detail":"token `
	for name, spell := range spellings {
		var spelled strings.Builder
		for i := range len(jwt) {
			spelled.WriteString(spell(jwt[i]))
		}
		for n := 1; n < spelled.Len(); n++ {
			got := string(set.Cut([]byte(prefix + spelled.String()[:n])))
			for _, decoded := range append(decodings(got), got) {
				for i := 0; i+minCut <= len(jwt); i++ {
					if strings.Contains(decoded, jwt[i:i+minCut]) {
						t.Fatalf("%s cut after %d bytes: Cut = …%q decodes to …%q, which shows %q of the token",
							name, n, tail(got), tail(decoded), jwt[i:i+minCut])
					}
				}
			}
		}
	}
}
