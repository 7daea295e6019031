package main

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/creativeops/creativeops/analytics"
	"github.com/creativeops/creativeops/audit"
	"github.com/creativeops/creativeops/auth"
	"github.com/creativeops/creativeops/creators"
	"github.com/creativeops/creativeops/engine"
	"github.com/creativeops/creativeops/ent"
	"github.com/creativeops/creativeops/ent/apikey"
	"github.com/creativeops/creativeops/events"
	"github.com/creativeops/creativeops/ids"
	"github.com/creativeops/creativeops/internal/clock"
	"github.com/creativeops/creativeops/ipreg"
	"github.com/creativeops/creativeops/jobs"
	"github.com/creativeops/creativeops/plans"
	"github.com/creativeops/creativeops/secrets"
	"github.com/creativeops/creativeops/server/wire"
	"github.com/creativeops/creativeops/storage"
	"github.com/creativeops/creativeops/webhooks"

	_ "github.com/creativeops/creativeops/engine/workflows" // registers the workflows
)

// Kinds are the row kinds the benchmark seeds, N of each.
var Kinds = []string{"creators", "IP records", "jobs", "tracked plans", "usage minutes", "deliveries", "audit events"}

// usagePerOrg is how many usage minutes one organization holds: the
// measured organization gets up to this many over 30 days, the rest of a
// size's usage minutes belong to other organizations of the same size
// each. A usage report reads its organization's minutes in the range, so
// what the table checks is that other organizations' rows cost it
// nothing; one organization's own 30 days cost what they hold.
const usagePerOrg = 10_000

// seedChunk is how many rows of each kind one round of seeding writes.
const seedChunk = 2000

// seeder writes rows through the domain packages' batch paths: the same
// checks and the same rows as the API's writes, in a few multi-row inserts
// per transaction instead of one transaction per row.
type seeder struct {
	store    *storage.Store
	keyring  *secrets.Keyring
	orgID    string
	keyID    string
	have     int
	webhook  string
	usageOrg []string // organizations holding usage minutes, orgID first
	// samples of what was seeded, for reads: bounded reservoirs.
	creatorIDs []string
	// chunkCreators are the creators of the chunk being seeded.
	chunkCreators []*creators.Creator
	// runs caches the seed's release-strategy runs of the day runsDay.
	runs                       map[int]seedRun
	runsDay                    string
	planIDs, jobIDs, recordIDs []string
	log                        *slog.Logger
}

const maxSamples = 2000

func (s *seeder) sample(list *[]string, id string, n int) {
	if len(*list) < maxSamples {
		*list = append(*list, id)
		return
	}
	if i := rand.IntN(n + 1); i < maxSamples {
		(*list)[i] = id
	}
}

func openSeeder(ctx context.Context, databaseURL, masterKey string, log *slog.Logger) (*seeder, error) {
	st, err := storage.Open(ctx, databaseURL)
	if err != nil {
		return nil, err
	}
	kr, err := secrets.LoadKeyFiles(masterKey)
	if err != nil {
		st.Close()
		return nil, err
	}
	ks := &auth.Store{Ent: st.Ent}
	org, err := ks.EnsureOrganization(ctx, "load")
	if err != nil {
		st.Close()
		return nil, err
	}
	key, err := st.Ent.APIKey.Query().Where(apikey.OrganizationID(org.ID)).First(ctx)
	if err != nil {
		st.Close()
		return nil, fmt.Errorf("the bootstrapped key: %w", err)
	}
	return &seeder{store: st, keyring: kr, orgID: org.ID, keyID: key.ID, usageOrg: []string{org.ID}, log: log}, nil
}

func (s *seeder) close() { s.store.Close() }

// ensureWebhook creates the organization's webhook whose delivery history
// is seeded: disabled, so that the measured traffic's events are not
// delivered to a receiver that does not exist.
func (s *seeder) ensureWebhook(ctx context.Context) error {
	if s.webhook != "" {
		return nil
	}
	id := ids.New(ids.Webhook)
	secret := "whsec_" + hex.EncodeToString(sha256.New().Sum([]byte(id)))[:40]
	if err := webhooks.ValidateSecret(secret); err != nil {
		return err
	}
	keyID, sealed := webhooks.SealSecret(s.keyring, id, secret)
	t := time.Now().UTC()
	err := s.store.Ent.Webhook.Create().SetID(id).SetOrganizationID(s.orgID).
		SetURL("https://receiver.example.com/hooks").SetEvents([]string{"*"}).
		SetSecret(sealed).SetSecretKeyID(keyID).SetStatus("disabled").
		SetDisabledReason("scale benchmark: history only").SetDisabledAt(t).Exec(ctx)
	if err != nil {
		return err
	}
	s.webhook = id
	return nil
}

// seedTo adds rows of every kind until there are n of each.
func (s *seeder) seedTo(ctx context.Context, n int) (map[string]time.Duration, error) {
	spent := map[string]time.Duration{}
	if err := s.ensureWebhook(ctx); err != nil {
		return nil, err
	}
	reg, err := ipreg.OpenRegistry(ctx, s.store, s.keyring, events.NewEmitter(wire.EventData, nil), s.log)
	if err != nil {
		return nil, err
	}
	defer reg.Close()
	crs := creators.NewService(s.store, events.NewEmitter(wire.EventData, nil))
	wf, err := jobs.Lookup("music", "release-strategy")
	if err != nil {
		return nil, err
	}
	lastLog := time.Now()
	for s.have < n {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		from, to := s.have, min(s.have+seedChunk, n)
		steps := []struct {
			kind string
			fn   func() error
		}{
			{"creators", func() error { return s.creators(ctx, crs, from, to) }},
			{"IP records", func() error { return s.records(ctx, reg, from, to) }},
			{"jobs and tracked plans", func() error { return s.plans(ctx, wf, from, to) }},
			{"usage minutes", func() error { return s.usage(ctx, from, to) }},
			{"deliveries", func() error { return s.deliveries(ctx, from, to) }},
			{"audit events", func() error { return s.audit(ctx, from, to) }},
		}
		for _, st := range steps {
			t0 := time.Now()
			if err := st.fn(); err != nil {
				return nil, fmt.Errorf("seed %s %d–%d: %w", st.kind, from, to, err)
			}
			spent[st.kind] += time.Since(t0)
		}
		s.have = to
		if time.Since(lastLog) > 15*time.Second || s.have == n {
			s.log.Info("seeded", "rows_of_each_kind", s.have, "target", n)
			lastLog = time.Now()
		}
	}
	return spent, nil
}

func (s *seeder) creators(ctx context.Context, crs *creators.Service, from, to int) error {
	in := make([]creators.New, 0, to-from)
	for i := from; i < to; i++ {
		in = append(in, creators.New{
			Name: fmt.Sprintf("Seed Creator %d", i), Email: fmt.Sprintf("seed-%d@scale.example.com", i),
			Vertical: "music", Metadata: map[string]any{"label": "Night Owl", "territory": "EU"},
		})
	}
	out, err := crs.CreateBatch(ctx, s.orgID, in)
	if err != nil {
		return err
	}
	for i, c := range out {
		s.sample(&s.creatorIDs, c.ID, from+i)
	}
	s.chunkCreators = out
	return nil
}

// records registers one work for each creator of the chunk through the
// registry's sequencer, which seals them in batches of up to 256 (one
// transaction, one checkpoint signature each), as concurrent API calls are:
// the log stays a valid Merkle log with a signed checkpoint.
func (s *seeder) records(ctx context.Context, reg *ipreg.Registry, from, to int) error {
	const workers = 512
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		first error
		next  = make(chan int)
	)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				sum := sha256.Sum256(fmt.Appendf(nil, "creativeops scale seed work %d", i))
				hash, err := ipreg.NormalizeContentHash(hex.EncodeToString(sum[:]))
				if err == nil {
					var w *ipreg.Work
					w, err = reg.Register(ctx, ipreg.Registration{
						OrganizationID: s.orgID, CreatorID: s.chunkCreators[i-from].ID,
						Title: fmt.Sprintf("Seed Work %d", i), Type: "song", ContentHash: hash,
					})
					if err == nil {
						mu.Lock()
						s.sample(&s.recordIDs, w.ID, i)
						mu.Unlock()
					}
				}
				if err != nil {
					mu.Lock()
					first = cmpErr(first, err)
					mu.Unlock()
				}
			}
		}()
	}
	for i := from; i < to; i++ {
		next <- i
	}
	close(next)
	wg.Wait()
	return first
}

func cmpErr(a, b error) error {
	if a != nil {
		return a
	}
	return b
}

// seedRun is one computed run of the seed's release strategies.
type seedRun struct {
	context, result map[string]any
}

var genres = []string{"pop", "hip-hop", "electronic", "rock", "indie"}

// plans runs music/release-strategy for each creator of the chunk as a
// tracked synchronous run does (the engine's checks and computation), and
// stores the jobs and their tracked plans with jobs.InsertBatch and
// plans.TrackBatch. Release dates are 60 to 240 days ahead, so each plan's
// next check (plans computes it) lies weeks ahead and the reminder scan's
// due set stays small, as on a real deployment.
func (s *seeder) plans(ctx context.Context, wf *engine.Workflow, from, to int) error {
	now := time.Now().UTC()
	svc := plans.NewService(s.store, events.NewEmitter(wire.EventData, nil), clock.Real{})
	js := make([]*jobs.Job, 0, to-from)
	for i := from; i < to; i++ {
		// 900 distinct runs (release day × genre), each computed once:
		// the engine is deterministic, and its ~0.5 ms a run would
		// otherwise be most of the seeding.
		combo := i % (180 * len(genres))
		release := now.AddDate(0, 0, 60+combo%180).Format(time.DateOnly)
		day := now.Format(time.DateOnly)
		if s.runs == nil || s.runsDay != day {
			s.runs, s.runsDay = map[int]seedRun{}, day
		}
		run, ok := s.runs[combo]
		if !ok {
			in, err := wf.PrepareAt(map[string]any{"artist": fmt.Sprintf("Seed Artist %d", combo), "genre": genres[combo/180], "release_date": release}, now)
			if err != nil {
				return err
			}
			result, err := wf.Run(ctx, in, now, nil)
			if err != nil {
				return err
			}
			run = seedRun{in.Values(), result}
			s.runs[combo] = run
		}
		created := time.Now().UTC().Truncate(time.Microsecond)
		in, result := run, run.result
		done := time.Now().UTC().Truncate(time.Microsecond)
		j := &jobs.Job{
			ID: ids.New(ids.Job), OrganizationID: s.orgID, KeyID: s.keyID, Status: jobs.Completed,
			Vertical: "music", Workflow: "release-strategy", Context: in.context, Result: result,
			Progress: 100, Attempts: 1, Track: true, CreatorID: s.chunkCreators[i-from].ID, PlanID: ids.New(ids.Plan),
			CreatedAt: created, StartedAt: &created, CompletedAt: &done,
		}
		js = append(js, j)
		s.sample(&s.jobIDs, j.ID, i)
		s.sample(&s.planIDs, j.PlanID, i)
	}
	return s.store.Tx(ctx, func(ctx context.Context, tx *ent.Client, _ *sql.Tx) error {
		if err := jobs.InsertBatch(ctx, tx, js); err != nil {
			return err
		}
		return svc.TrackBatch(ctx, tx, js)
	})
}

var usageRoutes = []struct{ method, route string }{
	{"GET", "/v1/creators/{id}"}, {"GET", "/v1/ip/catalog"}, {"POST", "/v1/engine/run"}, {"POST", "/v1/ip/register"},
	{"POST", "/v1/creators"}, {"GET", "/v1/engine/status/{id}"}, {"GET", "/v1/plans/{id}"}, {"GET", "/v1/plans"},
}

// usage writes usage minutes as the flusher does (analytics.Write): row i
// is organization i/usagePerOrg's, at a distinct minute of the last 30
// days (37 is coprime with the 43,200 minutes of 30 days).
func (s *seeder) usage(ctx context.Context, from, to int) error {
	nowMin := time.Now().UTC().Truncate(time.Minute).Unix()
	aggs := make(map[analytics.Key]*analytics.Aggregate, to-from)
	for i := from; i < to; i++ {
		o := i / usagePerOrg
		for len(s.usageOrg) <= o {
			org, err := (&auth.Store{Ent: s.store.Ent}).EnsureOrganization(ctx, fmt.Sprintf("tenant-%d", len(s.usageOrg)))
			if err != nil {
				return err
			}
			s.usageOrg = append(s.usageOrg, org.ID)
		}
		k := i % usagePerOrg
		r := usageRoutes[k%len(usageRoutes)]
		key := analytics.Key{Minute: nowMin - int64((k*37)%43200)*60 - 60, Org: s.usageOrg[o], KeyID: s.keyID, Method: r.method, Route: r.route, Status: 200}
		a := &analytics.Aggregate{}
		n := 1 + k%20
		for j := range n {
			d := time.Duration(800+(k*7+j*131)%4000) * time.Microsecond
			a.Requests++
			a.LatencySumUS += d.Microseconds()
			a.Latency.Observe(d)
		}
		aggs[key] = a
	}
	return analytics.Write(ctx, s.store, aggs)
}

// deliveries writes the webhook's delivery history: each delivery as a
// successful first attempt leaves it.
func (s *seeder) deliveries(ctx context.Context, from, to int) error {
	return s.store.Tx(ctx, func(ctx context.Context, tx *ent.Client, _ *sql.Tx) error {
		t := time.Now().UTC().Truncate(time.Microsecond)
		const perInsert = 1000
		for a := from; a < to; a += perInsert {
			var creates []*ent.DeliveryCreate
			for i := a; i < min(a+perInsert, to); i++ {
				typ := events.CreatorCreated
				if i%2 == 1 {
					typ = events.IPRegistered
				}
				creates = append(creates, tx.Delivery.Create().SetID(ids.New(ids.Delivery)).
					SetOrganizationID(s.orgID).SetWebhookID(s.webhook).SetEventID(ids.New(ids.Event)).
					SetEventType(typ).SetStatus("succeeded").SetAttempts(1).SetResponseStatus(200).
					SetLatencyMs(int64(20+i%200)).SetCreatedAt(t).SetUpdatedAt(t).SetCompletedAt(t))
			}
			if err := tx.Delivery.CreateBulk(creates...).Exec(ctx); err != nil {
				return err
			}
		}
		return nil
	})
}

// audit writes audit events as a key updating creators leaves them.
func (s *seeder) audit(ctx context.Context, from, to int) error {
	es := make([]audit.Entry, 0, to-from)
	for i := from; i < to; i++ {
		es = append(es, audit.Entry{OrganizationID: s.orgID, Action: audit.CreatorUpdated, TargetType: audit.TargetCreator,
			TargetID: s.chunkCreators[i-from].ID, Details: map[string]string{"fields": "name,metadata"}})
	}
	actx := audit.WithCaller(ctx, s.keyID, audit.Origin{Transport: "rest", ClientIP: "127.0.0.1", UserAgent: "creativeops-scale-seed", RequestID: "seed"})
	return s.store.Tx(actx, func(ctx context.Context, tx *ent.Client, _ *sql.Tx) error {
		return audit.RecordBatch(ctx, tx, es)
	})
}

// dueSet stores k tracked plans whose first milestone is two days away, so
// that the next reminder scan sends each one due_before reminder: a real
// release-strategy result whose milestone dates are moved together so that
// the first falls on that day (release-strategy's milestones fall on
// Thursdays and Fridays; the scan's window is three days).
func (s *seeder) dueSet(ctx context.Context, k int) ([]string, error) {
	wf, err := jobs.Lookup("music", "release-strategy")
	if err != nil {
		return nil, err
	}
	now := time.Now().UTC()
	in, err := wf.PrepareAt(map[string]any{"artist": "Due Artist", "genre": "pop", "release_date": now.AddDate(0, 0, 90).Format(time.DateOnly)}, now)
	if err != nil {
		return nil, err
	}
	svc := plans.NewService(s.store, events.NewEmitter(wire.EventData, nil), clock.Real{})
	var js []*jobs.Job
	var planIDs []string
	for range k {
		result, err := wf.Run(ctx, in, now, nil)
		if err != nil {
			return nil, err
		}
		if err := shiftMilestones(result, now.AddDate(0, 0, 2)); err != nil {
			return nil, err
		}
		t := time.Now().UTC().Truncate(time.Microsecond)
		j := &jobs.Job{ID: ids.New(ids.Job), OrganizationID: s.orgID, KeyID: s.keyID, Status: jobs.Completed,
			Vertical: "music", Workflow: "release-strategy", Context: in.Values(), Result: result, Progress: 100,
			Attempts: 1, Track: true, PlanID: ids.New(ids.Plan), CreatedAt: t, StartedAt: &t, CompletedAt: &t}
		js = append(js, j)
		planIDs = append(planIDs, j.PlanID)
	}
	err = s.store.Tx(ctx, func(ctx context.Context, tx *ent.Client, _ *sql.Tx) error {
		if err := jobs.InsertBatch(ctx, tx, js); err != nil {
			return err
		}
		return svc.TrackBatch(ctx, tx, js)
	})
	return planIDs, err
}

// shiftMilestones moves every milestone date of a result by the same number
// of days, so that the earliest falls on first.
func shiftMilestones(result map[string]any, first time.Time) error {
	tl, _ := result["timeline"].(map[string]any)
	ms, _ := tl["milestones"].([]any)
	var earliest time.Time
	for _, m := range ms {
		d, err := time.Parse(time.DateOnly, fmt.Sprint(m.(map[string]any)["date"]))
		if err != nil {
			return err
		}
		if earliest.IsZero() || d.Before(earliest) {
			earliest = d
		}
	}
	if earliest.IsZero() {
		return fmt.Errorf("release-strategy result without milestones")
	}
	shift := int(first.Truncate(24*time.Hour).Sub(earliest).Hours() / 24)
	for _, m := range ms {
		mm := m.(map[string]any)
		d, _ := time.Parse(time.DateOnly, fmt.Sprint(mm["date"]))
		mm["date"] = d.AddDate(0, 0, shift).Format(time.DateOnly)
	}
	return nil
}
