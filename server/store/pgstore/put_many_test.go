package pgstore_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/dynamopg/dynamopg/server/attr"
	"github.com/dynamopg/dynamopg/server/store"
)

// TestItemWriteBlindMany: a batch's old items come back in the caller's
// order, puts and deletes mixed; batches writing the same keys in opposite
// orders at once never deadlock (lockOrder) and all succeed.
func TestItemWriteBlindMany(t *testing.T) {
	ctx := context.Background()
	s := newStore(t)
	tb := newTable(t, s, "many", attr.TypeS, attr.TypeNone)
	item := func(k string, v int) attr.Item {
		return attr.Item{"pk": attr.Str(k), "v": attr.Num(fmt.Sprint(v))}
	}
	put(t, s, tb, item("b", 1))
	put(t, s, tb, item("d", 1))
	ops := []store.BlindOp{
		{Table: tb, Key: attr.Item{"pk": attr.Str("d")}, Put: item("d", 2)},
		{Table: tb, Key: attr.Item{"pk": attr.Str("a")}, Put: item("a", 2)},
		{Table: tb, Key: attr.Item{"pk": attr.Str("b")}},
		{Table: tb, Key: attr.Item{"pk": attr.Str("c")}},
	}
	olds, err := s.ItemWriteBlindMany(ctx, ops)
	if err != nil {
		t.Fatal(err)
	}
	want := []attr.Item{item("d", 1), nil, item("b", 1), nil}
	for i := range want {
		if !equalItems(olds[i], want[i]) {
			t.Errorf("old of op %d = %v, want %v", i, olds[i], want[i])
		}
	}
	for k, w := range map[string]attr.Item{"a": item("a", 2), "b": nil, "c": nil, "d": item("d", 2)} {
		got, err := s.ItemGet(ctx, tb, attr.Item{"pk": attr.Str(k)})
		if err != nil {
			t.Fatal(err)
		}
		if !equalItems(got, w) {
			t.Errorf("item %s = %v, want %v", k, got, w)
		}
	}

	var keys []string
	for i := range 12 {
		keys = append(keys, fmt.Sprintf("k%02d", i))
	}
	var wg sync.WaitGroup
	errs := make(chan error, 8*40)
	for w := range 8 {
		order := slices.Clone(keys)
		if w%2 == 1 {
			slices.Reverse(order)
		}
		wg.Go(func() {
			for n := range 40 {
				var batch []store.BlindOp
				for _, k := range order {
					batch = append(batch, store.BlindOp{Table: tb, Key: attr.Item{"pk": attr.Str(k)}, Put: item(k, w*1000+n)})
				}
				if _, err := s.ItemWriteBlindMany(ctx, batch); err != nil {
					errs <- err
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Errorf("concurrent batch: %v", err)
	}
}
