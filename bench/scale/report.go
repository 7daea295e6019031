package main

import (
	"fmt"
	"log/slog"
	"os"
	"strings"
	"time"
)

// The markers between which docs/performance.md holds the scale table.
const (
	beginMarker = "<!-- bench-scale:begin -->"
	endMarker   = "<!-- bench-scale:end -->"
)

var dbTitle = map[string]string{"sqlite": "SQLite", "postgres": "PostgreSQL"}

// writeDoc renders every database's stored results and puts them between
// the markers of o.doc (appending the section when the markers are
// missing); the same text goes to the log directory as scale.md.
func writeDoc(o options, log *slog.Logger) error {
	var all []*DBResults
	for _, db := range []string{"sqlite", "postgres"} {
		if r, err := loadResults(o, db); err == nil && len(r.Sizes) > 0 {
			all = append(all, r)
		}
	}
	if len(all) == 0 {
		return fmt.Errorf("no results in %s", o.results)
	}
	section := render(all)
	if err := os.WriteFile(o.results+"/scale.md", []byte(section), 0o640); err != nil {
		return err
	}
	if o.doc == "" || o.doc == "-" {
		fmt.Print(section)
		return nil
	}
	old, err := os.ReadFile(o.doc)
	if err != nil {
		return err
	}
	doc := string(old)
	i, j := strings.Index(doc, beginMarker), strings.Index(doc, endMarker)
	if i >= 0 && j > i {
		doc = doc[:i] + section + doc[j+len(endMarker):]
	} else {
		doc = strings.TrimRight(doc, "\n") + "\n\n" + section + "\n"
	}
	log.Info("wrote the scale table", "file", o.doc)
	return os.WriteFile(o.doc, []byte(doc), 0o644)
}

func ms(d time.Duration) string {
	if d <= 0 {
		return "–"
	}
	if d < 10*time.Millisecond {
		return fmt.Sprintf("%.1f", float64(d)/1e6)
	}
	return fmt.Sprintf("%.0f", float64(d)/1e6)
}

type column struct {
	db string
	r  Result
}

// render writes the section: the verdicts, then per endpoint, page, server
// figure and row kind, one column per database and size.
func render(all []*DBResults) string {
	var b strings.Builder
	w := func(f string, a ...any) { fmt.Fprintf(&b, f, a...) }
	var cols []column
	for _, d := range all {
		for _, r := range d.Sizes {
			cols = append(cols, column{d.DB, r})
		}
	}
	w("%s\n", beginMarker)
	w("### Scale: the same reads at 10k, 100k and 1M rows (`make bench-scale`)\n\n")
	w("Written by `bench/scale` (do not edit between its markers). Each size grows one database, N rows of\n")
	w("each kind: creators, IP records (with their log hashes), jobs, tracked plans (9 milestones each),\n")
	w("usage minutes, webhook deliveries, audit events; plus an event per creator and per record. Usage\n")
	w("minutes: the measured organization holds 10k over 30 days, other organizations the rest.\n")
	if len(cols) > 0 {
		r := cols[len(cols)-1].r
		w("Reads: %d clients, up to %d calls or 30 s per endpoint; the mix: `clustertest.RealisticMix`, open loop at %d req/s\n", r.Clients, r.Calls, r.MixRPS)
		lo, hi := sampleRange(r.Mix)
		w("for %s (%d to %d calls an operation: a p99 is the 1 %% slowest, not one straggler).\n", r.MixFor, lo, hi)
	}
	w("Cells are p50 / p99 in ms.\n\n")
	for _, d := range all {
		var runs []string
		for _, r := range d.Sizes {
			analyzed := ""
			if r.Analyzed {
				analyzed = ", VACUUM ANALYZE after seeding (autovacuum off)"
			}
			runs = append(runs, fmt.Sprintf("%s %s (%s, load %s → %s, seed %s%s, idle window %s)", sizeName(r.Size),
				r.At.Format("2006-01-02 15:04"), r.Commit, r.LoadBefore, r.LoadAfter, r.Seed.Round(time.Second), analyzed, r.Idle.Window))
		}
		w("- %s: %s.\n", dbTitle[d.DB], strings.Join(runs, "; "))
	}
	if len(cols) > 0 {
		w("- Machine: %s; shared, so compare within a column set, not across runs.\n", cols[len(cols)-1].r.MachineNote)
	}
	w("\n**Targets** (largest size against the smallest, per database):\n\n")
	for _, d := range all {
		verdicts(&b, d)
	}
	header := func(first string) {
		w("\n| %s |", first)
		for _, c := range cols {
			w(" %s %s |", dbTitle[c.db], sizeName(c.r.Size))
		}
		w("\n|---|")
		for range cols {
			w("---:|")
		}
		w("\n")
	}
	header("Endpoint (p50 / p99 ms)")
	names := orderedNames(cols, func(r Result) []Latency { return r.Reads })
	for _, n := range names {
		w("| %s |", n)
		for _, c := range cols {
			w(" %s |", cell(find(c.r.Reads, n)))
		}
		w("\n")
	}
	w("| **realistic mix** |")
	for _, c := range cols {
		w(" %s / %s |", ms(c.r.MixP50), ms(c.r.MixP99))
	}
	w("\n")
	for _, n := range orderedNames(cols, func(r Result) []Latency { return r.Mix }) {
		w("| mix: %s |", n)
		for _, c := range cols {
			w(" %s |", cell(find(c.r.Mix, n)))
		}
		w("\n")
	}
	header("List: page 1 / page 100 (ms)")
	for _, l := range []string{"creators", "IP catalog", "jobs", "plans", "audit events", "deliveries", "events"} {
		w("| %s |", l)
		for _, c := range cols {
			p := findPage(c.r.Pages, l)
			if p.Reached < 100 {
				w(" %s / (%d pages) |", ms(p.First), p.Reached)
			} else {
				w(" %s / %s |", ms(p.First), ms(p.Hundredth))
			}
		}
		w("\n")
	}
	header("Server")
	row := func(name string, f func(d *DBResults, r Result) string) {
		w("| %s |", name)
		for _, c := range cols {
			w(" %s |", f(dbOf(all, c.db), c.r))
		}
		w("\n")
	}
	row("idle CPU, cores (empty server)", func(d *DBResults, r Result) string {
		return fmt.Sprintf("%.4f (%.4f)", r.Idle.Cores, d.Empty.Cores)
	})
	row("idle CPU of PostgreSQL's backends, cores", func(d *DBResults, r Result) string {
		if d.DB != "postgres" {
			return "–"
		}
		if !pgIdleMeasured(r) {
			return fmt.Sprintf("– (%.4f)", d.Empty.PGCores)
		}
		return fmt.Sprintf("%.4f (%.4f)", r.Idle.PGCores, d.Empty.PGCores)
	})
	row("RSS idle / peak, MiB (empty)", func(d *DBResults, r Result) string {
		return fmt.Sprintf("%d / %d (%d)", r.Idle.RSS>>20, r.Idle.MaxRSS>>20, d.Empty.RSS>>20)
	})
	row("reminder scan: due plans, reminders sent", func(_ *DBResults, r Result) string {
		if r.ScanErr != "" {
			return "failed"
		}
		return fmt.Sprintf("%d, %d", r.Scan.Due, r.Scan.Reminders)
	})
	row("scan duration, s", func(_ *DBResults, r Result) string { return fmt.Sprintf("%.2f", r.Scan.Duration.Seconds()) })
	row("scan CPU per reminder, ms: server (+ PostgreSQL)", func(d *DBResults, r Result) string {
		if r.Scan.Reminders == 0 {
			return "–"
		}
		s := fmt.Sprintf("%.2f", 1000*r.Scan.CPU/float64(r.Scan.Reminders))
		switch {
		case d.DB != "postgres":
		case !pgIdleMeasured(r):
			s += " (+ –)"
		default:
			s += fmt.Sprintf(" (+%.2f)", 1000*r.Scan.PGCPU/float64(r.Scan.Reminders))
		}
		return s
	})
	row("backup / restore, s", func(_ *DBResults, r Result) string {
		return fmt.Sprintf("%.1f / %.1f", r.Backup.Backup.Seconds(), r.Backup.Restore.Seconds())
	})
	row("backup size, MiB", func(_ *DBResults, r Result) string { return fmt.Sprintf("%d", r.Backup.Bytes>>20) })
	row("seeding to this size, s", func(_ *DBResults, r Result) string { return fmt.Sprintf("%.0f", r.Seed.Seconds()) })
	header("Bytes on disk per row (with indexes)")
	for _, k := range append(append([]string{}, Kinds...), "events") {
		w("| %s |", k)
		for _, c := range cols {
			dk := findDisk(c.r.Disk, k)
			if dk.Rows == 0 {
				w(" – |")
				continue
			}
			w(" %d |", dk.Bytes/dk.Rows)
		}
		w("\n")
	}
	w("\nRestore: SQLite, `PRAGMA integrity_check` of the `.backup` copy and opening it (a restore puts\n")
	w("the copy in place of the file); PostgreSQL, `pg_restore --jobs=2` of a `pg_dump --format=custom`\n")
	w("into a new database. Scan: plans made due two days before their first milestone, sent by the\n")
	w("server's own periodic scan; its CPU is over the scan's span, less idle CPU for as long.\n")
	w("After seeding, the seed's writes are checkpointed (SQLite's `wal_checkpoint(TRUNCATE)`,\n")
	w("PostgreSQL's `CHECKPOINT`) before the server starts, as a steady server's would long be.\n")
	for _, d := range all {
		for _, r := range d.Sizes {
			if !pgIdleMeasured(r) {
				w("PostgreSQL %s (%s): its backends' idle CPU came out negative, as the harness then summed the\n", sizeName(r.Size), r.Commit)
				w("backends present at each end of the window and a connection that had seeded the database closed\n")
				w("within it; it is left out (–), with the scan's PostgreSQL share, which is taken less it.\n")
			}
		}
	}
	w("Per-stage times and every figure: `data/bench-scale/results-*.json`.\n")
	w("%s", endMarker)
	return b.String()
}

func dbOf(all []*DBResults, db string) *DBResults {
	for _, d := range all {
		if d.DB == db {
			return d
		}
	}
	return &DBResults{}
}

// verdicts judges one database's largest size against its smallest and its
// empty server.
func verdicts(b *strings.Builder, d *DBResults) {
	w := func(f string, a ...any) { fmt.Fprintf(b, f, a...) }
	if len(d.Sizes) == 0 {
		return
	}
	lo, hi := d.Sizes[0], d.Sizes[len(d.Sizes)-1]
	name := dbTitle[d.DB]
	met := func(ok bool) string {
		if ok {
			return "met"
		}
		return "**not met**"
	}
	ratio := hi.Idle.Cores / max(d.Empty.Cores, 1e-9)
	w("- %s, idle CPU at %s ≤ 1.5× an empty server's: %s (%.4f against %.4f cores, %.2f×).\n", name, sizeName(hi.Size),
		met(ratio <= 1.5), hi.Idle.Cores, d.Empty.Cores, ratio)
	var per []string
	for _, r := range d.Sizes {
		switch {
		case r.Scan.Reminders > 0 && !pgIdleMeasured(r):
			per = append(per, fmt.Sprintf("%s %.2f ms (the server alone)", sizeName(r.Size), 1000*r.Scan.CPU/float64(r.Scan.Reminders)))
		case r.Scan.Reminders > 0:
			per = append(per, fmt.Sprintf("%s %.2f ms", sizeName(r.Size), 1000*(r.Scan.CPU+r.Scan.PGCPU)/float64(r.Scan.Reminders)))
		default:
			per = append(per, sizeName(r.Size)+" –")
		}
	}
	w("- %s, scan CPU per reminder sent (server + database): %s.\n", name, strings.Join(per, ", "))
	var rss []string
	for _, r := range d.Sizes {
		rss = append(rss, fmt.Sprintf("%s %d MiB", sizeName(r.Size), r.Idle.RSS>>20))
	}
	w("- %s, idle RSS: empty %d MiB, %s.\n", name, d.Empty.RSS>>20, strings.Join(rss, ", "))
	if hi.Size == lo.Size {
		return
	}
	var over []string
	n := 0
	check := func(a, z []Latency) {
		for _, l := range z {
			base := find(a, l.Name)
			if base.P99 <= 0 || l.P99 <= 0 {
				continue
			}
			n++
			if r := float64(l.P99) / float64(base.P99); r > 1.5 {
				over = append(over, fmt.Sprintf("%s %.1f×", l.Name, r))
			}
		}
	}
	check(lo.Reads, hi.Reads)
	check(lo.Mix, hi.Mix)
	w("- %s, every endpoint's p99 at %s within 1.5× of its p99 at %s: %s (%d of %d)", name, sizeName(hi.Size), sizeName(lo.Size),
		met(len(over) == 0), n-len(over), n)
	if len(over) > 0 {
		w("; over: %s", strings.Join(over, ", "))
	}
	w(".\n")
}

func orderedNames(cols []column, f func(Result) []Latency) []string {
	var out []string
	seen := map[string]bool{}
	for _, c := range cols {
		for _, l := range f(c.r) {
			if !seen[l.Name] {
				seen[l.Name] = true
				out = append(out, l.Name)
			}
		}
	}
	return out
}

func cell(l Latency) string {
	if l.Count == 0 {
		return "–"
	}
	s := ms(l.P50) + " / " + ms(l.P99)
	if l.Errors > 0 {
		s += fmt.Sprintf(" (%d errors)", l.Errors)
	}
	return s
}

func find(ls []Latency, name string) Latency {
	for _, l := range ls {
		if l.Name == name {
			return l
		}
	}
	return Latency{}
}

func findPage(ps []Pages, name string) Pages {
	for _, p := range ps {
		if p.Name == name {
			return p
		}
	}
	return Pages{}
}

func findDisk(ds []Disk, kind string) Disk {
	for _, d := range ds {
		if d.Kind == kind {
			return d
		}
	}
	return Disk{}
}

// sampleRange is the fewest and the most calls of the operations of ls.
func sampleRange(ls []Latency) (lo, hi int) {
	for i, l := range ls {
		if i == 0 || l.Count < lo {
			lo = l.Count
		}
		hi = max(hi, l.Count)
	}
	return lo, hi
}

// pgIdleMeasured reports whether r's idle CPU of PostgreSQL's backends is
// a measure: results made before pgCPUSince could hold a negative one.
func pgIdleMeasured(r Result) bool { return r.Idle.PGCores >= 0 }
