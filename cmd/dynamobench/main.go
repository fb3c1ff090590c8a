// Command dynamobench measures dynamopg against the bare database under it
// (the "floor": the same row operations issued by pgbench to PostgreSQL,
// and straight to SQLite) and against the servers users would pick instead
// (dynalite, moto), for a set of workloads at several client counts.
//
// The systems under test run on the server CPUs and dynamobench (the load
// generator, pgbench, the lag poller) on the others (pin.go; on 2 CPUs: 0
// and 1). The load is raw HTTP/1.1 with pre-encoded bodies over keep-alive
// connections (loadgen.go), cheap next to the server; the AWS SDK runs
// each workload briefly as a check of the responses. Every cell reports
// throughput, p50/p99 and the CPU per operation of the server, of
// PostgreSQL and of the load (proccpu.go); -pprof adds where the server's
// CPU goes (profcat.go), -callgrind its instructions per operation.
//
// It prints a table with each dynamopg figure's ratio to its floor and to
// the peers and the performance issue's goals, and writes
// bench/results/bench.json, bench.png (ops/s) and bench-cpu.png (CPU/op).
//
//	go run ./cmd/dynamobench -online-build         # everything (make bench), ~20 min
//	go run ./cmd/dynamobench -d 2s -clients 16 -workloads put,get -targets dynamopg-pg,pgbench
//	go run ./cmd/dynamobench -pprof /tmp/prof -d 10s -clients 16 -workloads put -targets dynamopg-pg
//
// PostgreSQL is a throwaway cluster from tests/pgtest (fsync,
// synchronous_commit and full_page_writes off), shared by dynamopg and the
// floor.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/dynamopg/dynamopg/tests/harness"
)

type config struct {
	duration      time.Duration
	warmup        time.Duration
	clients       []int
	workloads     []string
	targets       []string
	out           string
	serverCPUs    string
	loadCPUs      string
	sdkCheck      bool
	pprofDir      string
	pprofClients  int
	externalURL   string
	externalPID   int
	externalDBPID int
	callgrind     bool
	lag           bool
	lagRate       int
	lagDuration   time.Duration
	onlineBuild   bool
	buildRows     int
	startup       bool
}

func main() {
	maybePinExec()
	maybeLagPoll()
	maybeHTTPFloor()
	var cfg config
	var clients, workloads, targets string
	flag.DurationVar(&cfg.duration, "d", 3*time.Second, "measured duration of each cell (workload × target × clients)")
	flag.DurationVar(&cfg.warmup, "warmup", 0, "unmeasured warm-up before each cell (default: a fifth of -d, at most 1s)")
	flag.StringVar(&clients, "clients", "1,16,64", "concurrent client counts, comma-separated")
	flag.StringVar(&workloads, "workloads", "all", "workloads, comma-separated, or all: "+strings.Join(workloadNames(), ","))
	flag.StringVar(&targets, "targets", "all", "targets, comma-separated, or all: "+strings.Join(allTargets, ","))
	flag.StringVar(&cfg.out, "out", "bench/results", "directory for bench.json and bench.png (empty: write nothing)")
	serverDefault, loadDefault := defaultCPUs()
	flag.StringVar(&cfg.serverCPUs, "server-cpus", serverDefault, "CPUs of the systems under test (dynamopg, PostgreSQL, dynalite); empty: no pinning")
	flag.StringVar(&cfg.loadCPUs, "load-cpus", loadDefault, "CPUs of dynamobench itself: the load generator, pgbench, the SQLite floor, the lag poller")
	pin := flag.Bool("pin", true, "pin the servers and the load to -server-cpus and -load-cpus")
	flag.BoolVar(&cfg.sdkCheck, "sdk-check", true, "after each workload's cells, run it through the AWS SDK and check the responses")
	flag.StringVar(&cfg.pprofDir, "pprof", "", "directory: start dynamopg with --pprof and save a CPU profile of each cell at -pprof-clients")
	flag.IntVar(&cfg.pprofClients, "pprof-clients", 16, "the client count whose cells -pprof profiles")
	flag.BoolVar(&cfg.lag, "lag", true, "measure async index lag (PutItem returned → item visible on the GSI)")
	flag.IntVar(&cfg.lagRate, "lag-rate", 1000, "writes/s during the async index lag run")
	flag.DurationVar(&cfg.lagDuration, "lag-duration", 5*time.Second, "length of the timed part of the async index lag run (after 2 s of warm-up)")
	flag.BoolVar(&cfg.onlineBuild, "online-build", false, "also measure an online GSI build on PostgreSQL: backfill rows/s and write throughput during it")
	flag.IntVar(&cfg.buildRows, "build-rows", 20000, "rows in the table before the online build")
	flag.BoolVar(&cfg.startup, "startup", true, "measure server start to first answer and idle memory (RSS)")
	flag.StringVar(&cfg.externalURL, "external-url", "", "URL of a DynamoDB server started by hand, measured as target \"external\" (e.g. dynamopg under valgrind --tool=callgrind)")
	flag.IntVar(&cfg.externalPID, "external-pid", 0, "PID of the external server, for its CPU per operation")
	flag.IntVar(&cfg.externalDBPID, "external-db-pid", 0, "PID of the external server's postmaster, for PostgreSQL's CPU per operation")
	flag.BoolVar(&cfg.callgrind, "callgrind", false, "the external server runs under valgrind --tool=callgrind: zero its counters at each cell's window and read its instructions per operation at the end (callgrind_control)")
	replot := flag.String("replot", "", "redraw bench.png and bench-cpu.png beside the bench.json named, and exit")
	breakdown := flag.Bool("breakdown", false, "print where the CPU goes in the CPU profiles named as arguments (as -pprof does after each cell), and exit")
	flag.Parse()
	if *replot != "" {
		if err := redraw(*replot); err != nil {
			fatalf("-replot: %v", err)
		}
		return
	}
	if *breakdown {
		for _, path := range flag.Args() {
			shares, err := profBreakdown(path)
			if err != nil {
				fatalf("%v", err)
			}
			fmt.Printf("%s:\n", path)
			for _, s := range shares {
				fmt.Printf("  %5.1f%%  (syscalls %4.1f%%)  %s\n", s.Percent, s.SyscallPercent, s.Category)
			}
		}
		return
	}
	if !*pin {
		cfg.serverCPUs, cfg.loadCPUs = "", ""
	}
	if (cfg.serverCPUs == "") != (cfg.loadCPUs == "") {
		fatalf("-server-cpus and -load-cpus go together")
	}
	pinSelf(cfg.loadCPUs)

	var err error
	if cfg.clients, err = parseInts(clients); err != nil {
		fatalf("-clients: %v", err)
	}
	if cfg.workloads, err = pick(workloads, workloadNames()); err != nil {
		fatalf("-workloads: %v", err)
	}
	if cfg.targets, err = pick(targets, append(allTargets, tExternal)); err != nil || targets == "all" {
		if err != nil {
			fatalf("-targets: %v", err)
		}
		cfg.targets = allTargets
	}
	if cfg.warmup == 0 {
		cfg.warmup = min(cfg.duration/5, time.Second)
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	code := 0
	if err := run(ctx, &cfg); err != nil {
		fmt.Fprintln(os.Stderr, "dynamobench:", err)
		code = 1
	}
	runCleanups()
	harness.RemoveBinary()
	os.Exit(code)
}

func fatalf(format string, a ...any) {
	fmt.Fprintf(os.Stderr, "dynamobench: "+format+"\n", a...)
	os.Exit(2)
}

func parseInts(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			return nil, fmt.Errorf("bad count %q", f)
		}
		out = append(out, n)
	}
	return out, nil
}

func pick(s string, all []string) ([]string, error) {
	if s == "all" || s == "" {
		return all, nil
	}
	var out []string
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		ok := false
		for _, a := range all {
			if a == f {
				ok = true
			}
		}
		if !ok {
			return nil, fmt.Errorf("unknown %q (have %s)", f, strings.Join(all, ","))
		}
		out = append(out, f)
	}
	return out, nil
}

// cleanups run at exit, last first.
var cleanups []func()

func atExit(f func()) { cleanups = append(cleanups, f) }

func runCleanups() {
	for i := len(cleanups) - 1; i >= 0; i-- {
		cleanups[i]()
	}
	cleanups = nil
}
