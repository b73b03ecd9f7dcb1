package core

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
)

// request is what the first stage builds from a Call: everything an attempt
// sends except the headers that change per attempt.
type request struct {
	url  string // base URL + escaped path + query
	path string // the escaped path alone, for errors
	body []byte // the JSON body, nil for none
}

// newRequest builds the URL and encodes the body, once for all attempts.
func newRequest(s *Settings, call *Call) (request, error) {
	r := request{}
	r.url, r.path = buildURL(s, call.Op.Path, call.PathParams)
	if call.EncodedBody != nil {
		r.body = call.EncodedBody
	} else if call.Body != nil {
		b, err := json.Marshal(call.Body)
		if err != nil {
			return r, invalidCall(call, "body", "cannot encode as JSON: "+err.Error())
		}
		r.body = b
	}
	return r, nil
}

// ownedHeaders holds the values of the headers the SDK sets on an attempt.
// Each send has its own (in its callState, which is allocated anyway), so
// a middleware or RoundTripper that writes req.Header["Authorization"][0]
// in place (legal http.Header use) changes only that request: no other
// call, goroutine or the token cache shares the slice. A retry gets fresh
// slices from prepareRetry's Header.Clone.
type ownedHeaders [4]string

const (
	ownedUserAgent = iota
	ownedAccept
	ownedContentType
	ownedAuthorization
)

// own stores v in slot i and returns a one-element slice of it whose
// capacity ends there, so that an append by the caller reallocates instead
// of writing into the next slot.
func (o *ownedHeaders) own(i int, v string) []string {
	o[i] = v
	return o[i : i+1 : i+1]
}

// setHeaders sets the headers every attempt carries: User-Agent, Accept,
// Content-Type and the caller's extra headers, each in slices this request
// owns. Authorization and the signature are added later, per attempt.
func (c *Client) setHeaders(h http.Header, s *Settings, hasBody bool, own *ownedHeaders) {
	ua := c.userAgent
	if s.AppInfo != c.settings.AppInfo {
		ua = UserAgent(s.AppInfo)
	}
	h["User-Agent"] = own.own(ownedUserAgent, ua)
	h["Accept"] = own.own(ownedAccept, acceptHeader)
	if hasBody {
		h["Content-Type"] = own.own(ownedContentType, jsonContentType)
	}
	if len(s.Header) > 0 {
		// Extra headers (option.WithHeader): one allocation holds every
		// value, so the request owns them as well.
		n := 0
		for _, v := range s.Header {
			n += len(v)
		}
		vals := make([]string, 0, n)
		for k, v := range s.Header {
			start := len(vals)
			vals = append(vals, v...)
			h[k] = vals[start:len(vals):len(vals)]
		}
	}
}

// Header values the SDK sends.
const (
	acceptHeader    = "application/json, application/problem+json"
	jsonContentType = "application/json"
)

// buildURL joins the base URL (keeping its path prefix), the path template
// with its parameters escaped, and the query. It returns the full URL and
// the escaped path alone.
func buildURL(s *Settings, tmpl string, params []string) (full, path string) {
	base := strings.TrimSuffix(s.BaseURL.EscapedPath(), "/")
	size := len(s.BaseURL.Scheme) + len("://") + len(s.BaseURL.Host) + len(base) + len(tmpl) + 16
	for _, p := range params {
		size += len(p)
	}
	var b strings.Builder
	b.Grow(size)
	b.WriteString(s.BaseURL.Scheme)
	b.WriteString("://")
	b.WriteString(s.BaseURL.Host)
	origin := b.Len()
	b.WriteString(base)
	i := 0
	for {
		open := strings.IndexByte(tmpl, '{')
		if open < 0 {
			b.WriteString(tmpl)
			break
		}
		end := strings.IndexByte(tmpl[open:], '}')
		if end < 0 {
			b.WriteString(tmpl)
			break
		}
		b.WriteString(tmpl[:open])
		if i < len(params) {
			b.WriteString(escapeSegment(params[i]))
		}
		i++
		tmpl = tmpl[open+end+1:]
	}
	full = b.String()
	path = full[origin:]
	if len(s.Query) > 0 {
		full += "?" + s.Query.Encode()
	}
	return full, path
}

// escapeSegment escapes one path segment; "." and ".." are encoded too, so
// no parameter can climb out of its place in the path.
func escapeSegment(p string) string {
	switch p {
	case ".":
		return "%2E"
	case "..":
		return "%2E%2E"
	}
	return url.PathEscape(p)
}
