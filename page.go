package memberplatform

// Page is one page of a cursor-paged list, as a list operation's Pages
// method yields it (ListXPages, beside ListX, which yields the items one by
// one across pages). No operation of the contract is a list yet: the pager
// is there for the first that is (CONTRIBUTING.md).
type Page[T any] struct {
	// Items are the page's items, each keeping its own JSON (Raw).
	Items []T
	// NextCursor is the cursor of the page after this one, "" on the last
	// page. To resume the list there later, set it as the Cursor of the
	// list's params.
	NextCursor string
}
