package api

import (
	"context"
	"errors"
	"sync"

	"github.com/dynamopg/dynamopg/server/store"
)

// Item operations read their tables through the store's table cache when it
// has one (Tables.TableGetCached; pgstore's). A description from the cache can be out of
// date for as long as the change takes to be announced: an item write then
// fails with store.ErrStaleTable before writing, and a read of a table or
// index that has since gone fails with ResourceNotFoundException or
// ValidationException. Call answers each of these by dropping the tables the
// request read from the cache and running it once more on fresh
// descriptions.

// staleReruns bounds the reruns of one request (each one follows a catalog
// change that landed during the previous run).
const staleReruns = 3

// tableUse records the tables one run of a request read from the cache.
// It is the run's context (its Value answers tableUseKey), so a request
// pays one allocation for it.
type tableUse struct {
	context.Context
	mu     sync.Mutex
	names  []string
	small  [2]string // names' first backing array
	cached bool      // one of them came from memory, not from the catalog
}

type tableUseKey struct{}

func (u *tableUse) Value(key any) any {
	if _, ok := key.(tableUseKey); ok {
		return u
	}
	return u.Context.Value(key)
}

func (u *tableUse) add(name string, cached bool) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.names = append(u.names, name)
	u.cached = u.cached || cached
}

// tableFor loads a table an item operation can use: missing and not-ACTIVE
// tables are ResourceNotFoundException.
func (a *API) tableFor(ctx context.Context, name string) (*store.Table, error) {
	u, _ := ctx.Value(tableUseKey{}).(*tableUse)
	t, hit, err := a.store.TableGetCached(ctx, name)
	if u != nil && err == nil {
		u.add(name, hit)
	}
	if err != nil {
		return nil, storeErr(err, "table get")
	}
	if t.Status == store.StatusCreating || t.Status == store.StatusDeleting {
		return nil, ResourceNotFoundError()
	}
	return t, nil
}

// callWithTables runs h, and runs it again (at most staleReruns times) when
// it failed in a way an out-of-date cached description explains.
func (a *API) callWithTables(ctx context.Context, h handler, r *Request) (any, error) {
	for run := 0; ; run++ {
		u := &tableUse{Context: ctx}
		u.names = u.small[:0]
		out, err := h(u, r)
		if err == nil || run == staleReruns || !staleExplains(err, u) {
			return out, err
		}
		for _, n := range u.names {
			a.store.TableForget(n)
		}
		a.log.DebugContext(ctx, "request ran on an out-of-date table description; running it again", "tables", u.names, "err", err)
	}
}

// staleExplains reports whether err may come from a cached description
// that is out of date.
func staleExplains(err error, u *tableUse) bool {
	if errors.Is(err, store.ErrStaleTable) {
		return true
	}
	u.mu.Lock()
	cached := u.cached
	u.mu.Unlock()
	var e *Error
	if !cached || !errors.As(err, &e) {
		return false
	}
	return e.Name() == "ResourceNotFoundException" || e.Name() == "ValidationException"
}
