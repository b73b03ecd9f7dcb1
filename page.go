package memberplatform

// Page is one page of a cursor-paged list, as a list's Pages method yields
// it (accessmgmt.Service.ListUsersPages, say); the list's own method yields
// the items one by one across pages.
type Page[T any] struct {
	Items []T
	// NextCursor is the cursor of the page after this one, "" on the last
	// page. To resume the list there later, set it as the Cursor of the
	// list's params.
	NextCursor string
}
