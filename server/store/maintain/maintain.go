// Package maintain is the background work that runs over the storage
// contract, written once for every store: the stream trim, the TTL sweeper
// and the purge of forgotten transaction tokens, each a loop of passes that
// cmd starts (Start), and the waits tests and tools use (IndexBuildWait).
// Work that needs a driver's own mechanism (pgstore's queue workers, index
// build recovery and drop sweeper; sqlitestore's queue worker and group
// committer) stays in the driver.
package maintain

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/dynamopg/dynamopg/server/store"
)

// Options say how often each loop makes a pass; 0 turns a loop off.
type Options struct {
	// StreamTrim is the interval of the stream trim (TrimStreams), which
	// also makes a pass at Start.
	StreamTrim time.Duration
	// TTLSweep is the interval of the TTL sweeper (SweepTTL).
	TTLSweep time.Duration
	// TokenPurge is the interval of the purge of transaction tokens older
	// than TokenTTL (PurgeTokens).
	TokenPurge time.Duration
	// TokenTTL is how long a client token is remembered (the API's
	// api.TxTokenTTL); tokens older than it are purged.
	TokenTTL time.Duration
	// Logger receives the loops' failures; slog.Default() when nil.
	Logger *slog.Logger
}

// Loops are the loops Start started.
type Loops struct {
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// Start starts the loops opts turns on, over s. Stop ends them.
func Start(s store.Store, opts Options) *Loops {
	log := opts.Logger
	if log == nil {
		log = slog.Default()
	}
	log = log.With("component", "maintain")
	ctx, cancel := context.WithCancel(context.Background())
	l := &Loops{cancel: cancel}
	if iv := opts.StreamTrim; iv > 0 {
		l.wg.Go(func() {
			every(ctx, 0, iv, func() {
				if err := TrimStreams(ctx, s, time.Now()); err != nil && ctx.Err() == nil {
					log.WarnContext(ctx, "stream trim failed", "err", err)
				}
			})
		})
	}
	if iv := opts.TTLSweep; iv > 0 {
		l.wg.Go(func() {
			every(ctx, iv, iv, func() {
				n, err := SweepTTL(ctx, s, time.Now())
				switch {
				case err != nil && ctx.Err() == nil:
					log.WarnContext(ctx, "ttl sweep: pass incomplete", "err", err, "deleted", n)
				case n > 0:
					log.DebugContext(ctx, "ttl sweep", "deleted", n)
				}
			})
		})
	}
	if iv := opts.TokenPurge; iv > 0 {
		l.wg.Go(func() {
			every(ctx, iv, iv, func() {
				n, err := PurgeTokens(ctx, s, time.Now(), opts.TokenTTL)
				switch {
				case err != nil && ctx.Err() == nil:
					log.WarnContext(ctx, "purge transaction tokens", "err", err)
				case n > 0:
					log.DebugContext(ctx, "purged transaction tokens", "rows", n)
				}
			})
		})
	}
	return l
}

// Stop ends the loops and waits for the passes under way.
func (l *Loops) Stop() {
	l.cancel()
	l.wg.Wait()
}

// every runs fn after first, then every interval, until ctx ends.
func every(ctx context.Context, first, interval time.Duration, fn func()) {
	t := time.NewTimer(first)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		fn()
		t.Reset(interval)
	}
}

// TrimStreams deletes the stream records, and the deleted tables' entries,
// older than store.StreamRetention as of now.
func TrimStreams(ctx context.Context, s store.Store, now time.Time) error {
	return s.StreamTrim(ctx, now.Add(-store.StreamRetention))
}

// PurgeTokens deletes the transaction tokens recorded more than ttl before
// now and returns how many.
func PurgeTokens(ctx context.Context, s store.Store, now time.Time, ttl time.Duration) (int64, error) {
	return s.TxTokenPurge(ctx, now.Add(-ttl))
}
