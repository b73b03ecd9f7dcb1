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
		if obj := parseObject(b); obj != nil {
			return decodeObject(mediaType, obj, depth)
		}
		return decoded{}
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

func decodeObject(mediaType string, obj map[string]json.RawMessage, depth int) decoded {
	has := func(k string) bool { _, ok := obj[k]; return ok }
	problemish := has("title") || has("detail") || has("status") || has("instance") || has("serviceCode") || has("serviceErrors")
	cm := has("code") || has("message")
	if !problemish && !cm && depth < maxWrapperDepth {
		// {"error": {...}} (Stripe, Google, Anthropic, OpenAI): decode the
		// wrapped object instead.
		if inner := bytes.TrimSpace(obj["error"]); len(inner) > 0 && inner[0] == '{' {
			if d := decodeBody(mediaType, inner, depth+1); d != (decoded{}) {
				return d
			}
		}
	}
	var typeIsString bool
	if raw, ok := obj["type"]; ok {
		var s string
		typeIsString = json.Unmarshal(raw, &s) == nil
	}
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

// parseObject decodes the members of a JSON object one by one, stopping at
// the first syntax error or at the end of the input, and returns every
// member read completely; nil when b does not start a JSON object.
func parseObject(b []byte) map[string]json.RawMessage {
	dec := json.NewDecoder(bytes.NewReader(b))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil
	}
	obj := make(map[string]json.RawMessage)
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
		obj[k] = raw
	}
	return obj
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
func otherFromObject(obj map[string]json.RawMessage) *otherBody {
	o := &otherBody{}
	for _, k := range otherCodeKeys {
		if decodeStringOrNumber(obj[k], &o.code) && o.code != "" {
			break
		}
	}
	for _, k := range otherMessageKeys {
		if decodeString(obj[k], &o.message) && o.message != "" {
			break
		}
	}
	for _, k := range otherFieldKeys {
		raw, ok := obj[k]
		if !ok {
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
