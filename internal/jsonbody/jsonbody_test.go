package jsonbody

import (
	"encoding/json"
	"testing"
)

// The oracle of every test here is json.Marshal.

var strs = []string{
	"", "Ada", "12 Example Street", "Tom & Jerry", "a<b", "a>b", `a"b`, `a\\b`, "\x7f", "\x1f", `quote " and \ backslash`, "<b>&amp;</b>", "tab\tnew\nline\r\x00\x1f\x7f",
	"Zoë Ångström", "日本語", "\u2028\u2029", "\xff\xfe bad UTF-8", "emoji 😀", "+61412345678",
}

func marshal(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestStringIsMarshals(t *testing.T) {
	for _, s := range strs {
		if got, want := string(appendString(nil, s)), marshal(t, s); got != want {
			t.Errorf("appendString(%q) = %s, json.Marshal = %s", s, got, want)
		}
	}
}

func FuzzStringIsMarshals(f *testing.F) {
	for _, s := range strs {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := string(appendString(nil, s)), marshal(t, s); got != want {
			t.Errorf("appendString(%q) = %s, json.Marshal = %s", s, got, want)
		}
	})
}

// TestObjectIsMarshals writes every kind of member, present and absent,
// and compares with the struct json.Marshal would write.
func TestObjectIsMarshals(t *testing.T) {
	type shape struct {
		A *string `json:"a,omitempty"`
		B string  `json:"b"`
		C *bool   `json:"c,omitempty"`
		D any     `json:"d,omitempty"`
	}
	yes, s := true, "x<y"
	for _, v := range []shape{{}, {A: &s, B: "b", C: &yes, D: (*string)(nil)}, {B: "\u2028", C: new(false)}, {A: new("")}} {
		o := Start(8)
		o.OptionalString("a", v.A)
		o.String("b", v.B)
		o.OptionalBool("c", v.C)
		if v.D != nil {
			o.Null("d")
		}
		if got, want := string(o.End()), marshal(t, v); got != want {
			t.Errorf("%+v: wrote %s, json.Marshal writes %s", v, got, want)
		}
	}
}
