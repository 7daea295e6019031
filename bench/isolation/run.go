package main

import (
	"context"
	"errors"
	"fmt"
	"log"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"time"

	"github.com/creativeops/creativeops/auth"
	"github.com/creativeops/creativeops/bench"
	"github.com/creativeops/creativeops/internal/clustertest"
	"github.com/creativeops/creativeops/storage"
)

// retrySchedule is the delivery schedule the server runs with: the
// service's (0s, 5s, 5m, ...) compressed, so that a failing receiver's
// retries pile up within the attack instead of hours later.
const retrySchedule = "0s,1s,2s,4s,8s"

// victimMix is B's traffic: reads, lists, new creators, plans and
// registrations, half over REST and half over gRPC. Creating a creator,
// running a workflow and registering a work each emit an event that B's
// webhook receives.
var victimMix = clustertest.Split(map[clustertest.Op]int{
	clustertest.GetCreator: 35, clustertest.ListCreators: 15, clustertest.CreateCreator: 20,
	clustertest.SyncRun: 15, clustertest.RegisterIP: 15,
})

// emitsEvent lists B's operations whose success is one event.
var emitsEvent = map[clustertest.Op]bool{clustertest.CreateCreator: true, clustertest.SyncRun: true, clustertest.RegisterIP: true}

// keys are the API keys the run uses, each with the default rate limit.
type keys struct {
	victim, flood, events string
}

// bootstrap migrates the database and creates the two organizations and
// their keys, with no rate limit of their own (the server's default
// applies, as to any key).
func bootstrap(ctx context.Context, databaseURL string) (keys, error) {
	var k keys
	st, err := storage.Open(ctx, databaseURL)
	if err != nil {
		return k, err
	}
	defer st.Close()
	if err := st.Migrate(ctx); err != nil {
		return k, err
	}
	ks := &auth.Store{Ent: st.Ent}
	create := func(org, name string) (string, error) {
		o, err := ks.EnsureOrganization(ctx, org)
		if err != nil {
			return "", err
		}
		_, key, err := ks.CreateKey(ctx, auth.NewKeyParams{OrganizationID: o.ID, Name: name, Scopes: []string{"*"}})
		return key, err
	}
	if k.victim, err = create("victim", "victim-app"); err != nil {
		return k, err
	}
	if k.flood, err = create("attacker", "attacker-flood"); err != nil {
		return k, err
	}
	k.events, err = create("attacker", "attacker-events")
	return k, err
}

// phase is what one measured phase saw of B.
type phase struct {
	Name string
	// Overall is B's requests, latency measured from when each was due
	// (open loop).
	Overall bench.Result
	// Ops is per operation, service time.
	Ops                   clustertest.PhaseResult
	Expected, Delivered   int
	DelayP50, DelayP99    time.Duration
	DelayMax              time.Duration
	BadSignatures         int
	ServerCPU, HarnessCPU float64
	Elapsed, SettledWait  time.Duration
}

func run(ctx context.Context, o options) (*report, error) {
	if err := o.validate(); err != nil {
		return nil, err
	}
	rep := &report{Options: o, Started: time.Now(), LoadAvgStart: clustertest.LoadAvg(), Cores: runtime.NumCPU()}
	dir, err := os.MkdirTemp("", "creativeops-isolation-")
	if err != nil {
		return nil, err
	}
	if o.keep {
		o.logf("run directory: %s", dir)
	} else {
		defer os.RemoveAll(dir)
	}

	var dbURL string
	if o.db == "sqlite" {
		dbURL = "sqlite://" + filepath.Join(dir, "creativeops.db")
	} else {
		var drop func() error
		dbURL, drop, err = clustertest.CreatePostgresDatabase(ctx, o.postgres, "isolation")
		if err != nil {
			return nil, err
		}
		defer func() {
			if err := drop(); err != nil {
				log.Printf("drop database: %v", err)
			}
		}()
	}
	k, err := bootstrap(ctx, dbURL)
	if err != nil {
		return nil, fmt.Errorf("bootstrap: %w", err)
	}

	// Receivers: B's on 127.0.0.2; A's on hosts of their own, five slow
	// and five failing, so that A's per-organization share is what binds,
	// not one host's.
	victim := newVictimReceiver()
	vr, err := startReceiver("127.0.0.2", victim)
	if err != nil {
		return nil, err
	}
	defer vr.Close()
	var attackURLs []string
	for i := 1; i <= 5; i++ {
		for ip, handler := range map[string]http.Handler{
			fmt.Sprintf("127.0.1.%d", i): slowHandler(),
			fmt.Sprintf("127.0.2.%d", i): failingHandler(),
		} {
			r, err := startReceiver(ip, handler)
			if err != nil {
				return nil, err
			}
			defer r.Close()
			attackURLs = append(attackURLs, r.URL)
		}
	}

	launcher := &clustertest.Launcher{Binary: o.bin}
	args := clustertest.ServeArgs{DatabaseURL: dbURL, JobTimeout: 10 * time.Second, WebhookSchedule: retrySchedule}
	if o.debugAddr != "" {
		args.Extra = []string{"--debug-addr", o.debugAddr}
	}
	srv, err := launcher.NewReplica("server", dir, args)
	if err != nil {
		return nil, err
	}
	o.logf("%s: starting the server", o.db)
	if err := srv.Start(ctx); err != nil {
		return nil, err
	}
	defer func() {
		if err := srv.Terminate(30 * time.Second); err != nil {
			log.Printf("server: %v", err)
		}
	}()

	client, err := clustertest.NewClient(srv.Addr, k.victim, 2)
	if err != nil {
		return nil, err
	}
	defer client.Close()
	load := &clustertest.Load{Client: client, RunID: fmt.Sprintf("%d", time.Now().UnixNano())}
	if err := load.Seed(ctx, o.seed); err != nil {
		return nil, err
	}
	if _, err := client.CreateWebhook(ctx, vr.URL, victim.secret); err != nil {
		return nil, fmt.Errorf("B's webhook: %w", err)
	}

	m := &measurer{o: o, srv: srv, load: load, victim: victim}
	o.logf("%s: warm-up", o.db)
	m.victimLoad(ctx, min(3*time.Second, o.duration))
	m.waitDelivered(ctx, time.Time{}, time.Now(), -1) // let warm-up deliveries land before the baseline
	o.logf("%s: baseline: B alone at %d req/s for %s", o.db, o.rps, o.duration)
	if rep.Baseline, err = m.measure(ctx, "baseline", nil); err != nil {
		return nil, err
	}
	o.logf("%s: baseline: p50 %s, p99 %s; delivery p50 %s, p99 %s", o.db, ms(rep.Baseline.Overall.P50), ms(rep.Baseline.Overall.P99), ms(rep.Baseline.DelayP50), ms(rep.Baseline.DelayP99))

	a := &attacker{base: srv.URL(), floodKey: k.flood, eventsKey: k.events, http: bench.Client(), receivers: attackURLs, limit: int64(o.maxAttack)}
	defer a.http.CloseIdleConnections()
	o.logf("%s: attack: A subscribes webhooks, floods at %d req/s and creates creators at %d req/s for %s", o.db, o.floodRPS, o.eventRPS, o.duration)
	if rep.Attack, err = m.measure(ctx, "attack", func(ctx context.Context) {
		rep.Subscribed = a.subscribe(ctx)
		a.run(ctx, o.duration, o.floodRPS, o.eventRPS, o.floodClients, o.eventClients)
	}); err != nil {
		return nil, err
	}
	o.logf("%s: attack: p50 %s, p99 %s; delivery p50 %s, p99 %s", o.db, ms(rep.Attack.Overall.P50), ms(rep.Attack.Overall.P99), ms(rep.Attack.DelayP50), ms(rep.Attack.DelayP99))
	rep.AttackOutcomes = a.outcomes.snapshot()
	rep.AttackSent = int(min(a.sent.Load(), a.limit))
	rep.Finished, rep.LoadAvgEnd = time.Now(), clustertest.LoadAvg()
	return rep, ctx.Err()
}

type measurer struct {
	o      options
	srv    *clustertest.Replica
	load   *clustertest.Load
	victim *victimReceiver
}

// victimLoad runs B's mix open-loop at o.rps for d, one operation picked
// at random per request.
func (m *measurer) victimLoad(ctx context.Context, d time.Duration) bench.Result {
	total := 0
	for _, s := range victimMix {
		total += s.Weight
	}
	return bench.Rate(ctx, m.o.rps, d, 64, func(ctx context.Context) error {
		n := rand.IntN(total)
		for _, s := range victimMix {
			if n -= s.Weight; n < 0 {
				return m.load.Do(ctx, s.Op, s.Transport)
			}
		}
		return errors.New("unreachable")
	})
}

// measure runs B's load for the phase, with attack running beside it
// (nil: alone), then waits (at most o.settle) for B's events of the phase
// to be delivered.
func (m *measurer) measure(ctx context.Context, name string, attack func(context.Context)) (phase, error) {
	p := phase{Name: name}
	m.load.Reset()
	cpu, self := m.srv.Lifetime().CPUSeconds, harnessCPU()
	start := time.Now()
	var wg sync.WaitGroup
	if attack != nil {
		actx, cancel := context.WithTimeout(ctx, m.o.duration+15*time.Second)
		defer cancel()
		wg.Add(1)
		go func() { defer wg.Done(); attack(actx) }()
	}
	p.Overall = m.victimLoad(ctx, m.o.duration)
	end := time.Now()
	p.Ops = m.load.Snapshot(name)
	wg.Wait()
	p.Elapsed = end.Sub(start)
	if err := ctx.Err(); err != nil {
		return p, err
	}
	for _, s := range p.Ops.Ops {
		if emitsEvent[s.Op] {
			p.Expected += s.Count - s.Errors
		}
	}
	settleFrom := time.Now()
	m.waitDelivered(ctx, start, end, p.Expected)
	p.SettledWait = time.Since(settleFrom)
	p.ServerCPU, p.HarnessCPU = m.srv.Lifetime().CPUSeconds-cpu, harnessCPU()-self
	d, bad := m.victim.delays(start, end)
	p.Delivered, p.BadSignatures = len(d), bad
	// An event still undelivered counts with the delay it has reached: a
	// lower bound, so that losing deliveries can only worsen the figures.
	for range max(0, p.Expected-len(d)) {
		d = append(d, time.Since(end))
	}
	if n := len(d); n > 0 {
		p.DelayP50, p.DelayP99, p.DelayMax = d[n*50/100], d[min(n-1, n*99/100)], d[n-1]
	}
	return p, nil
}

// waitDelivered waits, at most o.settle, until want of B's events of
// [from, to] arrived (want < 0: until the count stops changing for a
// second).
func (m *measurer) waitDelivered(ctx context.Context, from, to time.Time, want int) {
	deadline := time.Now().Add(m.o.settle)
	last, stable := -1, time.Now()
	for time.Now().Before(deadline) && ctx.Err() == nil {
		d, _ := m.victim.delays(from, to)
		if want >= 0 && len(d) >= want {
			return
		}
		if want < 0 {
			if len(d) != last {
				last, stable = len(d), time.Now()
			} else if time.Since(stable) > time.Second {
				return
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// harnessCPU is this process's CPU seconds: the load generators of both
// organizations and the receivers, which share the machine with the server.
func harnessCPU() float64 {
	u, err := clustertest.ProcUsage(os.Getpid())
	if err != nil {
		return 0
	}
	return u.CPUSeconds
}

func ms(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d.Microseconds())/1000) }
