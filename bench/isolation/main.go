// Command isolation is the tenant-isolation load test: one organization
// (A, the attacker) floods the service with bad input, requests beyond its
// rate limit, webhooks to slow and failing receivers and the events that
// feed them, while another (B, the victim) runs a realistic mix at a fixed
// modest rate. It measures B's request latency and webhook delivery delay
// with nobody else about (the baseline) and under the attack, and reports
// whether the attack leaves B within 2× of its baseline.
//
//	go run ./bench/isolation -db sqlite -out isolation-sqlite.md
//	go run ./bench/isolation -db postgres -out -
//
// The server is a real creativeops process on loopback (this program
// re-executed as one, or -bin); every receiver is a local HTTP server.
// Every phase is bounded in time and in requests.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/creativeops/creativeops/internal/clustertest"
)

// options bound a run. The defaults take about two and a half minutes per
// database.
type options struct {
	db string
	// duration is the length of each measured phase (baseline, attack).
	duration time.Duration
	// rps is B's request rate in both phases.
	rps int
	// settle bounds the wait, after a phase, for B's last deliveries.
	settle time.Duration
	// floodClients and eventClients are A's concurrent senders of bad
	// input and of valid event-triggering requests; maxAttack bounds A's
	// requests in all.
	floodClients, eventClients int
	maxAttack                  int
	// floodRPS and eventRPS are A's rates: bad input and reads on one
	// key, event-creating requests on the other.
	floodRPS, eventRPS int
	// seed is how many creators B starts with.
	seed     int
	out      string
	bin      string
	postgres string
	keep     bool
	// debugAddr, when set, serves the server's profiler there.
	debugAddr string
	// quiet drops the progress log (the smoke test).
	quiet bool
}

func defaultOptions() options {
	return options{
		db:           "sqlite",
		duration:     30 * time.Second,
		rps:          30,
		settle:       20 * time.Second,
		floodClients: 8,
		eventClients: 4,
		maxAttack:    200_000,
		// Ten times the default per-key limit (100 requests/s) of flood,
		// twice it of event-creating requests.
		floodRPS: 1000,
		eventRPS: 200,
		seed:     50,
		out:      "-",
	}
}

func main() {
	// Re-executed as the server (clustertest.Launcher without a binary).
	clustertest.RunChildIfRequested()
	o := defaultOptions()
	flag.StringVar(&o.db, "db", o.db, `"sqlite" or "postgres"`)
	flag.DurationVar(&o.duration, "duration", o.duration, "length of the baseline and of the attack phase")
	flag.IntVar(&o.rps, "rps", o.rps, "organization B's requests per second")
	flag.DurationVar(&o.settle, "settle", o.settle, "most to wait after a phase for B's last webhook deliveries")
	flag.IntVar(&o.floodClients, "flood-clients", o.floodClients, "A's concurrent clients sending bad input")
	flag.IntVar(&o.eventClients, "event-clients", o.eventClients, "A's concurrent clients creating creators (each an event to every webhook of A)")
	flag.IntVar(&o.maxAttack, "max-attack", o.maxAttack, "most requests A sends in all")
	flag.IntVar(&o.floodRPS, "flood-rps", o.floodRPS, "A's rate of bad input and reads (one key)")
	flag.IntVar(&o.eventRPS, "event-rps", o.eventRPS, "A's rate of creator creations, each an event for every webhook of A (another key)")
	flag.IntVar(&o.seed, "seed", o.seed, "creators B starts with")
	flag.StringVar(&o.out, "out", o.out, `Markdown report file ("-" for stdout)`)
	flag.StringVar(&o.bin, "bin", "", "creativeops binary to run (default: this program re-executed as the server)")
	flag.StringVar(&o.postgres, "postgres", "", "PostgreSQL server URL to create the database on (default $"+clustertest.PostgresEnv+" or "+clustertest.DefaultPostgresURL+")")
	flag.BoolVar(&o.keep, "keep", false, "keep the run directory (server log, SQLite file)")
	flag.StringVar(&o.debugAddr, "debug-addr", "", "serve the server's Go profiler on this address (e.g. 127.0.0.1:6060)")
	flag.Parse()
	log.SetFlags(log.Ltime)
	if o.postgres == "" {
		o.postgres = os.Getenv(clustertest.PostgresEnv)
	}
	if o.postgres == "" {
		o.postgres = clustertest.DefaultPostgresURL
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	rep, err := run(ctx, o)
	stop()
	if err != nil {
		if ctx.Err() != nil {
			log.Print("interrupted; server stopped, database and files removed")
			os.Exit(130)
		}
		log.Fatal(err)
	}
	md := rep.markdown()
	if o.out == "-" {
		fmt.Print(md)
	} else if err := os.WriteFile(o.out, []byte(md), 0o644); err != nil {
		log.Fatal(err)
	} else {
		log.Printf("wrote %s", o.out)
	}
	if !rep.Pass() {
		os.Exit(1)
	}
}

func (o options) validate() error {
	switch {
	case o.db != "sqlite" && o.db != "postgres":
		return fmt.Errorf("-db %q: want sqlite or postgres", o.db)
	case o.duration <= 0 || o.settle <= 0:
		return errors.New("-duration and -settle must be positive")
	case o.rps <= 0 || o.floodClients <= 0 || o.eventClients <= 0 || o.maxAttack <= 0 || o.seed <= 0 || o.floodRPS <= 0 || o.eventRPS <= 0:
		return errors.New("-rps, -flood-rps, -event-rps, -flood-clients, -event-clients, -max-attack and -seed must be positive")
	}
	return nil
}

func (o options) logf(format string, args ...any) {
	if !o.quiet {
		log.Printf(format, args...)
	}
}
