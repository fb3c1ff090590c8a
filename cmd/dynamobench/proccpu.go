package main

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
)

// CPU accounting from /proc: utime+stime of a process (all its threads),
// read before and after a cell's timed window. PostgreSQL is a tree of
// processes: the postmaster, its background processes and a backend per
// connection; its CPU is the sum over the postmaster and its children plus
// the postmaster's cutime+cstime, which is where the time of a child that
// exited (and was reaped) goes, so a backend ending inside the window is
// still counted.

// clockTick is USER_HZ, the unit of /proc/PID/stat's times (100 on Linux).
const clockTick = 100

// procStat is the fields of /proc/PID/stat we use.
type procStat struct {
	ppid                         int
	utime, stime, cutime, cstime int64 // clock ticks
}

func readProcStat(pid int) (procStat, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return procStat{}, err
	}
	// The command name (field 2) is in parentheses and may hold spaces.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return procStat{}, fmt.Errorf("/proc/%d/stat: bad format", pid)
	}
	f := strings.Fields(s[i+1:]) // f[0] is field 3 (state)
	if len(f) < 15 {
		return procStat{}, fmt.Errorf("/proc/%d/stat: short", pid)
	}
	num := func(k int) int64 { v, _ := strconv.ParseInt(f[k-3], 10, 64); return v }
	return procStat{ppid: int(num(4)), utime: num(14), stime: num(15), cutime: num(16), cstime: num(17)}, nil
}

// cpuOf is the CPU time a process has used (its own threads only).
func cpuOf(pid int) time.Duration {
	st, err := readProcStat(pid)
	if err != nil {
		return 0
	}
	return ticks(st.utime + st.stime)
}

func ticks(n int64) time.Duration { return time.Duration(n) * time.Second / clockTick }

// cpuOfTree is the CPU time of pid and its direct children, with the
// children already reaped (pid's cutime+cstime). That is all of
// PostgreSQL's processes when pid is the postmaster.
func cpuOfTree(pid int) time.Duration {
	root, err := readProcStat(pid)
	if err != nil {
		return 0
	}
	total := root.utime + root.stime + root.cutime + root.cstime
	for _, c := range childrenOf(pid) {
		if st, err := readProcStat(c); err == nil && st.ppid == pid {
			total += st.utime + st.stime
		}
	}
	return ticks(total)
}

// childrenOf lists the PIDs whose parent is pid: the children files of
// all its threads (each lists the children that thread forked; needs
// CONFIG_PROC_CHILDREN), else a scan of /proc.
func childrenOf(pid int) []int {
	tasks, err := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
	if err == nil {
		var out []int
		ok := true
		for _, t := range tasks {
			b, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%s/children", pid, t.Name()))
			if err != nil {
				ok = false
				break
			}
			for _, f := range strings.Fields(string(b)) {
				if c, err := strconv.Atoi(f); err == nil {
					out = append(out, c)
				}
			}
		}
		if ok {
			return out
		}
	}
	ents, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range ents {
		c, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if st, err := readProcStat(c); err == nil && st.ppid == pid {
			out = append(out, c)
		}
	}
	return out
}

// cpuMeter reads the CPU time of the parts of one cell: the server, its
// database (when a separate process tree) and the load generator (this
// process and its children: pgbench, the poller).
type cpuMeter struct {
	server int // PID of the server (dynamopg, dynalite); 0: none
	db     int // PID of the postmaster; 0: none
	// cpus are the CPUs whose busy time is read (nil: meterCPUs, the
	// server CPUs).
	cpus map[int]bool
}

type cpuSample struct {
	at                 time.Time
	server, db, client time.Duration
	// cpus is the busy time of the server CPUs from /proc/stat, whoever
	// used them (softirq included): beside server+db it shows how much
	// else ran there (other processes on a shared machine).
	cpus time.Duration
	// syscr, syscw are the server's read and write system calls
	// (/proc/PID/io): per operation, its socket reads and writes, so
	// writes per op less the response are PostgreSQL round trips.
	syscr, syscw int64
}

// syscallsOf reads syscr and syscw of /proc/PID/io.
func syscallsOf(pid int) (r, w int64) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/io", pid))
	if err != nil {
		return 0, 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		k, v, _ := strings.Cut(line, ": ")
		n, _ := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		switch k {
		case "syscr":
			r = n
		case "syscw":
			w = n
		}
	}
	return r, w
}

// meterCPUs is the set of CPUs whose busy time samples read (the server
// CPUs; nil: none).
var meterCPUs map[int]bool

func (m cpuMeter) sample() cpuSample {
	set := meterCPUs
	if m.cpus != nil {
		set = m.cpus
	}
	s := cpuSample{at: time.Now(), cpus: busyOf(set)}
	if m.server > 0 {
		s.server = cpuOf(m.server)
		s.syscr, s.syscw = syscallsOf(m.server)
	}
	if m.db > 0 {
		s.db = cpuOfTree(m.db)
	}
	// The load: this process and its reaped children (pgbench) are in its
	// own stat; a child still running (pgbench during its run) is added.
	self := os.Getpid()
	if st, err := readProcStat(self); err == nil {
		s.client = ticks(st.utime + st.stime + st.cutime + st.cstime)
	}
	for _, c := range childrenOf(self) {
		if st, err := readProcStat(c); err == nil && st.ppid == self && !serverPIDs.has(c) {
			s.client += ticks(st.utime + st.stime)
		}
	}
	return s
}

// serverPIDs tells the servers dynamobench started (dynamopg, dynalite:
// children of this process) from its load children (pgbench, the poller).
var serverPIDs = pidSet{m: map[int]bool{}}

type pidSet struct {
	mu sync.Mutex
	m  map[int]bool
}

func (s *pidSet) add(pid int) { s.mu.Lock(); s.m[pid] = true; s.mu.Unlock() }
func (s *pidSet) has(pid int) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.m[pid]
}

// cpuMap is the CPUs of a list ("0,2-3"); nil for "" or a bad list.
func cpuMap(list string) map[int]bool {
	if list == "" {
		return nil
	}
	set, err := parseCPUs(list)
	if err != nil {
		return nil
	}
	m := map[int]bool{}
	for c := 0; c < 1024; c++ {
		if set[c/64]&(1<<(c%64)) != 0 {
			m[c] = true
		}
	}
	return m
}

// busyOf sums the non-idle time (user, nice, system, irq, softirq, steal)
// of the CPUs in set, from /proc/stat.
func busyOf(set map[int]bool) time.Duration {
	if len(set) == 0 {
		return 0
	}
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0
	}
	var total int64
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) < 9 || !strings.HasPrefix(f[0], "cpu") || f[0] == "cpu" {
			continue
		}
		n, err := strconv.Atoi(f[0][3:])
		if err != nil || !set[n] {
			continue
		}
		for _, k := range []int{1, 2, 3, 6, 7, 8} { // user nice system (idle iowait) irq softirq steal
			v, _ := strconv.ParseInt(f[k], 10, 64)
			total += v
		}
	}
	return ticks(total)
}

// cpuUse is the CPU of one timed window, per operation.
type cpuUse struct {
	ServerUsPerOp float64 `json:"server_cpu_us_per_op"`
	DBUsPerOp     float64 `json:"db_cpu_us_per_op,omitempty"`
	ClientUsPerOp float64 `json:"client_cpu_us_per_op"`
	// ServerCoresBusy is server + database CPU over the window's wall
	// time: 1.0 per server CPU fully used.
	ServerCoresBusy float64 `json:"server_cores_busy"`
	// ServerCPUsBusy is the busy time of the server CPUs over the
	// window, whoever used them: well above ServerCoresBusy, something
	// else ran there.
	ServerCPUsBusy float64 `json:"server_cpus_busy_all"`
	// ServerReadsPerOp and ServerWritesPerOp count the server's read and
	// write system calls per operation (sockets, mostly: the client's and
	// PostgreSQL's; the SQLite file's too).
	ServerReadsPerOp  float64 `json:"server_reads_per_op,omitempty"`
	ServerWritesPerOp float64 `json:"server_writes_per_op,omitempty"`
}

func cpuPerOp(a, b cpuSample, ops int64) cpuUse {
	if ops <= 0 {
		return cpuUse{}
	}
	us := func(d time.Duration) float64 { return float64(d.Microseconds()) / float64(ops) }
	wall := b.at.Sub(a.at).Seconds()
	return cpuUse{
		ServerUsPerOp:     round1(us(b.server - a.server)),
		DBUsPerOp:         round1(us(b.db - a.db)),
		ClientUsPerOp:     round1(us(b.client - a.client)),
		ServerCoresBusy:   round3((b.server - a.server + b.db - a.db).Seconds() / wall),
		ServerCPUsBusy:    round3((b.cpus - a.cpus).Seconds() / wall),
		ServerReadsPerOp:  round3(float64(b.syscr-a.syscr) / float64(ops)),
		ServerWritesPerOp: round3(float64(b.syscw-a.syscw) / float64(ops)),
	}
}

func round1(v float64) float64 { return float64(int64(v*10+0.5)) / 10 }
