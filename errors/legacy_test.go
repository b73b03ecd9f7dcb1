package errors

import (
	"bufio"
	"bytes"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// The decoder reads JSON with its own scanner for speed; these tests hold it
// to the behaviour of the encoding/json-based decoder it replaced
// (legacy_oracle_test.go), on every body of the corpora, every prefix of
// them (truncated bodies), hand-written edge cases and fuzzed input.

// sameAsLegacy decodes body with both decoders and reports any difference.
func sameAsLegacy(t *testing.T, status int, contentType string, body []byte) {
	t.Helper()
	h := http.Header{}
	if contentType != "" {
		h.Set("Content-Type", contentType)
	}
	got, want := Decode(status, h, body), legacyDecode(status, h, body)
	if !reflect.DeepEqual(got.Problem, want.Problem) {
		t.Fatalf("%s %q: Problem\n got %#v\nwant %#v", contentType, body, got.Problem, want.Problem)
	}
	if !reflect.DeepEqual(got.CodeMessage, want.CodeMessage) {
		t.Fatalf("%s %q: CodeMessage\n got %#v\nwant %#v", contentType, body, got.CodeMessage, want.CodeMessage)
	}
	if !reflect.DeepEqual(got.other, want.other) {
		t.Fatalf("%s %q: other body\n got %#v\nwant %#v", contentType, body, got.other, want.other)
	}
	if got.Error() != want.Error() {
		t.Fatalf("%s %q: Error()\n got %s\nwant %s", contentType, body, got.Error(), want.Error())
	}
}

// prefixStep spaces the cuts of a body of n bytes: every byte of a small
// body, some 100 evenly spaced cuts of a larger one.
func prefixStep(n int) int {
	if n <= 2048 {
		return 1
	}
	return n / 100
}

var legacyContentTypes = []string{"application/problem+json", "application/json", "text/plain", ""}

// corpusBodies returns every error body of testdata/ (fuzz seeds included)
// and of the shared real bodies, when present.
func corpusBodies(t testing.TB) map[string][]byte {
	out := map[string][]byte{}
	dirs := []string{"testdata", filepath.Join("..", "..", "shared", "testdata", "error-bodies")}
	for _, dir := range dirs {
		_ = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || strings.HasSuffix(path, ".md") {
				return nil
			}
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if bytes.HasPrefix(b, []byte("go test fuzz v1\n")) {
				b = fuzzBytesArg(b)
				if b == nil {
					return nil
				}
			}
			out[path] = b
			return nil
		})
	}
	if len(out) < 100 {
		t.Fatalf("only %d corpus bodies found", len(out))
	}
	return out
}

// fuzzBytesArg returns the []byte argument of a fuzz corpus file, or nil.
func fuzzBytesArg(file []byte) []byte {
	sc := bufio.NewScanner(bytes.NewReader(file))
	sc.Buffer(nil, 1<<22)
	for sc.Scan() {
		if q, ok := strings.CutPrefix(sc.Text(), "[]byte("); ok {
			if s, err := strconv.Unquote(strings.TrimSuffix(q, ")")); err == nil {
				return []byte(s)
			}
		}
	}
	return nil
}

func TestDecodeMatchesLegacyOnCorpus(t *testing.T) {
	for name, body := range corpusBodies(t) {
		t.Run(name, func(t *testing.T) {
			for _, ct := range legacyContentTypes {
				sameAsLegacy(t, 400, ct, body)
			}
			// Every prefix, as a body cut short would arrive (every byte
			// for small bodies, evenly spaced cuts for larger ones).
			for n := 0; n < len(body); n += prefixStep(len(body)) {
				sameAsLegacy(t, 422, "application/json", body[:n])
			}
		})
	}
}

// legacyEdgeBodies probe what a struct-based or hand-written reader could
// easily get different from encoding/json over a map: member names in
// another case or escaped, repeated members, null and mistyped values,
// number syntax, nesting, stray bytes and cuts.
var legacyEdgeBodies = []string{
	`{"title":"T","serviceErrors":[{"Detail":"d","Pointer":"/p"}]}`,
	`{"title":"T","serviceErrors":[{"DETAIL":"d","pointer":"/p"},{"detail":"d2","POINTER":"/q","field":"f"}]}`,
	`{"title":"T","serviceErrors":[{"d\u0065tail":"d","\u0070ointer":"\/p"}]}`,
	`{"title":"T","serviceErrors":[{"detail":"a","detail":"b","pointer":"/p","pointer":5}]}`,
	`{"title":"T","serviceErrors":[{"detail":null,"message":"m","pointer":null,"field":"f"}]}`,
	`{"title":"T","serviceErrors":[{"detail":5,"message":"m","pointer":["x"],"field":"f"}]}`,
	`{"title":"T","serviceErrors":[{"detail":"","message":"m","pointer":"","field":""}]}`,
	`{"title":"T","serviceErrors":[null,1,"s",[],{},{"detail":"d"},true]}`,
	`{"title":"T","serviceErrors":null}`,
	`{"title":"T","serviceErrors":{"detail":"d"}}`,
	`{"title":"T","serviceErrors":[ { "detail" : "d" , "pointer" : "/p" } , {"detail":"d\u00e9\ud800x","pointer":"/\u00e9"} ]}`,
	`{"title":"T","serviceErrors":[{"detail":"bad utf8 \xff\xfe","pointer":"/p\xc3"}]}`,
	`{"title":"T","serviceErrors":[{"detail":"d","pointer":"/p","nested":{"detail":"x","a":[1,{"b":null}]}}]}`,
	`{"title":"T","Title":"U","TITLE":"V","serviceerrors":[{"detail":"d"}],"ServiceCode":"1"}`,
	`{"title":"T","title":"U"}`,
	`{"title":5,"title":"U"}`,
	`{"title":"U","title":5}`,
	`{"type":null}`, `{"type":null,"detail":"d"}`, `{"type":5}`, `{"type":"t","code":1}`,
	`{"status":400}`, `{"status":"400"}`, `{"status":" 400 "}`, `{"status":4e2}`, `{"status":400.5}`, `{"status":-0}`,
	`{"status":1e400}`, `{"status":1e300}`, `{"status":null}`, `{"status":true}`, `{"status":"4e2"}`, `{"status":9007199254740993}`,
	`{"status":123456789012345678901234567890}`, `{"status":-12}`, `{"status":0.0}`, `{"status":1E+2}`,
	`{"serviceCode":42200001}`, `{"serviceCode":-1.5e3}`, `{"serviceCode":null}`, `{"serviceCode":true}`, `{"serviceCode":["a"]}`,
	`{"title":"T","serviceMeta":null}`, `{"title":"T","serviceMeta":[]}`, `{"title":"T","serviceMeta":{"a":{"b":[1,2.5,"c",null,true]}}}`,
	`{"code":"C","errors":[{"field":"f","message":"m"},{"Field":"g","Message":"n"},"plain",5,null,{"pointer":"/a/0","detail":"d"}]}`,
	`{"code":"C","errors":[{"field":"f","field":7,"message":"m"},{"name":"n","msg":"x","message":""}]}`,
	`{"code":"C","errors":[{"loc":["body","items",0],"msg":"x"},{"fields":["Name","Email"],"message":"m"},{"field":"/","message":""}]}`,
	`{"code":"C","errors":[{"field":"/","message":"m"},{"field":"#/a","code":"c"},{"field":"","title":"t"},{"error":"e"}]}`,
	`{"code":"C","errors":[{"propertyPath":"a","property":"b","location":"c","path":"d","param":"e","reason":"r","description":"d"}]}`,
	`{"code":"C","errors":[]}`, `{"code":"C","errors":[1,2]}`, `{"code":"C","errors":null}`, `{"code":"C","errors":"x"}`,
	`{"code":"C","errors":{"a":"m","b":["x","y"],"c":{"d":"e"}}}`, `{"code":"C","errors":[""]}`, `{"code":"C","errors":[{}]}`,
	`{"code":"C","errors":[{"fi\u0065ld":"f","m\u0065ssage":"m"}]}`, `{"code":"C","errors":[{"field":"f\"q","message":"m\\n"}]}`,
	`{"message":"m","__type":"ns#Throttling"}`, `{"message":"m","__type":""}`, `{"message":"m","__type":"","type":"t"}`, `{"message":"m","type":null}`,
	`{"error":{"code":"C","message":"m"}}`, `{"error":{"error":{"error":{"error":{"title":"deep"}}}}}`, `{"error":"invalid_grant","error_description":"d"}`,
	`{"detail":[{"loc":["body","x"],"msg":"m","type":"t"}]}`, `{}`, `{ }`, `{"a":1}`,
	`{"title":"T",}`, `{"title":"T",,}`, `{,"title":"T"}`, `{"title":"T" "detail":"d"}`, `{"title":"T"]`, `{"title":"T"}garbage`,
	`{"title":"T","detail":01}`, `{"title":"T","status":4x}`, `{"title":"T","status":1.}`, `{"title":"T","status":1.5e}`, `{"title":"T","status":-}`,
	`{"title":"T","status":tru}`, `{"title":"T","status":truex}`, `{"title":"T","status":nul}`, `{"title":"T","x":[1,]}`, `{"title":"T","x":{"a"}}`,
	`{"title":"T","x":{"a":1,}}`, `{"title":"T","x":"a\qb"}`, `{"title":"T","x":"\u12"}`, "{\"title\":\"T\",\"x\":\"a\tb\"}",
	"{\"title\":\"T\"\r\n,\t\"status\" :\n400\n}", `{"title":"T","serviceErrors":[{"detail":"d","pointer":"/p"},`, `{"title":"T","x":1`,
	`{"title":"T":"x"}`, `{"title":"T",5:1}`, `{"title":"T",{}:1}`, `{"title":"T",[]}`, `{"title":"T",:}`, `{"ti` + "\x01" + `tle":"T"}`,
	`{"\u0074itle":"T","k\ud83d\ude00":"v","k\udc00":"w","\xff":"x"}`, `{"title":"T\u2028\u0000x"}`,
	`{"title":"` + strings.Repeat("[", 20000) + `"}`, `{"title":"T","x":` + strings.Repeat("[", 10001) + strings.Repeat("]", 10001) + `}`,
	`{"title":"T","x":` + strings.Repeat("[", 10000) + strings.Repeat("]", 10000) + `}`,
	`{"title":"T","x":` + strings.Repeat(`{"a":`, 10000) + `1` + strings.Repeat("}", 10000) + `}`,
}

func TestDecodeMatchesLegacyOnEdgeCases(t *testing.T) {
	for _, body := range legacyEdgeBodies {
		for _, ct := range legacyContentTypes {
			sameAsLegacy(t, 422, ct, []byte(body))
		}
		for n := 0; n < len(body); n += prefixStep(len(body)) {
			sameAsLegacy(t, 422, "application/json", []byte(body[:n]))
		}
	}
}

// TestDecodeMatchesLegacyOnManyKeys: a body of thousands of members decodes
// the same (and in reasonable time).
func TestDecodeMatchesLegacyOnManyKeys(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"title":"T"`)
	for i := range 5000 {
		b.WriteString(`,"k` + strconv.Itoa(i%3000) + `":` + strconv.Itoa(i))
	}
	b.WriteString(`,"title":"U"}`)
	sameAsLegacy(t, 422, "application/problem+json", []byte(b.String()))
}

// FuzzDecodeMatchesLegacy: any body decodes as the encoding/json-based
// decoder decoded it.
func FuzzDecodeMatchesLegacy(f *testing.F) {
	for _, body := range legacyEdgeBodies {
		if len(body) < 4096 {
			f.Add(uint8(0), []byte(body))
		}
	}
	for _, body := range corpusBodies(f) {
		f.Add(uint8(1), body)
	}
	f.Fuzz(func(t *testing.T, ct uint8, body []byte) {
		sameAsLegacy(t, 422, legacyContentTypes[int(ct)%len(legacyContentTypes)], body)
	})
}
