package jsonscan

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// The oracle of every test here is encoding/json.

var seeds = []string{
	`{"type":"https://x/bad-request","title":"BAD_REQUEST","status":400,"serviceErrors":[{"detail":"d","pointer":"/email"}]}`,
	`{"Detail":"x","POINTER":"/a","deTail":"y"}`,
	`{"\u0064etail":"escaped name","detai\u212a":1}`,
	`{"a":1,"a":2,"b":[1,2,{"c":null}],"d":"\ud83d\ude00\ud800"}`,
	`{"title":"T",`, `{"title":"T","x":[1,2`, `{"x":1} trailing`, `{"x":01}`, `{"x":1.}`, `{"x":-}`, `{"x":tru}`,
	`{"x":"\u00zz"}`, "{\"x\":\"\x01\"}", "{\"x\":\"\xff\xfe\"}", `[1,2]`, `"s"`, `  {"x":1}`, `{"x" 1}`, `{,}`, `{"x":1,}`,
	`{"ſerviceCode":"s","İnstance":"i","ınstance":"j","K":1}`,
}

// TestValueAgreesWithDecoder: Value accepts exactly the values
// encoding/json's Decoder reads, and ends where it ends.
func TestValueAgreesWithDecoder(t *testing.T) {
	for _, s := range seeds {
		checkValue(t, []byte(s))
		for n := range len(s) {
			checkValue(t, []byte(s[:n]))
		}
	}
	deep := strings.Repeat("[", maxNesting+1) + strings.Repeat("]", maxNesting+1)
	checkValue(t, []byte(deep))
	checkValue(t, []byte(deep[1:len(deep)-1]))
}

func checkValue(t *testing.T, b []byte) {
	t.Helper()
	if len(b) == 0 || isSpace(b[0]) {
		return
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	var raw json.RawMessage
	err := dec.Decode(&raw)
	end := Value(b, 0, 0)
	switch {
	case err != nil && end >= 0:
		t.Fatalf("Value(%q) = %d; encoding/json: %v", b, end, err)
	case err == nil && int64(end) != dec.InputOffset():
		t.Fatalf("Value(%q) = %d; encoding/json read %d bytes", b, end, dec.InputOffset())
	}
}

// objectByDecoder reads the object token by token, as Object does.
func objectByDecoder(b []byte) []Member {
	dec := json.NewDecoder(bytes.NewReader(b))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil
	}
	var out []Member
	for dec.More() {
		kt, err := dec.Token()
		if err != nil {
			break
		}
		k, ok := kt.(string)
		if !ok {
			break
		}
		var raw json.RawMessage
		if dec.Decode(&raw) != nil {
			break
		}
		out = append(out, Member{Name: []byte(k), Value: raw})
	}
	return out
}

func checkObject(t *testing.T, b []byte) {
	t.Helper()
	if len(b) > 0 && isSpace(b[0]) {
		return // the SDK trims a body before reading it
	}
	got, want := Object(b), objectByDecoder(b)
	if len(got) != len(want) {
		t.Fatalf("Object(%q): %d members, encoding/json reads %d", b, len(got), len(want))
	}
	for i := range got {
		if !bytes.Equal(got[i].Name, want[i].Name) || !bytes.Equal(got[i].Value, want[i].Value) {
			t.Fatalf("Object(%q)[%d] = %q: %q, encoding/json reads %q: %q", b, i, got[i].Name, got[i].Value, want[i].Name, want[i].Value)
		}
	}
}

// checkWalkers: Elements accepts exactly the arrays Value accepts and ends
// where it ends; Members reads a valid object as Object does.
func checkWalkers(t *testing.T, b []byte) {
	t.Helper()
	switch end := Value(b, 0, 0); {
	case len(b) > 0 && b[0] == '[':
		if got := Elements(b, 0, func(start int) int { return Value(b, start, 1) }); got != end {
			t.Fatalf("Elements(%q) = %d, Value = %d", b, got, end)
		}
	case end >= 0 && b[0] == '{':
		var members []Member
		got := Members(b, 0, func(name, value []byte) { members = append(members, Member{name, value}) })
		if want := Object(b); got != end || !reflect.DeepEqual(members, want) {
			t.Fatalf("Members(%q) = %d, %q; Value = %d, Object = %q", b, got, members, end, want)
		}
	}
}

func TestObjectAgreesWithDecoder(t *testing.T) {
	for _, s := range seeds {
		for n := range len(s) + 1 {
			checkObject(t, []byte(s[:n]))
			checkWalkers(t, []byte(s[:n]))
		}
	}
}

// fieldNames are the member names the SDK reads from error bodies.
var fieldNames = []string{"type", "title", "status", "detail", "instance", "serviceCode", "serviceMeta", "serviceErrors", "code", "message", "errors", "field", "pointer"}

// lastMatch is what the SDK takes for a field: the last member Match names
// it.
func lastMatch(members []Member, field string) json.RawMessage {
	var v json.RawMessage
	for _, m := range members {
		if Match(m.Name, field) {
			v = m.Value
		}
	}
	return v
}

// byEncodingJSON decodes body into a struct with one field tagged field,
// as a user's struct would be, and returns the raw value encoding/json
// chose for it.
func byEncodingJSON(body []byte, field string) (json.RawMessage, bool) {
	typ := reflect.StructOf([]reflect.StructField{{Name: "F", Type: reflect.TypeFor[json.RawMessage](), Tag: reflect.StructTag(`json:"` + field + `"`)}})
	v := reflect.New(typ)
	if json.Unmarshal(body, v.Interface()) != nil {
		return nil, false
	}
	return v.Elem().Field(0).Interface().(json.RawMessage), true
}

func checkMatch(t *testing.T, body []byte) {
	t.Helper()
	members := Object(body)
	for _, field := range fieldNames {
		want, ok := byEncodingJSON(body, field)
		if !ok {
			return
		}
		if got := lastMatch(members, field); !bytes.Equal(got, want) {
			t.Fatalf("%s in %q: the SDK reads %q, encoding/json %q", field, body, got, want)
		}
	}
}

func TestMatchAgreesWithEncodingJSON(t *testing.T) {
	for _, s := range seeds {
		checkMatch(t, []byte(s))
	}
	for _, name := range []string{"Detail", "DETAIL", "dEtAiL", "detaiL ", "ſtatus", "\u212aode", "İnstance", "ınstance", "Serviceerrors", "service_errors", "détail", "detail\u0000"} {
		n, _ := json.Marshal(name)
		checkMatch(t, []byte(`{`+string(n)+`:"v"}`))
	}
}

// FuzzScan holds Value, Object and Match to encoding/json on any input.
func FuzzScan(f *testing.F) {
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		checkValue(t, b)
		checkObject(t, b)
		checkWalkers(t, b)
		checkMatch(t, b)
	})
}

func TestUnquote(t *testing.T) {
	for _, s := range []string{`"plain"`, `"esc\u00e9\n"`, "\"bad\xff\"", `"\ud800"`} {
		var want string
		_ = json.Unmarshal([]byte(s), &want)
		if got := Unquote([]byte(s)); got != want {
			t.Errorf("Unquote(%s) = %q, want %q", s, got, want)
		}
	}
}
