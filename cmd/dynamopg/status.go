package main

// `dynamopg status`: what an operator asks first. For PostgreSQL the tables
// with their estimated items and indexes, the index builds with a progress
// bar (dynamopg.index_build_status: rows done of the table's estimated rows,
// rate, ETA), the propagation queue's depth and the recovery worker's state;
// the SQL is queries/status.sql. For SQLite a subset: tables, indexes and
// the queue (SQLite records no build progress).

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
	_ "modernc.org/sqlite"

	"github.com/dynamopg/dynamopg/gen"
	"github.com/dynamopg/dynamopg/server/store"
)

// statusReport is one sample of the numbers, printed as text or JSON.
type statusReport struct {
	DB       string          `json:"db"`
	At       time.Time       `json:"at"`
	Engine   string          `json:"engine"`
	Tables   []statusTable   `json:"tables"`
	Builds   []statusBuild   `json:"builds,omitempty"`
	Queue    []statusQueue   `json:"queue"`
	Recovery *statusRecovery `json:"recovery,omitempty"`
}

type statusTable struct {
	Name     string        `json:"name"`
	Status   string        `json:"status"`
	Items    int64         `json:"items"` // estimate on PostgreSQL (-1: unknown), exact on SQLite
	Bytes    int64         `json:"bytes,omitempty"`
	Indexes  []statusIndex `json:"indexes,omitempty"`
	estimate bool
}

type statusIndex struct {
	Name        string `json:"name"`
	Kind        string `json:"kind"` // GSI or LSI
	Status      string `json:"status"`
	Backfilling bool   `json:"backfilling,omitempty"`
	Propagation string `json:"propagation"`
	Rows        int64  `json:"rows"` // estimate; -1 unknown
}

type statusBuild struct {
	Table       string     `json:"table"`
	Index       string     `json:"index"`
	IndexID     int64      `json:"index_id"`
	Phase       string     `json:"phase"`
	RowsDone    int64      `json:"rows_done"`
	TableRows   int64      `json:"table_rows_estimate"` // -1: unknown
	Pages       int64      `json:"pages"`
	Retries     int64      `json:"retries"`
	Attempts    int32      `json:"attempts"`
	Owner       string     `json:"owner,omitempty"`
	LastError   string     `json:"last_error,omitempty"`
	ElapsedS    float64    `json:"elapsed_seconds"`
	HeartbeatS  float64    `json:"heartbeat_age_seconds"` // -1: none
	NextInS     float64    `json:"next_attempt_in_seconds"`
	RatePerS    float64    `json:"rows_per_second"`
	RateSampled bool       `json:"rate_sampled"` // from two samples (--watch), else the attempt's average
	ETAS        float64    `json:"eta_seconds"`  // -1: unknown
	StartedAt   *time.Time `json:"started_at,omitempty"`
	FinishedAt  *time.Time `json:"finished_at,omitempty"`
}

type statusQueue struct {
	Table      string  `json:"table"`
	Depth      int64   `json:"depth"`
	PassedOver int64   `json:"passed_over"`
	OldestS    float64 `json:"oldest_seconds"`
}

type statusRecovery struct {
	IntervalMs   int32      `json:"interval_ms"`
	Creating     int64      `json:"creating_indexes"`
	Due          int64      `json:"due_unowned"`
	Running      int64      `json:"running"`
	Retrying     int64      `json:"retrying"`
	LastStarted  *time.Time `json:"last_started,omitempty"`
	LastFinished *time.Time `json:"last_finished,omitempty"`
}

func status(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("status", flag.ContinueOnError)
	st := newSettings(fs)
	db := st.String("db", "DYNAMOPG_DB", "sqlite:dynamopg.db", "database: postgres://… (everything) or sqlite:PATH (tables, indexes, queue)")
	format := st.String("format", "DYNAMOPG_STATUS_FORMAT", "text", "output: text or json")
	builds := st.Int("builds", "DYNAMOPG_STATUS_BUILDS", 20, "index builds listed (running first, then the latest finished)")
	watch := st.Duration("watch", "DYNAMOPG_STATUS_WATCH", 0, "repeat every interval (rates then come from the change between samples); 0 prints once")
	fs.Usage = st.usage("status", "Print tables, index builds (progress, rate, ETA), the propagation queue and the index recovery worker.", nil)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("status: unexpected argument %q", fs.Arg(0))
	}
	if *format != "text" && *format != "json" {
		return fmt.Errorf("status: --format %q: want text or json", *format)
	}
	var sample func(context.Context) (*statusReport, error)
	switch {
	case strings.HasPrefix(*db, "postgres://"), strings.HasPrefix(*db, "postgresql://"):
		cfg, err := pgx.ParseConfig(*db)
		if err != nil {
			return fmt.Errorf("status: %w", err)
		}
		cfg.RuntimeParams["application_name"] = "dynamopg status"
		cfg.RuntimeParams["statement_timeout"] = "30000"
		cfg.RuntimeParams["default_transaction_read_only"] = "on"
		cctx, cancel := context.WithTimeout(ctx, 15*time.Second)
		conn, err := pgx.ConnectConfig(cctx, cfg)
		cancel()
		if err != nil {
			return fmt.Errorf("status: connect %s: %w", maskURL(*db), err)
		}
		defer conn.Close(context.WithoutCancel(ctx))
		sample = func(ctx context.Context) (*statusReport, error) { return pgStatus(ctx, conn, int32(*builds)) }
	case strings.HasPrefix(*db, "sqlite:"):
		path := strings.TrimPrefix(*db, "sqlite:")
		if _, err := os.Stat(path); err != nil {
			return fmt.Errorf("status: %w", err)
		}
		conn, err := sql.Open("sqlite", "file:"+path+"?mode=ro&_pragma=busy_timeout(5000)")
		if err != nil {
			return fmt.Errorf("status: %w", err)
		}
		defer conn.Close()
		sample = func(ctx context.Context) (*statusReport, error) { return sqliteStatus(ctx, conn) }
	case *db == "memory":
		return fmt.Errorf("status: --db memory is private to its server process; point status at postgres://… or sqlite:PATH")
	default:
		return fmt.Errorf("status: --db %q: want postgres://… or sqlite:PATH", *db)
	}

	var prev *statusReport
	for {
		r, err := sample(ctx)
		if err != nil {
			return fmt.Errorf("status: %w", err)
		}
		r.DB = maskURL(*db)
		rates(r, prev)
		if *format == "json" {
			enc := json.NewEncoder(os.Stdout)
			enc.SetIndent("", "  ")
			if err := enc.Encode(r); err != nil {
				return err
			}
		} else {
			if *watch > 0 && prev != nil {
				fmt.Println()
			}
			printStatus(os.Stdout, r)
		}
		if *watch <= 0 {
			return nil
		}
		prev = r
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(*watch):
		}
	}
}

func pgStatus(ctx context.Context, conn *pgx.Conn, maxBuilds int32) (*statusReport, error) {
	q := gen.New()
	r := &statusReport{At: time.Now(), Engine: "postgresql"}
	tables, err := q.StatusTables(ctx, conn)
	if err != nil {
		if strings.Contains(err.Error(), "does not exist") {
			return nil, fmt.Errorf("%w (is the schema installed? run dynamopg migrate)", err)
		}
		return nil, err
	}
	byName := map[string]int{}
	for _, t := range tables {
		byName[t.Name] = len(r.Tables)
		r.Tables = append(r.Tables, statusTable{Name: t.Name, Status: t.Status, Items: t.EstItems, Bytes: t.Bytes, estimate: true})
	}
	indexes, err := q.StatusIndexes(ctx, conn)
	if err != nil {
		return nil, err
	}
	for _, ix := range indexes {
		i, ok := byName[ix.TableName]
		if !ok {
			continue
		}
		kind := "LSI"
		if ix.Global {
			kind = "GSI"
		}
		r.Tables[i].Indexes = append(r.Tables[i].Indexes, statusIndex{Name: ix.IndexName, Kind: kind, Status: ix.Status,
			Backfilling: ix.Backfilling, Propagation: ix.Propagation, Rows: ix.EstRows})
	}
	bs, err := q.StatusBuilds(ctx, conn, gen.StatusBuildsParams{MaxRows: maxBuilds})
	if err != nil {
		return nil, err
	}
	for _, b := range bs {
		r.Builds = append(r.Builds, statusBuild{Table: b.TableName, Index: b.IndexName, IndexID: b.IndexID, Phase: b.Phase,
			RowsDone: b.RowsDone, TableRows: b.EstTableRows, Pages: b.Pages, Retries: b.Retries, Attempts: b.Attempts,
			Owner: b.Owner, LastError: b.LastError, ElapsedS: b.ElapsedS, HeartbeatS: b.HeartbeatAgeS, NextInS: b.NextAttemptInS,
			StartedAt: tsPtr(b.StartedAt), FinishedAt: tsPtr(b.FinishedAt), ETAS: -1})
	}
	qs, err := q.StatusQueue(ctx, conn)
	if err != nil {
		return nil, err
	}
	for _, x := range qs {
		r.Queue = append(r.Queue, statusQueue{Table: x.TableName, Depth: x.Depth, PassedOver: x.PassedOver, OldestS: x.OldestS})
	}
	rec, err := q.StatusRecovery(ctx, conn)
	if err != nil {
		return nil, err
	}
	r.Recovery = &statusRecovery{IntervalMs: rec.IntervalMs, Creating: rec.Creating, Due: rec.Due, Running: rec.Running,
		Retrying: rec.Retrying, LastStarted: tsPtr(rec.LastStarted), LastFinished: tsPtr(rec.LastFinished)}
	return r, nil
}

func tsPtr(t pgtype.Timestamptz) *time.Time {
	if !t.Valid {
		return nil
	}
	v := t.Time
	return &v
}

// sqliteStatus reads a SQLite file read-only: the catalog, exact item counts
// and the queue.
func sqliteStatus(ctx context.Context, conn *sql.DB) (*statusReport, error) {
	r := &statusReport{At: time.Now(), Engine: "sqlite"}
	rows, err := conn.QueryContext(ctx, `SELECT id, name, def FROM tables ORDER BY name`)
	if err != nil {
		return nil, fmt.Errorf("%w (is this a dynamopg SQLite file?)", err)
	}
	type row struct {
		id   int64
		name string
		def  string
	}
	var list []row
	for rows.Next() {
		var x row
		if err := rows.Scan(&x.id, &x.name, &x.def); err != nil {
			rows.Close()
			return nil, err
		}
		list = append(list, x)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	names := map[int64]string{}
	for _, x := range list {
		names[x.id] = x.name
		var t store.Table
		if err := json.Unmarshal([]byte(x.def), &t); err != nil {
			return nil, fmt.Errorf("table %s: %w", x.name, err)
		}
		st := statusTable{Name: x.name, Status: t.Status, Items: -1}
		var n int64
		if err := conn.QueryRowContext(ctx, fmt.Sprintf(`SELECT count(*) FROM "t_%d"`, x.id)).Scan(&n); err == nil {
			st.Items = n
		}
		for _, ix := range t.Indexes {
			kind := "LSI"
			if ix.Global {
				kind = "GSI"
			}
			p := ix.Propagation
			if p == "" {
				p = store.PropagationSync
			}
			si := statusIndex{Name: ix.Name, Kind: kind, Status: ix.Status, Backfilling: ix.Backfilling, Propagation: p, Rows: -1}
			if err := conn.QueryRowContext(ctx, fmt.Sprintf(`SELECT count(*) FROM "i_%d"`, ix.ID)).Scan(&n); err == nil {
				si.Rows = n
			}
			st.Indexes = append(st.Indexes, si)
		}
		r.Tables = append(r.Tables, st)
	}
	qrows, err := conn.QueryContext(ctx, `SELECT table_id, count(*) FROM index_queue GROUP BY table_id ORDER BY count(*) DESC`)
	if err != nil {
		return nil, err
	}
	defer qrows.Close()
	for qrows.Next() {
		var id, n int64
		if err := qrows.Scan(&id, &n); err != nil {
			return nil, err
		}
		name := names[id]
		if name == "" {
			name = fmt.Sprintf("#%d", id)
		}
		r.Queue = append(r.Queue, statusQueue{Table: name, Depth: n})
	}
	return r, qrows.Err()
}

// rates fills each build's rate and ETA: from the previous sample when there
// is one for the same attempt, else the attempt's average (rows_done counts
// earlier attempts too, so the average overstates a resumed build's rate).
func rates(r, prev *statusReport) {
	old := map[int64]statusBuild{}
	if prev != nil {
		for _, b := range prev.Builds {
			old[b.IndexID] = b
		}
	}
	for i := range r.Builds {
		b := &r.Builds[i]
		if o, ok := old[b.IndexID]; ok && o.Attempts == b.Attempts && r.At.After(prev.At) && !finished(b.Phase) {
			b.RatePerS = float64(b.RowsDone-o.RowsDone) / r.At.Sub(prev.At).Seconds()
			b.RateSampled = true
		} else if b.ElapsedS > 0 {
			b.RatePerS = float64(b.RowsDone) / b.ElapsedS
		}
		switch {
		case finished(b.Phase):
			b.ETAS = 0
		case b.Phase == "backfill" && b.TableRows >= 0 && b.RatePerS > 0:
			b.ETAS = max(float64(b.TableRows-b.RowsDone), 0) / b.RatePerS
		}
	}
}

func finished(phase string) bool { return phase == "active" || phase == "failed" }

func printStatus(w io.Writer, r *statusReport) {
	fmt.Fprintf(w, "dynamopg status  %s  (%s)  %s\n", r.DB, r.Engine, r.At.Format(time.RFC3339))

	fmt.Fprintf(w, "\nTABLES (%d)\n", len(r.Tables))
	if len(r.Tables) == 0 {
		fmt.Fprintln(w, "  none")
	} else {
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		itemsHdr := "ITEMS"
		if r.Engine == "postgresql" {
			itemsHdr = "ITEMS (est.)"
		}
		fmt.Fprintf(tw, "  NAME\tSTATUS\t%s\tSIZE\tINDEXES\n", itemsHdr)
		for _, t := range r.Tables {
			size := "-"
			if t.Bytes > 0 {
				size = humanBytes(t.Bytes)
			}
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%d\n", t.Name, t.Status, count(t.Items), size, len(t.Indexes))
			for _, ix := range t.Indexes {
				st := ix.Status
				if ix.Backfilling {
					st += " (backfilling)"
				}
				fmt.Fprintf(tw, "    └ %s %s\t%s\t%s\t\t%s propagation\n", ix.Kind, ix.Name, st, count(ix.Rows), ix.Propagation)
			}
		}
		tw.Flush()
	}

	if r.Engine == "postgresql" {
		fmt.Fprintf(w, "\nINDEX BUILDS (dynamopg.index_build_status)\n")
		if len(r.Builds) == 0 {
			fmt.Fprintln(w, "  none")
		}
		for _, b := range r.Builds {
			fmt.Fprintf(w, "  %s.%s  %-10s %s\n", b.Table, b.Index, b.Phase, buildLine(b))
			var extra []string
			extra = append(extra, fmt.Sprintf("attempt %d", b.Attempts), fmt.Sprintf("pages %d", b.Pages), fmt.Sprintf("retries %d", b.Retries))
			if b.Owner != "" && !finished(b.Phase) {
				extra = append(extra, "owner "+b.Owner)
			}
			if b.HeartbeatS >= 0 && !finished(b.Phase) {
				extra = append(extra, "heartbeat "+dur(b.HeartbeatS)+" ago")
			}
			if b.NextInS > 0 && !finished(b.Phase) {
				extra = append(extra, "next attempt in "+dur(b.NextInS))
			}
			fmt.Fprintf(w, "      %s\n", strings.Join(extra, ", "))
			if b.LastError != "" {
				fmt.Fprintf(w, "      last error: %s\n", oneLine(b.LastError, 160))
			}
		}
	}

	var depth, passed int64
	for _, q := range r.Queue {
		depth += q.Depth
		passed += q.PassedOver
	}
	fmt.Fprintf(w, "\nPROPAGATION QUEUE (index_queue)\n  depth %d", depth)
	if r.Engine == "postgresql" {
		fmt.Fprintf(w, ", passed over %d", passed)
	}
	fmt.Fprintln(w)
	for _, q := range r.Queue {
		fmt.Fprintf(w, "    %s: %d", q.Table, q.Depth)
		if r.Engine == "postgresql" {
			fmt.Fprintf(w, " (passed over %d, oldest %s)", q.PassedOver, dur(q.OldestS))
		}
		fmt.Fprintln(w)
	}

	if rec := r.Recovery; rec != nil {
		fmt.Fprintf(w, "\nINDEX RECOVERY WORKER\n")
		fmt.Fprintf(w, "  interval %s; CREATING indexes %d: running %d, due with no builder %d, retrying after an error %d\n",
			dur(float64(rec.IntervalMs)/1000), rec.Creating, rec.Running, rec.Due, rec.Retrying)
		fmt.Fprintf(w, "  last build started %s, last finished %s\n", ago(rec.LastStarted, r.At), ago(rec.LastFinished, r.At))
		if rec.Due > 0 {
			fmt.Fprintf(w, "  %d build(s) due and unowned: the next pass (at most %s away) starts them; SELECT dynamopg.index_recovery_run() wakes the workers now\n",
				rec.Due, dur(float64(rec.IntervalMs)/1000))
		}
	} else if r.Engine == "sqlite" {
		fmt.Fprintf(w, "\n(SQLite records no build progress: a CREATING index above is being built by the server process that has the file open)\n")
	}
}

// buildLine is a build's bar, rows, rate and ETA.
func buildLine(b statusBuild) string {
	const width = 30
	frac := -1.0
	switch {
	case b.Phase == "active":
		frac = 1
	case b.TableRows > 0:
		frac = min(float64(b.RowsDone)/float64(b.TableRows), 1)
	case b.TableRows == 0:
		frac = 1
	}
	var bar string
	if frac < 0 {
		bar = "[" + strings.Repeat("?", width) + "]   ?%"
	} else {
		n := int(frac * width)
		bar = fmt.Sprintf("[%s%s] %3d%%", strings.Repeat("#", n), strings.Repeat(".", width-n), int(frac*100))
	}
	s := fmt.Sprintf("%s  %s of %s rows", bar, count(b.RowsDone), count(b.TableRows))
	if b.RatePerS > 0 {
		kind := "avg"
		if b.RateSampled {
			kind = "now"
		}
		s += fmt.Sprintf("  %s rows/s (%s)", count(int64(b.RatePerS)), kind)
	}
	switch {
	case finished(b.Phase):
		s += "  took " + dur(b.ElapsedS)
	case b.ETAS >= 0:
		s += "  ETA " + dur(b.ETAS)
	default:
		s += "  ETA ?"
	}
	return s
}

func count(n int64) string {
	if n < 0 {
		return "?"
	}
	s := fmt.Sprint(n)
	var out []byte
	for i := range len(s) {
		if i > 0 && (len(s)-i)%3 == 0 {
			out = append(out, ',')
		}
		out = append(out, s[i])
	}
	return string(out)
}

func humanBytes(b int64) string {
	const unit = 1024
	if b < unit {
		return fmt.Sprintf("%d B", b)
	}
	div, exp := int64(unit), 0
	for n := b / unit; n >= unit; n /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(b)/float64(div), "KMGTPE"[exp])
}

func dur(s float64) string {
	if s < 0 {
		return "?"
	}
	d := time.Duration(s * float64(time.Second))
	switch {
	case d < time.Second:
		return d.Round(time.Millisecond).String()
	case d < time.Hour:
		return d.Round(time.Second).String()
	default:
		return d.Round(time.Minute).String()
	}
}

func ago(t *time.Time, now time.Time) string {
	if t == nil {
		return "never"
	}
	return dur(now.Sub(*t).Seconds()) + " ago"
}

func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > n {
		s = s[:n] + "…"
	}
	return s
}
