// Package rawjson lets package core keep a response body in the
// memberplatform.Raw a result embeds, without a public setter: package
// memberplatform sets Keep when it initializes, before core's (which
// imports it) can run.
package rawjson

// Keep stores body in the memberplatform.Raw that result (a pointer to a
// result type) embeds, without copying it, and reports whether result has
// one. The caller must never modify body afterwards.
var Keep func(result any, body []byte) bool
