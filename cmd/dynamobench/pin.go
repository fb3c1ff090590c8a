package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"unsafe"
)

// Pinning: the systems under test (dynamopg, PostgreSQL's postmaster and so
// every backend it forks, dynalite) run on the server CPUs; dynamobench
// itself, and so its load generator, pgbench and the lag poller (its
// children), run on the load CPUs. With the two sets apart, a system's
// throughput is what its own CPUs can do, not what is left over from the
// client.

// cpuSet is a set of CPU numbers (at most 1024).
type cpuSet [16]uint64

func parseCPUs(s string) (cpuSet, error) {
	var set cpuSet
	n := 0
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		lo, hi, isRange := strings.Cut(f, "-")
		a, err := strconv.Atoi(lo)
		if err != nil {
			return set, fmt.Errorf("bad CPU list %q", s)
		}
		b := a
		if isRange {
			if b, err = strconv.Atoi(hi); err != nil || b < a {
				return set, fmt.Errorf("bad CPU list %q", s)
			}
		}
		for c := a; c <= b; c++ {
			if c < 0 || c >= 1024 {
				return set, fmt.Errorf("CPU %d out of range", c)
			}
			set[c/64] |= 1 << (c % 64)
			n++
		}
	}
	if n == 0 {
		return set, fmt.Errorf("empty CPU list %q", s)
	}
	return set, nil
}

// setAffinity sets the CPU affinity of one thread (tid; 0 is the calling
// thread).
func setAffinity(tid int, set cpuSet) error {
	_, _, e := syscall.RawSyscall(syscall.SYS_SCHED_SETAFFINITY, uintptr(tid), unsafe.Sizeof(set), uintptr(unsafe.Pointer(&set)))
	if e != 0 {
		return fmt.Errorf("sched_setaffinity(%d): %w", tid, e)
	}
	return nil
}

// pinProcess sets the affinity of every thread of pid. A single-threaded
// process that forks (the postmaster) passes it on to its children.
func pinProcess(pid int, set cpuSet) error {
	tasks, err := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
	if err != nil {
		return err
	}
	for _, t := range tasks {
		tid, err := strconv.Atoi(t.Name())
		if err != nil {
			continue
		}
		if err := setAffinity(tid, set); err != nil {
			return err
		}
	}
	return nil
}

// pinExecArg is the hidden first argument under which dynamobench execs
// another program on a CPU set: `dynamobench __pin-exec CPUS PROG ARGS…`.
// A program started that way runs on CPUS from its first instruction, with
// the same PID, so all its threads (Go's, node's) inherit the set.
const pinExecArg = "__pin-exec"

// pinnedEnv marks the dynamobench process that has pinned itself.
const pinnedEnv = "DYNAMOBENCH_PINNED"

// maybePinExec handles `__pin-exec`; it returns only when os.Args is not one.
func maybePinExec() {
	if len(os.Args) < 4 || os.Args[1] != pinExecArg {
		return
	}
	set, err := parseCPUs(os.Args[2])
	if err != nil {
		fatalf("%s: %v", pinExecArg, err)
	}
	prog, err := exec.LookPath(os.Args[3])
	if err != nil {
		fatalf("%s: %v", pinExecArg, err)
	}
	runtime.LockOSThread() // the thread that execs is the one pinned
	if err := setAffinity(0, set); err != nil {
		fatalf("%s: %v", pinExecArg, err)
	}
	err = syscall.Exec(prog, os.Args[3:], os.Environ())
	fatalf("%s: exec %s: %v", pinExecArg, prog, err)
}

// pinSelf re-executes dynamobench on the load CPUs (unless it already has):
// the Go runtime then sizes GOMAXPROCS to them, and every child inherits
// them. It returns only in the pinned process (or when pinning is off).
func pinSelf(load string) {
	if load == "" || os.Getenv(pinnedEnv) != "" {
		return
	}
	set, err := parseCPUs(load)
	if err != nil {
		fatalf("-load-cpus: %v", err)
	}
	self, err := os.Executable()
	if err != nil {
		fatalf("pin: %v", err)
	}
	runtime.LockOSThread()
	if err := setAffinity(0, set); err != nil {
		fatalf("pin: %v", err)
	}
	env := append(os.Environ(), pinnedEnv+"="+load)
	err = syscall.Exec(self, os.Args, env)
	fatalf("pin: exec %s: %v", self, err)
}

// pinnedCommand returns a command running prog on the server CPUs (through
// __pin-exec), or prog itself when pinning is off.
func pinnedCommand(cpus string, prog string, args ...string) *exec.Cmd {
	if cpus == "" {
		return exec.Command(prog, args...)
	}
	self, err := os.Executable()
	if err != nil {
		return exec.Command(prog, args...)
	}
	return exec.Command(self, append([]string{pinExecArg, cpus, prog}, args...)...)
}

// defaultCPUs splits the machine in two: the first half for the servers,
// the rest for the load (on 2 CPUs: 0 and 1). Empty on one CPU (no
// pinning).
func defaultCPUs() (server, load string) {
	n := runtime.NumCPU()
	if os.Getenv(pinnedEnv) != "" {
		n = onlineCPUs()
	}
	if n < 2 {
		return "", ""
	}
	h := n / 2
	return cpuRange(0, h-1), cpuRange(h, n-1)
}

func cpuRange(a, b int) string {
	if a == b {
		return strconv.Itoa(a)
	}
	return fmt.Sprintf("%d-%d", a, b)
}

// onlineCPUs counts the machine's CPUs (NumCPU counts only those of our
// affinity, which is narrowed once pinned).
func onlineCPUs() int {
	m, _ := filepath.Glob("/sys/devices/system/cpu/cpu[0-9]*")
	if len(m) == 0 {
		return runtime.NumCPU()
	}
	return len(m)
}
