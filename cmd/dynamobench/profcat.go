package main

import (
	"fmt"
	"os/exec"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// Where a server's CPU goes: a CPU profile (-pprof) split into the parts
// of a request, each sample given to the first category (in this order)
// that any frame of its stack matches. The order puts the specific before
// the general: a write syscall under net/http's response is the response
// write, a sample under pgx inside the store is pgx.

type profCategory struct {
	name string
	re   *regexp.Regexp
}

var profCategories = func() []profCategory {
	def := [][2]string{
		{"GC (background mark, sweep)", `runtime\.gcBgMarkWorker|runtime\.bgsweep|runtime\.bgscavenge|sweepLocked`},
		{"response write (net/http flush, write syscall)", `net/http\.\(\*response\)\.finishRequest|net/http\.checkConnErrorWriter|net/http\.\(\*chunkWriter\)|server\.writeJSON`},
		{"request read + parse (net/http)", `net/http\.\(\*conn\)\.readRequest|net/http\.\(\*connReader\)|net/http\.readRequest`},
		{"request decode (api.decode: encoding/json)", `server/api\.decode|encoding/json\.Unmarshal`},
		{"pgx: pool, encode, scan", `jackc/pgx|jackc/puddle`},
		{"SQLite (modernc, database/sql)", `modernc\.org/|database/sql`},
		{"response encode (appendResponse)", `server\.appendResponse|server\.appendAny`},
		{"crc32", `hash/crc32`},
		{"logging (slog)", `log/slog`},
		{"metrics", `server/metrics|serverMetrics|opsMetrics`},
		{"context, timers", `^context\.|server\.\(\*requestCtx\)|time\.AfterFunc|time\.NewTimer|runtime\.(addtimer|deltimer|modtimer)|\(\*timer\)`},
		{"api: request checks (table name regexp, options)", `server/api\.(checkName|checkTableRef|validate)|^regexp`},
		{"api: table cache", `server/api\.\(\*API\)\.tableFor`},
		{"store (Go code of pgstore, sqlitestore)", `server/store/`},
		{"api: items, expressions", `server/api|server/attr|server/expr`},
		{"server: handler, request id", `dynamopg/server\.`},
		{"Echo, net/http other", `labstack/echo|net/http\.|^bufio\.`},
		{"scheduler, netpoll (epoll_wait)", `runtime\.(schedule|findRunnable|netpoll|park_m|mcall|goexit0|startm|stopm|notesleep|futex|wakep)`},
		{"runtime other (malloc, GC assist)", `^runtime\.|^internal/runtime`},
	}
	out := make([]profCategory, len(def))
	for i, d := range def {
		out[i] = profCategory{d[0], regexp.MustCompile(d[1])}
	}
	return out
}()

var syscallLeaf = regexp.MustCompile(`internal/runtime/syscall|syscall\.(Syscall|RawSyscall)|runtime\.futex|EpollWait`)

var (
	connIO   = regexp.MustCompile(`^net\.\(\*conn\)\.(Read|Write)$`)
	pgxFrame = regexp.MustCompile(`jackc/pgx`)
	gcFrame  = profCategories[0].re
)

// ioCategory names the socket I/O a sample is in (its stack's nearest
// net.(*conn).Read or Write, for PostgreSQL's connection or the client's),
// or "".
func ioCategory(frames []string) string {
	for _, f := range frames {
		if gcFrame.MatchString(f) {
			return ""
		}
	}
	for _, f := range frames {
		m := connIO.FindStringSubmatch(f)
		if m == nil {
			continue
		}
		pg := false
		for _, g := range frames {
			pg = pg || pgxFrame.MatchString(g)
		}
		switch {
		case pg && m[1] == "Write":
			return "pgx: send to PostgreSQL (socket write)"
		case pg:
			return "pgx: receive from PostgreSQL (socket read)"
		case m[1] == "Write":
			return "response write (net/http flush, write syscall)"
		default:
			return "request read + parse (net/http)"
		}
	}
	return ""
}

// profShare is one category's share of a profile.
type profShare struct {
	Category string  `json:"category"`
	Percent  float64 `json:"percent"`
	// SyscallPercent is the part of Percent spent in system calls.
	SyscallPercent float64 `json:"syscall_percent"`
}

// profBreakdown splits the CPU profile at path by category, using `go
// tool pprof -traces` (every sample's stack, leaf first).
func profBreakdown(path string) ([]profShare, error) {
	out, err := exec.Command("go", "tool", "pprof", "-traces", path).Output()
	if err != nil {
		return nil, fmt.Errorf("go tool pprof -traces %s: %w", path, err)
	}
	total := 0.0
	by := map[string]float64{}
	sys := map[string]float64{}
	for _, block := range strings.Split(string(out), "-----------+-------------------------------------------------------")[1:] {
		var frames []string
		v := 0.0
		for i, line := range strings.Split(strings.Trim(block, "\n"), "\n") {
			line = strings.TrimSpace(line)
			if line == "" {
				continue
			}
			if i == 0 {
				val, frame, ok := strings.Cut(line, " ")
				if !ok {
					break
				}
				v = parsePprofDuration(val)
				line = strings.TrimSpace(frame)
			}
			frames = append(frames, line)
		}
		if v == 0 || len(frames) == 0 {
			continue
		}
		total += v
		cat := ioCategory(frames)
	find:
		for _, c := range profCategories {
			if cat != "" {
				break
			}
			for _, f := range frames {
				if c.re.MatchString(f) {
					cat = c.name
					break find
				}
			}
		}
		if cat == "" {
			cat = "other"
		}
		by[cat] += v
		if syscallLeaf.MatchString(frames[0]) {
			sys[cat] += v
		}
	}
	if total == 0 {
		return nil, fmt.Errorf("%s: no samples", path)
	}
	var shares []profShare
	for c, v := range by {
		shares = append(shares, profShare{Category: c, Percent: round1(100 * v / total), SyscallPercent: round1(100 * sys[c] / total)})
	}
	sort.Slice(shares, func(i, j int) bool { return shares[i].Percent > shares[j].Percent })
	return shares, nil
}

// parsePprofDuration reads pprof's "10ms", "1.20s", "500us".
func parsePprofDuration(s string) float64 {
	for _, u := range []struct {
		suffix string
		scale  float64
	}{{"ms", 1e-3}, {"us", 1e-6}, {"µs", 1e-6}, {"ns", 1e-9}, {"s", 1}} {
		if n, ok := strings.CutSuffix(s, u.suffix); ok {
			v, err := strconv.ParseFloat(n, 64)
			if err != nil {
				return 0
			}
			return v * u.scale
		}
	}
	return 0
}
