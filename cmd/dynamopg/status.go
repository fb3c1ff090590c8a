package main

// `dynamopg status`: what an operator asks first, read through the store
// contract (store.Admin.Status) on a read-only store. For PostgreSQL the
// tables with their estimated items and indexes, the index builds with a
// progress bar (rows done of the table's estimated rows, rate, ETA), the
// propagation queue's depth and the recovery worker's state. For SQLite a
// subset: tables with exact counts, indexes and the queue (SQLite records
// no build progress in the file).

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/dynamopg/dynamopg/server/store"
)

// statusReport is one sample of the store's Status, printed as text or
// JSON; builds carry the rates and ETAs computed here from two samples.
type statusReport struct {
	DB       string                `json:"db"`
	At       time.Time             `json:"at"`
	Engine   string                `json:"engine"`
	Tables   []store.TableStatus   `json:"tables"`
	Builds   []statusBuild         `json:"builds,omitempty"`
	Queue    []store.QueueStatus   `json:"queue"`
	Recovery *store.RecoveryStatus `json:"recovery,omitempty"`
}

type statusBuild struct {
	store.BuildStatus
	RatePerS    float64 `json:"rows_per_second"`
	RateSampled bool    `json:"rate_sampled"` // from two samples (--watch), else the attempt's average
	ETAS        float64 `json:"eta_seconds"`  // -1: unknown
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
	remember(*db)
	if fs.NArg() > 0 {
		return fmt.Errorf("status: unexpected argument %q", fs.Arg(0))
	}
	if *format != "text" && *format != "json" {
		return fmt.Errorf("status: --format %q: want text or json", *format)
	}
	if *db == "memory" {
		return fmt.Errorf("status: --db memory is private to its server process; point status at postgres://… or sqlite:PATH")
	}
	stor, err := openStatusStore(ctx, *db)
	if err != nil {
		return fmt.Errorf("status: %w", err)
	}
	defer stor.Close()
	sample := func(ctx context.Context) (*statusReport, error) {
		st, err := stor.Status(ctx, store.StatusInput{Tables: true, MaxBuilds: *builds})
		if err != nil {
			return nil, err
		}
		r := &statusReport{At: time.Now(), Engine: st.Engine, Tables: st.Tables, Queue: st.Queue, Recovery: st.Recovery}
		for _, b := range st.Builds {
			r.Builds = append(r.Builds, statusBuild{BuildStatus: b, ETAS: -1})
		}
		return r, nil
	}

	var prev *statusReport
	for {
		r, err := sample(ctx)
		if err != nil {
			return fmt.Errorf("status: %w", err)
		}
		r.DB = maskDB(*db)
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
		if o, ok := old[b.IndexID]; ok && o.Attempts == b.Attempts && r.At.After(prev.At) && !b.Finished() {
			b.RatePerS = float64(b.RowsDone-o.RowsDone) / r.At.Sub(prev.At).Seconds()
			b.RateSampled = true
		} else if b.ElapsedS > 0 {
			b.RatePerS = float64(b.RowsDone) / b.ElapsedS
		}
		switch {
		case b.Finished():
			b.ETAS = 0
		case b.Phase == "backfill" && b.TableRows >= 0 && b.RatePerS > 0:
			b.ETAS = max(float64(b.TableRows-b.RowsDone), 0) / b.RatePerS
		}
	}
}

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
			if b.Owner != "" && !b.Finished() {
				extra = append(extra, "owner "+b.Owner)
			}
			if b.HeartbeatS >= 0 && !b.Finished() {
				extra = append(extra, "heartbeat "+dur(b.HeartbeatS)+" ago")
			}
			if b.NextInS > 0 && !b.Finished() {
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
	case b.Finished():
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
