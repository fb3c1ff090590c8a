package pgstore

import (
	"context"

	"github.com/dynamopg/dynamopg/gen"
	"github.com/dynamopg/dynamopg/server/store"
)

// Deleted tables whose streams are still readable (store.DeletedTable):
// TableDelete records them in dynamopg.deleted_tables when it marks the
// table DELETING (tables.go), stream_trim forgets them with their records.

// DeletedTableGet returns the latest deleted table named name that had the
// stream label.
func (s *Store) DeletedTableGet(ctx context.Context, name, label string) (*store.DeletedTable, error) {
	row, err := s.q.DeletedTableGet(ctx, s.pool, gen.DeletedTableGetParams{Name: name, Label: label})
	if err != nil {
		return nil, wrap("deleted table get", err) // none: store.ErrTableNotFound
	}
	t, err := decodeTable(row.Def)
	if err != nil {
		return nil, err
	}
	return &store.DeletedTable{Table: t, DeletedAt: row.DeletedAt.Time}, nil
}

// DeletedTableList returns the deleted tables kept, those named name (""
// for all), in name order, the latest deletion first.
func (s *Store) DeletedTableList(ctx context.Context, name string) ([]store.DeletedTable, error) {
	rows, err := s.q.DeletedTableList(ctx, s.pool, gen.DeletedTableListParams{Name: name})
	if err != nil {
		return nil, wrap("deleted table list", err)
	}
	out := make([]store.DeletedTable, 0, len(rows))
	for _, r := range rows {
		t, err := decodeTable(r.Def)
		if err != nil {
			return nil, err
		}
		out = append(out, store.DeletedTable{Table: t, DeletedAt: r.DeletedAt.Time})
	}
	return out, nil
}
