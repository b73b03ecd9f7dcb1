package memberplatform

import (
	"unsafe"

	"github.com/memberplatform/memberplatform-go/internal/rawjson"
)

// Raw holds the JSON body a result was decoded from. Every result type of
// the SDK (accessmgmt.ProviderUser, payments.PaymentMethod,
// customer.MemberAddress, and any added later) embeds it, tagged
// `json:"-"`, so that a field the platform sends before the SDK knows it
// can be read: decode RawJSON() into a struct of your own. A type of your
// own passed to client.Execute as its out gets it too, by embedding Raw
// the same way (the tag keeps it out of the type's JSON).
//
// Raw is a string, so == still compiles on the types that embed it (it
// compares the bodies), and encoding/gob keeps it. A decoded result
// therefore differs from one built by hand under == and reflect.DeepEqual
// unless both hold the same body: set one with NewRaw, or clear one
// (got.Raw = ""). Equal makes go-cmp (cmp.Equal, cmp.Diff) compare results
// by their other fields alone.
//
// Printing a result with %v or %+v, or logging it whole, prints its body
// too, members the SDK does not decode included: log the fields you need.
// The body is the one read from the response, not a copy; a list's items
// each hold their own item's JSON.
type Raw string

// NewRaw returns a Raw holding a copy of body, for a result built by hand
// in a test or a fake that should look decoded from body.
func NewRaw(body []byte) Raw {
	return Raw(body)
}

// RawJSON returns a copy of the response body the result was decoded from:
// nil when there was none (an empty or null 2xx body) or the value was
// built by hand. It costs nothing until it is called.
func (r Raw) RawJSON() []byte {
	if r == "" {
		return nil
	}
	return []byte(r)
}

// Equal reports true for any two Raw values: for go-cmp, whose cmp.Equal
// and cmp.Diff call it, the body a result was decoded from is not part of
// its value, so a decoded result equals one built by hand with the same
// fields.
func (Raw) Equal(Raw) bool { return true }

// keep stores body without copying it (see rawjson.Keep): the pipeline
// never writes to a body it has read.
func (r *Raw) keep(body []byte) {
	*r = Raw(unsafe.String(unsafe.SliceData(body), len(body)))
}

// rawKeeper is a pointer to a type that embeds Raw.
type rawKeeper interface{ keep(body []byte) }

func init() {
	rawjson.Keep = func(result any, body []byte) bool {
		k, ok := result.(rawKeeper)
		if ok {
			k.keep(body)
		}
		return ok
	}
}
