package errors

import "github.com/memberplatform/memberplatform-go/internal/redact"

// Redacted is what Redact, like all the SDK's redaction, puts in place of a secret.
const Redacted = "[REDACTED]"

// Redact replaces each secret with Redacted in all the error holds from the
// response (Body, headers, request ID, every decoded text and key), in any
// spelling docs/errors.md lists (raw, JSON escapes, HTML character references,
// percent-encoding, base64 of either alphabet at any alignment), mixed or
// nested. The SDK calls it with each request's credentials; call it with
// your own (an API key set with option.WithHeader, say) before logging. It
// ignores secrets under 8 bytes (no credential is) not to garble the text.
func (e *Error) Redact(secrets ...string) {
	set := redact.New(secrets...)
	if e == nil || set == nil {
		return
	}
	if e.BodyTruncated {
		e.Body = set.Cut(e.Body)
	} else {
		e.Body = set.Bytes(e.Body)
	}
	e.Header = set.Header(e.Header)
	e.RequestID = set.String(e.RequestID)
	if p := e.Problem; p != nil {
		for _, s := range []*string{&p.Type, &p.Title, &p.Detail, &p.Instance, &p.ServiceCode} {
			*s = set.String(*s)
		}
		for i := range p.ServiceErrors {
			p.ServiceErrors[i].Detail, p.ServiceErrors[i].Pointer = set.String(p.ServiceErrors[i].Detail), set.String(p.ServiceErrors[i].Pointer)
		}
		p.ServiceMeta = redactValue(set, p.ServiceMeta).(map[string]any)
		p.Extensions = redactValue(set, p.Extensions).(map[string]any)
	}
	if cm := e.CodeMessage; cm != nil {
		cm.Code, cm.Message = set.String(cm.Code), set.String(cm.Message)
		for i := range cm.Errors {
			cm.Errors[i].Field, cm.Errors[i].Message = set.String(cm.Errors[i].Field), set.String(cm.Errors[i].Message)
		}
		cm.Extensions = redactValue(set, cm.Extensions).(map[string]any)
	}
}

// redactValue redacts a decoded JSON value's strings and keys in place.
func redactValue(set *redact.Set, v any) any {
	switch t := v.(type) {
	case string:
		return set.String(t)
	case map[string]any:
		for k, item := range t {
			item = redactValue(set, item)
			if clean := set.String(k); clean != k {
				delete(t, k)
				k = clean
			}
			t[k] = item
		}
	case []any:
		for i := range t {
			t[i] = redactValue(set, t[i])
		}
	}
	return v
}
