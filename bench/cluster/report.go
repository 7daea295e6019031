package main

import (
	"bufio"
	"context"
	"database/sql"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/creativeops/creativeops/internal/clustertest"
	"github.com/creativeops/creativeops/storage"
)

type machine struct {
	CPU      string
	Cores    int
	MemoryGB float64
	Kernel   string
	Go       string
	Postgres string
	LoadAvg  string
	Commit   string
}

func describeMachine(ctx context.Context, o options, ms []mode) machine {
	m := machine{Cores: runtime.NumCPU(), Go: runtime.Version()}
	if f, err := os.Open("/proc/cpuinfo"); err == nil {
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if k, v, ok := strings.Cut(sc.Text(), ":"); ok && strings.TrimSpace(k) == "model name" {
				m.CPU = strings.TrimSpace(v)
				break
			}
		}
		f.Close()
	}
	if b, err := os.ReadFile("/proc/meminfo"); err == nil {
		var kb float64
		if _, err := fmt.Sscanf(string(b), "MemTotal: %f kB", &kb); err == nil {
			m.MemoryGB = kb / (1 << 20)
		}
	}
	if b, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		m.Kernel = strings.TrimSpace(string(b))
	}
	m.LoadAvg = clustertest.LoadAvg()
	for _, md := range ms {
		if md.db != "postgres" {
			continue
		}
		if db, err := sql.Open("pgx", storage.WithoutPoolParams(o.postgres)); err == nil {
			var v string
			qctx, cancel := context.WithTimeout(ctx, 5*time.Second)
			if db.QueryRowContext(qctx, "SHOW server_version").Scan(&v) == nil {
				m.Postgres = "PostgreSQL " + v
			}
			cancel()
			db.Close()
		}
		break
	}
	if out, err := exec.CommandContext(ctx, "git", "rev-parse", "--short", "HEAD").Output(); err == nil {
		m.Commit = strings.TrimSpace(string(out))
		if st, err := exec.CommandContext(ctx, "git", "status", "--porcelain").Output(); err == nil && len(st) > 0 {
			m.Commit += " + uncommitted changes"
		}
	}
	return m
}

type report struct {
	Options           options
	Started, Finished time.Time
	Machine           machine
	LoadAvgEnd        string
	Skipped           string
	// Pools says how fitPools sized the replicas' pools ("" if it did not).
	Pools string
	Bare  bareResult
	Modes []*modeResult
	// DetailPath is where the per-phase details were written ("" when
	// they follow the summary on stdout).
	DetailPath string
}

func ms(d time.Duration) string {
	return fmt.Sprintf("%.1f", float64(d.Microseconds())/1000)
}

func mib(b int64) string {
	if b == 0 {
		return "–"
	}
	return fmt.Sprintf("%.0f MiB", float64(b)/(1<<20))
}

func (r *report) find(db string, replicas int) *modeResult {
	for _, m := range r.Modes {
		if m.Mode.db == db && m.Mode.replicas == replicas {
			return m
		}
	}
	return nil
}

func worstP99(p clustertest.PhaseResult) (clustertest.OpStats, bool) {
	var w clustertest.OpStats
	found := false
	for _, s := range p.Ops {
		if s.Op == clustertest.Poll && p.OpenLoop {
			continue // polls are not scheduled, so they have no open-loop latency
		}
		if !found || s.P99 > w.P99 {
			w, found = s, true
		}
	}
	return w, found
}

func serverCores(pu phaseUsage) float64 {
	var cpu float64
	for _, p := range pu.Processes {
		if strings.HasPrefix(p.Name, "creativeops ") {
			cpu += p.CPUSeconds
		}
	}
	return cpu / pu.Phase.Elapsed.Seconds()
}

func (r *report) markdown() string {
	var b strings.Builder
	o := r.Options
	w := func(format string, a ...any) { fmt.Fprintf(&b, format, a...) }
	w("# Performance\n\n")
	w("What one creativeops deployment sustains, measured end to end: real server processes, real\n")
	w("databases, REST and gRPC clients on loopback. `bench/cluster` writes this file; the figures below\n")
	w("are from its latest full run. They are only comparable within one run: the machine is shared.\n")
	w("The hand-written *Findings* at the end are kept when the file is regenerated.\n\n")
	w("## How to reproduce\n\n```sh\n")
	w("make bench-cluster                 # = go run ./bench/cluster (about 5 minutes)\n")
	w("go run ./bench/cluster -db sqlite -duration 60s -rps 500 -out -    # one mode and rate, to stdout\n")
	w("go run ./bench/cluster -db postgres -replicas 3 -bin ./bin/creativeops\n")
	w("```\n\n")
	w("PostgreSQL modes create a database `bench_<time>` on `$%s` (default\n", clustertest.PostgresEnv)
	w("`%s`) and drop it afterwards. Server logs are kept with `-keep`.\n\n", clustertest.DefaultPostgresURL)
	w("## Method\n\n")
	w("- **Servers** are the `creativeops` binary (`go build ./cmd/creativeops`), started as child processes\n")
	w("  with `serve --job-timeout 10s --allow-insecure-webhooks`, text logs to a file. SQLite runs one process;\n")
	w("  PostgreSQL runs one or three replicas on one database. Several replicas sit behind the harness's\n")
	w("  round-robin proxy (`internal/clustertest/proxy.go`: per request, HTTP/1.1 for REST, h2c for gRPC,\n")
	w("  health checks on `/readyz`); a single replica, like SQLite, is reached directly")
	if o.proxyAlways {
		w(", except in this run (`-proxy-always`: one replica behind the proxy too)")
	}
	w(".\n")
	if len(o.serverFlags) > 0 || len(o.serverEnv) > 0 {
		w("  This run added to every server: `%s`.\n", strings.TrimSpace(strings.Join(o.serverEnv, " ")+" "+strings.Join(o.serverFlags, " ")))
	}
	w("- **The mix** (`clustertest.RealisticMix`), each share half over REST and half over gRPC (generated\n")
	w("  clients, 4 HTTP/2 connections): read creator 30 %%, create creator 15 %%, sync run\n")
	w("  (`music/release-strategy`) 15 %%, register IP 15 %%, catalog query (a creator's first 20 records) 15 %%,\n")
	w("  async run 10 %% — each accepted async run is then polled until completed (after 100 ms, backing off to\n")
	w("  1 s; polls count as requests). 100 creators are seeded first; the API key's rate limit is raised so\n")
	w("  the limiter runs but never refuses. Servers log requests as deployed by default (`--log-requests sampled`: failed and slow ones, 1 in 100 of the rest).\n")
	w("- **Fixed rate**: open loop at each rate of `-rps` (%s req/s) for `-duration` (%s), each share its own\n", joinInts(o.rates), o.duration)
	w("  fixed-rate stream (`bench.Rate`) starting at a random point of its first interval, so the streams are\n")
	w("  independent like separate clients rather than firing together: latency counts from when a request was\n")
	w("  due, so queueing is not hidden.\n")
	w("  Polls come on top of the offered rate. A 3 s warm-up comes first; accepted runs finish between phases.\n")
	w("  An overloaded server gets 15 s after the phase to answer; later answers count as errors.\n")
	w("- **Max throughput**: %d closed-loop clients (`bench.Closed`), latency per request, in %d rounds of\n", o.concurrency, o.rounds)
	w("  %s per mode; then the mix without IP registrations for half that, and \"read creator alone\". The\n", o.maxDuration/time.Duration(o.rounds))
	w("  modes take turns round by round, and the one being measured is the only one awake: the others'\n")
	w("  processes are paused with SIGSTOP. Throughput is the median round (all rounds are listed); the\n")
	w("  per-endpoint tables are from that round. Before its first round each mode sits idle for %s, to\n", idleFor)
	w("  show what it costs doing nothing.\n")
	w("- **Reference**: a bare `net/http` handler answering a creator-sized JSON object, in its own process,\n")
	w("  loaded by the same %d clients with `GET /v1/creators/{id}` for 8 s; each mode runs that same request alone\n", o.concurrency)
	w("  (\"read creator alone\"), so the ratio compares like with like.\n")
	w("- **Processes**: CPU seconds (utime + stime from `/proc/PID/stat`) used during each phase, also shown as\n")
	w("  cores (CPU seconds per second of the phase) and as CPU µs per request (polls included): the steadier\n")
	w("  figure on a shared machine. Peak RSS is `VmHWM` from `/proc/PID/status`. PostgreSQL\n")
	w("  counts only the backends serving the run's database (the server's shared background processes are\n")
	w("  left out).\n\n")

	w("## Latest run\n\n")
	mc := r.Machine
	w("- Machine: %s, %d cores, %.0f GiB RAM, Linux %s; %s", mc.CPU, mc.Cores, mc.MemoryGB, mc.Kernel, mc.Go)
	if mc.Postgres != "" {
		w("; %s on the same machine", mc.Postgres)
	}
	w(".\n  The machine is shared (other builds and tests ran meanwhile); load average at the start: %s, at the end: %s.\n", mc.LoadAvg, r.LoadAvgEnd)
	w("  Load generator, proxy, servers and database all share the same %d cores.\n", mc.Cores)
	if r.Skipped != "" {
		w("- %s.\n", r.Skipped)
	}
	if r.Pools != "" {
		w("- %s.\n", r.Pools)
	}
	w("- Run: %s, %s, commit %s.\n", r.Started.UTC().Format("2006-01-02 15:04 MST"), r.Finished.Sub(r.Started).Round(time.Second), mc.Commit)
	w("- Bare `net/http` reference: **%.0f req/s** direct, %.0f req/s through the proxy (so the proxy alone\n", r.Bare.Direct.Throughput(), r.Bare.Proxied.Throughput())
	w("  caps a mode with several replicas near that); bare p50 %s ms, p99 %s ms.\n\n", ms(r.Bare.Direct.Ops[0].P50), ms(r.Bare.Direct.Ops[0].P99))

	w("### Summary\n\n")
	w("Fixed rate (open loop; \"done\" includes the polls of async runs):\n\n")
	w("| Mode | Offered req/s | Done req/s | Errors | Mix p50 / p99 | Worst p99 (operation) | Read creator p99 | Server CPU (cores) | CPU µs per request: servers / PostgreSQL / harness | Peak RSS per server |\n")
	w("|---|---:|---:|---:|---:|---|---:|---:|---|---:|\n")
	for _, m := range r.Modes {
		for _, pu := range m.Fixed {
			f := pu.Phase
			wst, _ := worstP99(f)
			var read time.Duration
			for _, s := range f.Ops {
				if s.Op == clustertest.GetCreator {
					read = max(read, s.P99)
				}
			}
			var srv, pg, harness float64
			var rss int64
			for _, u := range pu.Processes {
				switch {
				case strings.HasPrefix(u.Name, "creativeops "):
					srv += perRequest(u, f)
					rss = max(rss, u.PeakRSS)
				case strings.HasPrefix(u.Name, "PostgreSQL"):
					pg = perRequest(u, f)
				default:
					harness = perRequest(u, f)
				}
			}
			w("| %s | %d | %.0f | %d | %s / %s ms | %s ms (%s %s) | %s ms | %.2f | %.0f / %.0f / %.0f | %s |\n", m.Mode, f.TargetRPS, f.Throughput(), f.Errors,
				ms(f.MixP50), ms(f.MixP99), ms(wst.P99), wst.Transport, wst.Op, ms(read), serverCores(pu), srv, pg, harness, mib(rss))
		}
	}
	w("\nMax throughput (closed loop, %d clients; median of %d rounds):\n\n", o.concurrency, o.rounds)
	w("| Mode | Mix req/s (rounds) | vs PostgreSQL ×1 | CPU: servers / PostgreSQL / harness (cores) | Without IP registrations req/s | vs PostgreSQL ×1 | Read creator alone req/s | vs bare | Idle CPU: servers / PostgreSQL (cores) | Peak RSS per server |\n")
	w("|---|---:|---:|---|---:|---:|---:|---:|---:|---:|\n")
	pg1 := r.find("postgres", 1)
	for _, m := range r.Modes {
		rel, relNoIP := "–", "–"
		if pg1 != nil && m.Mode.db == "postgres" {
			rel = fmt.Sprintf("%.0f %%", 100*m.Max.Phase.Throughput()/pg1.Max.Phase.Throughput())
			relNoIP = fmt.Sprintf("%.0f %%", 100*m.MaxNoIP.Phase.Throughput()/pg1.MaxNoIP.Phase.Throughput())
		}
		var rss int64
		for _, u := range m.Max.Processes {
			if strings.HasPrefix(u.Name, "creativeops ") {
				rss = max(rss, u.PeakRSS)
			}
		}
		w("| %s | **%.0f** (%s) | %s | %.2f / %.2f / %.2f | %.0f (%s) | %s | %.0f | %.2f× | %.3f / %.3f | %s |\n",
			m.Mode, m.Max.Phase.Throughput(), roundList(m.MaxRounds), rel, serverCores(m.Max), pgCores(m.Max), harnessCores(m.Max),
			m.MaxNoIP.Phase.Throughput(), roundList(m.NoIPRounds), relNoIP, m.GetOnly.Phase.Throughput(), m.GetOnly.Phase.Throughput()/r.Bare.Direct.Throughput(),
			serverCores(m.Idle), pgCores(m.Idle), mib(rss))
	}
	w("\n")
	r.targets(w)
	if r.DetailPath != "" {
		w("Per operation and per process, phase by phase: `%s` (written by the same run, not kept in git).\n\n", r.DetailPath)
	}
	return b.String()
}

// details is the per-mode, per-phase part of the report: every
// operation's latency and every process's CPU. It is written beside the
// summary rather than into docs/performance.md, which stays a reference a
// reader finishes.
func (r *report) details() string {
	var b strings.Builder
	w := func(format string, a ...any) { fmt.Fprintf(&b, format, a...) }
	w("# bench/cluster: phases of the run of %s (commit %s)\n\n", r.Started.UTC().Format("2006-01-02 15:04 MST"), r.Machine.Commit)
	for _, m := range r.Modes {
		w("## %s\n\n", m.Mode)
		if m.Served != nil {
			names := make([]string, 0, len(m.Served))
			for n := range m.Served {
				names = append(names, n)
			}
			sort.Strings(names)
			var parts []string
			for _, n := range names {
				parts = append(parts, fmt.Sprintf("%s %d", n, m.Served[n]))
			}
			w("Requests answered per replica (whole mode): %s.\n\n", strings.Join(parts, ", "))
		}
		for _, pu := range append(slices.Clone(m.Fixed), m.Max, m.MaxNoIP) {
			p := pu.Phase
			w("### %s", p.Name)
			if p.OpenLoop {
				w(" — %d req/s offered, %.0f req/s done", p.TargetRPS, p.Throughput())
			} else {
				w(" — %.0f req/s", p.Throughput())
			}
			w(", %d errors (%d server errors), %s\n\n", p.Errors, p.ServerErrors, p.Elapsed.Round(100*time.Millisecond))
			w("| Operation | Endpoint | Transport | Requests | Errors | p50 ms | p95 ms | p99 ms | max ms |\n")
			w("|---|---|---|---:|---:|---:|---:|---:|---:|\n")
			for _, s := range p.Ops {
				w("| %s | `%s` | %s | %d | %d | %s | %s | %s | %s |\n", s.Op, s.Op.Endpoint(s.Transport), s.Transport, s.Count, s.Errors, ms(s.P50), ms(s.P95), ms(s.P99), ms(s.Max))
			}
			a := p.Async
			w("\nAsync runs: %d accepted, %d seen completed (submit → completed p50 %s ms, p99 %s ms), %d failed, %d unfinished when polling gave up.\n\n",
				a.Submitted, a.Completed, ms(a.P50), ms(a.P99), a.Failed, a.Unfinished)
			w("| Process | CPU s | cores | CPU µs per request | peak RSS |\n|---|---:|---:|---:|---:|\n")
			for _, u := range pu.Processes {
				w("| %s | %.1f | %.2f | %.0f | %s |\n", u.Name, u.CPUSeconds, u.CPUSeconds/p.Elapsed.Seconds(), perRequest(u, p), mib(u.PeakRSS))
			}
			for _, u := range pu.Processes {
				if u.Transactions > 0 && p.Requests > 0 {
					w("\nPostgreSQL counted %.0f transactions in the run's database, %.2f per request (a statement outside a transaction counts one).\n", u.Transactions, u.Transactions/float64(p.Requests))
				}
			}
			w("\n")
		}
		if len(m.Errors) > 0 {
			w("First errors:\n\n```\n")
			for i, e := range m.Errors {
				if i == 5 {
					break
				}
				w("%s\n", truncate(e.Error(), 300))
			}
			w("```\n\n")
		}
	}
	return b.String()
}

// perRequest is a process's CPU microseconds per request of the phase
// (polls included).
func perRequest(u processUsage, p clustertest.PhaseResult) float64 {
	if p.Requests == 0 {
		return 0
	}
	return 1e6 * u.CPUSeconds / float64(p.Requests)
}

func (r *report) targets(w func(string, ...any)) {
	pg1 := r.find("postgres", 1)
	if pg1 == nil {
		return
	}
	for _, pu := range pg1.Fixed {
		f := pu.Phase
		if f.TargetRPS != 1000 {
			continue
		}
		wst, _ := worstP99(f)
		var rss int64
		for _, u := range pu.Processes {
			if strings.HasPrefix(u.Name, "creativeops ") {
				rss = max(rss, u.PeakRSS)
			}
		}
		verdict := func(ok bool) string {
			if ok {
				return "met"
			}
			return "**not met**"
		}
		w("Targets (PostgreSQL ×1 at 1000 req/s; the machine is shared, so one run decides nothing):\n\n")
		w("- p99 of the mix under 50 ms with 0 errors: %s (%s ms; %d errors).\n", verdict(f.MixP99 < 50*time.Millisecond && f.Errors == 0), ms(f.MixP99), f.Errors)
		w("- p99 of every operation under 50 ms: %s (worst: %s %s, %s ms).\n", verdict(wst.P99 < 50*time.Millisecond), wst.Transport, wst.Op, ms(wst.P99))
		w("- Peak RSS of the server under 150 MiB: %s (%s).\n\n", verdict(rss < 150<<20), mib(rss))
	}
}

func harnessCores(pu phaseUsage) float64 {
	for _, p := range pu.Processes {
		if strings.HasPrefix(p.Name, "harness") {
			return p.CPUSeconds / pu.Phase.Elapsed.Seconds()
		}
	}
	return 0
}

func pgCores(pu phaseUsage) float64 {
	for _, p := range pu.Processes {
		if strings.HasPrefix(p.Name, "PostgreSQL") {
			return p.CPUSeconds / pu.Phase.Elapsed.Seconds()
		}
	}
	return 0
}

// findingsHeading starts the hand-written part of the report, which a new
// run keeps: interpretation that figures alone do not give.
const findingsHeading = "## Findings"

// keptSection returns the hand-written findings of a previous report.
func keptSection(old string) string {
	i := strings.Index(old, "\n"+findingsHeading)
	if i < 0 {
		return ""
	}
	return old[i:]
}

func joinInts(xs []int) string {
	var parts []string
	for _, x := range xs {
		parts = append(parts, fmt.Sprint(x))
	}
	return strings.Join(parts, ", ")
}

func roundList(rounds []phaseUsage) string {
	var parts []string
	for _, r := range rounds {
		parts = append(parts, fmt.Sprintf("%.0f", r.Phase.Throughput()))
	}
	return strings.Join(parts, ", ")
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
