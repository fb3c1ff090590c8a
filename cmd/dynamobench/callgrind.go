package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// callgrindWindow counts the instructions a server running under
// valgrind --tool=callgrind executes inside w: it zeroes the counters at
// w.from and dumps them at w.to (callgrind_control), and the function
// returned reads the dump's total of instructions (Ir). Callgrind counts
// every instruction of the process, deterministic where wall-clock and CPU
// time are not on a shared machine; valgrind runs the server one thread at
// a time and some 50 times slower, so a cell makes few requests.
func callgrindWindow(ctx context.Context, pid int, w window) func() (int64, error) {
	type result struct {
		ir  int64
		err error
	}
	done := make(chan result, 1)
	go func() {
		sleepUntil(ctx, w.from)
		if out, err := exec.Command("callgrind_control", "-z", strconv.Itoa(pid)).CombinedOutput(); err != nil {
			done <- result{0, fmt.Errorf("callgrind_control -z: %v: %s", err, out)}
			return
		}
		sleepUntil(ctx, w.to)
		out, err := exec.Command("callgrind_control", "-d", strconv.Itoa(pid)).CombinedOutput()
		if err != nil {
			done <- result{0, fmt.Errorf("callgrind_control -d: %v: %s", err, out)}
			return
		}
		ir, err := lastDumpTotal(pid)
		done <- result{ir, err}
	}()
	return func() (int64, error) { r := <-done; return r.ir, r.err }
}

// lastDumpTotal reads the "totals:" line of the newest callgrind dump of
// pid (callgrind.out.PID.N, or any *PID* file in the process's working
// directory).
func lastDumpTotal(pid int) (int64, error) {
	cwd, err := os.Readlink(fmt.Sprintf("/proc/%d/cwd", pid))
	if err != nil {
		return 0, err
	}
	files, _ := filepath.Glob(filepath.Join(cwd, "*"+strconv.Itoa(pid)+"*"))
	sort.Slice(files, func(i, j int) bool {
		a, _ := os.Stat(files[i])
		b, _ := os.Stat(files[j])
		return a != nil && b != nil && a.ModTime().Before(b.ModTime())
	})
	for i := len(files) - 1; i >= 0; i-- {
		b, err := os.ReadFile(files[i])
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(b), "\n") {
			if v, ok := strings.CutPrefix(line, "totals: "); ok {
				f := strings.Fields(v)
				if len(f) > 0 {
					return strconv.ParseInt(f[0], 10, 64)
				}
			}
		}
	}
	return 0, fmt.Errorf("no callgrind dump of %d in %s", pid, cwd)
}
