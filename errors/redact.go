package errors

import (
	"bytes"
	"strings"
)

// Redacted is what Redact puts in place of a secret.
const Redacted = "[REDACTED]"

// Redact replaces every occurrence of each secret with Redacted in all the
// error holds from the response: the raw Body, the headers, the request ID
// and every decoded text (problem, code/message, field errors, extensions,
// service metadata). The SDK calls it with the credentials each request
// carried, so a server that echoes a token, even JSON- or HTML-escaped,
// cannot leak it through an error or a log record. Call it with secrets of
// your own (an API key added with option.WithHeader, say) before logging an
// error. Empty secrets are ignored.
func (e *Error) Redact(secrets ...string) {
	if e == nil {
		return
	}
	// Most errors hold no secret: look before building a replacer.
	var replacer *strings.Replacer
	text := func(s string) string {
		for _, secret := range secrets {
			if secret != "" && strings.Contains(s, secret) {
				if replacer == nil {
					replacer = newRedactor(secrets)
				}
				return replacer.Replace(s)
			}
		}
		return s
	}
	for _, secret := range secrets {
		if secret != "" && bytes.Contains(e.Body, []byte(secret)) {
			e.Body = []byte(text(string(e.Body)))
			break
		}
	}
	for _, values := range e.Header {
		for i, v := range values {
			values[i] = text(v)
		}
	}
	e.RequestID = text(e.RequestID)
	if p := e.Problem; p != nil {
		p.Type, p.Title, p.Detail, p.Instance, p.ServiceCode = text(p.Type), text(p.Title), text(p.Detail), text(p.Instance), text(p.ServiceCode)
		for i := range p.ServiceErrors {
			p.ServiceErrors[i].Detail, p.ServiceErrors[i].Pointer = text(p.ServiceErrors[i].Detail), text(p.ServiceErrors[i].Pointer)
		}
		redactValues(p.ServiceMeta, text)
		redactValues(p.Extensions, text)
	}
	if cm := e.CodeMessage; cm != nil {
		cm.Code, cm.Message = text(cm.Code), text(cm.Message)
		for i := range cm.Errors {
			cm.Errors[i].Field, cm.Errors[i].Message = text(cm.Errors[i].Field), text(cm.Errors[i].Message)
		}
		redactValues(cm.Extensions, text)
	}
	if o := e.other; o != nil {
		o.code, o.message = text(o.code), text(o.message)
		for i := range o.fields {
			redactField(&o.fields[i], text)
		}
	}
}

// newRedactor returns a replacer of every non-empty secret by Redacted.
func newRedactor(secrets []string) *strings.Replacer {
	pairs := make([]string, 0, 2*len(secrets))
	for _, s := range secrets {
		if s != "" {
			pairs = append(pairs, s, Redacted)
		}
	}
	return strings.NewReplacer(pairs...)
}

func redactField(f *FieldError, text func(string) string) {
	f.Field, f.Pointer, f.Message = text(f.Field), text(f.Pointer), text(f.Message)
}

// redactValues replaces secrets in the strings of decoded JSON values, in
// place.
func redactValues(m map[string]any, text func(string) string) {
	for k, v := range m {
		m[k] = redactValue(v, text)
	}
}

func redactValue(v any, text func(string) string) any {
	switch t := v.(type) {
	case string:
		return text(t)
	case map[string]any:
		redactValues(t, text)
	case []any:
		for i := range t {
			t[i] = redactValue(t[i], text)
		}
	}
	return v
}
