package core

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"

	memberplatform "github.com/memberplatform/memberplatform-go"
	"github.com/memberplatform/memberplatform-go/internal/rawjson"
)

// The paging convention of every list operation (Operation.List): a GET
// whose query takes the cursor of the page to answer (none for the first)
// and whose 2xx body is {"data": [items], "nextCursor": "..."}, the next
// page's cursor absent, null or "" on the last page. sdktest answers lists
// so, and the shared operation tests check every list's iteration.
const (
	CursorParam = "cursor"     // the query parameter a page's cursor is sent in
	PageItems   = "data"       // the 2xx body's member holding the page's items
	PageNext    = "nextCursor" // the 2xx body's member holding the next page's cursor
)

// pageBody is a list's 2xx body (the members are PageItems and PageNext)
// and the cursor it answered. Its items are kept as JSON until
// checkResult decodes them, so that each item keeps its own JSON
// (memberplatform.Raw's RawJSON), as a result of a single call does.
type pageBody[T any] struct {
	Data       []json.RawMessage `json:"data"`
	NextCursor *string           `json:"nextCursor"`
	sent       string
	items      []T
}

// checkResult refuses a next cursor equal to the one sent (the list would
// never end), then decodes the items, each keeping its JSON. It runs once
// the body is decoded (decodeResult); an item that does not decode makes
// the page's body undecodable.
func (b *pageBody[T]) checkResult() error {
	if b.sent != "" && b.NextCursor != nil && *b.NextCursor == b.sent {
		return errSameCursor
	}
	b.items = make([]T, len(b.Data))
	for i, item := range b.Data {
		if err := json.Unmarshal(item, &b.items[i]); err != nil {
			return fmt.Errorf("item %d of the page's %s: %w", i, PageItems, err)
		}
		if !bytes.Equal(bytes.TrimSpace(item), []byte("null")) {
			rawjson.Keep(&b.items[i], item)
		}
	}
	return nil
}

// errSameCursor is the cause for a page whose next cursor is the one sent.
var errSameCursor = errors.New("the page's " + PageNext + " is the " + CursorParam + " it answered: the list would never end")

// Pages returns the pages of the list call (its first page's: Query the
// list's params, whose own cursor, if any, starts the list), each fetched
// through Do with opts when the range asks for it; each page after the
// first sends the query with the previous page's NextCursor as
// CursorParam (Call.Cursor). See PagesOf for how the range behaves.
func Pages[T, O any](ctx context.Context, c *Client, call Call, opts []O) iter.Seq2[*memberplatform.Page[T], error] {
	return PagesOf(func(cursor string) (*memberplatform.Page[T], error) {
		page := call // each page's own copy: Cursor and Result differ
		page.Cursor = cursor
		body := pageBody[T]{sent: cursor}
		page.Result = &body
		if err := Do(ctx, c, &page, opts); err != nil {
			return nil, err
		}
		p := &memberplatform.Page[T]{Items: body.items}
		if body.NextCursor != nil {
			p.NextCursor = *body.NextCursor
		}
		return p, nil
	})
}

// PagesOf ranges over the pages fetch returns, from the cursor "" (the
// list's start) to the first page without a NextCursor:
//   - a page is fetched only when the range asks for it, so a range that
//     breaks fetches nothing beyond the page it is in;
//   - the first error is yielded once, with a nil page, and ends the range
//     (fetch's context ending is such an error, from the next fetch);
//   - nothing runs beside the range: no goroutine is started.
//
// Each range starts the list again from its start.
func PagesOf[T any](fetch func(cursor string) (*memberplatform.Page[T], error)) iter.Seq2[*memberplatform.Page[T], error] {
	return func(yield func(*memberplatform.Page[T], error) bool) {
		cursor := ""
		for {
			p, err := fetch(cursor)
			if err != nil {
				yield(nil, err)
				return
			}
			if !yield(p, nil) || p.NextCursor == "" {
				return
			}
			cursor = p.NextCursor
		}
	}
}

// Items ranges over the items of pages, each a pointer into its page, in
// order; the first error is yielded once, with a nil item, and ends the
// range. Breaking ends pages' range too: nothing beyond the current page
// is fetched.
func Items[T any](pages iter.Seq2[*memberplatform.Page[T], error]) iter.Seq2[*T, error] {
	return func(yield func(*T, error) bool) {
		for p, err := range pages {
			if err != nil {
				yield(nil, err)
				return
			}
			for i := range p.Items {
				if !yield(&p.Items[i], nil) {
					return
				}
			}
		}
	}
}
