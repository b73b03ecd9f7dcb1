package errors

import (
	"github.com/memberplatform/memberplatform-go/internal/redact"
)

// Redacted is what Redact puts in place of a secret (the same text as the
// SDK's internal redaction writes; a test holds the two together).
const Redacted = "[REDACTED]"

// Redact replaces each secret with Redacted in all the error holds from the
// response: the raw Body, header names and values, the request ID and every
// decoded text (problem, code/message, field errors, extensions and service
// metadata, their keys included). It finds a secret in any spelling the
// README lists (raw; JSON escapes; HTML character references; percent-
// encoding; base64, either alphabet, at any alignment), mixed or nested.
// The SDK calls it with the credentials each request carried, so a server
// that echoes a token cannot leak it through an error or a log record. Call
// it with secrets of your own (an API key added with option.WithHeader, say)
// before logging an error. Secrets shorter than 8 bytes are ignored: no
// credential is that short, and replacing a short string everywhere would
// garble the rest of the text.
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
		p.ServiceMeta = redactMap(set, p.ServiceMeta)
		p.Extensions = redactMap(set, p.Extensions)
	}
	if cm := e.CodeMessage; cm != nil {
		cm.Code, cm.Message = set.String(cm.Code), set.String(cm.Message)
		for i := range cm.Errors {
			cm.Errors[i].Field, cm.Errors[i].Message = set.String(cm.Errors[i].Field), set.String(cm.Errors[i].Message)
		}
		cm.Extensions = redactMap(set, cm.Extensions)
	}
}

// redactMap replaces the secrets in the keys and strings of decoded JSON
// values, in place, and returns m.
func redactMap(set *redact.Set, m map[string]any) map[string]any {
	for k, v := range m {
		v = redactValue(set, v)
		if clean := set.String(k); clean != k {
			delete(m, k)
			k = clean
		}
		m[k] = v
	}
	return m
}

func redactValue(set *redact.Set, v any) any {
	switch t := v.(type) {
	case string:
		return set.String(t)
	case map[string]any:
		return redactMap(set, t)
	case []any:
		for i := range t {
			t[i] = redactValue(set, t[i])
		}
	}
	return v
}
