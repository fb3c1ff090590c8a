package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"text/tabwriter"
	"time"
)

type cell struct {
	Workload    string  `json:"workload"`
	Target      string  `json:"target"`
	Clients     int     `json:"clients"`
	Ops         int64   `json:"ops"`
	Errors      int64   `json:"errors"`
	OpsPerSec   float64 `json:"ops_per_s"`
	ItemsPerSec float64 `json:"items_per_s"`
	P50Ms       float64 `json:"p50_ms"`
	P99Ms       float64 `json:"p99_ms"`
	FirstError  string  `json:"first_error,omitempty"`
	CPU         cpuUse  `json:"cpu"`
	// Profile is where the server's CPU went (-pprof), ProfileFile the
	// profile it was read from.
	Profile     []profShare `json:"profile,omitempty"`
	ProfileFile string      `json:"profile_file,omitempty"`
	// InstructionsPerOp is the server's instructions per operation, from
	// callgrind (-callgrind, target external under valgrind).
	InstructionsPerOp int64 `json:"instructions_per_op,omitempty"`
}

// check is the SDK's run of one workload on one target (sdkCheck).
type check struct {
	Workload string `json:"workload"`
	Target   string `json:"target"`
	Ops      int    `json:"ops"`
	Error    string `json:"error,omitempty"`
}

type ratio struct {
	Workload string  `json:"workload"`
	Clients  int     `json:"clients"`
	Subject  string  `json:"subject"`
	Base     string  `json:"base"`
	Ratio    float64 `json:"throughput_ratio"` // subject ops/s ÷ base ops/s
	// CPURatio is base's CPU per operation on the server CPUs (server +
	// database) over subject's: the throughput ratio when both saturate
	// the server CPUs, which holds on a machine whose other load makes the
	// throughputs noisy. 0 when either has no CPU figure.
	CPURatio float64 `json:"cpu_ratio,omitempty"`
}

type goal struct {
	Goal     string  `json:"goal"`
	Measured float64 `json:"measured"`
	Want     string  `json:"want"`
	Met      bool    `json:"met"`
}

type report struct {
	Started   time.Time         `json:"started"`
	Machine   map[string]any    `json:"machine"`
	Config    map[string]any    `json:"config"`
	Targets   map[string]string `json:"targets"` // name → "ok" or "missing: …" / "failed: …"
	Cells     []cell            `json:"cells"`
	Checks    []check           `json:"sdk_checks"`
	Ratios    []ratio           `json:"ratios"`
	Goals     []goal            `json:"goals"`
	Lag       []lagResult       `json:"async_index_lag,omitempty"`
	Build     *buildResult      `json:"online_build,omitempty"`
	Startup   []startupResult   `json:"startup,omitempty"`
	Embedded  *embeddedResult   `json:"embedded_startup,omitempty"`
	Workloads map[string]string `json:"workload_titles"`
}

// measure runs op from clients goroutines in this process (the SQLite
// floor, the online build's writers): a warm-up, then dur measured.
func measure(ctx context.Context, op opFunc, clients int, warmup, dur time.Duration, meter cpuMeter) cell {
	start := time.Now()
	from, to := start.Add(warmup), start.Add(warmup+dur)
	lat := make([][]time.Duration, clients)
	var errs atomic.Int64
	var firstErr atomic.Value
	var wg sync.WaitGroup
	for w := 0; w < clients; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			l := make([]time.Duration, 0, 4096)
			for ctx.Err() == nil {
				t0 := time.Now()
				if t0.After(to) {
					break
				}
				err := op(ctx, w)
				t1 := time.Now()
				if t1.Before(from) || !t1.Before(to) {
					continue
				}
				if err != nil {
					errs.Add(1)
					firstErr.CompareAndSwap(nil, err.Error())
					continue
				}
				l = append(l, t1.Sub(t0))
			}
			lat[w] = l
		}(w)
	}
	a, b := sampleWindow(ctx, window{from, to}, meter)
	wg.Wait()
	var all []time.Duration
	for _, l := range lat {
		all = append(all, l...)
	}
	c := summarize(all, clients, dur)
	c.Errors = errs.Load()
	c.CPU = cpuPerOp(a, b, c.Ops)
	if e, ok := firstErr.Load().(string); ok {
		c.FirstError = e
	} else if len(all) == 0 {
		c.FirstError = "no operation completed inside the measured window (each took longer than it)"
	}
	return c
}

func msf(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e6 }

func run(ctx context.Context, cfg *config) error {
	env := &benchEnv{cfg: cfg, serverCPUs: cfg.serverCPUs, loadCPUs: cfg.loadCPUs}
	meterCPUs = cpuMap(cfg.serverCPUs)
	rep := &report{
		Started: time.Now().UTC(),
		Machine: map[string]any{"cpus": runtime.NumCPU(), "goos": runtime.GOOS, "goarch": runtime.GOARCH, "go": runtime.Version()},
		Config: map[string]any{"duration_s": cfg.duration.Seconds(), "warmup_s": cfg.warmup.Seconds(), "clients": cfg.clients,
			"workloads": cfg.workloads, "targets": cfg.targets, "server_cpus": cfg.serverCPUs, "load_cpus": cfg.loadCPUs,
			"load_generator": "raw HTTP/1.1 keep-alive, one connection per client (cmd/dynamobench/loadgen.go)",
			"floor":          "pgbench -M prepared, custom scripts (cmd/dynamobench/pgbench)"},
		Targets:   map[string]string{},
		Workloads: map[string]string{},
	}
	if h, err := os.Hostname(); err == nil {
		rep.Machine["host"] = h
	}
	for _, w := range workloads {
		rep.Workloads[w.name] = w.title
	}
	cells := len(cfg.workloads) * len(cfg.clients) * len(cfg.targets)
	fmt.Fprintf(os.Stderr, "dynamobench: %d cells × %v (+%v warm-up) ≈ %v of measuring\n",
		cells, cfg.duration, cfg.warmup, time.Duration(cells)*(cfg.duration+cfg.warmup))

	for _, tn := range cfg.targets {
		if ctx.Err() != nil {
			break
		}
		fmt.Fprintf(os.Stderr, "== %s\n", tn)
		t, err := newTarget(ctx, env, tn)
		if err != nil {
			var m errMissing
			if errors.As(err, &m) {
				rep.Targets[tn] = err.Error()
			} else {
				rep.Targets[tn] = "failed: " + err.Error()
			}
			fmt.Fprintf(os.Stderr, "   %s: %s\n", tn, rep.Targets[tn])
			continue
		}
		rep.Targets[tn] = "ok"
		for _, wn := range cfg.workloads {
			w := workloadByName(wn)
			measureCell, err := t.prepare(ctx, w)
			if err != nil {
				fmt.Fprintf(os.Stderr, "   %-15s %v\n", wn, err)
				for _, n := range cfg.clients {
					rep.Cells = append(rep.Cells, cell{Workload: wn, Target: tn, Clients: n, FirstError: "setup: " + err.Error()})
				}
				continue
			}
			for _, n := range cfg.clients {
				if ctx.Err() != nil {
					break
				}
				c := measureCell(ctx, n, cfg.warmup, cfg.duration)
				c.Workload, c.Target = wn, tn
				c.ItemsPerSec = c.OpsPerSec * float64(w.items)
				rep.Cells = append(rep.Cells, c)
				fmt.Fprintf(os.Stderr, "   %-15s %3d clients %9.0f ops/s  p50 %7.2f ms  p99 %7.2f ms  cpu/op µs: server %6.1f db %6.1f load %5.1f  busy %.2f (cpus %.2f)  syscalls/op r %.1f w %.1f  instr/op %d  errors %d %s\n",
					wn, n, c.OpsPerSec, c.P50Ms, c.P99Ms, c.CPU.ServerUsPerOp, c.CPU.DBUsPerOp, c.CPU.ClientUsPerOp, c.CPU.ServerCoresBusy, c.CPU.ServerCPUsBusy, c.CPU.ServerReadsPerOp, c.CPU.ServerWritesPerOp, c.InstructionsPerOp, c.Errors, c.FirstError)
			}
			if d, ok := t.(*dynamoTarget); ok && cfg.sdkCheck && ctx.Err() == nil {
				ck := check{Workload: wn, Target: tn, Ops: sdkCheckOps, Error: d.sdkCheck(ctx, w)}
				rep.Checks = append(rep.Checks, ck)
				if ck.Error != "" {
					fmt.Fprintf(os.Stderr, "   %-15s SDK check: %s\n", wn, ck.Error)
				}
			}
		}
		t.close()
	}

	if cfg.lag && ctx.Err() == nil {
		for _, b := range []string{"postgres", "sqlite"} {
			if !wantsBackend(cfg, b) {
				continue
			}
			r := measureLag(ctx, env, b, cfg.lagRate, cfg.lagDuration)
			rep.Lag = append(rep.Lag, r)
		}
	}
	if cfg.onlineBuild && ctx.Err() == nil {
		r := measureOnlineBuild(ctx, env)
		rep.Build = &r
	}
	if cfg.startup && ctx.Err() == nil {
		for _, b := range []string{"sqlite", "postgres"} {
			if wantsBackend(cfg, b) {
				rep.Startup = append(rep.Startup, measureStartup(ctx, env, b))
			}
		}
		r := measureEmbedded(ctx)
		rep.Embedded = &r
	}

	rep.Ratios = ratios(rep)
	rep.Goals = goals(rep)
	printReport(os.Stdout, rep)
	if cfg.out != "" {
		if err := os.MkdirAll(cfg.out, 0o755); err != nil {
			return err
		}
		js, err := json.MarshalIndent(rep, "", "  ")
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(cfg.out, "bench.json"), append(js, '\n'), 0o644); err != nil {
			return err
		}
		if err := writeChart(filepath.Join(cfg.out, "bench.png"), rep, false); err != nil {
			return err
		}
		if err := writeChart(filepath.Join(cfg.out, "bench-cpu.png"), rep, true); err != nil {
			return err
		}
		fmt.Printf("\nwrote %s, bench.png and bench-cpu.png\n", filepath.Join(cfg.out, "bench.json"))
	}
	return ctx.Err()
}

func wantsBackend(cfg *config, backend string) bool {
	want := map[string]string{"postgres": tDynPG, "sqlite": tDynSQLite}[backend]
	for _, t := range cfg.targets {
		if t == want {
			return true
		}
	}
	return false
}

func findCell(rep *report, w, t string, n int) *cell {
	for i := range rep.Cells {
		c := &rep.Cells[i]
		if c.Workload == w && c.Target == t && c.Clients == n && c.Ops > 0 {
			return c
		}
	}
	return nil
}

// ratios: each dynamopg figure over its floor and over each peer.
func ratios(rep *report) []ratio {
	var out []ratio
	for _, c := range rep.Cells {
		if c.Ops == 0 {
			continue
		}
		var bases []string
		switch c.Target {
		case tDynPG:
			bases = []string{tPgbench, tHTTPFloor, tDynalite, tMoto}
		case tDynSQLite:
			bases = []string{tSQLite, tDynalite, tMoto}
		default:
			continue
		}
		for _, b := range bases {
			bc := findCell(rep, c.Workload, b, c.Clients)
			if bc == nil && strings.HasSuffix(c.Workload, "-async") && (b == tDynalite || b == tMoto) {
				bc = findCell(rep, strings.TrimSuffix(c.Workload, "-async")+"-sync", b, c.Clients)
			}
			if bc == nil {
				continue
			}
			r := ratio{Workload: c.Workload, Clients: c.Clients, Subject: c.Target, Base: b, Ratio: round3(c.OpsPerSec / bc.OpsPerSec)}
			if sc, bcpu := c.CPU.ServerUsPerOp+c.CPU.DBUsPerOp, bc.CPU.ServerUsPerOp+bc.CPU.DBUsPerOp; sc > 0 && bcpu > 0 {
				r.CPURatio = round3(bcpu / sc)
			}
			out = append(out, r)
		}
	}
	return out
}

func ratioOf(rep *report, w, subject, base string, n int) (float64, bool) {
	s, b := findCell(rep, w, subject, n), findCell(rep, w, base, n)
	if s == nil || b == nil {
		return 0, false
	}
	return s.OpsPerSec / b.OpsPerSec, true
}

// goals checks the figures against the targets of the performance issue
// (all at 16 clients).
func goals(rep *report) []goal {
	var out []goal
	add := func(name, want string, v float64, ok, met bool) {
		if ok {
			out = append(out, goal{Goal: name, Measured: round3(v), Want: want, Met: met})
		}
	}
	// Each throughput ratio also as the ratio of CPU per operation on the
	// server CPUs (cpuOnServer), which a busy machine disturbs less.
	for _, w := range []string{"put", "get"} {
		r, ok := ratioOf(rep, w, tDynPG, tPgbench, 16)
		add(w+" pg / pgbench @16", ">= 0.8", r, ok, r >= 0.8)
		if s, b := findCell(rep, w, tDynPG, 16), findCell(rep, w, tPgbench, 16); s != nil && b != nil && cpuOnServer(s) > 0 {
			r := cpuOnServer(b) / cpuOnServer(s)
			add(w+" pg / pgbench @16, by CPU/op", ">= 0.8", r, true, r >= 0.8)
		}
	}
	fp := findCell(rep, "put", tPgbench, 16)
	for _, w := range []string{"update", "condput"} {
		if c := findCell(rep, w, tDynPG, 16); c != nil && fp != nil {
			r := c.OpsPerSec / fp.OpsPerSec
			add(w+" pg / pgbench plain upsert @16", ">= 0.6", r, true, r >= 0.6)
			if cpuOnServer(c) > 0 {
				r := cpuOnServer(fp) / cpuOnServer(c)
				add(w+" pg / pgbench plain upsert @16, by CPU/op", ">= 0.6", r, true, r >= 0.6)
			}
		}
	}
	for _, w := range []string{"put", "get", "update", "condput"} {
		if c := findCell(rep, w, tDynPG, 16); c != nil {
			add(w+" pg p99 ms @16", "< 5", c.P99Ms, true, c.P99Ms < 5)
			if c.CPU.DBUsPerOp > 0 {
				r := c.CPU.ServerUsPerOp / c.CPU.DBUsPerOp
				add(w+" pg: dynamopg CPU / PostgreSQL CPU per op @16", "<= 1", r, true, r <= 1)
			}
		}
	}
	if a, b := findCell(rep, "put-2gsi-sync", tDynPG, 16), findCell(rep, "put", tDynPG, 16); a != nil && b != nil {
		r := a.OpsPerSec / b.OpsPerSec
		add("put 2 sync GSIs / plain put (pg) @16", ">= 0.5", r, true, r >= 0.5)
	}
	for _, w := range []string{"put", "get", "update"} {
		r, ok := ratioOf(rep, w, tDynSQLite, tDynalite, 16)
		add(w+" sqlite/dynalite @16", ">= 3", r, ok, r >= 3)
		if s, b := findCell(rep, w, tDynSQLite, 16), findCell(rep, w, tDynalite, 16); s != nil && b != nil && cpuOnServer(s) > 0 {
			r := cpuOnServer(b) / cpuOnServer(s)
			add(w+" sqlite/dynalite @16, by CPU/op", ">= 3", r, true, r >= 3)
		}
	}
	for _, l := range rep.Lag {
		if l.Samples > 0 {
			add(fmt.Sprintf("async lag p50 ms (%s, %d/s)", l.Backend, l.Rate), "< 10", l.P50Ms, true, l.P50Ms < 10)
			add(fmt.Sprintf("async lag p99 ms (%s, %d/s)", l.Backend, l.Rate), "< 30", l.P99Ms, true, l.P99Ms < 30)
		}
	}
	for _, s := range rep.Startup {
		if s.Backend == "sqlite" && s.Error == "" {
			add("sqlite start to first answer ms", "< 200", s.FirstAnswerMs, true, s.FirstAnswerMs < 200)
			add("sqlite idle RSS MB", "< 30", s.IdleRSSMB, true, s.IdleRSSMB < 30)
		}
	}
	if g, ok := rep.Embedded.goal(); ok {
		out = append(out, g)
	}
	if b := rep.Build; b != nil && b.Error == "" && b.InsertSelectRowsPerSec > 0 {
		r := b.QuietRowsPerSec / b.InsertSelectRowsPerSec
		add("backfill / INSERT…SELECT (quiet)", ">= 0.5", r, true, r >= 0.5)
	}
	return out
}

// cpuOnServer is a cell's CPU per operation on the server CPUs.
func cpuOnServer(c *cell) float64 { return c.CPU.ServerUsPerOp + c.CPU.DBUsPerOp }

func round3(v float64) float64 { return float64(int64(v*1000+0.5)) / 1000 }

func printReport(f *os.File, rep *report) {
	fmt.Fprintln(f)
	fmt.Fprintln(f, "targets:")
	names := make([]string, 0, len(rep.Targets))
	for n := range rep.Targets {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(f, "  %-16s %s\n", n, rep.Targets[n])
	}
	fmt.Fprintln(f)
	tw := tabwriter.NewWriter(f, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "workload\tclients\ttarget\tops/s\tp50 ms\tp99 ms\tserver µs/op\tdb µs/op\tload µs/op\tbusy\terrors\tvs floor (cpu)\tvs http-floor (cpu)\tvs dynalite (cpu)\tvs moto (cpu)\t")
	idx := map[string]int{}
	for i, t := range allTargets {
		idx[t] = i
	}
	cells := append([]cell(nil), rep.Cells...)
	wi := map[string]int{}
	for i, w := range workloads {
		wi[w.name] = i
	}
	sort.SliceStable(cells, func(i, j int) bool {
		a, b := cells[i], cells[j]
		if a.Workload != b.Workload {
			return wi[a.Workload] < wi[b.Workload]
		}
		if a.Clients != b.Clients {
			return a.Clients < b.Clients
		}
		return idx[a.Target] < idx[b.Target]
	})
	rat := func(c cell, base string) string {
		for _, r := range rep.Ratios {
			if r.Workload == c.Workload && r.Clients == c.Clients && r.Subject == c.Target && r.Base == base {
				if r.CPURatio > 0 {
					return fmt.Sprintf("%.2f (%.2f)", r.Ratio, r.CPURatio)
				}
				return fmt.Sprintf("%.2f", r.Ratio)
			}
		}
		return ""
	}
	last := ""
	for _, c := range cells {
		if last != "" && last != c.Workload {
			fmt.Fprintln(tw, "\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t")
		}
		last = c.Workload
		floor, hf, dl, mo := "", "", "", ""
		if fl, ok := floorOf[c.Target]; ok {
			floor, hf, dl, mo = rat(c, fl), rat(c, tHTTPFloor), rat(c, tDynalite), rat(c, tMoto)
		}
		if c.Ops == 0 {
			fmt.Fprintf(tw, "%s\t%d\t%s\t-\t-\t-\t-\t-\t-\t-\t%d\t\t\t\t\t%s\n", c.Workload, c.Clients, c.Target, c.Errors, trunc(c.FirstError, 60))
			continue
		}
		db := "-"
		if c.CPU.DBUsPerOp > 0 {
			db = fmt.Sprintf("%.0f", c.CPU.DBUsPerOp)
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%.0f\t%.2f\t%.2f\t%.0f\t%s\t%.0f\t%.2f\t%d\t%s\t%s\t%s\t%s\t\n",
			c.Workload, c.Clients, c.Target, c.OpsPerSec, c.P50Ms, c.P99Ms, c.CPU.ServerUsPerOp, db, c.CPU.ClientUsPerOp, c.CPU.ServerCoresBusy, c.Errors, floor, hf, dl, mo)
	}
	tw.Flush()
	for _, ck := range rep.Checks {
		if ck.Error != "" {
			fmt.Fprintf(f, "SDK check FAILED: %s on %s: %s\n", ck.Workload, ck.Target, ck.Error)
		}
	}
	if len(rep.Checks) > 0 {
		fmt.Fprintf(f, "SDK checks: %d runs of %d calls\n", len(rep.Checks), sdkCheckOps)
	}
	printProfiles(f, rep)
	if len(rep.Lag) > 0 {
		fmt.Fprintln(f, "\nasync index lag (PutItem returned → visible on the GSI):")
		for _, l := range rep.Lag {
			if l.Error != "" {
				fmt.Fprintf(f, "  %-8s error: %s\n", l.Backend, l.Error)
				continue
			}
			fmt.Fprintf(f, "  %-8s %d writes at %.0f/s (asked %d/s): p50 %.2f ms  p99 %.2f ms  max %.2f ms  cpu/write µs: server %.1f db %.1f (queue workers %.1f)  busy %.2f (cpus %.2f)\n",
				l.Backend, l.Samples, l.AchievedRate, l.Rate, l.P50Ms, l.P99Ms, l.MaxMs,
				l.CPU.ServerUsPerOp, l.CPU.DBUsPerOp, l.QueueDBUsPerWrite, l.CPU.ServerCoresBusy, l.CPU.ServerCPUsBusy)
		}
	}
	if b := rep.Build; b != nil {
		fmt.Fprintln(f, "\nonline index build (PostgreSQL):")
		if b.Error != "" {
			fmt.Fprintf(f, "  error: %s\n", b.Error)
		} else {
			fmt.Fprintf(f, "  under %d writers: %d rows; backfill %.0f rows/s (%.2f s, build total %.2f s)\n",
				b.Clients, b.Rows, b.BackfillRowsPerSec, b.BackfillSeconds, b.BuildSeconds)
			fmt.Fprintf(f, "  quiet, a second GSI: %d rows; backfill %.0f rows/s (%.2f s); INSERT…SELECT of its rows from the table %.0f rows/s (a copy of the finished rows %.0f)\n",
				b.QuietRows, b.QuietRowsPerSec, b.QuietBackfillSeconds, b.InsertSelectRowsPerSec, b.CopyRowsPerSec)
			fmt.Fprintf(f, "  PutItem @%d clients: %.0f ops/s before, %.0f ops/s during the build (p99 %.2f → %.2f ms), errors during %d\n",
				b.Clients, b.WritesBefore, b.WritesDuring, b.P99BeforeMs, b.P99DuringMs, b.ErrorsDuring)
		}
	}
	if len(rep.Startup) > 0 {
		fmt.Fprintln(f, "\nserver start (fresh database, migrations included) and idle memory:")
		for _, s := range rep.Startup {
			if s.Error != "" {
				fmt.Fprintf(f, "  %-8s error: %s\n", s.Backend, s.Error)
				continue
			}
			fmt.Fprintf(f, "  %-8s first answer after %.0f ms (median of %v); idle RSS %.1f MB\n", s.Backend, s.FirstAnswerMs, s.RunsMs, s.IdleRSSMB)
		}
	}
	rep.Embedded.print(f)
	if len(rep.Goals) > 0 {
		fmt.Fprintln(f, "\ngoals of the performance issue (16 clients):")
		for _, g := range rep.Goals {
			m := "MISS"
			if g.Met {
				m = "met"
			}
			fmt.Fprintf(f, "  %-52s %10.3f  want %-7s %s\n", g.Goal, g.Measured, g.Want, m)
		}
	}
}

func trunc(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

// printProfiles prints where the server's CPU went in each profiled cell,
// as a share of its samples and as µs per operation.
func printProfiles(f *os.File, rep *report) {
	for _, c := range rep.Cells {
		if len(c.Profile) == 0 {
			continue
		}
		fmt.Fprintf(f, "\nwhere %s's CPU goes, %s @%d (%.0f µs/op; %s):\n", c.Target, c.Workload, c.Clients, c.CPU.ServerUsPerOp, c.ProfileFile)
		for _, s := range c.Profile {
			if s.Percent < 0.5 {
				continue
			}
			fmt.Fprintf(f, "  %5.1f%%  %6.1f µs/op  (syscalls %4.1f%%)  %s\n", s.Percent, s.Percent*c.CPU.ServerUsPerOp/100, s.SyscallPercent, s.Category)
		}
	}
}

// redraw draws the charts of a bench.json again, beside it.
func redraw(path string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var rep report
	if err := json.Unmarshal(b, &rep); err != nil {
		return err
	}
	dir := filepath.Dir(path)
	if err := writeChart(filepath.Join(dir, "bench.png"), &rep, false); err != nil {
		return err
	}
	return writeChart(filepath.Join(dir, "bench-cpu.png"), &rep, true)
}
