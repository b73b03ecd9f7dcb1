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
			if !set.Contains(text) {
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
	encodings := map[string]*base64.Encoding{"std": base64.StdEncoding, "url": base64.URLEncoding, "raw std": base64.RawStdEncoding, "raw url": base64.RawURLEncoding}
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
	if none.String("text "+token) != "text "+token || none.Contains(token) {
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
		if set.Contains(got) {
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
