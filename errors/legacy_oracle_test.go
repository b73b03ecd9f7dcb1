package errors

// The body decoder as it was before it read JSON with its own scanner: the
// oracle the current decoder must agree with, member for member, on every
// body (legacy_test.go compares the two on the corpora and under fuzzing).

import (
	"bytes"
	"encoding/json"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/memberplatform/memberplatform-go/internal/httpx"
)

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
func legacyDecode(status int, header http.Header, body []byte) *Error {
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
	mediaType := legacyMediaTypeOf(header.Get("Content-Type"))
	trimmed := bytes.TrimSpace(bytes.TrimPrefix(bytes.TrimSpace(body), []byte("\xEF\xBB\xBF")))
	d := legacyDecodeBody(mediaType, trimmed, 0)
	e.Problem, e.CodeMessage, e.other = d.problem, d.codeMessage, d.other
	return e
}

func legacyDecodeBody(mediaType string, b []byte, depth int) decoded {
	if len(b) == 0 {
		return decoded{}
	}
	switch b[0] {
	case '{':
		if obj := legacyParseObject(b); obj != nil {
			return legacyDecodeObject(mediaType, obj, depth)
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

func legacyDecodeObject(mediaType string, obj map[string]json.RawMessage, depth int) decoded {
	has := func(k string) bool { _, ok := obj[k]; return ok }
	problemish := has("title") || has("detail") || has("status") || has("instance") || has("serviceCode") || has("serviceErrors")
	cm := has("code") || has("message")
	if !problemish && !cm && depth < maxWrapperDepth {
		// {"error": {...}} (Stripe, Google, Anthropic, OpenAI): decode the
		// wrapped object instead.
		if inner := bytes.TrimSpace(obj["error"]); len(inner) > 0 && inner[0] == '{' {
			if d := legacyDecodeBody(mediaType, inner, depth+1); d != (decoded{}) {
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
		return decoded{problem: legacyDecodeProblem(obj)}
	case has("title") || has("serviceCode") || has("serviceErrors"):
		return decoded{problem: legacyDecodeProblem(obj)}
	case cm:
		return decoded{codeMessage: legacyDecodeCodeMessage(obj)}
	case typeIsString:
		// A problem with only a type (and perhaps detail/status), as ACME
		// servers send, possibly mislabelled as text/plain.
		return decoded{problem: legacyDecodeProblem(obj)}
	}
	return decoded{other: legacyOtherFromObject(obj)}
}

// parseObject decodes the members of a JSON object one by one, stopping at
// the first syntax error or at the end of the input, and returns every
// member read completely; nil when b does not start a JSON object.
func legacyParseObject(b []byte) map[string]json.RawMessage {
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

// otherFromObject reads a JSON object of neither format, such as FastAPI's
// {"detail": ...} or OAuth's {"error": ..., "error_description": ...}.
func legacyOtherFromObject(obj map[string]json.RawMessage) *otherBody {
	o := &otherBody{}
	for _, k := range otherCodeKeys {
		if legacyDecodeStringOrNumber(obj[k], &o.code) && o.code != "" {
			break
		}
	}
	for _, k := range otherMessageKeys {
		if legacyDecodeString(obj[k], &o.message) && o.message != "" {
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

// mediaTypeOf returns the lower-cased media type of a Content-Type value,
// without parameters; a value mime.ParseMediaType rejects is cut at ';'.
func legacyMediaTypeOf(contentType string) string {
	if contentType == "" {
		return ""
	}
	if mt, _, err := mime.ParseMediaType(contentType); mt != "" && (err == nil || err == mime.ErrInvalidMediaParameter) {
		return mt
	}
	mt, _, _ := strings.Cut(contentType, ";")
	return strings.ToLower(strings.TrimSpace(mt))
}

// decodeProblem decodes the members of obj into a Problem, never failing.
func legacyDecodeProblem(obj map[string]json.RawMessage) *Problem {
	p := &Problem{}
	for k, raw := range obj {
		ok := true
		switch k {
		case "type":
			ok = legacyDecodeString(raw, &p.Type)
		case "title":
			ok = legacyDecodeString(raw, &p.Title)
		case "detail":
			ok = legacyDecodeString(raw, &p.Detail)
		case "instance":
			ok = legacyDecodeString(raw, &p.Instance)
		case "status":
			ok = legacyDecodeInt(raw, &p.Status)
		case "serviceCode":
			ok = legacyDecodeStringOrNumber(raw, &p.ServiceCode)
		case "serviceMeta":
			ok = json.Unmarshal(raw, &p.ServiceMeta) == nil && p.ServiceMeta != nil
		case "serviceErrors":
			ok = legacyDecodeServiceErrors(raw, &p.ServiceErrors)
		default:
			ok = false
		}
		if !ok {
			var v any
			if json.Unmarshal(raw, &v) == nil {
				if p.Extensions == nil {
					p.Extensions = make(map[string]any)
				}
				p.Extensions[k] = v
			}
		}
	}
	return p
}

// decodeServiceErrors reads the items of serviceErrors, accepting field and
// message in place of pointer and detail. It returns false, so the raw value
// is kept in Extensions as well, when the member is not an array or any item
// could not be read.
func legacyDecodeServiceErrors(raw json.RawMessage, dst *[]ServiceError) bool {
	var items []json.RawMessage
	if json.Unmarshal(raw, &items) != nil {
		return false
	}
	all := true
	for _, it := range items {
		var obj map[string]json.RawMessage
		if json.Unmarshal(it, &obj) != nil {
			all = false
			continue
		}
		var se ServiceError
		_ = legacyDecodeString(obj["detail"], &se.Detail) || legacyDecodeString(obj["message"], &se.Detail)
		_ = legacyDecodeString(obj["pointer"], &se.Pointer) || legacyDecodeString(obj["field"], &se.Pointer)
		if se.Detail == "" && se.Pointer == "" {
			all = false
			continue
		}
		*dst = append(*dst, se)
	}
	return all
}

func legacyDecodeString(raw json.RawMessage, dst *string) bool {
	return raw != nil && json.Unmarshal(raw, dst) == nil
}

func legacyDecodeStringOrNumber(raw json.RawMessage, dst *string) bool {
	if legacyDecodeString(raw, dst) {
		return true
	}
	var n json.Number
	if raw != nil && json.Unmarshal(raw, &n) == nil {
		*dst = n.String()
		return true
	}
	return false
}

// decodeInt accepts a JSON number or a numeric string ("status": "400").
func legacyDecodeInt(raw json.RawMessage, dst *int) bool {
	var f float64
	if json.Unmarshal(raw, &f) == nil && f == float64(int(f)) {
		*dst = int(f)
		return true
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		if n, err := strconv.Atoi(strings.TrimSpace(s)); err == nil {
			*dst = n
			return true
		}
	}
	return false
}

func legacyDecodeCodeMessage(obj map[string]json.RawMessage) *CodeMessage {
	c := &CodeMessage{}
	for k, raw := range obj {
		ok := true
		switch k {
		case "code":
			ok = legacyDecodeStringOrNumber(raw, &c.Code)
		case "message":
			ok = legacyDecodeString(raw, &c.Message)
		case "errors":
			// Kept in Extensions too unless some field error was read
			// from it (or it is an empty list).
			var v any
			if json.Unmarshal(raw, &v) == nil {
				fes := fieldErrorsFromValue(v)
				for _, fe := range fes {
					field := fe.Field
					if fe.Pointer != "" {
						field = fe.Pointer
					}
					c.Errors = append(c.Errors, CodeMessageFieldError{Field: field, Message: fe.Message})
				}
				list, isList := v.([]any)
				ok = len(fes) > 0 || (isList && len(list) == 0)
			} else {
				ok = false
			}
		default:
			ok = false
		}
		if !ok {
			var v any
			if json.Unmarshal(raw, &v) == nil {
				if c.Extensions == nil {
					c.Extensions = make(map[string]any)
				}
				c.Extensions[k] = v
			}
		}
	}
	if c.Code == "" {
		// AWS JSON protocol errors {"__type": "ns#ThrottlingException",
		// "message": ...} and Anthropic/OpenAI-style {"type": ..., "message":
		// ...}: take the type as the code (it stays in Extensions too).
		var t string
		if legacyDecodeString(obj["__type"], &t) && t != "" {
			c.Code = t[strings.LastIndexByte(t, '#')+1:]
		} else if legacyDecodeString(obj["type"], &t) {
			c.Code = t
		}
	}
	return c
}
