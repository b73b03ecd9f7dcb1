package sdktest

import (
	"net/http"
	"slices"
	"strconv"

	"github.com/memberplatform/memberplatform-go/internal/core"
	"github.com/memberplatform/memberplatform-go/internal/validate"
)

// defaultPageSize is the fake's page size for a list request without a
// limit: its choice, which the contract leaves open.
const defaultPageSize = 20 //nolint:unused // used by page

// page answers one page of a cursor-paged list (core's convention,
// pager.go) of records, held in a map by ID, the caller holding s.mu: the
// records in ID order, copied, from the first after the request's cursor
// (the ID of the previous page's last, so a record removed in between
// moves no other), at most its limit of them (1 to validate.MaxLimit,
// defaultPageSize without one), with the next page's cursor while any
// remain. A limit that is no number in range is a 400 naming "?limit". A
// list handler is this call under the lock:
//
//	s.mu.Lock()
//	defer s.mu.Unlock()
//	return page(r, s.users)
//
//nolint:unused // the handler of every list calls it; the contract has none yet
func page[T any](r *http.Request, records map[string]*T) (int, any, *apiError) {
	q := r.URL.Query()
	limit := defaultPageSize
	if raw := q.Get(validate.LimitParam); raw != "" {
		n, err := strconv.Atoi(raw)
		if err != nil || n < 1 || n > validate.MaxLimit {
			pointer := "?" + validate.LimitParam
			return 0, nil, newError("bad-request", "invalid query parameter "+validate.LimitParam,
				fieldError{pointer: pointer, field: pointer, message: validate.LimitMessage})
		}
		limit = n
	}
	ids := make([]string, 0, len(records))
	for id := range records {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	start, found := slices.BinarySearch(ids, q.Get(core.CursorParam))
	if found {
		start++
	}
	end := min(start+limit, len(ids))
	items := make([]T, 0, end-start)
	for _, id := range ids[start:end] {
		items = append(items, *records[id])
	}
	body := map[string]any{core.PageItems: items}
	if end < len(ids) {
		body[core.PageNext] = ids[end-1]
	}
	return http.StatusOK, body, nil
}
