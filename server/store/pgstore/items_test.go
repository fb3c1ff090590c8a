package pgstore_test

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/dynamopg/dynamopg/server/attr"
	"github.com/dynamopg/dynamopg/server/store"
)

// equalItems compares items with attr.Equal.
func equalItems(a, b attr.Item) bool {
	if len(a) != len(b) || (a == nil) != (b == nil) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || !attr.Equal(v, w) {
			return false
		}
	}
	return true
}

func TestItemWrite(t *testing.T) {
	ctx := context.Background()
	s := newStore(t)
	tb := newTable(t, s, "items", attr.TypeS, attr.TypeNone)
	key := attr.Item{"pk": attr.Str("k")}
	v1 := attr.Item{"pk": attr.Str("k"), "a": attr.Num("1"), "m": attr.Map(map[string]attr.Value{"x": attr.List([]attr.Value{attr.Bool(true), attr.Null()})}),
		"ss": {T: attr.TypeSS, Strs: []string{"a", "b"}}, "bs": {T: attr.TypeBS, Bins: [][]byte{{0, 1}, {255}}}, "b": attr.Bin([]byte{0, 0xff})}
	v2 := attr.Item{"pk": attr.Str("k"), "a": attr.Num("2")}

	t.Run("Put", func(t *testing.T) {
		old, err := s.ItemWrite(ctx, tb, key, func(o attr.Item) (attr.Item, error) {
			if o != nil {
				t.Errorf("old %v", o)
			}
			return v1, nil
		})
		if err != nil || old != nil {
			t.Fatalf("put: %v %v", old, err)
		}
		got, err := s.ItemGet(ctx, tb, key)
		if err != nil || !equalItems(got, v1) {
			t.Fatalf("get %v %v", got, err)
		}
	})
	t.Run("Replace", func(t *testing.T) {
		old, err := s.ItemWrite(ctx, tb, key, func(o attr.Item) (attr.Item, error) { return v2, nil })
		if err != nil || !equalItems(old, v1) {
			t.Fatalf("replace: %v %v", old, err)
		}
		if got, _ := s.ItemGet(ctx, tb, key); !equalItems(got, v2) {
			t.Errorf("after replace %v", got)
		}
	})
	t.Run("FnError", func(t *testing.T) {
		boom := errors.New("boom")
		_, err := s.ItemWrite(ctx, tb, key, func(o attr.Item) (attr.Item, error) { return nil, boom })
		if err != boom {
			t.Errorf("err %v", err)
		}
		if got, _ := s.ItemGet(ctx, tb, key); !equalItems(got, v2) {
			t.Errorf("after fn error %v", got)
		}
	})
	t.Run("Delete", func(t *testing.T) {
		old, err := s.ItemWrite(ctx, tb, key, func(o attr.Item) (attr.Item, error) { return nil, nil })
		if err != nil || !equalItems(old, v2) {
			t.Fatalf("delete: %v %v", old, err)
		}
		if got, err := s.ItemGet(ctx, tb, key); got != nil || err != nil {
			t.Errorf("after delete %v %v", got, err)
		}
		old, err = s.ItemWrite(ctx, tb, key, func(o attr.Item) (attr.Item, error) { return nil, nil })
		if err != nil || old != nil {
			t.Errorf("delete of absent: %v %v", old, err)
		}
	})
	t.Run("NUL", func(t *testing.T) {
		// U+0000 and U+0001 in keys, values, names, sets and nested maps.
		for _, k := range []string{"\x00", "\x01", "a\x00b\x01c", "\x01\x01", "\x01\x02", `\u0000`} {
			it := attr.Item{"pk": attr.Str(k), "n\x00m": attr.Str("v\x00\x01\x02"), `q\u0001`: {T: attr.TypeSS, Strs: []string{"\x00", "\x01"}},
				"m": attr.Map(map[string]attr.Value{"\x01": attr.Str("\x00")})}
			put(t, s, tb, it)
			got, err := s.ItemGet(ctx, tb, attr.Item{"pk": attr.Str(k)})
			if err != nil || !equalItems(got, it) {
				t.Errorf("%q: got %#v, %v", k, got, err)
			}
		}
	})
}

func TestItemWriteConcurrentCreate(t *testing.T) {
	ctx := context.Background()
	s := newStore(t)
	tb := newTable(t, s, "race", attr.TypeS, attr.TypeS)
	key := attr.Item{"pk": attr.Str("p"), "sk": attr.Str("s")}
	errExists := errors.New("exists")
	var wins atomic.Int32
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := s.ItemWrite(ctx, tb, key, func(old attr.Item) (attr.Item, error) {
				if old != nil { // attribute_not_exists(pk)
					return nil, errExists
				}
				return attr.Item{"pk": attr.Str("p"), "sk": attr.Str("s"), "who": attr.Num(string(rune('0' + i%10)))}, nil
			})
			switch {
			case err == nil:
				wins.Add(1)
			case err != errExists:
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if wins.Load() != 1 {
		t.Errorf("%d creates won, want 1", wins.Load())
	}
}

func TestItemWriteConcurrentIncrement(t *testing.T) {
	ctx := context.Background()
	s := newStore(t)
	tb := newTable(t, s, "counter", attr.TypeS, attr.TypeNone,
		store.Index{Name: "byN", Global: true, Hash: store.KeyAttr{Name: "g", Type: attr.TypeS},
			Range: &store.KeyAttr{Name: "n", Type: attr.TypeN}, Projection: store.Projection{Type: "ALL"}})
	key := attr.Item{"pk": attr.Str("c")}
	var wg sync.WaitGroup
	for range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 10 {
				_, err := s.ItemWrite(ctx, tb, key, func(old attr.Item) (attr.Item, error) {
					n := "0"
					if old != nil {
						n = old["n"].S
					}
					sum, aerr := attr.AddNumbers(n, "1", false)
					if aerr != nil {
						return nil, aerr
					}
					return attr.Item{"pk": attr.Str("c"), "g": attr.Str("x"), "n": attr.Num(sum)}, nil
				})
				if err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	got, err := s.ItemGet(ctx, tb, key)
	if err != nil || got["n"].S != "200" {
		t.Fatalf("counter %v %v, want 200", got, err)
	}
	rows, err := s.ItemQuery(ctx, tb, store.QueryInput{Index: &tb.Indexes[0], Hash: attr.Str("x"), Forward: true})
	if err != nil || len(rows) != 1 || rows[0]["n"].S != "200" {
		t.Errorf("index rows %v %v", rows, err)
	}
}
