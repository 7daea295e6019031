package plans_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"testing"

	"github.com/creativeops/creativeops/creators"
	"github.com/creativeops/creativeops/ent"
	"github.com/creativeops/creativeops/ent/plan"
	"github.com/creativeops/creativeops/events"
	"github.com/creativeops/creativeops/internal/testdb"
	"github.com/creativeops/creativeops/jobs"
	"github.com/creativeops/creativeops/plans"
)

// releaseJob is a completed tracked release-strategy run.
func releaseJob(t *testing.T, f *fixture, org, creatorID string) *jobs.Job {
	t.Helper()
	wf, err := jobs.Lookup("music", "release-strategy")
	if err != nil {
		t.Fatal(err)
	}
	in, err := wf.PrepareAt(map[string]any{"artist": "Nova", "genre": "indie pop", "release_date": "2027-06-04", "time_zone": "Europe/Paris"}, f.clk.Now())
	if err != nil {
		t.Fatal(err)
	}
	result, err := wf.Run(context.Background(), in, f.clk.Now(), nil)
	if err != nil {
		t.Fatal(err)
	}
	return &jobs.Job{ID: newID("job"), OrganizationID: org, Vertical: "music", Workflow: "release-strategy",
		PlanID: newID("plan"), CreatorID: creatorID, Context: in.Values(), Result: result}
}

func planJSON(t *testing.T, f *fixture, org, id string) string {
	t.Helper()
	p, err := f.svc.Get(context.Background(), org, id)
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// A plan keeps no copy of its job's context and result, and reads back
// what it read when it kept one: a row of the earlier format (with its
// copies) reads the same, and Compact turns it into the new format
// without changing what it reads, in a full list too; a re-plan reads
// the new revision's job.
func TestPlanDocumentsAreTheJobs(t *testing.T) {
	for _, backend := range testdb.Backends(t) {
		t.Run(backend.Name, func(t *testing.T) {
			f := newFixture(t, backend.URL(t), nil)
			ctx := context.Background()
			j := releaseJob(t, f, "org_a", "")
			old := releaseJob(t, f, "org_a", "")
			err := f.store.Tx(ctx, func(ctx context.Context, tx *ent.Client, sqlTx *sql.Tx) error {
				if err := insertJobs(ctx, tx, []*jobs.Job{j, old}); err != nil {
					return err
				}
				if err := f.svc.Track(ctx, tx, sqlTx, j); err != nil {
					return err
				}
				return f.svc.Track(ctx, tx, sqlTx, old)
			})
			if err != nil {
				t.Fatal(err)
			}
			row, err := f.store.Ent.Plan.Get(ctx, j.PlanID)
			if err != nil {
				t.Fatal(err)
			}
			if len(row.Context) != 0 || len(row.Result) != 0 {
				t.Fatalf("the plan's row keeps a copy of its job's documents: context %d keys, result %d keys", len(row.Context), len(row.Result))
			}
			got := planJSON(t, f, "org_a", j.PlanID)
			p, _ := f.svc.Get(ctx, "org_a", j.PlanID)
			if _, ok := p.Context["as_of"]; ok || p.Context["artist"] != "Nova" || p.Result["timeline"] == nil {
				t.Fatalf("the plan's context and result are not its job's: %s", got)
			}

			// The earlier format: the plan's row holds the copies.
			planContext := map[string]any{}
			for k, v := range old.Context {
				if k != "as_of" {
					planContext[k] = v
				}
			}
			if err := f.store.Ent.Plan.UpdateOneID(old.PlanID).SetContext(planContext).SetResult(old.Result).Exec(ctx); err != nil {
				t.Fatal(err)
			}
			before := planJSON(t, f, "org_a", old.PlanID)
			if n, err := f.svc.Compact(ctx); err != nil || n != 1 {
				t.Fatalf("Compact: %d plans changed, %v; want the one with copies", n, err)
			}
			if row, _ := f.store.Ent.Plan.Get(ctx, old.PlanID); len(row.Result) != 0 {
				t.Error("Compact left the copy")
			}
			if after := planJSON(t, f, "org_a", old.PlanID); after != before {
				t.Errorf("an earlier plan reads\n%s\nbefore Compact and\n%s\nafter", before, after)
			}
			if n, err := f.svc.Compact(ctx); err != nil || n != 0 {
				t.Errorf("a second Compact changed %d plans (%v)", n, err)
			}
			list, err := f.svc.List(ctx, "org_a", plans.ListQuery{Limit: 10})
			if err != nil {
				t.Fatal(err)
			}
			for _, lp := range list {
				b, _ := json.Marshal(lp)
				if want := planJSON(t, f, "org_a", lp.ID); string(b) != want {
					t.Errorf("a full list shows\n%s\nGet shows\n%s", b, want)
				}
			}

			rp, _, err := f.svc.Replan(ctx, "org_a", "", j.PlanID, plans.Replan{Context: map[string]any{"release_date": "2027-09-03"}})
			if err != nil {
				t.Fatal(err)
			}
			if rp.Context["release_date"] != "2027-09-03" || rp.JobID == j.ID {
				t.Fatalf("re-planned: %+v", rp.Context)
			}
			if again := planJSON(t, f, "org_a", j.PlanID); again == got {
				t.Error("the re-planned plan reads its first revision")
			}
			if p, _ := f.svc.Get(ctx, "org_a", j.PlanID); p.Context["release_date"] != "2027-09-03" {
				t.Errorf("after a re-plan the plan's context is %v", p.Context)
			}
		})
	}
}

// Erasing a creator empties its runs; a plan one of them made for no
// creator (tracked with POST /v1/plans) keeps reading what it read.
func TestErasureKeepsOtherPlansDocuments(t *testing.T) {
	f := newFixture(t, testdb.SQLiteURL(t), nil)
	ctx := context.Background()
	org, err := f.store.Ent.Organization.Create().SetID("org_a").SetName("a").Save(ctx)
	if err != nil {
		t.Fatal(err)
	}
	svc := creators.NewService(f.store, events.NewEmitter(func(r any) ([]byte, error) { return json.Marshal(r) }, nil))
	c, err := svc.Create(ctx, org.ID, creators.New{Name: "Nova", Email: "nova@example.com", Vertical: "music"})
	if err != nil {
		t.Fatal(err)
	}
	j := releaseJob(t, f, org.ID, c.ID)
	err = f.store.Tx(ctx, func(ctx context.Context, tx *ent.Client, sqlTx *sql.Tx) error {
		if err := insertJobs(ctx, tx, []*jobs.Job{j}); err != nil {
			return err
		}
		// Tracked for no creator, as POST /v1/plans without creator_id.
		nj := *j
		nj.CreatorID = ""
		return f.svc.Track(ctx, tx, sqlTx, &nj)
	})
	if err != nil {
		t.Fatal(err)
	}
	before := planJSON(t, f, org.ID, j.PlanID)
	if err := svc.Erase(ctx, org.ID, c.ID); err != nil {
		t.Fatal(err)
	}
	if n, _ := f.store.Ent.Plan.Query().Where(plan.ID(j.PlanID)).Count(ctx); n != 1 {
		t.Fatal("the plan of no creator was erased")
	}
	if after := planJSON(t, f, org.ID, j.PlanID); after != before {
		t.Errorf("erasing the run's creator changed another plan:\n%s\nto\n%s", before, after)
	}
}
