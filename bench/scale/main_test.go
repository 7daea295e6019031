package main

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/creativeops/creativeops/internal/clustertest"
)

func TestMain(m *testing.M) {
	clustertest.RunChildIfRequested()
	os.Exit(m.Run())
}

// TestSmoke runs the whole benchmark at 200 rows of each kind on SQLite
// with short windows, so that the tool keeps working: it checks that every
// stage measured something and the section landed between the markers,
// never how fast anything was.
func TestSmoke(t *testing.T) {
	if testing.Short() {
		t.Skip("starts servers and waits for a reminder scan (up to a minute)")
	}
	dir := t.TempDir()
	doc := filepath.Join(dir, "performance.md")
	if err := os.WriteFile(doc, []byte("# Performance\n\nbefore\n\n"+beginMarker+"\nold\n"+endMarker+"\n\nafter\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	o, err := parseFlags([]string{"-db", "sqlite", "-sizes", "200", "-idle", "2s", "-mix-rps", "20", "-mix-duration", "2s",
		"-reads", "10", "-clients", "2", "-walks", "1", "-due", "5", "-scan-timeout", "90s",
		"-dir", filepath.Join(dir, "work"), "-results", filepath.Join(dir, "results"), "-doc", doc})
	if err != nil {
		t.Fatal(err)
	}
	o.child = true
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	if err := run(ctx, o, slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))); err != nil {
		t.Fatal(err)
	}
	res, err := loadResults(o, "sqlite")
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Sizes) != 1 || res.Sizes[0].Size != 200 {
		t.Fatalf("sizes measured: %+v", res.Sizes)
	}
	r := res.Sizes[0]
	if len(r.Reads) < 15 {
		t.Errorf("%d read endpoints measured", len(r.Reads))
	}
	for _, l := range r.Reads {
		if l.Count != 10 || l.Errors != 0 || l.P99 <= 0 {
			t.Errorf("%s: %d calls, %d errors (%s), p99 %s", l.Name, l.Count, l.Errors, l.FirstError, l.P99)
		}
	}
	if len(r.Mix) == 0 || r.MixErrors != 0 {
		t.Errorf("realistic mix: %d operations, %d errors", len(r.Mix), r.MixErrors)
	}
	for _, p := range r.Pages {
		// 200 rows make 10 pages of 20 (more for events, two a row).
		if p.Reached < 10 || p.First <= 0 {
			t.Errorf("list %s: reached page %d", p.Name, p.Reached)
		}
	}
	if r.ScanErr != "" || r.Scan.Reminders != 5 {
		t.Errorf("scan: %d reminders for 5 due plans (%s)", r.Scan.Reminders, r.ScanErr)
	}
	for _, d := range r.Disk {
		if d.Rows < 200 || d.Bytes <= 0 {
			t.Errorf("disk: %s has %d rows, %d bytes", d.Kind, d.Rows, d.Bytes)
		}
	}
	if r.Idle.Cores <= 0 && res.Empty.Cores <= 0 || r.Idle.RSS <= 0 {
		t.Errorf("idle: %+v, empty %+v", r.Idle, res.Empty)
	}
	if r.Backup.Backup <= 0 || r.Backup.Restore <= 0 {
		t.Errorf("backup: %+v", r.Backup)
	}
	b, err := os.ReadFile(doc)
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	if strings.Contains(s, "\nold\n") || !strings.Contains(s, "before") || !strings.Contains(s, "after") ||
		strings.Count(s, beginMarker) != 1 || !strings.Contains(s, "| SQLite 200 |") ||
		!strings.Contains(s, "2 clients, up to 10 calls") || !strings.Contains(s, "at 20 req/s\nfor 2s") {
		t.Errorf("the section was not put between the markers:\n%s", s)
	}
}

func TestParseSize(t *testing.T) {
	for in, want := range map[string]int{"200": 200, "10k": 10_000, "100K": 100_000, "1m": 1_000_000} {
		if got, err := parseSize(in); err != nil || got != want {
			t.Errorf("parseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "0", "-5", "1g", "k"} {
		if _, err := parseSize(in); err == nil {
			t.Errorf("parseSize(%q) accepted", in)
		}
	}
	if _, err := parseFlags([]string{"-sizes", "100k,10k"}); err == nil {
		t.Error("descending sizes accepted")
	}
}

// A backend's CPU counts from where it stood at the window's start: one
// that left within the window (a pool closing the connection that seeded
// the database) takes nothing off the others', and a process new to the
// window, or a new process under an old one's id, counts whole.
func TestPostgresCPUSince(t *testing.T) {
	then := map[int]float64{10: 2, 11: 500, 12: 7}
	now := map[int]float64{10: 2.5, 12: 0.25, 13: 1}
	if got := pgCPUSince(then, now); got != 0.5+0.25+1 {
		t.Errorf("pgCPUSince = %v, want 1.75", got)
	}
	if got := pgCPUSince(nil, nil); got != 0 {
		t.Errorf("pgCPUSince without PostgreSQL = %v, want 0", got)
	}
}
