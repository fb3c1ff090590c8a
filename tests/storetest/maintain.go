package storetest

import (
	"context"
	"encoding/json"
	"strconv"
	"testing"
	"time"

	"github.com/dynamopg/dynamopg/server/attr"
	"github.com/dynamopg/dynamopg/server/store"
	"github.com/dynamopg/dynamopg/server/store/maintain"
)

// The background work of store/maintain, over each store: the loops Start
// runs, and the passes they make.
func exerciseMaintain(ctx context.Context, t *testing.T, newStore func(t *testing.T) store.Store) {
	t.Run("Start/TTLSweep", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		tbl := newTable("ttlloop", key("pk", attr.TypeS), nil)
		tbl.Options = map[string][]byte{}
		tbl.Options[store.OptionTTL], _ = json.Marshal(store.TTLSpec{AttributeName: "exp", Enabled: true})
		tbl = createTable(ctx, t, s, withStream(tbl, true, streamLabel))
		exp := attr.Num(strconv.FormatInt(time.Now().Unix()-1, 10))
		put(ctx, t, s, tbl, attr.Item{"pk": attr.Str("a"), "exp": exp})
		put(ctx, t, s, tbl, attr.Item{"pk": attr.Str("b"), "exp": attr.Num(strconv.FormatInt(time.Now().Unix()+3600, 10))})

		loops := maintain.Start(s, maintain.Options{TTLSweep: 50 * time.Millisecond})
		defer loops.Stop()
		deadline := time.Now().Add(10 * time.Second)
		for {
			it, err := s.ItemGet(ctx, tbl, attr.Item{"pk": attr.Str("a")})
			requireNoError(t, err, "ItemGet")
			if it == nil {
				break
			}
			requireTrue(t, time.Now().Before(deadline), "the sweeper did not delete the expired item")
			time.Sleep(20 * time.Millisecond)
		}
		it, err := s.ItemGet(ctx, tbl, attr.Item{"pk": attr.Str("b")})
		requireNoError(t, err, "ItemGet b")
		requireTrue(t, it != nil, "the sweeper deleted an item that has not expired")
		recs, err := s.StreamRead(ctx, tbl.ID, streamLabel, 0, 10)
		requireNoError(t, err, "StreamRead")
		requireTrue(t, len(recs) == 3 && recs[2].EventName == "REMOVE" && recs[2].TTL,
			"stream records after the sweep: %+v", recs)
	})

	t.Run("Start/StreamTrim", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		tbl := createTable(ctx, t, s, withStream(newTable("trimloop", key("pk", attr.TypeS), nil), true, streamLabel))
		put(ctx, t, s, tbl, attr.Item{"pk": attr.Str("a")})
		// A trim pass as of now keeps records younger than the retention.
		requireNoError(t, maintain.TrimStreams(ctx, s, time.Now()), "TrimStreams now")
		first, last, err := s.StreamBounds(ctx, tbl.ID, streamLabel)
		requireNoError(t, err, "StreamBounds")
		requireTrue(t, first != 0 && first == last, "bounds after a trim as of now: %d, %d", first, last)
		// As of a day and a bit later, the record has expired.
		requireNoError(t, maintain.TrimStreams(ctx, s, time.Now().Add(store.StreamRetention+time.Minute)), "TrimStreams later")
		first, last, err = s.StreamBounds(ctx, tbl.ID, streamLabel)
		requireNoError(t, err, "StreamBounds after")
		requireTrue(t, first == 0 && last == 0, "bounds after the retention: %d, %d", first, last)
		// The loop makes its first pass at once, and stops when told.
		loops := maintain.Start(s, maintain.Options{StreamTrim: time.Hour, TTLSweep: time.Hour, TokenPurge: time.Hour, TokenTTL: time.Minute})
		done := make(chan struct{})
		go func() { loops.Stop(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Fatal("Stop did not return")
		}
	})

	t.Run("PurgeTokens", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		_, b := txTables(ctx, t, s)
		acct := attr.Item{"id": attr.Str("acct"), "n": num(t, "100")}
		b.put(ctx, t, s, acct)
		target := []store.TxTarget{{Table: b.tbl, Key: b.tbl.KeyOf(acct)}}
		add := func(olds []attr.Item) ([]store.TxWrite, error) {
			return []store.TxWrite{{Put: withN(olds[0], intOf(olds[0]["n"])+1)}}, nil
		}
		const ttl = 10 * time.Minute
		t0 := time.Now().Truncate(time.Millisecond)
		tok := func(h string) store.TxToken {
			return store.TxToken{Token: "purged", Hash: []byte(h), Now: t0, TTL: ttl}
		}
		_, err := s.ItemTransactToken(ctx, target, tok("one"), add)
		requireNoError(t, err, "ItemTransactToken")

		n, err := maintain.PurgeTokens(ctx, s, t0, ttl)
		requireNoError(t, err, "PurgeTokens of a live token")
		requireEqual(t, n, int64(0), "tokens purged while live")
		_, err = s.ItemTransactToken(ctx, target, tok("two"), add)
		requireErrorIs(t, err, store.ErrTokenMismatch, "a live token reused for another request")

		n, err = maintain.PurgeTokens(ctx, s, t0.Add(ttl), ttl)
		requireNoError(t, err, "PurgeTokens")
		requireEqual(t, n, int64(1), "tokens purged once forgotten")
		// Purged: the same token at the same instant is new again.
		rep, err := s.ItemTransactToken(ctx, target, tok("two"), add)
		requireNoError(t, err, "ItemTransactToken after the purge")
		requireTrue(t, !rep, "a purged token replayed")
	})
}
