package observe

// Validator is an optional interface of an Observer whose configuration
// may be unusable, such as an interface holding a nil pointer that would
// panic when first used. option.WithObserver calls Validate before it
// keeps (or combines) the observer, and an error fails client.New with an
// *errors.ValidationError whose message is the error's text.
type Validator interface {
	Validate() error
}
