package core

import (
	"encoding/json"
	"testing"
)

// The oracle of JSONBody is json.Marshal.

var jsonStrings = []string{
	"", "Ada", "12 Example Street", "Tom & Jerry", "a<b", "a>b", `a"b`, `a\\b`, "\x7f", "\x1f", `quote " and \ backslash`, "<b>&amp;</b>", "tab\tnew\nline\r\x00\x1f\x7f",
	"Zoë Ångström", "日本語", "\u2028\u2029", "\xff\xfe bad UTF-8", "emoji 😀", "+61412345678",
}

func marshalJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// stringBody is the body {"s": s}, by JSONBody and by json.Marshal.
func stringBody(t *testing.T, s string) (got, want string) {
	var b JSONBody
	b.Add("s", s)
	return string(b.Bytes()), `{"s":` + marshalJSON(t, s) + `}`
}

func TestJSONBodyStringIsMarshal(t *testing.T) {
	for _, s := range jsonStrings {
		if got, want := stringBody(t, s); got != want {
			t.Errorf("%q: wrote %s, json.Marshal writes %s", s, got, want)
		}
	}
}

func FuzzJSONBodyStringIsMarshal(f *testing.F) {
	for _, s := range jsonStrings {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := stringBody(t, s); got != want {
			t.Errorf("%q: wrote %s, json.Marshal writes %s", s, got, want)
		}
	})
}

// TestJSONBodyIsMarshal writes every kind of member, present and absent,
// and compares with the struct json.Marshal would write.
func TestJSONBodyIsMarshal(t *testing.T) {
	type shape struct {
		A *string `json:"a,omitempty"`
		B string  `json:"b,omitempty"`
		C *bool   `json:"c,omitempty"`
		D any     `json:"d,omitempty"`
	}
	yes, s := true, "x<y"
	for _, v := range []shape{{}, {A: &s, B: "b", C: &yes, D: (*string)(nil)}, {B: "\u2028", C: new(false)}, {A: new("")}} {
		var b JSONBody
		b.AddOptional("a", v.A)
		if v.B != "" {
			b.Add("b", v.B)
		}
		b.AddOptionalBool("c", v.C)
		if v.D != nil {
			b.AddNull("d")
		}
		if got, want := string(b.Bytes()), marshalJSON(t, v); got != want {
			t.Errorf("%+v: wrote %s, json.Marshal writes %s", v, got, want)
		}
	}
}
