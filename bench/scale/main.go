// Command scale measures creativeops as its tables grow: it seeds SQLite
// and PostgreSQL to 10k, 100k and 1M rows of each kind (creators, IP
// records, jobs, tracked plans with their milestones, usage minutes,
// webhook deliveries, audit events) through the domain packages' batch
// paths, starts the real server on each, and at each size measures the
// realistic mix and every read endpoint (p50/p99), the first and the 100th
// page of each list, idle CPU and RSS, the reminder scan's duration and CPU
// per reminder sent, bytes on disk per row kind, and backup and restore.
//
//	make bench-scale                          # 10k, 100k, 1M on SQLite and PostgreSQL
//	make bench-scale SIZES=10k SCALE_IDLE=30s # a quick pass
//	go run ./bench/scale -db sqlite -sizes 10k,100k -idle 1m
//
// Sizes grow one database: 100k adds 90k rows of each kind to the 10k
// already measured. Results are kept per database in -results (JSON) and
// the table in docs/performance.md (between its bench-scale markers) is
// written from them, so SQLite and PostgreSQL may run separately. The
// whole log goes to -log. Every phase is bounded in requests and time;
// all traffic stays on loopback.
package main

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/creativeops/creativeops/internal/clustertest"
	"github.com/creativeops/creativeops/secrets"
)

type options struct {
	dbs          []string
	sizes        []int
	idle         time.Duration
	mixRPS       int
	mixDuration  time.Duration
	reads        int
	endpointTime time.Duration
	clients      int
	walks        int
	due          int
	scanTimeout  time.Duration
	bin          string
	postgres     string
	dir          string
	results      string
	doc          string
	keep         bool
	renderOnly   bool
	// child runs the server as this executable re-executed
	// (clustertest.RunChildIfRequested): the smoke test's way.
	child bool
}

func main() {
	o, err := parseFlags(os.Args[1:])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	log := slog.New(slog.NewTextHandler(os.Stderr, nil))
	if err := run(ctx, o, log); err != nil {
		log.Error("bench-scale failed", "error", err)
		os.Exit(1)
	}
}

func parseFlags(args []string) (options, error) {
	var o options
	fs := flag.NewFlagSet("scale", flag.ContinueOnError)
	dbs := fs.String("db", "sqlite,postgres", "databases: sqlite, postgres or both")
	sizes := fs.String("sizes", "10k,100k,1m", "rows of each kind, ascending (k and m suffixes)")
	fs.DurationVar(&o.idle, "idle", envDuration("SCALE_IDLE", 3*time.Minute), "idle window for CPU and RSS (env SCALE_IDLE)")
	fs.IntVar(&o.mixRPS, "mix-rps", 100, "offered rate of the realistic mix")
	fs.DurationVar(&o.mixDuration, "mix-duration", 2*time.Minute, "duration of the realistic mix")
	fs.IntVar(&o.reads, "reads", 2000, "calls per read endpoint")
	fs.IntVar(&o.clients, "clients", 8, "concurrent clients per read endpoint")
	fs.DurationVar(&o.endpointTime, "endpoint-time", 30*time.Second, "longest time spent on one read endpoint (fewer calls when it runs out)")
	fs.IntVar(&o.walks, "walks", 3, "walks of each list to page 100")
	fs.IntVar(&o.due, "due", 200, "plans made due for the reminder scan at each size")
	fs.DurationVar(&o.scanTimeout, "scan-timeout", 150*time.Second, "longest wait for the periodic scan to send the reminders")
	fs.StringVar(&o.bin, "bin", "", "creativeops binary (default: built from ./cmd/creativeops)")
	fs.StringVar(&o.postgres, "postgres", os.Getenv(clustertest.PostgresEnv), "PostgreSQL server to create the databases on (default $"+clustertest.PostgresEnv+")")
	fs.StringVar(&o.dir, "dir", "data/bench-scale", "work directory (SQLite files, server logs, backups)")
	fs.StringVar(&o.results, "results", "data/bench-scale", "directory of each database's results (JSON)")
	fs.StringVar(&o.doc, "doc", "docs/performance.md", "file whose bench-scale section is rewritten (empty or - for none)")
	fs.BoolVar(&o.keep, "keep", false, "keep the databases and the work directory")
	fs.BoolVar(&o.renderOnly, "render", false, "only write -doc's section from the stored results")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	for _, d := range strings.Split(*dbs, ",") {
		if d = strings.TrimSpace(d); d != "sqlite" && d != "postgres" {
			return o, fmt.Errorf("-db: %q is neither sqlite nor postgres", d)
		}
		o.dbs = append(o.dbs, strings.TrimSpace(d))
	}
	for _, s := range strings.Split(*sizes, ",") {
		n, err := parseSize(s)
		if err != nil {
			return o, fmt.Errorf("-sizes: %w", err)
		}
		if len(o.sizes) > 0 && n <= o.sizes[len(o.sizes)-1] {
			return o, fmt.Errorf("-sizes: %s is not larger than the size before it", s)
		}
		o.sizes = append(o.sizes, n)
	}
	if o.postgres == "" {
		o.postgres = clustertest.DefaultPostgresURL
	}
	return o, nil
}

func envDuration(name string, def time.Duration) time.Duration {
	if v := os.Getenv(name); v != "" {
		if d, err := time.ParseDuration(v); err == nil && d > 0 {
			return d
		}
	}
	return def
}

func parseSize(s string) (int, error) {
	s = strings.ToLower(strings.TrimSpace(s))
	mult := 1
	switch {
	case strings.HasSuffix(s, "k"):
		mult, s = 1000, strings.TrimSuffix(s, "k")
	case strings.HasSuffix(s, "m"):
		mult, s = 1_000_000, strings.TrimSuffix(s, "m")
	}
	n, err := strconv.Atoi(s)
	if err != nil || n <= 0 || n > 10_000 {
		return 0, fmt.Errorf("%q is not a size such as 200, 10k or 1m", s)
	}
	return n * mult, nil
}

func sizeName(n int) string {
	switch {
	case n >= 1_000_000 && n%1_000_000 == 0:
		return fmt.Sprintf("%dM", n/1_000_000)
	case n >= 1000 && n%1000 == 0:
		return fmt.Sprintf("%dk", n/1000)
	}
	return strconv.Itoa(n)
}

// Result is one database's figures at one size.
type Result struct {
	Size       int
	At         time.Time
	LoadBefore string
	LoadAfter  string
	Seed       time.Duration
	SeedByKind map[string]time.Duration
	Mix        []Latency
	MixP50     time.Duration
	MixP99     time.Duration
	MixErrors  int
	Reads      []Latency
	Pages      []Pages
	Idle       Idle
	Scan       Scan
	Disk       []Disk
	Backup     Backup
	StageTimes map[string]time.Duration
	ScanErr    string `json:",omitempty"`
	// Analyzed: PostgreSQL's autovacuum was off, so the harness ran
	// VACUUM ANALYZE after seeding, as autovacuum would have.
	Analyzed bool `json:",omitempty"`
	// How the reads and the mix were run (flags -clients, -reads, -mix-rps, -mix-duration).
	Clients, Calls, MixRPS int
	MixFor                 time.Duration
	Commit                 string
	MachineNote            string
}

// DBResults is what the results file of one database holds.
type DBResults struct {
	DB      string
	Empty   Idle // the freshly bootstrapped server
	EmptyAt time.Time
	Sizes   []Result
}

func run(ctx context.Context, o options, log *slog.Logger) error {
	if o.renderOnly {
		return writeDoc(o, log)
	}
	if err := os.MkdirAll(o.dir, 0o750); err != nil {
		return err
	}
	bin := o.bin
	if bin == "" && !o.child {
		bin = filepath.Join(o.dir, "creativeops")
		log.Info("building the server", "bin", bin)
		cmd := exec.CommandContext(ctx, "go", "build", "-o", bin, "./cmd/creativeops")
		cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("go build: %w", err)
		}
	}
	for _, db := range o.dbs {
		res, err := runDB(ctx, o, db, bin, log)
		if res != nil && len(res.Sizes) > 0 {
			if werr := saveResults(o, res); werr != nil {
				return werr
			}
		}
		if err != nil {
			return fmt.Errorf("%s: %w", db, err)
		}
	}
	return writeDoc(o, log)
}

func runDB(ctx context.Context, o options, db, bin string, log *slog.Logger) (*DBResults, error) {
	dir, err := os.MkdirTemp(o.dir, db+"-")
	if err != nil {
		return nil, err
	}
	if !o.keep {
		defer os.RemoveAll(dir)
	}
	log = log.With("db", db)
	res := &DBResults{DB: db}
	if prev, err := loadResults(o, db); err == nil {
		res.Sizes = prev.Sizes
		res.Empty, res.EmptyAt = prev.Empty, prev.EmptyAt
	}
	var databaseURL, dbName string
	switch db {
	case "sqlite":
		databaseURL = "sqlite://" + filepath.Join(dir, "creativeops.db")
	case "postgres":
		var drop func() error
		databaseURL, drop, err = clustertest.CreatePostgresDatabase(ctx, o.postgres, "scale")
		if err != nil {
			return nil, err
		}
		if !o.keep {
			defer drop()
		}
		u, _ := url.Parse(databaseURL)
		dbName = strings.TrimPrefix(u.Path, "/")
	}
	key, err := clustertest.Bootstrap(ctx, databaseURL, "load")
	if err != nil {
		return nil, fmt.Errorf("bootstrap: %w", err)
	}
	masterKey := filepath.Join(dir, secrets.DefaultKeyFile)
	if err := secrets.CreateKeyFile(masterKey); err != nil {
		return nil, err
	}
	launcher := &clustertest.Launcher{Binary: bin}
	start := func() (*clustertest.Replica, error) {
		r, err := launcher.NewReplica("r1", dir, clustertest.ServeArgs{DatabaseURL: databaseURL, JobTimeout: 10 * time.Second})
		if err != nil {
			return nil, err
		}
		return r, r.Start(ctx)
	}
	// The empty server: the idle baseline.
	{
		r, err := start()
		if err != nil {
			return res, err
		}
		time.Sleep(5 * time.Second) // start-up work settles
		log.Info("idle, empty server", "window", o.idle)
		res.Empty, err = measureIdle(ctx, r.PID(), dbName, o.idle)
		res.EmptyAt = time.Now().UTC()
		if terr := r.Terminate(30 * time.Second); err == nil {
			err = terr
		}
		if err != nil {
			return res, err
		}
	}
	s, err := openSeeder(ctx, databaseURL, masterKey, log)
	if err != nil {
		return res, err
	}
	defer s.close()
	for _, size := range o.sizes {
		r, err := measureSize(ctx, o, s, size, start, databaseURL, dbName, key, dir, log.With("size", sizeName(size)))
		if err != nil {
			return res, fmt.Errorf("%s: %w", sizeName(size), err)
		}
		res.Sizes = upsert(res.Sizes, r)
		if err := saveResults(o, res); err != nil {
			return res, err
		}
	}
	return res, nil
}

func upsert(rs []Result, r Result) []Result {
	for i := range rs {
		if rs[i].Size == r.Size {
			rs[i] = r
			return rs
		}
	}
	rs = append(rs, r)
	for i := len(rs) - 1; i > 0 && rs[i].Size < rs[i-1].Size; i-- {
		rs[i], rs[i-1] = rs[i-1], rs[i]
	}
	return rs
}

func measureSize(ctx context.Context, o options, s *seeder, size int, start func() (*clustertest.Replica, error),
	databaseURL, dbName, key, dir string, log *slog.Logger) (Result, error) {
	res := Result{Size: size, At: time.Now().UTC(), LoadBefore: clustertest.LoadAvg(), StageTimes: map[string]time.Duration{}, Commit: commit(),
		Clients: o.clients, Calls: o.reads, MixRPS: o.mixRPS, MixFor: o.mixDuration}
	stage := func(name string, t0 time.Time) {
		res.StageTimes[name] = time.Since(t0).Round(time.Second)
		log.Info("stage done", "stage", name, "took", res.StageTimes[name])
	}
	t0 := time.Now()
	log.Info("seeding", "rows_of_each_kind", size)
	byKind, err := s.seedTo(ctx, size)
	if err != nil {
		return res, err
	}
	res.SeedByKind = byKind
	res.Seed = time.Since(t0)
	stage("seed", t0)
	if dbName != "" {
		t0 = time.Now()
		if res.Analyzed, err = analyzeIfNoAutovacuum(ctx, s.store.DB); err != nil {
			return res, err
		}
		stage("analyze", t0)
	}
	t0 = time.Now()
	if err := checkpoint(ctx, s.store.DB, dbName != ""); err != nil {
		// PostgreSQL grants CHECKPOINT to superusers and pg_checkpoint only.
		log.Warn("no checkpoint after seeding: the timed stages may carry the seed's write-back", "error", err)
	}
	stage("checkpoint", t0)

	r, err := start()
	if err != nil {
		return res, err
	}
	defer r.Terminate(30 * time.Second)
	a := &api{base: r.URL(), key: key, http: &http.Client{
		Transport: &http.Transport{MaxIdleConns: 256, MaxIdleConnsPerHost: 256, IdleConnTimeout: 30 * time.Second},
		Timeout:   30 * time.Second,
	}}
	time.Sleep(5 * time.Second)

	t0 = time.Now()
	log.Info("idle", "window", o.idle)
	if res.Idle, err = measureIdle(ctx, r.PID(), dbName, o.idle); err != nil {
		return res, err
	}
	stage("idle", t0)

	// Feeds of plans for the calendar reads: enough that the calls stay
	// within each feed URL's own limit (plans.FeedRateLimit, a burst of 10).
	var feeds []string
	for i := 0; i < max(60, o.reads/8) && i < len(s.planIDs); i++ {
		b, status, err := a.do(ctx, "POST", "/v1/plans/"+s.planIDs[i]+":createFeed", map[string]any{})
		if err != nil || (status != http.StatusOK && status != http.StatusCreated) {
			return res, fmt.Errorf("create a calendar feed: %d %v %s", status, err, truncate(string(b), 300))
		}
		var f struct {
			URL string `json:"url"`
		}
		if err := json.Unmarshal(b, &f); err != nil {
			return res, err
		}
		u, err := url.Parse(f.URL)
		if err != nil {
			return res, err
		}
		feeds = append(feeds, u.RequestURI())
	}

	t0 = time.Now()
	log.Info("realistic mix", "rps", o.mixRPS, "duration", o.mixDuration)
	cl, err := clustertest.NewClient(r.Addr, key, 4)
	if err != nil {
		return res, err
	}
	load := &clustertest.Load{Client: cl, RunID: fmt.Sprintf("scale%d", time.Now().UnixNano())}
	if err := load.Seed(ctx, 50); err != nil {
		cl.Close()
		return res, err
	}
	load.Reset()
	ph := load.RunRate(ctx, "mix", clustertest.RealisticMix, o.mixRPS, o.mixDuration)
	load.WaitPollers(ctx, 30*time.Second)
	load.StopPollers()
	cl.Close()
	res.MixP50, res.MixP99, res.MixErrors = ph.MixP50, ph.MixP99, ph.Errors
	for _, op := range ph.Ops {
		res.Mix = append(res.Mix, Latency{Name: string(op.Op) + " (" + string(op.Transport) + ")", Count: op.Count, Errors: op.Errors, P50: op.P50, P99: op.P99})
	}
	stage("mix", t0)

	t0 = time.Now()
	now := time.Now().UTC()
	usage := "/v1/analytics/usage?granularity=day&from=" + url.QueryEscape(now.AddDate(0, 0, -30).Format(time.RFC3339)) + "&to=" + url.QueryEscape(now.Format(time.RFC3339))
	eps := []endpoint{
		{"GET /v1/creators/{id}", func(int) string { return "/v1/creators/" + pick(s.creatorIDs) }},
		{"GET /v1/creators (first page)", func(int) string { return "/v1/creators?page_size=20" }},
		{"GET /v1/ip/records/{id}", func(int) string { return "/v1/ip/records/" + pick(s.recordIDs) }},
		{"catalog: a creator's works", func(int) string { return "/v1/ip/catalog?page_size=20&creator_id=" + pick(s.creatorIDs) }},
		{"catalog: by content hash", func(i int) string { return "/v1/ip/catalog?content_hash=" + workHash(i*7919%max(1, s.have)) }},
		{"catalog: by type, first page", func(int) string { return "/v1/ip/catalog?type=song&page_size=20" }},
		{"catalog: title contains", func(i int) string {
			return "/v1/ip/catalog?page_size=20&q=" + url.QueryEscape(fmt.Sprintf("Work %d", i*7919%max(1, s.have)))
		}},
		{"GET /v1/engine/status/{id}", func(int) string { return "/v1/engine/status/" + pick(s.jobIDs) }},
		{"GET /v1/engine/jobs (first page)", func(int) string { return "/v1/engine/jobs?page_size=20" }},
		{"GET /v1/plans/{id}", func(int) string { return "/v1/plans/" + pick(s.planIDs) }},
		{"GET /v1/plans (first page)", func(int) string { return "/v1/plans?page_size=20" }},
		{"GET /v1/plans?creator_id=", func(int) string { return "/v1/plans?page_size=20&creator_id=" + pick(s.creatorIDs) }},
		{"calendar feed (.ics)", func(i int) string { return feeds[i%len(feeds)] }},
		{"usage analytics, 30 days by day", func(int) string { return usage }},
		{"GET /v1/audit-events (first page)", func(int) string { return "/v1/audit-events?page_size=20" }},
		{"GET /v1/webhooks/{id}/deliveries (first page)", func(int) string { return "/v1/webhooks/" + s.webhook + "/deliveries?page_size=20" }},
		{"GET /v1/events (first page)", func(int) string { return "/v1/events?page_size=20" }},
	}
	log.Info("read endpoints", "endpoints", len(eps), "calls_each", o.reads, "clients", o.clients)
	res.Reads = measureEndpoints(ctx, a, eps, o.clients, o.reads, o.endpointTime)
	for _, l := range res.Reads {
		if l.Errors > 0 {
			log.Warn("endpoint errors", "endpoint", l.Name, "errors", l.Errors, "first", l.FirstError)
		}
	}
	stage("reads", t0)

	t0 = time.Now()
	lists := []endpoint{
		{"creators", func(int) string { return "/v1/creators" }},
		{"IP catalog", func(int) string { return "/v1/ip/catalog" }},
		{"jobs", func(int) string { return "/v1/engine/jobs" }},
		{"plans", func(int) string { return "/v1/plans" }},
		{"audit events", func(int) string { return "/v1/audit-events" }},
		{"deliveries", func(int) string { return "/v1/webhooks/" + s.webhook + "/deliveries" }},
		{"events", func(int) string { return "/v1/events" }},
	}
	if res.Pages, err = measurePages(ctx, a, lists, o.walks); err != nil {
		return res, err
	}
	stage("pages", t0)

	t0 = time.Now()
	log.Info("reminder scan", "due", o.due)
	res.Scan, err = measureScan(ctx, s, r.PID(), dbName, res.Idle, o.due, o.scanTimeout)
	if err != nil {
		// Reported in the table rather than failing the other figures.
		res.ScanErr = err.Error()
		log.Warn("reminder scan", "error", err)
	}
	stage("scan", t0)

	if err := r.Terminate(30 * time.Second); err != nil {
		return res, err
	}
	t0 = time.Now()
	if res.Disk, err = measureDisk(ctx, s.store, databaseURL); err != nil {
		return res, err
	}
	stage("disk", t0)
	t0 = time.Now()
	if res.Backup, err = measureBackup(ctx, s.store, databaseURL, dir); err != nil {
		return res, err
	}
	stage("backup", t0)
	res.LoadAfter = clustertest.LoadAvg()
	res.MachineNote = machine()
	return res, nil
}

func workHash(i int) string {
	return "sha256:" + hexSum(fmt.Sprintf("creativeops scale seed work %d", i))
}

func commit() string {
	out, err := exec.Command("git", "rev-parse", "--short", "HEAD").Output()
	if err != nil {
		return "?"
	}
	return strings.TrimSpace(string(out))
}

func machine() string {
	model := "?"
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, l := range strings.Split(string(b), "\n") {
			if k, v, ok := strings.Cut(l, ":"); ok && strings.TrimSpace(k) == "model name" {
				model = strings.TrimSpace(v)
				break
			}
		}
	}
	return fmt.Sprintf("%s, %d cores, %s", model, runtime.NumCPU(), runtime.Version())
}

func resultsPath(o options, db string) string { return filepath.Join(o.results, "results-"+db+".json") }

func loadResults(o options, db string) (*DBResults, error) {
	b, err := os.ReadFile(resultsPath(o, db))
	if err != nil {
		return nil, err
	}
	var r DBResults
	return &r, json.Unmarshal(b, &r)
}

func saveResults(o options, r *DBResults) error {
	if err := os.MkdirAll(o.results, 0o750); err != nil {
		return err
	}
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(resultsPath(o, r.DB), b, 0o640)
}

func hexSum(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// analyzeIfNoAutovacuum runs VACUUM ANALYZE on a PostgreSQL database whose
// server has autovacuum off (as some test servers do): a deployment's
// autovacuum analyzes a table that grew by a tenth and sets its visibility
// map, and without that the planner plans a grown table from the
// statistics of its first rows. It reports whether it ran.
func analyzeIfNoAutovacuum(ctx context.Context, db *sql.DB) (bool, error) {
	var on string
	if err := db.QueryRowContext(ctx, "SHOW autovacuum").Scan(&on); err != nil {
		return false, err
	}
	if on == "on" {
		return false, nil
	}
	_, err := db.ExecContext(ctx, "VACUUM ANALYZE")
	return err == nil, err
}

// checkpoint writes the seed's changes to the database files before the
// server starts: the bulk seed leaves gigabytes in PostgreSQL's dirty
// buffers and write-ahead log, or in SQLite's WAL file, that a steady
// server would long have written, and whose write-back would otherwise
// land in whichever timed stage follows (PostgreSQL's next timed
// checkpoint; on SQLite the server's first checkpoint).
func checkpoint(ctx context.Context, db *sql.DB, postgres bool) error {
	q := "PRAGMA wal_checkpoint(TRUNCATE)"
	if postgres {
		q = "CHECKPOINT"
	}
	_, err := db.ExecContext(ctx, q)
	if err != nil {
		return fmt.Errorf("%s: %w", q, err)
	}
	return nil
}
