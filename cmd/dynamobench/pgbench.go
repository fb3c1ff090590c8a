package main

import (
	"bufio"
	"bytes"
	"context"
	"embed"
	"fmt"
	"math"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// The PostgreSQL floor: the workloads' row operations issued by pgbench
// (-M prepared, custom scripts, pgbench/*.sql) on tables of the data-table
// shape (floors.go's pgSchema, preloaded like the DynamoDB targets) on the
// same PostgreSQL, pinned the same way: pgbench is a child of dynamobench
// and so runs on the load CPUs, its backends on the server CPUs. pgbench
// logs every transaction (-l); the cell counts those that completed inside
// the timed window, as the load generator does.

//go:embed pgbench/*.sql
var pgbenchScripts embed.FS

func pgbScript(name string) string {
	b, err := pgbenchScripts.ReadFile("pgbench/" + name)
	if err != nil {
		panic(err)
	}
	return string(b)
}

var (
	pgbPut      = pgbScript("put.sql")
	pgbCondPut  = pgbScript("condput.sql")
	pgbGet      = pgbScript("get.sql")
	pgbUpdate   = pgbScript("update.sql")
	pgbQuery    = pgbScript("query.sql")
	pgbQueryGSI = pgbScript("query-gsi.sql")
	pgbPut2GSI  = pgbScript("put-2gsi.sql")
)

// pgbBatch is batch.sql with its repeated part written n times.
func pgbBatch(n int) string {
	s := strings.ReplaceAll(pgbScript("batch.sql"), "@N@", strconv.Itoa(n))
	head, rest, _ := strings.Cut(s, "-- repeat\n")
	part, tail, _ := strings.Cut(rest, "-- end\n")
	var b strings.Builder
	b.WriteString(head)
	for i := 1; i <= n; i++ {
		b.WriteString(strings.ReplaceAll(part, "@I@", strconv.Itoa(i)))
	}
	b.WriteString(tail)
	return b.String()
}

// pgbenchTarget runs the floor's scripts against its own database.
type pgbenchTarget struct {
	bin   string
	db    string // URL of the floor's database
	dir   string // scripts and logs
	meter cpuMeter
	floor *pgFloor
}

func findPgbench() (string, error) {
	if p, err := exec.LookPath("pgbench"); err == nil {
		return p, nil
	}
	m, _ := filepath.Glob("/usr/lib/postgresql/*/bin/pgbench")
	if len(m) > 0 {
		return m[len(m)-1], nil
	}
	return "", errMissing{"pgbench not installed (Debian: postgresql-client)"}
}

func newPgbenchTarget(ctx context.Context, env *benchEnv) (target, error) {
	bin, err := findPgbench()
	if err != nil {
		return nil, err
	}
	pg, u, f, err := newFloorDatabase(ctx, env)
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "dynamobench-pgbench-")
	if err != nil {
		f.close()
		return nil, err
	}
	atExit(func() { os.RemoveAll(dir) })
	return &pgbenchTarget{bin: bin, db: u, dir: dir, meter: cpuMeter{db: pg.postmaster}, floor: f}, nil
}

func (p *pgbenchTarget) close() { p.floor.close() }

func (p *pgbenchTarget) prepare(_ context.Context, w *workload) (cellFunc, error) {
	if w.pgbench == "" {
		return nil, errMissing{"no pgbench script"}
	}
	script := filepath.Join(p.dir, w.name+".sql")
	if err := os.WriteFile(script, []byte(w.pgbench), 0o644); err != nil {
		return nil, err
	}
	return func(ctx context.Context, clients int, warmup, dur time.Duration) cell {
		return p.run(ctx, script, clients, warmup, dur)
	}, nil
}

// run runs pgbench for warmup + dur (rounded up to whole seconds, pgbench's
// unit, plus half a second of slack) and counts the transactions that
// completed inside the timed window.
func (p *pgbenchTarget) run(ctx context.Context, script string, clients int, warmup, dur time.Duration) cell {
	secs := int(math.Ceil((warmup + dur + 500*time.Millisecond).Seconds()))
	prefix := filepath.Join(p.dir, "log")
	old, _ := filepath.Glob(prefix + ".*")
	for _, f := range old {
		os.Remove(f)
	}
	u, _ := url.Parse(p.db)
	args := []string{"-n", "-M", "prepared", "-c", strconv.Itoa(clients), "-j", "1", "-T", strconv.Itoa(secs),
		"-f", script, "-D", "payload=" + payload, "-l", "--log-prefix", prefix,
		"-h", u.Hostname(), "-p", u.Port(), "-U", u.User.Username(), strings.TrimPrefix(u.Path, "/")}
	cmd := exec.CommandContext(ctx, p.bin, args...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return cell{Clients: clients, FirstError: "pgbench: " + err.Error()}
	}
	w := window{from: start.Add(warmup), to: start.Add(warmup + dur)}
	a, b := sampleWindow(ctx, w, p.meter)
	err := cmd.Wait()
	lat, perr := readPgbenchLog(prefix, w)
	c := summarize(lat, clients, dur)
	c.CPU = cpuPerOp(a, b, c.Ops)
	if err != nil || perr != nil {
		c.Errors = 1
		c.FirstError = fmt.Sprintf("pgbench: %v %v: %s", err, perr, trunc(out.String(), 300))
	}
	return c
}

// readPgbenchLog reads pgbench's per-transaction logs ("client_id
// transaction_no time script_no time_epoch time_us": the latency in µs
// and the completion time) and returns the latencies of the transactions
// that completed inside w.
func readPgbenchLog(prefix string, w window) ([]time.Duration, error) {
	files, _ := filepath.Glob(prefix + ".*")
	if len(files) == 0 {
		return nil, fmt.Errorf("no pgbench log")
	}
	var lat []time.Duration
	for _, name := range files {
		f, err := os.Open(name)
		if err != nil {
			return nil, err
		}
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			fl := strings.Fields(sc.Text())
			if len(fl) < 6 {
				continue
			}
			us, err1 := strconv.ParseInt(fl[2], 10, 64)
			sec, err2 := strconv.ParseInt(fl[4], 10, 64)
			usec, err3 := strconv.ParseInt(fl[5], 10, 64)
			if err1 != nil || err2 != nil || err3 != nil {
				continue // "skipped" or "failed" transactions
			}
			done := time.Unix(sec, usec*1000)
			if !done.Before(w.from) && done.Before(w.to) {
				lat = append(lat, time.Duration(us)*time.Microsecond)
			}
		}
		f.Close()
		if err := sc.Err(); err != nil {
			return nil, err
		}
	}
	return lat, nil
}
