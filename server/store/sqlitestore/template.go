package sqlitestore

import (
	_ "embed"
	"fmt"
	"strings"
	"sync"
	"text/template"
)

// The statements sqlc cannot take (sql/storage.sql): those on a table's or
// an index's own storage (t_<id>, i_<id>), the Query and Scan variants, and
// a few sqlc does not parse. This file is the one place they are rendered.

//go:embed sql/storage.sql
var storageSQL string

// storageTemplates holds every section of sql/storage.sql by name, parsed
// at init: a malformed file fails every test.
var storageTemplates = parseStorage(storageSQL)

// stmtVars are the fields the templates render with (see sql/storage.sql).
type stmtVars struct {
	ID      int64  // storage id: t_<ID> or i_<ID>
	Op      string // Query's sort key condition: "" or a sort_key_condition operator
	After   bool   // an exclusive start key is bound
	Desc    bool   // a Query reads backwards
	Version int    // user_version_set
	Col     string // set by On, for a sub-template on one column
	// The key layout of an index (keycols.go): its partition and sort
	// attributes beyond the first (a multi-attribute key; 0 for a
	// single-attribute one), and a Query's equalities after ipk.
	MoreHash, MoreSort, Eq int
}

// On is v for a sub-template that works on column col (.Col).
func (v stmtVars) On(col string) stmtVars {
	v.Col = col
	return v
}

// parseStorage splits the file into its sections (a line "-- name: X"
// starts section X), drops each section's leading comment (its
// documentation, which SQLite need not parse at every statement) and parses
// the rest as one template set, so that a section can call another.
func parseStorage(src string) *template.Template {
	set := template.New("storage.sql").Option("missingkey=error")
	var name string
	var body []string
	flush := func() {
		if name == "" {
			return // the file's preamble
		}
		for len(body) > 0 && strings.HasPrefix(body[0], "--") {
			body = body[1:]
		}
		text := strings.TrimSpace(strings.Join(body, ""))
		if text == "" || set.Lookup(name) != nil {
			panic(fmt.Sprintf("sqlitestore: sql/storage.sql: section %q is empty or repeated", name))
		}
		template.Must(set.New(name).Parse(text))
	}
	for _, line := range strings.SplitAfter(src, "\n") {
		if n, ok := strings.CutPrefix(line, "-- name: "); ok {
			flush()
			name, body = strings.TrimSpace(n), nil
			continue
		}
		body = append(body, line)
	}
	flush()
	return set
}

// render executes one template.
func render(name string, v stmtVars) (string, error) {
	t := storageTemplates.Lookup(name)
	if t == nil {
		return "", fmt.Errorf("sqlitestore: no statement %q in sql/storage.sql", name)
	}
	var b strings.Builder
	if err := t.Execute(&b, v); err != nil {
		return "", fmt.Errorf("sqlitestore: render %s: %w", name, err)
	}
	return b.String(), nil
}

// stmtKey names one rendered statement.
type stmtKey struct {
	name string
	vars stmtVars
}

// stmts caches the statements a store renders: a statement's text depends
// only on its name and variables, and the hot ones (an item's get and put)
// run at every write.
type stmts struct {
	mu    sync.RWMutex
	texts map[stmtKey]string
}

// get returns the text of statement name for v, rendering it on first use.
// Names and variables are the code's own, so a failure is a bug in this
// package (or in sql/storage.sql), which every test would hit: it panics.
func (c *stmts) get(name string, v stmtVars) string {
	k := stmtKey{name, v}
	c.mu.RLock()
	q, ok := c.texts[k]
	c.mu.RUnlock()
	if ok {
		return q
	}
	q, err := render(name, v)
	if err != nil {
		panic(err)
	}
	c.mu.Lock()
	if c.texts == nil {
		c.texts = map[stmtKey]string{}
	}
	c.texts[k] = q
	c.mu.Unlock()
	return q
}

// on is get for a statement on storage id alone.
func (c *stmts) on(name string, id int64) string {
	return c.get(name, stmtVars{ID: id})
}

// forget drops the statements on storage id (its table or index was
// dropped; a table and an index may share an id, which costs the other a
// render at its next use).
func (c *stmts) forget(id int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for k := range c.texts {
		if k.vars.ID == id {
			delete(c.texts, k)
		}
	}
}
