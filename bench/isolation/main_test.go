package main

import (
	"context"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/creativeops/creativeops/internal/clustertest"
	"github.com/creativeops/creativeops/internal/testdb"
	"github.com/creativeops/creativeops/internal/testlock"
	"github.com/creativeops/creativeops/webhooks"
)

func TestMain(m *testing.M) {
	clustertest.RunChildIfRequested()
	// Packages that start server processes under load take turns.
	os.Exit(testlock.Run(m.Run))
}

// The program still runs end to end, on tiny counts: both phases, A's
// every kind of request, the report. It asserts what the run did, never
// how fast (the figures are the benchmark's business, not the test's).
func TestSmoke(t *testing.T) {
	dbs := []string{"sqlite"}
	if pg := os.Getenv(clustertest.PostgresEnv); pg != "" {
		dbs = append(dbs, "postgres")
	} else {
		t.Logf("PostgreSQL run skipped: %s is not set", clustertest.PostgresEnv)
	}
	for _, db := range dbs {
		t.Run(db, func(t *testing.T) {
			o := defaultOptions()
			o.db, o.postgres, o.quiet = db, testdb.OnDemand(os.Getenv(clustertest.PostgresEnv)), true
			o.duration, o.settle, o.rps, o.seed = 2*time.Second, 20*time.Second, 5, 3
			o.floodRPS, o.eventRPS, o.floodClients, o.eventClients, o.maxAttack = 30, 5, 2, 1, 200
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
			defer cancel()
			rep, err := run(ctx, o)
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range []phase{rep.Baseline, rep.Attack} {
				if p.Overall.Sent == 0 || p.Expected == 0 {
					t.Errorf("%s: %d requests, %d events: B did nothing", p.Name, p.Overall.Sent, p.Expected)
				}
				if n := serverErrors(p); n > 0 {
					t.Errorf("%s: B got %d server errors", p.Name, n)
				}
				if p.BadSignatures > 0 {
					t.Errorf("%s: %d deliveries with bad signatures", p.Name, p.BadSignatures)
				}
			}
			if rep.Subscribed != webhooks.MaxWebhooksPerOrganization {
				t.Errorf("A registered %d webhooks, want the quota (%d)", rep.Subscribed, webhooks.MaxWebhooksPerOrganization)
			}
			if n := rep.attackServerErrors(); n > 0 {
				t.Errorf("A's requests got %d server errors: %v", n, rep.AttackOutcomes)
			}
			// Every kind of bad input was sent and refused as such.
			for _, r := range badRequests() {
				got := rep.AttackOutcomes[r.kind]
				want := http.StatusBadRequest
				switch r.kind {
				case kindValidRead:
					want = http.StatusOK
				case "oversize body (2 MiB)":
					want = http.StatusRequestEntityTooLarge
				}
				if got[want]+got[http.StatusTooManyRequests] == 0 || got[want]+got[http.StatusTooManyRequests] != sum(got) {
					t.Errorf("%s: answers %v, want %d (or 429)", r.kind, got, want)
				}
			}
			if rep.AttackOutcomes[kindEvent][http.StatusCreated] == 0 {
				t.Errorf("A created no creators: %v", rep.AttackOutcomes[kindEvent])
			}
			md := rep.markdown()
			for _, want := range []string{"| request latency p99 |", "| webhook delivery delay p99 |", "| JSON nested 5000 deep |"} {
				if !strings.Contains(md, want) {
					t.Errorf("report lacks %q:\n%s", want, md)
				}
			}
		})
	}
}

func sum(m map[int]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}
