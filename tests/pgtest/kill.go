package pgtest

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// kill sends SIGKILL to the postmaster of c and to its children (found in
// /proc by parent pid), then waits until none of them is left.
func (c *cluster) kill() error {
	data, err := os.ReadFile(filepath.Join(c.dir, "data", "postmaster.pid"))
	if err != nil {
		return fmt.Errorf("pgtest: kill: %w", err)
	}
	line, _, _ := strings.Cut(string(data), "\n")
	pm, err := strconv.Atoi(strings.TrimSpace(line))
	if err != nil {
		return fmt.Errorf("pgtest: kill: postmaster.pid: %w", err)
	}
	pids := append(childrenOf(pm), pm)
	// The postmaster first, so that it starts no new child meanwhile.
	_ = syscall.Kill(pm, syscall.SIGKILL)
	for _, p := range pids {
		_ = syscall.Kill(p, syscall.SIGKILL)
	}
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		alive := 0
		for _, p := range append(pids, childrenOf(pm)...) {
			if syscall.Kill(p, 0) == nil && !zombie(p) {
				_ = syscall.Kill(p, syscall.SIGKILL)
				alive++
			}
		}
		if alive == 0 {
			// The postmaster may linger as a zombie (its parent, init here,
			// need not reap it), which the next postmaster's check of its
			// lock files takes for a live server; after a real crash its
			// pid is gone, so the lock files go too.
			// So do the socket's lock files.
			locks, _ := filepath.Glob(filepath.Join(c.dir, ".s.PGSQL.*.lock"))
			for _, f := range append(locks, filepath.Join(c.dir, "data", "postmaster.pid")) {
				if err := os.Remove(f); err != nil && !os.IsNotExist(err) {
					return fmt.Errorf("pgtest: kill: %w", err)
				}
			}
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("pgtest: kill: %d processes still alive after 30 s", alive)
		}
	}
}

// childrenOf lists the processes whose parent is pid.
func childrenOf(pid int) []int {
	entries, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range entries {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if ppid, _ := statField(p, 4); ppid == strconv.Itoa(pid) {
			out = append(out, p)
		}
	}
	return out
}

// zombie reports a process that has exited and awaits its parent's wait.
func zombie(pid int) bool {
	st, ok := statField(pid, 3)
	return !ok || st == "Z" || st == "X"
}

// statField returns field n (1-based) of /proc/PID/stat.
func statField(pid, n int) (string, bool) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return "", false
	}
	// The command (field 2) is parenthesized and may hold spaces.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return "", false
	}
	fields := strings.Fields(string(b[i+1:]))
	if n-3 < 0 || n-3 >= len(fields) {
		return "", false
	}
	return fields[n-3], true
}
