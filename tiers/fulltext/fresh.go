package fulltext

import (
	"context"
	"errors"
)

// OpenFresh opens the index of h and brings it up to date with a quick
// update, as search and retrieval do before they read. An update that
// finds the index locked by another writer is skipped: the index is then
// read as it is, a little behind. Its warnings (an unreadable c4.db or
// file) are returned for the caller to show or drop.
func OpenFresh(ctx context.Context, h Scope, opts Options) (*Index, []string, error) {
	ix, err := Open(ctx, h, opts)
	if err != nil {
		return nil, nil, err
	}
	st, err := ix.Update(ctx, false)
	if err != nil && !errors.Is(err, ErrLocked) {
		ix.Close()
		return nil, nil, err
	}
	return ix, st.Warnings, nil
}
