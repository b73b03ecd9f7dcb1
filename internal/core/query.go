package core

import (
	"fmt"
	"net/url"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/google/go-querystring/query"
)

// A call's query is its params struct's `url` tags, encoded as
// go-querystring encodes them (query.Values, in call.go) and url.Values.Encode writes
// them: keys sorted, values escaped. go-querystring parses every tag and
// builds a url.Values on every call (a paged list's first page took 1.2 ×
// raw net/http in memory); a struct whose fields are all plain (strings,
// bools, integers, slices of strings; no tag option but omitempty) is
// encoded here instead, from a plan made once per type, to the same bytes
// (query_test.go holds the two equal). Any other struct goes through
// go-querystring.

// queryPlans holds each params type's plan: *queryPlan, nil for one that
// go-querystring encodes.
var queryPlans sync.Map

type queryPlan struct{ fields []queryField } // in url.Values.Encode's order

type queryField struct {
	name      string // the key, unescaped
	index     int
	kind      reflect.Kind // String, Bool, Int, Uint or Slice (of strings)
	omitEmpty bool
}

// planOf returns the plan of struct type t, nil when go-querystring must
// encode it.
func planOf(t reflect.Type) *queryPlan {
	if p, ok := queryPlans.Load(t); ok {
		return p.(*queryPlan)
	}
	p := newPlan(t)
	queryPlans.Store(t, p)
	return p
}

var (
	encoderType   = reflect.TypeFor[query.Encoder]()
	stringerType  = reflect.TypeFor[fmt.Stringer]()
	errorType     = reflect.TypeFor[error]()
	formatterType = reflect.TypeFor[fmt.Formatter]()
)

// plain reports whether fmt.Sprint writes t's values as their kind's
// (no String, Error or Format method) and go-querystring has no encoder
// for it.
func plain(t reflect.Type) bool {
	for _, m := range []reflect.Type{encoderType, stringerType, errorType, formatterType} {
		if t.Implements(m) || reflect.PointerTo(t).Implements(m) {
			return false
		}
	}
	_, zeroable := t.MethodByName("IsZero") // go-querystring's omitempty asks it
	return !zeroable
}

func newPlan(t reflect.Type) *queryPlan {
	p := &queryPlan{}
	for i := range t.NumField() {
		sf := t.Field(i)
		if sf.Anonymous || sf.Tag.Get("del") != "" || !plain(sf.Type) {
			return nil
		}
		tag := sf.Tag.Get("url")
		if !sf.IsExported() || tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if name == "" {
			name = sf.Name
		}
		f := queryField{name: name, index: i, omitEmpty: opts == "omitempty"}
		if opts != "" && opts != "omitempty" {
			return nil
		}
		switch k := sf.Type.Kind(); k {
		case reflect.String, reflect.Bool:
			f.kind = k
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
			f.kind = reflect.Int
		case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
			f.kind = reflect.Uint
		case reflect.Slice:
			if sf.Type.Elem().Kind() != reflect.String || !plain(sf.Type.Elem()) {
				return nil
			}
			f.kind = k
		default:
			return nil
		}
		p.fields = append(p.fields, f)
	}
	slices.SortStableFunc(p.fields, func(a, b queryField) int { return strings.Compare(a.name, b.name) })
	for i := 1; i < len(p.fields); i++ {
		if p.fields[i].name == p.fields[i-1].name {
			return nil // one key from two fields: go-querystring's order of values
		}
	}
	return p
}

// planned encodes params (a struct or a pointer to one) by its plan, with
// cursor, if set, as CursorParam in place of the params' own; ok is false
// when go-querystring must encode it.
func planned(params any, cursor string) (_ string, ok bool) {
	v := reflect.ValueOf(params)
	for v.Kind() == reflect.Pointer {
		if v.IsNil() {
			if cursor == "" {
				return "", true
			}
			return string(appendKV(nil, CursorParam, cursor)), true
		}
		v = v.Elem()
	}
	if v.Kind() != reflect.Struct {
		return "", false
	}
	p := planOf(v.Type())
	if p == nil {
		return "", false
	}
	var b []byte
	for _, f := range p.fields {
		if cursor != "" && f.name >= CursorParam {
			b = appendKV(b, CursorParam, cursor)
			cursor = ""
			if f.name == CursorParam {
				continue
			}
		}
		fv := v.Field(f.index)
		switch f.kind {
		case reflect.String:
			if s := fv.String(); s != "" || !f.omitEmpty {
				b = appendKV(b, f.name, s)
			}
		case reflect.Bool:
			if fv.Bool() || !f.omitEmpty {
				b = appendKV(b, f.name, strconv.FormatBool(fv.Bool()))
			}
		case reflect.Int:
			if n := fv.Int(); n != 0 || !f.omitEmpty {
				b = appendKV(b, f.name, strconv.FormatInt(n, 10))
			}
		case reflect.Uint:
			if n := fv.Uint(); n != 0 || !f.omitEmpty {
				b = appendKV(b, f.name, strconv.FormatUint(n, 10))
			}
		case reflect.Slice:
			for i := range fv.Len() {
				b = appendKV(b, f.name, fv.Index(i).String())
			}
		}
	}
	if cursor != "" {
		b = appendKV(b, CursorParam, cursor)
	}
	return string(b), true
}

// appendKV appends "k=v", escaped, after a "&" unless b is empty.
func appendKV(b []byte, k, v string) []byte {
	if len(b) > 0 {
		b = append(b, '&')
	}
	b = append(b, url.QueryEscape(k)...)
	b = append(b, '=')
	return append(b, url.QueryEscape(v)...)
}
