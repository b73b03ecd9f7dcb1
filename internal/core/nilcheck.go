package core

import (
	"errors"
	"fmt"
	"reflect"

	"github.com/aws/aws-sdk-go-v2/aws"
)

// NilInside reports whether v is a non-nil interface value holding a nil
// pointer, func, map, channel or slice: a "typed nil" that compares != nil
// yet panics, or misbehaves, when its methods run. Options refuse such a
// value when they receive it, so that the mistake surfaces at client.New
// (or at the call) rather than as a panic in every later call, or in a
// goroutine of a dependency where nothing can recover it.
func NilInside(v any) bool {
	if v == nil {
		return false
	}
	rv := reflect.ValueOf(v)
	return nilKind(rv.Kind()) && rv.IsNil()
}

// TypedNilError is the message for a typed nil given to option name, as
// "memberplatform: option.WithTransport: a nil *http.Transport; hint".
func TypedNilError(name string, v any, hint string) error {
	msg := fmt.Sprintf("memberplatform: option.%s: a nil %T", name, v)
	if hint != "" {
		msg += "; " + hint
	}
	return errors.New(msg)
}

// CheckCredentialsProvider reports why creds cannot sign: nil, a typed nil,
// or an *aws.CredentialsCache around either. Such a provider would panic
// inside the AWS SDK's own fetch goroutine on the first token request,
// ending the process where no recover can reach.
func CheckCredentialsProvider(creds aws.CredentialsProvider) error {
	switch {
	case creds == nil:
		return errors.New("nil credentials provider")
	case NilInside(creds):
		return fmt.Errorf("a nil %T as the credentials provider", creds)
	}
	return checkCached(reflect.ValueOf(creds))
}

// checkCached looks inside an *aws.CredentialsCache, which may wrap
// another. The cache keeps its provider unexported; reading (not using) it
// through reflect is the only way to see that it wraps nothing. Should a
// future SDK rename the field, the check is skipped.
func checkCached(v reflect.Value) error {
	if v.Type() != reflect.TypeFor[*aws.CredentialsCache]() {
		return nil
	}
	inner := v.Elem().FieldByName("provider")
	if !inner.IsValid() || inner.Kind() != reflect.Interface {
		return nil
	}
	if inner.IsNil() {
		return errors.New("an *aws.CredentialsCache around a nil credentials provider")
	}
	if e := inner.Elem(); nilKind(e.Kind()) && e.IsNil() {
		return fmt.Errorf("an *aws.CredentialsCache around a nil %s", e.Type())
	}
	return checkCached(inner.Elem())
}

func nilKind(k reflect.Kind) bool {
	switch k {
	case reflect.Pointer, reflect.Func, reflect.Map, reflect.Chan, reflect.Slice:
		return true
	}
	return false
}
