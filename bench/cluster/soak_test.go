package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/creativeops/creativeops/internal/clustertest"
	"github.com/creativeops/creativeops/internal/testdb"
)

var (
	soakFor = flag.Duration("soak", 60*time.Second, "length of the soak test's sampled load")
	soakRPS = flag.Int("soak.rps", 0, "request rate of the soak test (default 100, or 25 when the servers are race-instrumented test children)")
	soakDB  = flag.String("soak.db", "sqlite", `database of the soak test: "sqlite", or "postgres" (three replicas; needs `+clustertest.PostgresEnv+")")
)

// Sustained load for a bounded time (-soak, 60 s by default; longer with
// go test ./bench/cluster -run Soak -args -soak 30m) while each server's
// resident memory, live heap and goroutines are sampled every second. A
// leak shows as a climb: the last third's average must stay near the
// first third's (generously, since the database and caches grow a little).
func TestSoakResourcesStayFlat(t *testing.T) {
	if testing.Short() {
		t.Skip("soak test runs a server under load for a minute")
	}
	cfg := clustertest.Config{DB: "sqlite", Replicas: 1, Dir: t.TempDir(), Launcher: launcher(),
		Serve: clustertest.ServeArgs{JobTimeout: 10 * time.Second}}
	if *soakDB == "postgres" {
		pg := os.Getenv(clustertest.PostgresEnv)
		cfg.DB, cfg.Replicas, cfg.PostgresURL = "postgres", 3, testdb.OnDemand(pg)
		if pg == "" {
			t.Skipf("soak on PostgreSQL skipped: %s is not set", clustertest.PostgresEnv)
		}
	}
	rps := *soakRPS
	if rps == 0 {
		// A leak check needs a load the server keeps up with: an overloaded
		// one queues requests, and its goroutines and memory climb for
		// that reason alone.
		rps = 100
		if raceEnabled && os.Getenv(binEnv) == "" {
			rps = 25
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), *soakFor+3*time.Minute)
	defer cancel()
	c, client := startCluster(ctx, t, cfg)
	load := &clustertest.Load{Client: client, RunID: fmt.Sprint(time.Now().UnixNano())}
	if err := load.Seed(ctx, 50); err != nil {
		t.Fatal(err)
	}

	// Warm up first so that pools, caches and the heap reach their working
	// size before the first sample.
	warm := 10 * time.Second
	done := make(chan clustertest.PhaseResult, 1)
	go func() { done <- load.RunRate(ctx, "soak", clustertest.RealisticMix, rps, warm+*soakFor) }()
	time.Sleep(warm)

	samples := map[string][]clustertest.RuntimeSample{}
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for end := time.Now().Add(*soakFor); time.Now().Before(end); <-tick.C {
		for _, r := range c.Replicas {
			samples[r.Name] = append(samples[r.Name], r.SampleRuntime(ctx))
		}
	}
	p := <-done
	load.WaitPollers(ctx, 30*time.Second)
	t.Logf("load: %.0f req/s for %s, %d requests, %d errors", p.Throughput(), p.Elapsed.Round(time.Second), p.Requests, p.Errors)
	if p.ServerErrors > 0 {
		errs, _ := load.Errors()
		t.Errorf("%d server errors under steady load, first: %v", p.ServerErrors, errs[0])
	}

	for name, s := range samples {
		if len(s) < 9 {
			t.Fatalf("%s: only %d samples", name, len(s))
		}
		third := len(s) / 3
		first, last := s[:third], s[len(s)-third:]
		avg := func(xs []clustertest.RuntimeSample, f func(clustertest.RuntimeSample) int64) float64 {
			var sum float64
			for _, x := range xs {
				sum += float64(f(x))
			}
			return sum / float64(len(xs))
		}
		check := func(what string, f func(clustertest.RuntimeSample) int64, factor, slack float64, unit float64, unitName string) {
			a, b := avg(first, f), avg(last, f)
			t.Logf("%s %s: first third %.1f%s, last third %.1f%s (%+.0f%%)", name, what, a/unit, unitName, b/unit, unitName, 100*(b-a)/a)
			if b > a*factor+slack {
				t.Errorf("%s %s grew from %.1f%s to %.1f%s: more than ×%.2f + %.0f%s", name, what, a/unit, unitName, b/unit, unitName, factor, slack/unit, unitName)
			}
		}
		const MiB = 1 << 20
		check("RSS", func(x clustertest.RuntimeSample) int64 { return x.RSS }, 1.5, 48*MiB, MiB, " MiB")
		unsourced := 0
		for _, x := range s {
			if x.Source == "" {
				unsourced++
			}
		}
		if unsourced > 0 {
			t.Logf("%s: no /metrics and not a test child (%s set): goroutines and heap not sampled", name, binEnv)
			continue
		}
		t.Logf("%s: goroutines and heap from %s", name, s[0].Source)
		check("goroutines", func(x clustertest.RuntimeSample) int64 { return x.Goroutines }, 1.25, 25, 1, "")
		check("heap", func(x clustertest.RuntimeSample) int64 { return x.HeapBytes }, 1.5, 16*MiB, MiB, " MiB")
	}
}
