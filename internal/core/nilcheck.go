package core

import (
	"errors"
	"fmt"
	"reflect"

	"github.com/aws/aws-sdk-go-v2/aws"
)

// NilInside reports whether v is a non-nil interface holding a nil pointer,
// func, map, channel or slice: a "typed nil" options refuse, so the mistake
// surfaces at client.New rather than as a panic in a later call.
func NilInside(v any) bool {
	rv := reflect.ValueOf(v) // of nil: the zero Value, whose Kind is Invalid
	return nilKind(rv.Kind()) && rv.IsNil()
}

// TypedNilError is the message for a typed nil given to option name, as
// "memberplatform: option.WithTransport: a nil *http.Transport; hint".
func TypedNilError(name string, v any, hint string) error {
	return fmt.Errorf("memberplatform: option.%s: a nil %T; %s", name, v, hint)
}

// CheckCredentialsProvider reports why creds cannot sign: nil, a typed nil,
// or an *aws.CredentialsCache around either, which would panic in the AWS
// SDK's own goroutine, where nothing can recover.
func CheckCredentialsProvider(creds aws.CredentialsProvider) error {
	switch {
	case creds == nil:
		return errors.New("nil credentials provider")
	case NilInside(creds):
		return fmt.Errorf("a nil %T as the credentials provider", creds)
	}
	return checkCached(reflect.ValueOf(creds))
}

// checkCached looks inside an *aws.CredentialsCache through reflect (its
// provider is unexported); should the field be renamed, it checks nothing.
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
	return k == reflect.Pointer || k == reflect.Func || k == reflect.Map || k == reflect.Chan || k == reflect.Slice
}
