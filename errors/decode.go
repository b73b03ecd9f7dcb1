package errors

import (
	"bytes"
	"encoding/json"
	"html"
	"io"
	"mime"
	"net/http"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/memberplatform/memberplatform-go/internal/httpx"
)

// MaxBodySnippet bounds how much of an error body is read and kept. The rest
// of a longer body is drained (up to a further bound) and discarded, so a
// huge error page cannot exhaust memory.
const MaxBodySnippet = 64 << 10

// FromResponse reads a bounded part of resp's body, drains (bounded) and
// closes the rest so the connection can be reused, and decodes it into an
// *Error: an RFC 9457 problem, a code/message body, or neither (then only
// Body and a readable summary are kept). It never fails and never panics,
// whatever the body holds. Method and Path come from resp.Request (the path
// without the query); Operation and Attempts are left for the caller.
func FromResponse(resp *http.Response) *Error {
	if resp == nil {
		return Decode(0, nil, nil)
	}
	var body []byte
	truncated := false
	if resp.Body != nil {
		buf, err := io.ReadAll(io.LimitReader(resp.Body, MaxBodySnippet+1))
		if len(buf) > MaxBodySnippet {
			buf, truncated = buf[:MaxBodySnippet], true
		}
		body = buf
		if err != nil {
			truncated = true
		}
		httpx.DrainAndClose(resp.Body)
	}
	e := Decode(resp.StatusCode, resp.Header, body)
	e.BodyTruncated = truncated
	if resp.Request != nil && resp.Request.URL != nil {
		e.Method = resp.Request.Method
		e.Path = resp.Request.URL.EscapedPath()
	}
	return e
}

// Decode builds an *Error from a status, headers and (a snippet of) a body.
// It never fails and never panics; the status given is authoritative over any
// status in the body.
//
// A JSON object is decoded as a problem document (RFC 9457) when it is served
// as application/problem+json, or, whatever its media type, when it has a
// title, serviceCode or serviceErrors member, or a type member and neither
// code nor message. It is decoded as a code/message body when it has a code or
// message member. Any other object, a top-level array (Salesforce), a
// {"error": {...}} wrapper, an HTML or XML page and plain text yield a
// readable summary and, where the shape names them, field errors. A body cut
// short (truncated JSON, or a snippet of a longer body) is decoded as far as
// it goes: every member read completely is kept. Media type parameters such as
// "; charset=utf-8" are ignored, and so is a leading byte order mark.
func Decode(status int, header http.Header, body []byte) *Error {
	if header == nil {
		header = http.Header{}
	}
	e := &Error{
		StatusCode: status,
		Header:     header,
		RequestID:  httpx.RequestID(header),
		Body:       body,
	}
	if d, ok := httpx.RetryAfter(header, time.Now()); ok {
		e.RetryAfter = d
	}
	mediaType := mediaTypeOf(header.Get("Content-Type"))
	trimmed := bytes.TrimSpace(bytes.TrimPrefix(bytes.TrimSpace(body), []byte("\xEF\xBB\xBF")))
	d := decodeBody(mediaType, trimmed, 0)
	e.Problem, e.CodeMessage, e.other = d.problem, d.codeMessage, d.other
	// The retry policy, Is and Kind all ask for the kind the body's words
	// name, and working it out normalises several strings: do it once.
	e.bodyKind, e.bodyKindKnown = e.classifyBody(), true
	return e
}

// otherBody is what could be read from a body of neither format.
type otherBody struct {
	code    string // a machine-readable code, such as OAuth's "invalid_grant"
	message string // a readable message: a JSON message/detail, an HTML <title>, a text line
	fields  []FieldError
}

type decoded struct {
	problem     *Problem
	codeMessage *CodeMessage
	other       *otherBody
}

// maxWrapperDepth bounds how many {"error": {...}} wrappers are unwrapped.
const maxWrapperDepth = 3

func decodeBody(mediaType string, b []byte, depth int) decoded {
	if len(b) == 0 {
		return decoded{}
	}
	switch b[0] {
	case '{':
		obj := parseObject(b)
		return decodeObject(mediaType, &obj, depth)
	case '[':
		return decoded{other: otherFromArray(parseArray(b))}
	case '"':
		var msg string
		if json.Unmarshal(b, &msg) == nil {
			if msg = cleanText(msg); msg != "" {
				return decoded{other: &otherBody{message: msg}}
			}
			return decoded{}
		}
	}
	if o := otherFromText(mediaType, b); o != nil {
		return decoded{other: o}
	}
	return decoded{}
}

func decodeObject(mediaType string, obj *object, depth int) decoded {
	has := obj.has
	problemish := has("title") || has("detail") || has("status") || has("instance") || has("serviceCode") || has("serviceErrors")
	cm := has("code") || has("message")
	if !problemish && !cm && depth < maxWrapperDepth {
		// {"error": {...}} (Stripe, Google, Anthropic, OpenAI): decode the
		// wrapped object instead.
		if inner := obj.get("error"); len(inner) > 0 && inner[0] == '{' {
			if d := decodeBody(mediaType, inner, depth+1); d != (decoded{}) {
				return d
			}
		}
	}
	var s string
	typeIsString := decodeString(obj.get("type"), &s)
	switch {
	case mediaType == "application/problem+json" && (problemish || has("type") || !cm):
		return decoded{problem: decodeProblem(obj)}
	case has("title") || has("serviceCode") || has("serviceErrors"):
		return decoded{problem: decodeProblem(obj)}
	case cm:
		return decoded{codeMessage: decodeCodeMessage(obj)}
	case typeIsString:
		// A problem with only a type (and perhaps detail/status), as ACME
		// servers send, possibly mislabelled as text/plain.
		return decoded{problem: decodeProblem(obj)}
	}
	return decoded{other: otherFromObject(obj)}
}

// object holds the members of a JSON object as parseObject read them: each
// distinct name, unquoted, with its value exactly as sent (a sub-slice of
// the body, never copied). A repeated name keeps its last value, as
// encoding/json does when decoding into a map.
type object struct {
	members []member
	// index maps a name to its position in members, built once an object
	// has too many members for a linear search to stay cheap.
	index map[string]int
}

type member struct {
	name []byte // unquoted
	raw  []byte // the JSON value
}

// indexFrom is the member count from which object keeps an index, so a
// body of thousands of members is not read in quadratic time.
const indexFrom = 16

func (o *object) find(name []byte) int {
	if o.index != nil {
		if i, ok := o.index[string(name)]; ok {
			return i
		}
		return -1
	}
	for i := range o.members {
		if string(o.members[i].name) == string(name) {
			return i
		}
	}
	return -1
}

func (o *object) set(name, raw []byte) {
	if i := o.find(name); i >= 0 {
		o.members[i].raw = raw
		return
	}
	o.members = append(o.members, member{name: name, raw: raw})
	switch n := len(o.members); {
	case o.index != nil:
		o.index[string(name)] = n - 1
	case n >= indexFrom:
		o.index = make(map[string]int, 2*n)
		for i, m := range o.members {
			o.index[string(m.name)] = i
		}
	}
}

// get returns the value of member name, or nil when there is none.
func (o *object) get(name string) []byte {
	if o.index != nil {
		if i, ok := o.index[name]; ok {
			return o.members[i].raw
		}
		return nil
	}
	for i := range o.members {
		if string(o.members[i].name) == name {
			return o.members[i].raw
		}
	}
	return nil
}

func (o *object) has(name string) bool { return o.get(name) != nil }

// parseObject reads the members of the JSON object b starts with, one by
// one, stopping at the first syntax error or at the end of the input, and
// returns every member read completely. It accepts and refuses exactly what
// encoding/json's Decoder does when the object is read token by token (the
// way this package read it before; legacy_test.go holds the two together):
// a member ends where its value ends, whatever follows it, and a truncated
// or malformed member is dropped with everything after it.
func parseObject(b []byte) object {
	var o object
	if len(b) == 0 || b[0] != '{' {
		return o
	}
	i := 1
	for first := true; ; first = false {
		i = skipSpace(b, i)
		if i == len(b) || b[i] == '}' || b[i] == ']' {
			break
		}
		if !first {
			if b[i] != ',' {
				break
			}
			if i = skipSpace(b, i+1); i == len(b) {
				break
			}
		}
		if b[i] != '"' {
			break
		}
		end := scanString(b, i)
		if end < 0 {
			break
		}
		name := unquoteName(b[i:end])
		if i = skipSpace(b, end); i == len(b) || b[i] != ':' {
			break
		}
		start := skipSpace(b, i+1)
		if i = scanValue(b, start, 0); i < 0 {
			break
		}
		o.set(name, b[start:i])
	}
	return o
}

// The JSON scanner below validates exactly as encoding/json's does: the
// same grammar, the same string escapes, control characters refused in
// strings, any other byte (invalid UTF-8 included) accepted, and the same
// nesting limit. It reports where a value ends so that values can be kept
// as sub-slices of the body and read only when wanted.

// maxNesting is encoding/json's limit on how deeply arrays and objects nest.
const maxNesting = 10000

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }
func isDigit(c byte) bool { return c >= '0' && c <= '9' }
func isHex(c byte) bool   { return isDigit(c) || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }

func skipSpace(b []byte, i int) int {
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	return i
}

// scanValue returns the end of the JSON value starting at b[i], or -1 when
// the input does not hold a complete, valid value there. depth is how many
// arrays and objects enclose it.
func scanValue(b []byte, i, depth int) int {
	if i >= len(b) {
		return -1
	}
	switch c := b[i]; {
	case c == '"':
		return scanString(b, i)
	case c == '{':
		if depth++; depth > maxNesting {
			return -1
		}
		if i = skipSpace(b, i+1); i < len(b) && b[i] == '}' {
			return i + 1
		}
		for {
			if i >= len(b) || b[i] != '"' {
				return -1
			}
			if i = scanString(b, i); i < 0 {
				return -1
			}
			if i = skipSpace(b, i); i >= len(b) || b[i] != ':' {
				return -1
			}
			if i = scanValue(b, skipSpace(b, i+1), depth); i < 0 {
				return -1
			}
			if i = skipSpace(b, i); i >= len(b) {
				return -1
			}
			switch b[i] {
			case '}':
				return i + 1
			case ',':
				i = skipSpace(b, i+1)
			default:
				return -1
			}
		}
	case c == '[':
		if depth++; depth > maxNesting {
			return -1
		}
		if i = skipSpace(b, i+1); i < len(b) && b[i] == ']' {
			return i + 1
		}
		for {
			if i = scanValue(b, i, depth); i < 0 {
				return -1
			}
			if i = skipSpace(b, i); i >= len(b) {
				return -1
			}
			switch b[i] {
			case ']':
				return i + 1
			case ',':
				i = skipSpace(b, i+1)
			default:
				return -1
			}
		}
	case c == 't':
		return scanLiteral(b, i, "true")
	case c == 'f':
		return scanLiteral(b, i, "false")
	case c == 'n':
		return scanLiteral(b, i, "null")
	case c == '-' || isDigit(c):
		return scanNumber(b, i)
	}
	return -1
}

func scanLiteral(b []byte, i int, lit string) int {
	if len(b)-i < len(lit) || string(b[i:i+len(lit)]) != lit {
		return -1
	}
	return i + len(lit)
}

// scanNumber reads -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?; like
// encoding/json it ends the number at the first byte that cannot continue
// it, and fails only where the grammar needs a digit.
func scanNumber(b []byte, i int) int {
	if b[i] == '-' {
		if i++; i == len(b) {
			return -1
		}
	}
	switch {
	case b[i] == '0':
		i++
	case isDigit(b[i]):
		for i++; i < len(b) && isDigit(b[i]); i++ {
		}
	default:
		return -1
	}
	if i < len(b) && b[i] == '.' {
		if i++; i == len(b) || !isDigit(b[i]) {
			return -1
		}
		for i++; i < len(b) && isDigit(b[i]); i++ {
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		if i++; i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if i == len(b) || !isDigit(b[i]) {
			return -1
		}
		for i++; i < len(b) && isDigit(b[i]); i++ {
		}
	}
	return i
}

// scanString returns the end of the JSON string starting at b[i] == '"',
// or -1.
func scanString(b []byte, i int) int {
	for i++; i < len(b); i++ {
		switch c := b[i]; {
		case c == '"':
			return i + 1
		case c == '\\':
			if i++; i == len(b) {
				return -1
			}
			switch b[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if len(b)-i <= 4 || !isHex(b[i+1]) || !isHex(b[i+2]) || !isHex(b[i+3]) || !isHex(b[i+4]) {
					return -1
				}
				i += 4
			default:
				return -1
			}
		case c < 0x20:
			return -1
		}
	}
	return -1
}

// unquote returns the text of a valid JSON string. Only a string holding
// escapes or invalid UTF-8 goes through encoding/json, so that escapes,
// surrogates and invalid bytes come out exactly as encoding/json makes them.
func unquote(raw []byte) string {
	if s := raw[1 : len(raw)-1]; bytes.IndexByte(s, '\\') < 0 && utf8.Valid(s) {
		return string(s)
	}
	var s string
	_ = json.Unmarshal(raw, &s)
	return s
}

// unquoteName is unquote for a member name: without escapes or invalid
// UTF-8 it is the bytes between the quotes, not copied.
func unquoteName(raw []byte) []byte {
	if s := raw[1 : len(raw)-1]; bytes.IndexByte(s, '\\') < 0 && utf8.Valid(s) {
		return s
	}
	return []byte(unquote(raw))
}

// members walks the members of the valid JSON object starting at b[i],
// calling fn with each name (unquoted only when it must be) and value, and
// returns the end of the object, or -1.
func members(b []byte, i int, fn func(name, raw []byte)) int {
	for i = skipSpace(b, i+1); i < len(b) && b[i] != '}'; {
		end := scanString(b, i)
		if end < 0 {
			return -1
		}
		name := unquoteName(b[i:end])
		if i = skipSpace(b, end); i == len(b) || b[i] != ':' {
			return -1
		}
		start := skipSpace(b, i+1)
		if i = scanValue(b, start, 0); i < 0 {
			return -1
		}
		fn(name, b[start:i])
		if i = skipSpace(b, i); i < len(b) && b[i] == ',' {
			i = skipSpace(b, i+1)
		}
	}
	if i == len(b) {
		return -1
	}
	return i + 1
}

// elements walks the elements of the valid JSON array starting at b[i],
// calling fn with each, and returns the end of the array, or -1. fn returns
// the end of the element, which it may read itself, or -1.
func elements(b []byte, i int, fn func(start int) int) int {
	for i = skipSpace(b, i+1); i < len(b) && b[i] != ']'; {
		if i = fn(i); i < 0 {
			return -1
		}
		if i = skipSpace(b, i); i < len(b) && b[i] == ',' {
			i = skipSpace(b, i+1)
		}
	}
	if i == len(b) {
		return -1
	}
	return i + 1
}

// parseArray returns the elements of a JSON array read completely, decoded
// as generic values.
func parseArray(b []byte) []any {
	dec := json.NewDecoder(bytes.NewReader(b))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('[') {
		return nil
	}
	var out []any
	for dec.More() {
		var v any
		if dec.Decode(&v) != nil {
			break
		}
		out = append(out, v)
	}
	return out
}

// Members read, in order of preference, as the code and the message of a
// body of neither format.
var (
	otherCodeKeys    = []string{"error", "errorCode", "error_code", "code", "type"}
	otherMessageKeys = []string{"error_description", "detail", "message", "Message", "msg", "description", "error_message", "errorMessage", "title"}
	otherFieldKeys   = []string{"errors", "detail", "invalid-params", "invalid_params", "violations", "validation_messages", "fieldErrors", "field_errors"}
)

// otherFromObject reads a JSON object of neither format, such as FastAPI's
// {"detail": ...} or OAuth's {"error": ..., "error_description": ...}.
func otherFromObject(obj *object) *otherBody {
	o := &otherBody{}
	for _, k := range otherCodeKeys {
		if decodeStringOrNumber(obj.get(k), &o.code) && o.code != "" {
			break
		}
	}
	for _, k := range otherMessageKeys {
		if decodeString(obj.get(k), &o.message) && o.message != "" {
			break
		}
	}
	for _, k := range otherFieldKeys {
		raw := obj.get(k)
		if raw == nil {
			continue
		}
		var v any
		if json.Unmarshal(raw, &v) == nil {
			o.fields = append(o.fields, fieldErrorsFromValue(v)...)
		}
	}
	if o.code == "" && o.message == "" && o.fields == nil {
		return nil
	}
	return o
}

// otherFromArray reads a top-level JSON array, as Salesforce sends: the
// first object gives the code and message, every item a field error.
func otherFromArray(items []any) *otherBody {
	o := &otherBody{}
	for _, it := range items {
		m, ok := it.(map[string]any)
		if !ok {
			continue
		}
		for _, k := range otherCodeKeys {
			if s, ok := m[k].(string); ok && s != "" {
				o.code = s
				break
			}
		}
		for _, k := range otherMessageKeys {
			if s, ok := m[k].(string); ok && s != "" {
				o.message = s
				break
			}
		}
		break
	}
	o.fields = fieldErrorsFromValue(items)
	if o.code == "" && o.message == "" && o.fields == nil {
		return nil
	}
	return o
}

var (
	htmlTitle  = regexp.MustCompile(`(?is)<title[^>]*>(.*?)</title>`)
	htmlH1     = regexp.MustCompile(`(?is)<h1[^>]*>(.*?)</h1>`)
	htmlTag    = regexp.MustCompile(`(?s)<[^>]*>`)
	xmlCode    = regexp.MustCompile(`(?s)<Code>(.*?)</Code>`)
	xmlMessage = regexp.MustCompile(`(?s)<Message>(.*?)</Message>`)
)

// otherFromText summarises a non-JSON body: the <title> (or first <h1>) of
// an HTML page, the Code and Message of an XML error (Amazon S3 and other
// AWS services), or the first line of plain text. Binary data and JSON that
// could not be read yield nil.
func otherFromText(mediaType string, b []byte) *otherBody {
	head := bytes.ToLower(b[:min(len(b), 256)])
	switch {
	case mediaType == "text/html" || mediaType == "application/xhtml+xml" ||
		bytes.HasPrefix(head, []byte("<!doctype html")) || bytes.HasPrefix(head, []byte("<html")) ||
		(b[0] == '<' && bytes.Contains(head, []byte("<html"))):
		for _, re := range []*regexp.Regexp{htmlTitle, htmlH1} {
			if m := re.FindSubmatch(b); m != nil {
				if s := cleanText(html.UnescapeString(htmlTag.ReplaceAllString(string(m[1]), " "))); s != "" {
					return &otherBody{message: s}
				}
			}
		}
		return nil
	case mediaType == "application/xml" || mediaType == "text/xml" || strings.HasSuffix(mediaType, "+xml") ||
		bytes.HasPrefix(head, []byte("<?xml")) || bytes.HasPrefix(head, []byte("<error")):
		o := &otherBody{}
		if m := xmlCode.FindSubmatch(b); m != nil {
			o.code = cleanText(html.UnescapeString(string(m[1])))
		}
		if m := xmlMessage.FindSubmatch(b); m != nil {
			o.message = cleanText(html.UnescapeString(string(m[1])))
		}
		if o.code == "" && o.message == "" {
			return nil
		}
		return o
	}
	if b[0] == '<' || bytes.IndexByte(b, 0) >= 0 {
		return nil
	}
	text := b[:min(len(b), 512)]
	for len(text) > 0 {
		line, rest, _ := bytes.Cut(text, []byte("\n"))
		if s := cleanText(string(line)); s != "" {
			return &otherBody{message: s}
		}
		text = rest
	}
	return nil
}

// cleanText folds s onto one line, with invalid UTF-8 and control
// characters replaced.
func cleanText(s string) string {
	return oneLine(s, 1<<20)
}

// mediaTypeOf returns the lower-cased media type of a Content-Type value,
// without parameters; a value mime.ParseMediaType rejects is cut at ';'.
func mediaTypeOf(contentType string) string {
	if contentType == "" {
		return ""
	}
	if mt, _, err := mime.ParseMediaType(contentType); mt != "" && (err == nil || err == mime.ErrInvalidMediaParameter) {
		return mt
	}
	mt, _, _ := strings.Cut(contentType, ";")
	return strings.ToLower(strings.TrimSpace(mt))
}
