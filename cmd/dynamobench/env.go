package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/dynamopg/dynamopg/tests/harness"
	"github.com/dynamopg/dynamopg/tests/pgtest"
)

// benchEnv is what every target of a run shares: the configuration, the
// CPU sets, the dynamopg binary and one throwaway PostgreSQL cluster.
type benchEnv struct {
	cfg        *config
	serverCPUs string // "" when not pinning
	loadCPUs   string

	mu  sync.Mutex
	pg  *pgServer
	bin string
}

// pgServer is the run's PostgreSQL cluster (tests/pgtest: initdb, fsync,
// synchronous_commit and full_page_writes off), its postmaster pinned to
// the server CPUs.
type pgServer struct {
	url        string
	postmaster int
}

func (e *benchEnv) postgres(ctx context.Context) (*pgServer, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.pg != nil {
		return e.pg, nil
	}
	var cl *pgtest.Cluster
	tb, err := withTB(func(tb *benchTB) { cl = pgtest.NewCluster(tb) })
	if err != nil {
		return nil, fmt.Errorf("postgres: %w", err)
	}
	atExit(tb.runCleanups)
	pm, err := postmasterPID(ctx, cl.URL())
	if err != nil {
		return nil, err
	}
	if e.serverCPUs != "" {
		if err := pinTree(pm, e.serverCPUs); err != nil {
			return nil, fmt.Errorf("pin the postmaster: %w", err)
		}
	}
	e.pg = &pgServer{url: cl.URL(), postmaster: pm}
	return e.pg, nil
}

// postmasterPID is the parent of a backend of ours (the cluster is local).
func postmasterPID(ctx context.Context, url string) (int, error) {
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		return 0, err
	}
	defer conn.Close(ctx)
	var pid int
	if err := conn.QueryRow(ctx, `SELECT pg_backend_pid()`).Scan(&pid); err != nil {
		return 0, err
	}
	st, err := readProcStat(pid)
	if err != nil {
		return 0, fmt.Errorf("backend %d: %w (is PostgreSQL local?)", pid, err)
	}
	return st.ppid, nil
}

// pinTree pins the postmaster and the processes it has forked already
// (checkpointer, walwriter, …); backends forked later inherit its set.
func pinTree(pid int, cpus string) error {
	set, err := parseCPUs(cpus)
	if err != nil {
		return err
	}
	if err := pinProcess(pid, set); err != nil {
		return err
	}
	for _, c := range childrenOf(pid) {
		_ = pinProcess(c, set) // a child may have exited since
	}
	return nil
}

// newPGDatabase creates a fresh database on the run's cluster.
func (e *benchEnv) newPGDatabase(ctx context.Context) (string, error) {
	pg, err := e.postgres(ctx)
	if err != nil {
		return "", err
	}
	u, drop, err := pgtest.CreateDatabase(ctx, pg.url)
	if err != nil {
		return "", err
	}
	atExit(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_ = drop(ctx)
	})
	return u, nil
}

// binary builds cmd/dynamopg once (tests/harness).
func (e *benchEnv) binary() (string, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.bin != "" {
		return e.bin, nil
	}
	var bin string
	if _, err := withTB(func(tb *benchTB) { bin = harness.Binary(tb) }); err != nil {
		return "", err
	}
	e.bin = bin
	return bin, nil
}

// profile starts a CPU profile of srv (dynamopg's --pprof) covering the
// cell's timed window; the function returned waits for it and writes it
// to cfg.pprofDir/<target>-<workload>.pprof, returning its path ("" when
// it failed).
func (e *benchEnv) profile(ctx context.Context, srv *proc, target, workload string, warmup, dur time.Duration) func() string {
	done := make(chan struct{})
	name := filepath.Join(e.cfg.pprofDir, strings.ReplaceAll(target+"-"+workload, "/", "_")+".pprof")
	go func() {
		defer close(done)
		sleepUntil(ctx, time.Now().Add(warmup))
		secs := max(1, int(dur.Seconds()))
		resp, err := http.Get("http://" + srv.pprof + "/debug/pprof/profile?seconds=" + strconv.Itoa(secs))
		if err != nil {
			fmt.Fprintf(os.Stderr, "   pprof: %v\n", err)
			name = ""
			return
		}
		defer resp.Body.Close()
		if err := os.MkdirAll(e.cfg.pprofDir, 0o755); err != nil {
			fmt.Fprintf(os.Stderr, "   pprof: %v\n", err)
			name = ""
			return
		}
		f, err := os.Create(name)
		if err != nil {
			fmt.Fprintf(os.Stderr, "   pprof: %v\n", err)
			name = ""
			return
		}
		_, err = io.Copy(f, resp.Body)
		f.Close()
		if err != nil {
			fmt.Fprintf(os.Stderr, "   pprof: %v\n", err)
			name = ""
		}
	}()
	return func() string { <-done; return name }
}
