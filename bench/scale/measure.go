package main

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/creativeops/creativeops/internal/clustertest"
	"github.com/creativeops/creativeops/storage"
)

// api calls the REST API with the load key.
type api struct {
	base, key string
	http      *http.Client
}

func (a *api) do(ctx context.Context, method, path string, body any) ([]byte, int, error) {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return nil, 0, err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, a.base+path, rd)
	if err != nil {
		return nil, 0, err
	}
	req.Header.Set("Authorization", "Bearer "+a.key)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := a.http.Do(req)
	if err != nil {
		return nil, 0, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	return b, resp.StatusCode, err
}

// get reads path and fails on any status but 200.
func (a *api) get(ctx context.Context, path string) ([]byte, error) {
	b, status, err := a.do(ctx, "GET", path, nil)
	if err != nil {
		return nil, err
	}
	if status != http.StatusOK {
		return nil, fmt.Errorf("GET %s: %d %s", path, status, truncate(string(b), 300))
	}
	return b, nil
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// Latency is an endpoint's measured figures.
type Latency struct {
	Name     string
	Count    int
	Errors   int
	P50, P99 time.Duration
	// FirstError is kept for the log.
	FirstError string
}

// endpoint is one read the table follows, with a path chosen per call.
type endpoint struct {
	name string
	path func(i int) string
}

// measureEndpoints calls each endpoint count times from clients
// concurrent clients (closed loop), one endpoint after another, and
// reports each one's p50 and p99.
func measureEndpoints(ctx context.Context, a *api, eps []endpoint, clients, count int, deadline time.Duration) []Latency {
	var out []Latency
	for _, ep := range eps {
		// The deadline stops new calls; calls under way finish.
		feedCtx, cancel := context.WithTimeout(ctx, deadline)
		var (
			mu   sync.Mutex
			lat  []time.Duration
			errs int
			msg  string
			next = make(chan int)
			wg   sync.WaitGroup
		)
		for range clients {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range next {
					t0 := time.Now()
					_, err := a.get(ctx, ep.path(i))
					d := time.Since(t0)
					mu.Lock()
					if err != nil {
						errs++
						if msg == "" {
							msg = err.Error()
						}
					} else {
						lat = append(lat, d)
					}
					mu.Unlock()
				}
			}()
		}
	feed:
		for i := range count {
			select {
			case next <- i:
			case <-feedCtx.Done():
				break feed
			}
		}
		close(next)
		wg.Wait()
		cancel()
		p50, p99 := percentiles(lat)
		out = append(out, Latency{Name: ep.name, Count: len(lat) + errs, Errors: errs, P50: p50, P99: p99, FirstError: msg})
	}
	return out
}

func percentiles(lat []time.Duration) (p50, p99 time.Duration) {
	if len(lat) == 0 {
		return 0, 0
	}
	slices.Sort(lat)
	at := func(q float64) time.Duration { return lat[min(len(lat)-1, int(q*float64(len(lat))))] }
	return at(0.50), at(0.99)
}

// Pages is a list's first and hundredth page.
type Pages struct {
	Name string
	// First and Hundredth are medians over the walks; Reached is the
	// last page number reached (less than 100 when the list is shorter).
	First, Hundredth time.Duration
	Reached          int
}

// measurePages walks each list page by page (20 to a page) up to page
// 100, walks times, timing the first and the hundredth page.
func measurePages(ctx context.Context, a *api, lists []endpoint, walks int) ([]Pages, error) {
	var out []Pages
	for _, l := range lists {
		var first, hundredth []time.Duration
		reached := 0
		for range walks {
			token := ""
			for page := 1; page <= 100; page++ {
				path := l.path(0)
				sep := "?"
				if strings.Contains(path, "?") {
					sep = "&"
				}
				path += sep + "page_size=20"
				if token != "" {
					path += "&page_token=" + url.QueryEscape(token)
				}
				t0 := time.Now()
				b, err := a.get(ctx, path)
				d := time.Since(t0)
				if err != nil {
					return nil, fmt.Errorf("%s page %d: %w", l.name, page, err)
				}
				switch page {
				case 1:
					first = append(first, d)
				case 100:
					hundredth = append(hundredth, d)
				}
				reached = page
				var p struct {
					Next string `json:"next_page_token"`
				}
				if err := json.Unmarshal(b, &p); err != nil {
					return nil, fmt.Errorf("%s page %d: %w", l.name, page, err)
				}
				if p.Next == "" {
					break
				}
				token = p.Next
			}
		}
		f, _ := percentiles(first)
		h, _ := percentiles(hundredth)
		out = append(out, Pages{Name: l.name, First: f, Hundredth: h, Reached: reached})
	}
	return out, nil
}

// Idle is what a server costs doing nothing.
type Idle struct {
	Window time.Duration
	// Cores is CPU seconds per second of the window: the server's, and
	// PostgreSQL's backends for the run's database.
	Cores, PGCores float64
	// RSS at the end of the window and its peak during it.
	RSS, MaxRSS int64
}

// measureIdle samples the server (and PostgreSQL's backends for the
// database dbName, when set) over window, once a second.
func measureIdle(ctx context.Context, pid int, dbName string, window time.Duration) (Idle, error) {
	u0, err := clustertest.ProcUsage(pid)
	if err != nil {
		return Idle{}, err
	}
	pg0 := pgCPU(dbName)
	t0 := time.Now()
	var maxRSS int64
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for time.Since(t0) < window {
		select {
		case <-ctx.Done():
			return Idle{}, ctx.Err()
		case <-tick.C:
		}
		if u, err := clustertest.ProcUsage(pid); err == nil {
			maxRSS = max(maxRSS, u.RSS)
		}
	}
	u1, err := clustertest.ProcUsage(pid)
	if err != nil {
		return Idle{}, err
	}
	el := time.Since(t0).Seconds()
	return Idle{Window: window, Cores: (u1.CPUSeconds - u0.CPUSeconds) / el, PGCores: pgCPUSince(pg0, pgCPU(dbName)) / el,
		RSS: u1.RSS, MaxRSS: max(maxRSS, u1.RSS)}, nil
}

// pgCPU is the CPU seconds of each of PostgreSQL's backends connected to
// database name, by process (none without a name).
func pgCPU(name string) map[int]float64 {
	if name == "" {
		return nil
	}
	s := map[int]float64{}
	for _, pid := range postgresBackends(name) {
		if u, err := clustertest.ProcUsage(pid); err == nil {
			s[pid] = u.CPUSeconds
		}
	}
	return s
}

// pgCPUSince is the CPU seconds the backends of now (pgCPU) used since
// then: a backend in both its difference, a new one (or a new process
// under an old one's id) all of its own. A backend that left meanwhile
// took its figures with it and is not counted, so a window misses the
// backends that came and went within it. (A sum of both ends' totals lost
// what a departed backend had used before the window: a connection that
// seeded the database, closed by its pool during the idle window, made
// the backends' idle CPU negative.)
func pgCPUSince(then, now map[int]float64) float64 {
	var s float64
	for pid, c := range now {
		if c0, ok := then[pid]; ok && c0 <= c {
			c -= c0
		}
		s += c
	}
	return s
}

// postgresBackends lists the server processes connected to database name,
// whose command lines read "postgres: 15/main: USER DB ADDR STATE".
func postgresBackends(name string) []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	needle := []byte(" " + name + " ")
	var out []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cmd, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err != nil || !bytes.HasPrefix(cmd, []byte("postgres: ")) {
			continue
		}
		if bytes.Contains(cmd, needle) {
			out = append(out, pid)
		}
	}
	return out
}

// Scan is one reminder scan over a known due set.
type Scan struct {
	Due, Reminders int
	Duration       time.Duration
	// CPU is the server's CPU seconds from the scan's start to its last
	// reminder, less what it costs idle over as long; PGCPU the same for
	// PostgreSQL's backends of the database.
	CPU, PGCPU float64
	Waited     time.Duration
}

// measureScan stores k due plans and waits (up to timeout) for the
// server's periodic scan to send their reminders, polling the reminders
// written every 50 ms: the scan is taken to start at the last poll that
// saw none of them and to end at the first that saw the final count (one
// reminder per due plan: its first milestone is two days away).
func measureScan(ctx context.Context, s *seeder, pid int, dbName string, idle Idle, k int, timeout time.Duration) (Scan, error) {
	count := func() (int, error) {
		return s.store.Read.PlanReminder.Query().Count(ctx)
	}
	before, err := count()
	if err != nil {
		return Scan{}, err
	}
	if _, err := s.dueSet(ctx, k); err != nil {
		return Scan{}, err
	}
	type sample struct {
		at  time.Time
		n   int
		cpu float64
		pgc map[int]float64
	}
	take := func() (sample, error) {
		n, err := count()
		if err != nil {
			return sample{}, err
		}
		u, err := clustertest.ProcUsage(pid)
		if err != nil {
			return sample{}, err
		}
		return sample{at: time.Now(), n: n - before, cpu: u.CPUSeconds, pgc: pgCPU(dbName)}, nil
	}
	start := time.Now()
	last, err := take()
	if err != nil {
		return Scan{}, err
	}
	var begin, end sample
	stableSince := time.Time{}
	for time.Since(start) < timeout {
		time.Sleep(50 * time.Millisecond)
		cur, err := take()
		if err != nil {
			return Scan{}, err
		}
		if cur.n == 0 {
			last = cur
			continue
		}
		if begin.at.IsZero() {
			begin = last
		}
		if cur.n != end.n {
			end, stableSince = cur, cur.at
		}
		// Done when every due plan got its reminder and the count has
		// not moved for 3 s, or when it has not moved for 20 s (the
		// remind jobs of a busy server pause between plans).
		if q := time.Since(stableSince); (cur.n >= k && q > 3*time.Second) || q > 20*time.Second {
			break
		}
		last = cur
	}
	if begin.at.IsZero() {
		return Scan{Due: k, Waited: time.Since(start)}, fmt.Errorf("no reminder sent within %s of %d plans falling due", timeout, k)
	}
	d := end.at.Sub(begin.at)
	return Scan{
		Due: k, Reminders: end.n, Duration: d,
		CPU:    max(0, end.cpu-begin.cpu-idle.Cores*d.Seconds()),
		PGCPU:  max(0, pgCPUSince(begin.pgc, end.pgc)-idle.PGCores*d.Seconds()),
		Waited: time.Since(start),
	}, nil
}

// Disk is the bytes on disk of one row kind.
type Disk struct {
	Kind  string
	Rows  int64
	Bytes int64 // tables with their indexes (and TOAST on PostgreSQL)
}

// kindTables are the tables of each row kind: a tracked plan's
// milestones count with it, finished jobs' rollup (job_minutes) with the
// jobs.
var kindTables = map[string][]string{
	"creators": {"creators"}, "IP records": {"ip_records", "log_hashes"}, "jobs": {"jobs", "job_minutes"},
	"tracked plans": {"plans", "plan_milestones"}, "usage minutes": {"usage_minutes"},
	"deliveries": {"deliveries"}, "audit events": {"audit_events"}, "events": {"events"},
}

// measureDisk reads each kind's bytes: SQLite's dbstat (pages of each
// table and index), PostgreSQL's pg_total_relation_size.
func measureDisk(ctx context.Context, st *storage.Store, databaseURL string) ([]Disk, error) {
	var db *sql.DB
	sqlite := st.Dialect != "postgres"
	if sqlite {
		// dbstat is a virtual table of the sqlite3 shell's build; the
		// service's driver may lack it, so ask the shell.
		db = nil
	} else {
		db = st.DB
	}
	var out []Disk
	kinds := append(slices.Clone(Kinds), "events")
	for _, k := range kinds {
		d := Disk{Kind: k}
		for i, t := range kindTables[k] {
			if i == 0 {
				if err := st.DB.QueryRowContext(ctx, "SELECT count(*) FROM "+t).Scan(&d.Rows); err != nil {
					return nil, err
				}
			}
			var b int64
			if sqlite {
				q := fmt.Sprintf("SELECT coalesce(sum(pgsize),0) FROM dbstat WHERE name = '%s' OR name IN (SELECT name FROM sqlite_master WHERE tbl_name = '%s')", t, t)
				if t == "ip_records" {
					// The titles' FTS5 indexes are tables of their own (their
					// _data, _idx, _docsize and _config).
					q += fmt.Sprintf(" OR name GLOB '%s_*' OR name GLOB '%s_*'", storage.TitleIndex, storage.TitleWordIndex)
				}
				q += ";"
				o, err := exec.CommandContext(ctx, "sqlite3", "-readonly", st.Path(), q).Output()
				if err != nil {
					return nil, fmt.Errorf("sqlite3 dbstat: %w", err)
				}
				b, _ = strconv.ParseInt(strings.TrimSpace(string(o)), 10, 64)
			} else if err := db.QueryRowContext(ctx, "SELECT pg_total_relation_size($1)", t).Scan(&b); err != nil {
				return nil, err
			}
			d.Bytes += b
		}
		out = append(out, d)
	}
	return out, nil
}

// Backup is the time of a backup and of a restore from it.
type Backup struct {
	Backup, Restore time.Duration
	Bytes           int64
	How             string
}

// measureBackup backs the database up as docs/operations.md says (SQLite:
// the sqlite3 shell's online .backup; PostgreSQL: pg_dump --format=custom)
// and restores the copy (SQLite: an integrity check of the copy, which a
// restore puts in place of the file; PostgreSQL: pg_restore into a new
// database), then removes both.
func measureBackup(ctx context.Context, st *storage.Store, databaseURL, dir string) (Backup, error) {
	if st.Dialect != "postgres" {
		dst := filepath.Join(dir, "backup.db")
		defer os.Remove(dst)
		t0 := time.Now()
		if o, err := exec.CommandContext(ctx, "sqlite3", st.Path(), ".backup '"+dst+"'").CombinedOutput(); err != nil {
			return Backup{}, fmt.Errorf("sqlite3 .backup: %w: %s", err, o)
		}
		b := Backup{Backup: time.Since(t0), How: "sqlite3 .backup; restore = PRAGMA integrity_check of the copy, then opening it"}
		if fi, err := os.Stat(dst); err == nil {
			b.Bytes = fi.Size()
		}
		t0 = time.Now()
		o, err := exec.CommandContext(ctx, "sqlite3", dst, "PRAGMA integrity_check").CombinedOutput()
		if err != nil || strings.TrimSpace(string(o)) != "ok" {
			return Backup{}, fmt.Errorf("integrity_check of the copy: %v: %s", err, truncate(string(o), 300))
		}
		rs, err := storage.Open(ctx, "sqlite://"+dst, storage.Existing())
		if err != nil {
			return Backup{}, fmt.Errorf("open the restored copy: %w", err)
		}
		n, err := rs.Read.Creator.Query().Count(ctx)
		rs.Close()
		if err != nil || n == 0 {
			return Backup{}, fmt.Errorf("the restored copy has %d creators: %v", n, err)
		}
		b.Restore = time.Since(t0)
		storage.RemoveSQLiteFiles(dst)
		return b, nil
	}
	dump := filepath.Join(dir, "backup.dump")
	defer os.Remove(dump)
	plain := storage.WithoutPoolParams(databaseURL)
	t0 := time.Now()
	if o, err := exec.CommandContext(ctx, "pg_dump", "--format=custom", "--file="+dump, plain).CombinedOutput(); err != nil {
		return Backup{}, fmt.Errorf("pg_dump: %w: %s", err, o)
	}
	b := Backup{Backup: time.Since(t0), How: "pg_dump --format=custom; pg_restore --jobs 2 into a new database"}
	if fi, err := os.Stat(dump); err == nil {
		b.Bytes = fi.Size()
	}
	u, err := url.Parse(plain)
	if err != nil {
		return Backup{}, err
	}
	u.Path = "/test"
	restoreURL, drop, err := clustertest.CreatePostgresDatabase(ctx, u.String(), "scale_restore")
	if err != nil {
		return Backup{}, err
	}
	defer drop()
	t0 = time.Now()
	if o, err := exec.CommandContext(ctx, "pg_restore", "--jobs=2", "--no-owner", "--dbname="+storage.WithoutPoolParams(restoreURL), dump).CombinedOutput(); err != nil {
		return Backup{}, fmt.Errorf("pg_restore: %w: %s", err, truncate(string(o), 500))
	}
	b.Restore = time.Since(t0)
	return b, nil
}

// pick returns a random element.
func pick(xs []string) string {
	if len(xs) == 0 {
		return "none"
	}
	return xs[rand.IntN(len(xs))]
}
