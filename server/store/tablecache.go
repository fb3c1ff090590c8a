package store

import (
	"context"
	"sync"
)

// TableCache is the in-memory half of a store's table cache: descriptions
// by table name, served only while the store's invalidation channel works
// (pgstore's LISTEN connection, sqlitestore's catalog poller: Reset(true)
// once it does, Reset(false) when it fails). Its epoch counts
// invalidations, so that a description read from the catalog is not stored
// when the table changed (or the channel was reset) while it was being
// read. The zero value serves nothing until Reset(true).
type TableCache struct {
	mu      sync.Mutex
	live    bool
	epoch   uint64
	entries map[string]*Table
}

// Lookup returns name's description, and otherwise the epoch a load must
// pass to Store.
func (c *TableCache) Lookup(name string) (*Table, uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.entries[name], c.epoch
}

// Store keeps t as name's description unless the cache was invalidated
// since epoch or does not serve.
func (c *TableCache) Store(name string, t *Table, epoch uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.live || c.epoch != epoch {
		return
	}
	if c.entries == nil {
		c.entries = map[string]*Table{}
	}
	c.entries[name] = t
}

// Forget drops the descriptions of names.
func (c *TableCache) Forget(names ...string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.epoch++
	for _, n := range names {
		delete(c.entries, n)
	}
}

// Reset empties the cache and makes it serve (live) or not.
func (c *TableCache) Reset(live bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.epoch++
	c.live = live
	c.entries = nil
}

// Get is TableGetCached over the cache: name's description from memory
// (cached), else from load (TableGet), stored when nothing invalidated the
// cache meanwhile.
func (c *TableCache) Get(ctx context.Context, name string, load func(context.Context, string) (*Table, error)) (t *Table, cached bool, err error) {
	t, epoch := c.Lookup(name)
	if t != nil {
		return t, true, nil
	}
	if t, err = load(ctx, name); err != nil {
		return nil, false, err
	}
	c.Store(name, t, epoch)
	return t, false, nil
}
