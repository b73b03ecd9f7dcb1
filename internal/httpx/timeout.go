package httpx

// IsTimeout reports whether any error in err's tree says Timeout(). It
// walks the tree itself: errors.As stops at the first net.Error, and a
// *url.Error's Timeout asks only its direct cause.
func IsTimeout(err error) bool {
	for err != nil {
		if t, ok := err.(interface{ Timeout() bool }); ok && t.Timeout() {
			return true
		}
		switch u := err.(type) {
		case interface{ Unwrap() error }:
			err = u.Unwrap()
		case interface{ Unwrap() []error }:
			for _, e := range u.Unwrap() {
				if IsTimeout(e) {
					return true
				}
			}
			return false
		default:
			return false
		}
	}
	return false
}
