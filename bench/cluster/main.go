// Command cluster benchmarks creativeops as deployed: real server processes
// on SQLite, or one and three replicas on PostgreSQL behind a round-robin
// proxy, driven over REST and gRPC by a realistic request mix. It writes a
// Markdown report (docs/performance.md by default).
//
//	go run ./bench/cluster                      # SQLite ×1, PostgreSQL ×1, PostgreSQL ×3
//	go run ./bench/cluster -db postgres -replicas 3 -duration 60s -rps 500 -out -
//
// Every phase is bounded in requests and time, and all traffic stays on
// loopback.
package main

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/creativeops/creativeops/internal/clustertest"
	"github.com/creativeops/creativeops/storage"
)

type options struct {
	db          string
	replicas    int
	duration    time.Duration
	maxDuration time.Duration
	rates       []int
	concurrency int
	out         string
	// detail receives the per-phase details of a report written to out.
	detail   string
	bin      string
	postgres string
	keep     bool
	rounds   int
	// proxyAlways puts the proxy in front of a single replica too.
	proxyAlways bool
	// profile, when set, is the directory that receives each mode's CPU,
	// heap and allocation profiles of its last fixed-rate phase.
	profile string
	// serverFlags are added to every replica's serve command line.
	serverFlags []string
	// serverEnv is added to every replica's environment.
	serverEnv []string
}

// listFlag collects a repeated flag's values.
type listFlag struct{ p *[]string }

func (l listFlag) String() string {
	if l.p == nil {
		return ""
	}
	return strings.Join(*l.p, " ")
}
func (l listFlag) Set(v string) error { *l.p = append(*l.p, v); return nil }

func main() {
	var o options
	bare := flag.String("serve-bare", "", "internal: serve the bare net/http JSON handler on this address")
	flag.StringVar(&o.db, "db", "", `"sqlite" or "postgres"; empty runs the default modes (SQLite ×1, PostgreSQL ×1 and ×3)`)
	flag.IntVar(&o.replicas, "replicas", 0, "replicas on PostgreSQL (default: 1 and 3)")
	flag.DurationVar(&o.duration, "duration", 15*time.Second, "length of each fixed-rate phase")
	flag.DurationVar(&o.maxDuration, "max-duration", 15*time.Second, "length of the max-throughput phase of each mode, split in rounds")
	rps := flag.String("rps", "200,1000", "request rates of the fixed-rate phases, comma-separated")
	flag.IntVar(&o.concurrency, "concurrency", 32, "clients of the max-throughput phases")
	flag.IntVar(&o.rounds, "rounds", 3, "max-throughput rounds per mode (the median is reported)")
	flag.StringVar(&o.out, "out", "docs/performance.md", `report file ("-" for stdout, details included)`)
	flag.StringVar(&o.detail, "detail", "bench/results/cluster.md", "file for the per-phase details (every operation, every process) of a report written to -out")
	flag.StringVar(&o.bin, "bin", "", "creativeops binary to run (default: build ./cmd/creativeops)")
	flag.StringVar(&o.postgres, "postgres", "", "PostgreSQL server URL to create databases on (default $"+clustertest.PostgresEnv+" or "+clustertest.DefaultPostgresURL+")")
	flag.BoolVar(&o.keep, "keep", false, "keep the run directory (server logs, SQLite file)")
	flag.BoolVar(&o.proxyAlways, "proxy-always", false, "put the round-robin proxy in front of a single PostgreSQL replica too (by default only several replicas get it)")
	flag.StringVar(&o.profile, "profile", "", "directory for each mode's CPU, heap and allocation profiles of r1 during its last fixed-rate phase")
	flag.Var(listFlag{&o.serverFlags}, "server-flag", "a flag added to every server's serve command line, e.g. -server-flag=--memory-limit=200MiB (repeatable)")
	flag.Var(listFlag{&o.serverEnv}, "server-env", "NAME=value added to every server's environment, e.g. -server-env GOGC=400 (repeatable)")
	flag.Parse()
	log.SetFlags(log.Ltime)
	if *bare != "" {
		serveBare(*bare)
		return
	}
	o.rounds = max(1, o.rounds)
	for _, f := range strings.Split(*rps, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n <= 0 {
			log.Fatalf("-rps %q: want positive integers separated by commas", *rps)
		}
		o.rates = append(o.rates, n)
	}
	if o.postgres == "" {
		o.postgres = os.Getenv(clustertest.PostgresEnv)
	}
	if o.postgres == "" {
		o.postgres = clustertest.DefaultPostgresURL
	}
	// Ctrl-C, a kill, or the terminal closing (SIGHUP) all end the run the
	// same way: the servers stop, the databases are dropped and the run
	// directory is removed before the program exits.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	err := run(ctx, o)
	stop()
	if err != nil {
		if ctx.Err() != nil {
			log.Print("interrupted; servers stopped, databases and files removed")
			os.Exit(130)
		}
		log.Fatal(err)
	}
}

type mode struct {
	db       string
	replicas int
}

func (m mode) String() string {
	name := "SQLite"
	if m.db == "postgres" {
		name = "PostgreSQL"
	}
	return fmt.Sprintf("%s ×%d", name, m.replicas)
}

func modes(o options) ([]mode, error) {
	switch o.db {
	case "":
		if o.replicas > 0 {
			return []mode{{"postgres", o.replicas}}, nil
		}
		return []mode{{"sqlite", 1}, {"postgres", 1}, {"postgres", 3}}, nil
	case "sqlite":
		if o.replicas > 1 {
			return nil, errors.New("SQLite runs one replica; use -db postgres for more")
		}
		return []mode{{"sqlite", 1}}, nil
	case "postgres":
		if o.replicas > 0 {
			return []mode{{"postgres", o.replicas}}, nil
		}
		return []mode{{"postgres", 1}, {"postgres", 3}}, nil
	}
	return nil, fmt.Errorf("-db %q: want sqlite or postgres", o.db)
}

func run(ctx context.Context, o options) error {
	ms, err := modes(o)
	if err != nil {
		return err
	}
	sess, err := newSession(o.keep)
	if err != nil {
		return err
	}
	defer sess.close()
	dir := sess.dir
	bin := o.bin
	if bin == "" {
		bin = filepath.Join(dir, "creativeops")
		log.Printf("building ./cmd/creativeops")
		cmd := exec.CommandContext(ctx, "go", "build", "-o", bin, "./cmd/creativeops")
		cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("go build: %w", err)
		}
	}
	var skipped string
	if o.db == "" {
		if err := pingPostgres(ctx, o.postgres); err != nil {
			// The default run still measures what it can.
			skipped = fmt.Sprintf("PostgreSQL modes skipped: %v", err)
			log.Print(skipped)
			ms = ms[:1]
		}
	}
	var pools string
	if skipped == "" {
		if o.postgres, pools, err = fitPools(ctx, o.postgres, ms); err != nil {
			return err
		}
		if pools != "" {
			log.Print(pools)
		}
	}
	rep := &report{Options: o, Started: time.Now(), Machine: describeMachine(ctx, o, ms), Skipped: skipped, Pools: pools}
	log.Printf("machine: %s, %d cores, load average %s", rep.Machine.CPU, rep.Machine.Cores, rep.Machine.LoadAvg)

	if rep.Bare, err = measureBare(ctx, o); err != nil {
		return fmt.Errorf("bare handler: %w", err)
	}
	log.Printf("bare net/http: %.0f req/s direct, %.0f req/s through the proxy", rep.Bare.Direct.Throughput(), rep.Bare.Proxied.Throughput())

	// Every configuration runs at once, but only the one being measured is
	// awake: the others are paused (SIGSTOP) and take no CPU. The
	// max-throughput phases then take turns in rounds, so that other work
	// on this shared machine weighs on every configuration alike.
	for _, m := range ms {
		mr, err := sess.start(ctx, o, m, bin)
		if err != nil {
			return fmt.Errorf("%s: %w", m, err)
		}
		if err := mr.c.Pause(); err != nil {
			return err
		}
	}
	runs := sess.runs
	for _, mr := range runs {
		if err := mr.fixedRate(ctx, o); err != nil {
			return fmt.Errorf("%s: %w", mr.res.Mode, err)
		}
	}
	for round := 0; round < o.rounds && ctx.Err() == nil; round++ {
		for i := range runs {
			mr := runs[(i+round)%len(runs)]
			if err := mr.maxRound(ctx, o, round); err != nil {
				return fmt.Errorf("%s: %w", mr.res.Mode, err)
			}
		}
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	for _, mr := range runs {
		mr.res.pickMedians()
		rep.Modes = append(rep.Modes, mr.res)
	}
	rep.Finished, rep.LoadAvgEnd = time.Now(), clustertest.LoadAvg()
	if o.out == "-" {
		_, err = os.Stdout.WriteString(rep.markdown() + "\n" + rep.details())
		return err
	}
	if err := os.MkdirAll(filepath.Dir(o.detail), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(o.detail, []byte(rep.details()), 0o644); err != nil {
		return err
	}
	rep.DetailPath = o.detail
	md := rep.markdown()
	if old, err := os.ReadFile(o.out); err == nil {
		md += keptSection(string(old))
	}
	if err := os.WriteFile(o.out, []byte(md), 0o644); err != nil {
		return err
	}
	log.Printf("wrote %s and %s", o.out, o.detail)
	return nil
}

// processUsage is one process's consumption over a phase.
type processUsage struct {
	Name       string
	CPUSeconds float64
	PeakRSS    int64
	// Transactions is what PostgreSQL counted for the run's database
	// (PostgreSQL's row only).
	Transactions float64
}

type phaseUsage struct {
	Phase     clustertest.PhaseResult
	Processes []processUsage
}

type modeResult struct {
	Mode mode
	// Fixed has one phase per rate of -rps, in order.
	Fixed []phaseUsage
	// Each max-throughput phase once per round, and the round with the
	// median throughput.
	MaxRounds, NoIPRounds, GetOnlyRounds []phaseUsage
	Max, MaxNoIP, GetOnly                phaseUsage
	Idle                                 phaseUsage
	Served                               map[string]int
	Errors                               []*clustertest.CallError
}

func median(rounds []phaseUsage) phaseUsage {
	if len(rounds) == 0 {
		return phaseUsage{}
	}
	s := slices.Clone(rounds)
	slices.SortFunc(s, func(a, b phaseUsage) int { return cmp.Compare(a.Phase.Throughput(), b.Phase.Throughput()) })
	return s[len(s)/2]
}

func (r *modeResult) pickMedians() {
	r.Max, r.MaxNoIP, r.GetOnly = median(r.MaxRounds), median(r.NoIPRounds), median(r.GetOnlyRounds)
}

// session owns everything a run creates outside its own memory: the run
// directory (binary, data directories, logs, SQLite files) and the
// clusters (server processes, PostgreSQL databases). close removes all of
// it, whether the run finished, failed or was interrupted.
type session struct {
	dir  string
	keep bool
	runs []*modeRun
}

func newSession(keep bool) (*session, error) {
	dir, err := os.MkdirTemp("", "creativeops-bench-")
	if err != nil {
		return nil, err
	}
	if keep {
		log.Printf("run directory: %s", dir)
	}
	return &session{dir: dir, keep: keep}, nil
}

// start starts a configuration's cluster; close stops it even if start
// failed half-way.
func (s *session) start(ctx context.Context, o options, m mode, bin string) (*modeRun, error) {
	mr, err := startMode(ctx, o, m, bin, filepath.Join(s.dir, strings.NewReplacer(" ", "", "×", "x").Replace(m.String())))
	if mr != nil {
		s.runs = append(s.runs, mr)
	}
	return mr, err
}

// close stops the servers, drops the databases and, unless -keep, removes
// the run directory.
func (s *session) close() {
	for _, mr := range s.runs {
		mr.close()
	}
	s.runs = nil
	if !s.keep {
		if err := os.RemoveAll(s.dir); err != nil {
			log.Printf("remove %s: %v", s.dir, err)
		}
	}
}

// modeRun is one configuration's cluster and load.
type modeRun struct {
	c      *clustertest.Cluster
	client *clustertest.Client
	load   *clustertest.Load
	meter  *meter
	res    *modeResult
}

func startMode(ctx context.Context, o options, m mode, bin, dir string) (*modeRun, error) {
	log.Printf("== %s: starting", m)
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return nil, err
	}
	c, err := clustertest.StartCluster(ctx, clustertest.Config{
		DB:          m.db,
		PostgresURL: o.postgres,
		Replicas:    m.replicas,
		Dir:         dir,
		Launcher:    &clustertest.Launcher{Binary: bin, Env: o.serverEnv},
		Serve:       clustertest.ServeArgs{JobTimeout: 10 * time.Second, Extra: o.serverFlags, Debug: o.profile != ""},
		// Several replicas need the proxy; a single one is reached
		// directly, as SQLite is, unless -proxy-always asks for the same
		// extra hop as three replicas pay (whose CPU is then the
		// harness's, on the same 2 cores).
		Proxy: m.db == "postgres" && o.proxyAlways,
	})
	if err != nil {
		return nil, err
	}
	mr := &modeRun{c: c, res: &modeResult{Mode: m}}
	if mr.client, err = clustertest.NewClient(c.Addr, c.Key, 4); err != nil {
		return mr, err
	}
	mr.load = &clustertest.Load{Client: mr.client, RunID: fmt.Sprintf("%d", time.Now().UnixNano())}
	if err := mr.load.Seed(ctx, 100); err != nil {
		return mr, err
	}
	mr.meter = newMeter(c, dbName(c.DatabaseURL, m.db))
	return mr, nil
}

func (mr *modeRun) close() {
	if mr.meter != nil {
		mr.meter.stop()
	}
	if mr.client != nil {
		mr.client.Close()
	}
	if err := mr.c.Close(); err != nil {
		log.Printf("%s: close: %v", mr.res.Mode, err)
	}
}

// awake runs fn with the cluster resumed, and pauses it again.
func (mr *modeRun) awake(ctx context.Context, fn func()) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := mr.c.Resume(ctx); err != nil {
		return err
	}
	fn()
	if err := ctx.Err(); err != nil {
		return err
	}
	mr.settle(ctx)
	if mr.c.Proxy != nil {
		mr.res.Served = mr.c.Proxy.Served()
	}
	mr.res.Errors, _ = mr.load.Errors()
	return mr.c.Pause()
}

// settle lets the runs a phase accepted finish before the next phase (or
// a pause) starts, within bounds: pollers get 20 s; if some runs are still
// unfinished then, the queue gets 60 s more to drain.
func (mr *modeRun) settle(ctx context.Context) {
	if mr.load.WaitPollers(ctx, 20*time.Second) {
		return
	}
	mr.load.StopPollers()
	if ctx.Err() != nil {
		return
	}
	if !mr.c.WaitQueueIdle(ctx, 60*time.Second) {
		log.Printf("%s: engine queue not seen empty; continuing", mr.res.Mode)
	}
}

func (mr *modeRun) fixedRate(ctx context.Context, o options) error {
	m := mr.res.Mode
	return mr.awake(ctx, func() {
		log.Printf("%s: warm-up", m)
		mr.load.RunRate(ctx, "warm-up", clustertest.RealisticMix, max(1, o.rates[0]/2), 3*time.Second)
		mr.load.WaitPollers(ctx, 30*time.Second)
		for _, rate := range o.rates {
			if ctx.Err() != nil {
				return
			}
			log.Printf("%s: fixed rate %d req/s for %s", m, rate, o.duration)
			var profiled chan error
			if o.profile != "" && rate == o.rates[len(o.rates)-1] {
				profiled = make(chan error, 1)
				go func() { profiled <- mr.profile(ctx, o, o.duration) }()
			}
			before := mr.meter.read()
			p := mr.load.RunRate(ctx, fmt.Sprintf("fixed rate %d req/s", rate), clustertest.RealisticMix, rate, o.duration)
			pu := phaseUsage{Phase: p, Processes: mr.meter.since(before)}
			mr.res.Fixed = append(mr.res.Fixed, pu)
			if profiled != nil {
				if err := <-profiled; err != nil {
					log.Printf("%s: profile: %v", m, err)
				}
			}
			mr.settle(ctx)
			w, _ := worstP99(p)
			log.Printf("%s: %.0f req/s done, %d errors, mix p99 %s ms, worst p99 %s ms (%s %s)", m, p.Throughput(), p.Errors, ms(p.MixP99), ms(w.P99), w.Transport, w.Op)
			log.Printf("%s: %s", m, describeUsage(pu))
		}
	})
}

// noIPMix is the mix without IP registrations, whose log has one sequencer
// for all replicas: the difference shows what that coordination costs.
func noIPMix() []clustertest.Share {
	var out []clustertest.Share
	for _, s := range clustertest.RealisticMix {
		if s.Op != clustertest.RegisterIP {
			out = append(out, s)
		}
	}
	return out
}

// idleFor is how long each configuration's idle CPU use is measured.
const idleFor = 4 * time.Second

func (mr *modeRun) maxRound(ctx context.Context, o options, round int) error {
	m := mr.res.Mode
	d := o.maxDuration / time.Duration(o.rounds)
	closed := func(name string, mix []clustertest.Share, d time.Duration) phaseUsage {
		before := mr.meter.read()
		p := mr.load.RunClosed(ctx, name, mix, o.concurrency, d, 10_000_000)
		pu := phaseUsage{Phase: p, Processes: mr.meter.since(before)}
		mr.settle(ctx)
		return pu
	}
	return mr.awake(ctx, func() {
		if round == 0 {
			// What the configuration costs doing nothing: queue polling,
			// leader election, metrics.
			before := mr.meter.read()
			select {
			case <-ctx.Done():
				return
			case <-time.After(idleFor):
			}
			mr.res.Idle = phaseUsage{Phase: clustertest.PhaseResult{Name: "idle", Elapsed: idleFor}, Processes: mr.meter.since(before)}
		}
		mx := closed("max throughput", clustertest.RealisticMix, d)
		noIP := closed("max throughput without IP registrations", noIPMix(), d/2)
		log.Printf("%s: round %d: max mix %s", m, round+1, describeUsage(mx))
		get := closed("read creator alone", []clustertest.Share{{Op: clustertest.GetCreator, Transport: clustertest.REST, Weight: 1}}, max(2*time.Second, d/2))
		mr.res.MaxRounds = append(mr.res.MaxRounds, mx)
		mr.res.NoIPRounds = append(mr.res.NoIPRounds, noIP)
		mr.res.GetOnlyRounds = append(mr.res.GetOnlyRounds, get)
		log.Printf("%s: round %d: mix %.0f req/s, without IP %.0f req/s, read creator %.0f req/s", m, round+1,
			mx.Phase.Throughput(), noIP.Phase.Throughput(), get.Phase.Throughput())
		// A REST read's cost to the server process alone, beside
		// make bench-read's (whose process holds the clients too).
		log.Printf("%s: round %d: read creator alone %s", m, round+1, describeUsage(get))
	})
}

// describeUsage is a phase's CPU per request and peak RSS of each process,
// for the log.
func describeUsage(pu phaseUsage) string {
	var parts []string
	for _, u := range pu.Processes {
		s := fmt.Sprintf("%s %.0f µs/req", u.Name, perRequest(u, pu.Phase))
		if u.PeakRSS > 0 {
			s += ", peak RSS " + mib(u.PeakRSS)
		}
		if u.Transactions > 0 && pu.Phase.Requests > 0 {
			s += fmt.Sprintf(", %.2f transactions/req", u.Transactions/float64(pu.Phase.Requests))
		}
		parts = append(parts, s)
	}
	return "CPU per request: " + strings.Join(parts, "; ")
}

// profile saves r1's CPU profile over the next d (less a second, so that
// it ends within the phase) and its heap and allocation profiles after it,
// in o.profile, with the harness's own CPU profile over the same window:
// the load generator shares the cores, so its cost is part of the picture.
func (mr *modeRun) profile(ctx context.Context, o options, d time.Duration) error {
	r := mr.c.Replicas[0]
	if r.DebugAddr == "" {
		return errors.New("replica has no debug address")
	}
	if err := os.MkdirAll(o.profile, 0o750); err != nil {
		return err
	}
	name := strings.NewReplacer(" ", "", "×", "x").Replace(mr.res.Mode.String())
	secs := max(1, int(d/time.Second)-1)
	fetch := func(path, file string) error {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+r.DebugAddr+path, nil)
		if err != nil {
			return err
		}
		resp, err := (&http.Client{Timeout: d + 30*time.Second}).Do(req)
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("%s: %s", path, resp.Status)
		}
		f, err := os.Create(filepath.Join(o.profile, name+"-"+file))
		if err != nil {
			return err
		}
		if _, err := io.Copy(f, resp.Body); err != nil {
			f.Close()
			return err
		}
		return f.Close()
	}
	self, err := os.Create(filepath.Join(o.profile, name+"-harness-cpu.pprof"))
	if err != nil {
		return err
	}
	defer self.Close()
	if err := pprof.StartCPUProfile(self); err != nil {
		return err
	}
	err = fetch(fmt.Sprintf("/debug/pprof/profile?seconds=%d", secs), "cpu.pprof")
	pprof.StopCPUProfile()
	if err != nil {
		return err
	}
	if err := fetch("/debug/pprof/heap", "heap.pprof"); err != nil {
		return err
	}
	if err := fetch("/debug/pprof/allocs", "allocs.pprof"); err != nil {
		return err
	}
	log.Printf("%s: profiles in %s/%s-{cpu,heap,allocs,harness-cpu}.pprof", mr.res.Mode, o.profile, name)
	return self.Close()
}

func pingPostgres(ctx context.Context, url string) error {
	db, err := sql.Open("pgx", storage.WithoutPoolParams(url))
	if err != nil {
		return err
	}
	defer db.Close()
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	return db.PingContext(ctx)
}

// harnessConns is what the harness keeps of PostgreSQL's connections for
// itself (bootstrap, the meter) when it sizes the servers' pools.
const harnessConns = 10

// fitPools makes every PostgreSQL replica of the run fit in the server's
// connections at once: the modes take turns, but the paused ones keep
// their pools, and a default replica opens DefaultMaxConns +
// BackgroundConns (24). With PostgreSQL's default max_connections (100),
// PostgreSQL ×1 and ×3 together would need 96 and their last connections
// were refused ("too many clients"), failing requests with 500s. Unless
// the URL sets pool_max_conns itself, fitPools sets the largest that fits
// and says so (for the report); it leaves a URL alone when the defaults fit.
func fitPools(ctx context.Context, base string, ms []mode) (string, string, error) {
	replicas := 0
	for _, m := range ms {
		if m.db == "postgres" {
			replicas += m.replicas
		}
	}
	u, err := url.Parse(base)
	if err != nil || replicas == 0 || u.Query().Has("pool_max_conns") {
		return base, "", nil
	}
	db, err := sql.Open("pgx", storage.WithoutPoolParams(base))
	if err != nil {
		return "", "", err
	}
	defer db.Close()
	var available int
	if err := db.QueryRowContext(ctx, `SELECT current_setting('max_connections')::int - current_setting('superuser_reserved_connections')::int`).Scan(&available); err != nil {
		return "", "", fmt.Errorf("PostgreSQL's connection limit: %w", err)
	}
	per := (available - harnessConns) / replicas
	if per >= storage.DefaultMaxConns+storage.BackgroundConns {
		return base, "", nil
	}
	size := per - storage.BackgroundConns
	if size < 4 {
		return "", "", fmt.Errorf("PostgreSQL allows %d connections: too few for %d replicas of %d connections or more", available, replicas, 4+storage.BackgroundConns)
	}
	q := u.Query()
	q.Set("pool_max_conns", strconv.Itoa(size))
	u.RawQuery = q.Encode()
	note := fmt.Sprintf("PostgreSQL allows %d connections and the run keeps %d replicas at once: each gets pool_max_conns=%d (default %d) beside its background pool of %d",
		available, replicas, size, storage.DefaultMaxConns, storage.BackgroundConns)
	return u.String(), note, nil
}

// dbName is the PostgreSQL database of a URL ("" for SQLite), also when
// the URL names a Unix socket directory (?host=/var/run/postgresql).
func dbName(databaseURL, db string) string {
	if db != "postgres" {
		return ""
	}
	u, err := url.Parse(databaseURL)
	if err != nil {
		return ""
	}
	return strings.TrimPrefix(u.Path, "/")
}

// bareResult is the reference: a bare net/http JSON handler.
type bareResult struct {
	Direct, Proxied clustertest.PhaseResult
	CPUSeconds      float64
	PeakRSS         int64
}

// serveBare runs the reference handler: what net/http alone costs for a
// JSON answer of a creator's size, with no auth, database or gateway.
func serveBare(addr string) {
	type creator struct {
		ID        string            `json:"id"`
		Name      string            `json:"name"`
		Email     string            `json:"email"`
		Vertical  string            `json:"vertical"`
		Status    string            `json:"status"`
		Metadata  map[string]string `json:"metadata"`
		CreatedAt time.Time         `json:"created_at"`
		UpdatedAt time.Time         `json:"updated_at"`
	}
	now := time.Now().UTC()
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v1/creators/{id}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(creator{ID: r.PathValue("id"), Name: "Nova Reyes", Email: "nova@example.com", Vertical: "music", Status: "active",
			Metadata: map[string]string{"label": "Night Owl"}, CreatedAt: now, UpdatedAt: now})
	})
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte(`{"status":"ok"}`)) })
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		log.Fatal(err)
	}
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	go func() { <-ctx.Done(); _ = srv.Close() }()
	_ = srv.Serve(ln)
}

// measureBare runs the bare handler as its own process (like the servers)
// and loads it with the same clients as the "read creator only" phase,
// directly and through the proxy that PostgreSQL modes use.
func measureBare(ctx context.Context, o options) (bareResult, error) {
	var res bareResult
	addr, err := clustertest.FreeAddr()
	if err != nil {
		return res, err
	}
	cmd := exec.CommandContext(ctx, os.Args[0], "-serve-bare", addr)
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		return res, err
	}
	defer func() { _ = cmd.Process.Signal(syscall.SIGTERM); _ = cmd.Wait() }()
	ready := false
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if resp, err := http.Get("http://" + addr + "/readyz"); err == nil {
			resp.Body.Close()
			ready = true
			break
		}
	}
	if !ready {
		return res, errors.New("bare server did not start")
	}
	// The proxy's replica type only needs a name and an address.
	proxy, err := clustertest.StartProxy([]*clustertest.Replica{{Name: "bare", Addr: addr}})
	if err != nil {
		return res, err
	}
	defer proxy.Close()
	getOnly := []clustertest.Share{{Op: clustertest.GetCreator, Transport: clustertest.REST, Weight: 1}}
	for i, target := range []string{addr, proxy.Addr} {
		client, err := clustertest.NewClient(target, "unused", 1)
		if err != nil {
			return res, err
		}
		load := &clustertest.Load{Client: client, RunID: "bare"}
		load.RunClosed(ctx, "warm-up", getOnly, o.concurrency, time.Second, 1_000_000)
		p := load.RunClosed(ctx, "bare", getOnly, o.concurrency, 8*time.Second, 10_000_000)
		client.Close()
		if p.Errors > 0 {
			errs, _ := load.Errors()
			return res, fmt.Errorf("bare handler: %d errors, first: %v", p.Errors, errs[0])
		}
		if i == 0 {
			res.Direct = p
		} else {
			res.Proxied = p
		}
	}
	if u, err := clustertest.ProcUsage(cmd.Process.Pid); err == nil {
		res.CPUSeconds, res.PeakRSS = u.CPUSeconds, u.PeakRSS
	}
	return res, nil
}
