package sqlitestore

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/dynamopg/dynamopg/server/store"
	"github.com/dynamopg/dynamopg/server/store/sqlitestore/internal/sqlitedb"
)

// Deleted tables whose streams are still readable (store.DeletedTable):
// TableDelete records them in deleted_tables, StreamTrim forgets them with
// their records.

// recordDeleted keeps the catalog entry of a table being deleted in tx, if
// it has a stream label.
func recordDeleted(ctx context.Context, tx *sql.Tx, t *store.Table) error {
	labels := store.StreamLabels(t)
	if len(labels) == 0 {
		return nil
	}
	lb, err := json.Marshal(labels)
	if err != nil {
		return fmt.Errorf("encode stream labels of %q: %w", t.Name, err)
	}
	def, err := json.Marshal(t)
	if err != nil {
		return fmt.Errorf("encode table %q: %w", t.Name, err)
	}
	err = queries.DeletedTableRecord(ctx, tx, sqlitedb.DeletedTableRecordParams{
		TableID: t.ID, Name: t.Name, Labels: string(lb), Def: string(def), DeletedAt: time.Now().UnixNano(),
	})
	if err != nil {
		return fmt.Errorf("record deleted table %q: %w", t.Name, err)
	}
	return nil
}

// DeletedTableGet returns the latest deleted table named name that had the
// stream label.
func (s *Store) DeletedTableGet(ctx context.Context, name, label string) (*store.DeletedTable, error) {
	rows, err := queries.DeletedTableGetByName(ctx, s.reader, sqlitedb.DeletedTableGetByNameParams{Name: name})
	if err != nil {
		return nil, fmt.Errorf("sqlitestore: deleted table get %q: %w", name, interpretError(err))
	}
	for _, r := range rows {
		var labels []string
		if err := json.Unmarshal([]byte(r.Labels), &labels); err != nil {
			return nil, fmt.Errorf("sqlitestore: deleted table get %q: stream labels: %w", name, err)
		}
		if !slices.Contains(labels, label) {
			continue
		}
		t, err := decodeDef(r.Def, 0)
		if err != nil {
			return nil, fmt.Errorf("sqlitestore: deleted table get %q: %w", name, err)
		}
		return &store.DeletedTable{Table: t, DeletedAt: time.Unix(0, r.DeletedAt).UTC()}, nil
	}
	return nil, fmt.Errorf("deleted table %q with stream %s: %w", name, label, store.ErrTableNotFound)
}

// DeletedTableList returns the deleted tables kept, those named name (""
// for all), in name order, the latest deletion first.
func (s *Store) DeletedTableList(ctx context.Context, name string) ([]store.DeletedTable, error) {
	rows, err := queries.DeletedTableList(ctx, s.reader, sqlitedb.DeletedTableListParams{Name: name})
	if err != nil {
		return nil, fmt.Errorf("sqlitestore: deleted table list: %w", interpretError(err))
	}
	var out []store.DeletedTable
	for _, r := range rows {
		t, err := decodeDef(r.Def, 0)
		if err != nil {
			return nil, fmt.Errorf("sqlitestore: deleted table list: %w", err)
		}
		out = append(out, store.DeletedTable{Table: t, DeletedAt: time.Unix(0, r.DeletedAt).UTC()})
	}
	return out, nil
}
