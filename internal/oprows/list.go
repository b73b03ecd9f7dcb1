package oprows

import (
	"context"
	"iter"

	memberplatform "github.com/memberplatform/memberplatform-go"
	"github.com/memberplatform/memberplatform-go/client"
	"github.com/memberplatform/memberplatform-go/option"
)

// List returns the row r of a list whose methods are items (its items
// across pages) and pages (its pages): r with Call returning the first
// page, and Items and Pages ranging through them.
func List[T any](r Row,
	items func(ctx context.Context, c *client.Client, opts ...option.RequestOption) iter.Seq2[*T, error],
	pages func(ctx context.Context, c *client.Client, opts ...option.RequestOption) iter.Seq2[*memberplatform.Page[T], error],
) Row {
	r.Call = func(ctx context.Context, c *client.Client, opts ...option.RequestOption) (any, error) {
		for p, err := range pages(ctx, c, opts...) {
			return p, err
		}
		return nil, nil // not reached: a list yields a page or an error
	}
	r.Items = func(ctx context.Context, c *client.Client, opts ...option.RequestOption) iter.Seq2[any, error] {
		return anyOf(items(ctx, c, opts...))
	}
	r.Pages = func(ctx context.Context, c *client.Client, opts ...option.RequestOption) iter.Seq2[any, error] {
		return anyOf(pages(ctx, c, opts...))
	}
	return r
}

func anyOf[T any](seq iter.Seq2[T, error]) iter.Seq2[any, error] {
	return func(yield func(any, error) bool) {
		for v, err := range seq {
			if err != nil { // an untyped nil beside it
				yield(nil, err)
				return
			}
			if !yield(v, nil) {
				return
			}
		}
	}
}
