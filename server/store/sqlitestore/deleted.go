package sqlitestore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/dynamopg/dynamopg/server/store"
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
	_, err = tx.ExecContext(ctx, `
INSERT INTO deleted_tables (table_id, name, labels, def, deleted_at) VALUES (?, ?, ?, ?, ?)
ON CONFLICT (table_id) DO NOTHING`, t.ID, t.Name, string(lb), string(def), time.Now().UnixNano())
	if err != nil {
		return fmt.Errorf("record deleted table %q: %w", t.Name, err)
	}
	return nil
}

// DeletedTableGet returns the latest deleted table named name that had the
// stream label.
func (s *Store) DeletedTableGet(ctx context.Context, name, label string) (*store.DeletedTable, error) {
	var def []byte
	var deleted int64
	err := s.reader.QueryRowContext(ctx, `
SELECT d.def, d.deleted_at FROM deleted_tables d
 WHERE d.name = ? AND EXISTS (SELECT 1 FROM json_each(d.labels) l WHERE l.value = ?)
 ORDER BY d.deleted_at DESC LIMIT 1`, name, label).Scan(&def, &deleted)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("deleted table %q with stream %s: %w", name, label, store.ErrTableNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("sqlitestore: deleted table get %q: %w", name, err)
	}
	t, err := decodeDef(def)
	if err != nil {
		return nil, fmt.Errorf("sqlitestore: deleted table get %q: %w", name, err)
	}
	return &store.DeletedTable{Table: t, DeletedAt: time.Unix(0, deleted).UTC()}, nil
}

// DeletedTableList returns the deleted tables kept, those named name (""
// for all), in name order, the latest deletion first.
func (s *Store) DeletedTableList(ctx context.Context, name string) ([]store.DeletedTable, error) {
	rows, err := s.reader.QueryContext(ctx, `
SELECT def, deleted_at FROM deleted_tables
 WHERE ? = '' OR name = ?
 ORDER BY name, deleted_at DESC`, name, name)
	if err != nil {
		return nil, fmt.Errorf("sqlitestore: deleted table list: %w", err)
	}
	defer rows.Close()
	var out []store.DeletedTable
	for rows.Next() {
		var def []byte
		var deleted int64
		if err := rows.Scan(&def, &deleted); err != nil {
			return nil, fmt.Errorf("sqlitestore: deleted table list: %w", err)
		}
		t, err := decodeDef(def)
		if err != nil {
			return nil, fmt.Errorf("sqlitestore: deleted table list: %w", err)
		}
		out = append(out, store.DeletedTable{Table: t, DeletedAt: time.Unix(0, deleted).UTC()})
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlitestore: deleted table list: %w", err)
	}
	return out, nil
}
