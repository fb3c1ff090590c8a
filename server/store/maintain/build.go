package maintain

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/dynamopg/dynamopg/server/store"
)

// buildWaitPoll bounds IndexBuildWait's polling interval.
const buildWaitPoll = 50 * time.Millisecond

// IndexBuildWait returns once the index named name of t is no longer
// CREATING (ACTIVE, or gone with its table or alone after a failed build or
// a delete), or with ctx's error. It polls the catalog, so it sees builds of
// any process.
func IndexBuildWait(ctx context.Context, s store.Store, t *store.Table, name string) error {
	delay := time.Millisecond
	for {
		cur, err := s.TableGet(ctx, t.Name)
		if errors.Is(err, store.ErrTableNotFound) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("maintain: index build wait: %w", err)
		}
		ix := cur.Index(name)
		if cur.ID != t.ID || ix == nil || ix.Status != store.StatusCreating {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("maintain: index build wait of %q index %q: %w", t.Name, name, ctx.Err())
		case <-time.After(delay):
		}
		delay = min(2*delay, buildWaitPoll)
	}
}
