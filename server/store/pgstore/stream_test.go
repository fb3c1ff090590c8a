package pgstore_test

import (
	"context"
	"encoding/json"
	"strconv"
	"testing"
	"time"

	"github.com/dynamopg/dynamopg/server/attr"
	"github.com/dynamopg/dynamopg/server/store"
	"github.com/dynamopg/dynamopg/server/store/pgstore"
	"github.com/dynamopg/dynamopg/tests/pgtest"
)

// TestTTLSweeperLoop: the background sweeper Open starts deletes an expired
// item within a few intervals, recording a TTL deletion.
func TestTTLSweeperLoop(t *testing.T) {
	ctx := context.Background()
	s, err := pgstore.Open(ctx, pgtest.URL(t), pgstore.Options{Migrate: true, TTLInterval: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	tb := &store.Table{Name: "ttl", Status: store.StatusActive, Hash: store.KeyAttr{Name: "pk", Type: attr.TypeS},
		AttributeDefinitions: []store.KeyAttr{{Name: "pk", Type: attr.TypeS}}, BillingMode: "PAY_PER_REQUEST",
		Options: map[string][]byte{}}
	tb.Options[store.OptionTTL], _ = json.Marshal(store.TTLSpec{AttributeName: "exp", Enabled: true})
	tb.Options[store.OptionStream], _ = json.Marshal(store.StreamSpec{Enabled: true, Label: "l"})
	if err := s.TableCreate(ctx, tb); err != nil {
		t.Fatal(err)
	}
	exp := attr.Num(strconv.FormatInt(time.Now().Unix()-1, 10))
	put(t, s, tb, attr.Item{"pk": attr.Str("a"), "exp": exp})
	deadline := time.Now().Add(10 * time.Second)
	for {
		it, err := s.ItemGet(ctx, tb, attr.Item{"pk": attr.Str("a")})
		if err != nil {
			t.Fatal(err)
		}
		if it == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the sweeper did not delete the expired item")
		}
		time.Sleep(20 * time.Millisecond)
	}
	recs, err := s.StreamRead(ctx, tb.ID, "l", 0, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 2 || recs[1].EventName != "REMOVE" || !recs[1].TTL {
		t.Fatalf("records: %+v", recs)
	}
}
