package storetest

import (
	"context"
	"math/big"
	"math/rand/v2"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/dynamopg/dynamopg/server/attr"
	"github.com/dynamopg/dynamopg/server/store"
)

// exerciseTransactCancel: transfers between accounts whose callers give up
// at random moments (a client that goes away cancels its request's
// context mid-write) are applied whole or not at all, and a write that was
// cancelled never takes a concurrent write of another caller with it.
// The total of the balances is the same afterwards.
func exerciseTransactCancel(ctx context.Context, t *testing.T, newStore func(t *testing.T) store.Store) {
	t.Run("ItemTransact/CancelledCallers", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		tbl := createTable(ctx, t, s, newTable("cancel_bank", key("pk", attr.TypeS), nil))
		const accounts, start = 10, 1000
		acct := func(i int) attr.Item { return attr.Item{"pk": attr.Str("a" + strconv.Itoa(i))} }
		for i := range accounts {
			it := acct(i)
			it["bal"] = attr.Num(strconv.Itoa(start))
			put(ctx, t, s, tbl, it)
		}
		balance := func(it attr.Item) int64 {
			n, _ := new(big.Int).SetString(it["bal"].S, 10)
			return n.Int64()
		}
		with := func(it attr.Item, bal int64) attr.Item {
			out := it.Clone()
			out["bal"] = attr.Num(strconv.FormatInt(bal, 10))
			return out
		}
		var wg sync.WaitGroup
		var mu sync.Mutex
		counts := map[string]int{}
		deadline := time.Now().Add(3 * time.Second)
		for g := range 8 {
			wg.Go(func() {
				rnd := rand.New(rand.NewPCG(uint64(g), 7))
				for i := 0; time.Now().Before(deadline); i++ {
					from := rnd.IntN(accounts)
					to := (from + 1 + rnd.IntN(accounts-1)) % accounts
					amount := int64(1 + rnd.IntN(50))
					cctx, cancel := context.WithCancel(ctx)
					if i%2 == 0 { // half the callers give up within 0-1.5 ms
						time.AfterFunc(time.Duration(rnd.IntN(1500))*time.Microsecond, cancel)
					}
					err := s.ItemTransact(cctx, []store.TxTarget{{Table: tbl, Key: acct(from)}, {Table: tbl, Key: acct(to)}},
						func(olds []attr.Item) ([]store.TxWrite, error) {
							if olds[0] == nil || olds[1] == nil {
								return nil, errorf("an account is missing")
							}
							if balance(olds[0]) < amount {
								return nil, errorf("insufficient")
							}
							return []store.TxWrite{
								{Put: with(olds[0], balance(olds[0])-amount)},
								{Put: with(olds[1], balance(olds[1])+amount)},
							}, nil
						})
					cancel()
					mu.Lock()
					switch {
					case err == nil:
						counts["ok"]++
					case cctx.Err() != nil:
						counts["cancelled"]++
					default:
						counts[err.Error()]++
					}
					mu.Unlock()
				}
			})
		}
		wg.Wait()
		var total int64
		for i := range accounts {
			it, err := s.ItemGet(ctx, tbl, acct(i))
			requireNoError(t, err, "ItemGet after the transfers")
			total += balance(it)
		}
		t.Logf("transfers: %v", counts)
		requireTrue(t, counts["ok"] > 0, "no transfer succeeded: %v", counts)
		requireEqual(t, total, int64(accounts*start), "the total of the balances after transfers with cancelled callers")
	})
}
