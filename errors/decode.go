package errors

import (
	"bytes"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/memberplatform/memberplatform-go/internal/httpx"
	"github.com/memberplatform/memberplatform-go/internal/jsonscan"
)

// MaxBodySnippet bounds how much of an error body is read and kept, so a
// huge error page cannot exhaust memory.
const MaxBodySnippet = 64 << 10

// FromResponse decodes at most MaxBodySnippet of resp's body with Decode,
// draining (bounded) and closing the rest so the connection is reused.
// Method and Path come from resp.Request; Operation and Attempts are left
// for the caller.
func FromResponse(resp *http.Response) *Error {
	if resp == nil {
		return Decode(0, nil, nil)
	}
	var body []byte
	truncated := false
	if resp.Body != nil {
		buf, err := io.ReadAll(io.LimitReader(resp.Body, MaxBodySnippet+1))
		body, truncated = buf[:min(len(buf), MaxBodySnippet)], err != nil || len(buf) > MaxBodySnippet
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

// Decode builds an *Error from a status (authoritative over the body's),
// headers and (a snippet of) a body; it never fails or panics.
//
// A JSON object is a problem document (RFC 9457) when served as
// application/problem+json (any parameters), or, whatever its media type,
// when it has a title, serviceCode or serviceErrors member, or a type and
// neither code nor message; else a code/message body when it has a code or
// message. Member names match as encoding/json's: exactly, else in any case.
// Any other body (JSON of another shape, HTML, text, none) is kept only as
// the status, headers, request ID, Retry-After and Body. A body cut short
// keeps every member read completely; a leading byte order mark is ignored.
func Decode(status int, header http.Header, body []byte) *Error {
	if header == nil {
		header = http.Header{}
	}
	e := &Error{StatusCode: status, Header: header, RequestID: httpx.RequestID(header), Body: body}
	e.RetryAfter, _ = httpx.RetryAfter(header, time.Now()) // 0 when none
	trimmed := bytes.TrimSpace(bytes.TrimPrefix(bytes.TrimSpace(body), []byte("\xEF\xBB\xBF")))
	if len(trimmed) > 0 && trimmed[0] == '{' {
		members := jsonscan.Object(trimmed)
		var present [memberCount]bool
		var typeIsString bool
		for _, m := range members {
			if k := memberOf(m.Name); k != mOther {
				present[k] = true
				if k == mType { // a later member wins, as in encoding/json
					typeIsString = m.Value[0] == '"'
				}
			}
		}
		cm := present[mCode] || present[mMessage]
		switch {
		case present[mTitle] || present[mServiceCode] || present[mServiceErrors], !cm && typeIsString,
			mediaTypeOf(header.Get("Content-Type")) == "application/problem+json" && (!cm || present[mType] || present[mDetail] || present[mStatus] || present[mInstance]):
			e.Problem = decodeProblem(members)
		case cm:
			e.CodeMessage = decodeCodeMessage(members)
		}
	}
	e.bodyKind, e.bodyKindKnown = e.textKind(), true
	return e
}

// mediaTypeOf returns a Content-Type's media type, lower case, as
// mime.ParseMediaType reads it even where that rejects the parameters.
func mediaTypeOf(contentType string) string {
	mt, _, _ := strings.Cut(contentType, ";")
	return strings.ToLower(strings.TrimSpace(mt))
}
