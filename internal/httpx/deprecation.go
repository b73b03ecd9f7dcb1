package httpx

import (
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Deprecation is what an answer says of its operation's end: when it was
// deprecated and when it will be gone (zero when the answer did not say, or
// said it in a form not read), and a link to the details.
type Deprecation struct {
	Deprecated, Sunset time.Time
	Link               string
}

// DeprecationOf reads an answer's Deprecation header (RFC 9745's
// "@<unix seconds>"; the drafts' "true" or HTTP-date), Sunset header (RFC
// 8594's HTTP-date) and Link to rel "deprecation" (else "sunset"). ok is
// false when the answer has neither header, or only "Deprecation: false"
// (or ?0). It never fails: a value it cannot read leaves its field zero, and
// a Deprecation header it cannot read still says the operation is deprecated.
func DeprecationOf(h http.Header) (d Deprecation, ok bool) {
	dep, sunset := h["Deprecation"], h["Sunset"]
	if len(dep) == 0 && len(sunset) == 0 {
		return d, false // every answer of a current operation: two map reads
	}
	deprecated := false
	if len(dep) > 0 {
		d.Deprecated, deprecated = deprecationDate(strings.TrimSpace(dep[0]))
	}
	if len(sunset) > 0 {
		d.Sunset, _ = http.ParseTime(strings.TrimSpace(sunset[0]))
	}
	if !deprecated && len(sunset) == 0 {
		return Deprecation{}, false
	}
	if d.Link = linkTo(h["Link"], "deprecation"); d.Link == "" {
		d.Link = linkTo(h["Link"], "sunset")
	}
	return d, true
}

// deprecationDate reads a Deprecation value: its date, if it has one, and
// whether it says the operation is deprecated.
func deprecationDate(v string) (time.Time, bool) {
	switch strings.ToLower(v) {
	case "false", "?0":
		return time.Time{}, false
	case "true", "?1", "":
		return time.Time{}, true
	}
	if secs, ok := strings.CutPrefix(v, "@"); ok {
		secs, _, _ = strings.Cut(secs, ".") // an Integer; a fraction read leniently
		if n, err := strconv.ParseInt(secs, 10, 64); err == nil && n > -1<<40 && n < 1<<40 {
			return time.Unix(n, 0).UTC(), true
		}
		return time.Time{}, true
	}
	t, _ := http.ParseTime(v)
	return t, true
}

// linkTo returns the target of the first link of values (Link headers,
// RFC 8288) whose rel names rel, or "".
func linkTo(values []string, rel string) string {
	for _, v := range values {
		for v != "" {
			open := strings.IndexByte(v, '<')
			if open < 0 {
				break
			}
			end := strings.IndexByte(v[open:], '>')
			if end < 0 {
				break
			}
			target := v[open+1 : open+end]
			params, rest := cutLinkParams(v[open+end+1:])
			if hasRel(params, rel) {
				return strings.TrimSpace(target)
			}
			v = rest
		}
	}
	return ""
}

// cutLinkParams splits s after a link's target at the comma that ends the
// link, outside quotes.
func cutLinkParams(s string) (params, rest string) {
	quoted := false
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '"':
			quoted = !quoted
		case '\\':
			i++
		case ',':
			if !quoted {
				return s[:i], s[i+1:]
			}
		}
	}
	return s, ""
}

// hasRel reports whether a link's ";name=value" params have a rel naming rel.
func hasRel(params, rel string) bool {
	for p := range strings.SplitSeq(params, ";") {
		name, value, ok := strings.Cut(p, "=")
		if !ok || !strings.EqualFold(strings.TrimSpace(name), "rel") {
			continue
		}
		for r := range strings.FieldsSeq(strings.Trim(strings.TrimSpace(value), `"`)) {
			if strings.EqualFold(r, rel) {
				return true
			}
		}
	}
	return false
}
