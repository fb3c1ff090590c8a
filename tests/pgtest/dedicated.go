package pgtest

import (
	"fmt"
	"os"
	"sync"
	"testing"
)

// Cluster is a throwaway PostgreSQL cluster of one test's own, which the
// test may stop and start again (a restart under traffic). It always comes
// from the local binaries, even when DYNAMOPG_TEST_PG is set.
type Cluster struct {
	mu sync.Mutex
	c  *cluster
}

// NewCluster starts a dedicated cluster, stopped and removed when the test
// ends. settings ("name=value") override the defaults (fsync, synchronous
// commit and full page writes off); a test that checks what survives an
// immediate shutdown wants "synchronous_commit=on". Without PostgreSQL
// binaries the test is skipped, or fails when CI=true.
func NewCluster(t testing.TB, settings ...string) *Cluster {
	t.Helper()
	c, err := startCluster(settings...)
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("pgtest: dedicated cluster: %v", err)
		}
		t.Skipf("pgtest: no dedicated cluster: %v", err)
	}
	cl := &Cluster{c: c}
	t.Cleanup(func() {
		cl.mu.Lock()
		defer cl.mu.Unlock()
		cl.c.stop()
	})
	return cl
}

// URL is the URL of the cluster's "postgres" database; CreateDatabase
// makes more.
func (cl *Cluster) URL() string { return cl.c.url }

// Stop stops the server in pg_ctl's shutdown mode: "smart", "fast"
// (sessions are ended, a checkpoint written) or "immediate" (a crash: the
// next Start replays the WAL). It returns once the server has stopped.
func (cl *Cluster) Stop(mode string) error {
	switch mode {
	case "smart", "fast", "immediate":
	default:
		return fmt.Errorf("pgtest: stop mode %q: want smart, fast or immediate", mode)
	}
	cl.mu.Lock()
	defer cl.mu.Unlock()
	return cl.c.shutdown(mode)
}

// Start starts the stopped server again on the same port and data
// directory and returns once it accepts connections.
func (cl *Cluster) Start() error {
	cl.mu.Lock()
	defer cl.mu.Unlock()
	return cl.c.start()
}

// Kill ends the server as a crash of the machine would: SIGKILL to the
// postmaster and every process it started, with no shutdown of any kind.
// It returns once they are all gone; Start then runs crash recovery.
func (cl *Cluster) Kill() error {
	cl.mu.Lock()
	defer cl.mu.Unlock()
	return cl.c.kill()
}
