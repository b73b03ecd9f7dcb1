package errors

import (
	"bytes"
	"encoding/json"
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

// FromResponse reads a bounded part of resp's body, closes it, and decodes
// it into an *Error: an RFC 9457 problem, a code/message body, or neither
// (then only Body and a readable summary are kept). It never fails and never
// panics, whatever the body holds. Operation and Attempts are left for the
// caller to fill in.
func FromResponse(resp *http.Response) *Error {
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
// It never fails and never panics. Problem documents are recognised by the
// media type application/problem+json, or by a JSON object carrying type,
// title or serviceCode; code/message bodies by a JSON object carrying code or
// message. Any media type is tried as JSON when the body looks like an
// object, since proxies and frameworks often mislabel error bodies.
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
	mediaType, _, _ := mime.ParseMediaType(header.Get("Content-Type"))
	trimmed := bytes.TrimSpace(body)
	var obj map[string]json.RawMessage
	if len(trimmed) > 0 && trimmed[0] == '{' && json.Unmarshal(trimmed, &obj) == nil && obj != nil {
		isProblem := mediaType == "application/problem+json"
		if !isProblem {
			_, hasType := obj["type"]
			_, hasTitle := obj["title"]
			_, hasCode := obj["serviceCode"]
			isProblem = hasType || hasTitle || hasCode
		}
		_, hasC := obj["code"]
		_, hasM := obj["message"]
		switch {
		case isProblem:
			e.Problem = decodeProblem(obj)
		case hasC || hasM:
			e.CodeMessage = decodeCodeMessage(obj)
		default:
			e.summary = summaryFromObject(obj)
		}
		return e
	}
	e.summary = summaryFromText(mediaType, trimmed)
	return e
}

// summaryFromObject picks a readable message from a JSON object of neither
// format, such as FastAPI's {"detail": ...} or OAuth's {"error_description": ...}.
func summaryFromObject(obj map[string]json.RawMessage) string {
	for _, k := range []string{"detail", "error_description", "error", "msg", "description"} {
		var s string
		if decodeString(obj[k], &s) && s != "" {
			return s
		}
	}
	return ""
}

var htmlTitle = regexp.MustCompile(`(?is)<title[^>]*>(.*?)</title>`)

// summaryFromText returns the <title> of an HTML page or the first line of a
// short plain-text body; JSON arrays and other shapes yield "".
func summaryFromText(mediaType string, body []byte) string {
	if len(body) == 0 {
		return ""
	}
	if mediaType == "text/html" || bytes.HasPrefix(bytes.ToLower(body[:min(len(body), 64)]), []byte("<!doctype html")) || bytes.HasPrefix(bytes.ToLower(body[:min(len(body), 16)]), []byte("<html")) {
		if m := htmlTitle.FindSubmatch(body); m != nil {
			return strings.TrimSpace(string(m[1]))
		}
		return ""
	}
	if body[0] == '[' || body[0] == '{' || body[0] == '<' {
		return ""
	}
	line, _, _ := strings.Cut(string(body[:min(len(body), 512)]), "\n")
	return strings.TrimSpace(line)
}
