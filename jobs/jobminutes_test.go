package jobs

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/creativeops/creativeops/engine"
	"github.com/creativeops/creativeops/ent"
	"github.com/creativeops/creativeops/events"
	"github.com/creativeops/creativeops/internal/testdb"
	"github.com/creativeops/creativeops/internal/teststore"
	"github.com/creativeops/creativeops/storage"
)

// rollup sums the organization's job_minutes rows.
func rollup(t *testing.T, st *storage.Store, org string) storage.JobMinute {
	t.Helper()
	rows, err := st.Ent.JobMinute.Query().All(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	sum := storage.JobMinute{OrganizationID: org}
	for _, r := range rows {
		if r.OrganizationID != org {
			continue
		}
		sum.Completed += r.Completed
		sum.Failed += r.Failed
		sum.Canceled += r.Canceled
		sum.DurationSumUS += r.DurationSumUs
		sum.DurationN += r.DurationN
	}
	return sum
}

// Every way a job finishes counts it in the usage report's rollup, in its
// own transaction, and only the update that finished it does: a retried
// finish, a second cancel, or a cancel of a job a worker finished, adds
// nothing.
func TestFinishedJobsCountedOnce(t *testing.T) {
	for _, b := range testdb.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			ctx := context.Background()
			st := teststore.Open(t, b)
			if err := st.Ent.Organization.Create().SetID("org_a").SetName("a").Exec(ctx); err != nil {
				t.Fatal(err)
			}
			r := NewRunner(st, events.NewEmitter(json.Marshal, nil), nil, nil, nil, nil, nil)
			at := time.Now().UTC().Truncate(time.Microsecond).Add(-time.Minute)
			started := at.Add(2 * time.Second)
			create := func(id, status, creator string) *ent.Job {
				c := st.Ent.Job.Create().SetID(id).SetOrganizationID("org_a").SetKeyID("key_1").SetVertical("music").
					SetWorkflow("release-strategy").SetContext(map[string]any{}).SetStatus(status).SetCreatorID(creator).
					SetCreatedAt(at).SetUpdatedAt(at)
				if status == Processing {
					c.SetStartedAt(started).SetAttempts(1)
				}
				j, err := c.Save(ctx)
				if err != nil {
					t.Fatal(err)
				}
				return j
			}
			want := storage.JobMinute{OrganizationID: "org_a"}
			check := func(step string) {
				t.Helper()
				if got := rollup(t, st, "org_a"); got != want {
					t.Fatalf("%s: rollup %+v, want %+v", step, got, want)
				}
			}

			// A worker's attempt completes the job; a retried attempt that
			// had read the job as processing finishes it again.
			done := create("job_done", Processing, "")
			retry := *done
			if err := r.finish(ctx, done, map[string]any{"plan": "x"}, nil); err != nil {
				t.Fatal(err)
			}
			want.Completed, want.DurationN = 1, 1
			want.DurationSumUS = done.CompletedAt.Sub(started).Microseconds()
			check("completed")
			if err := r.finish(ctx, &retry, map[string]any{"plan": "y"}, nil); err != nil {
				t.Fatal(err)
			}
			check("completed twice")

			failed := create("job_failed", Processing, "")
			retryFailed := *failed
			stepErr := &engine.StepError{Step: "plan", Code: "STEP_FAILED", Err: errors.New("no date")}
			if err := r.finish(ctx, failed, nil, stepErr); err != nil {
				t.Fatal(err)
			}
			want.Failed, want.DurationN = 1, 2
			want.DurationSumUS += failed.CompletedAt.Sub(started).Microseconds()
			check("failed")
			if err := r.finish(ctx, &retryFailed, nil, retriesExhausted(stepErr)); err != nil {
				t.Fatal(err)
			}
			check("failed twice")

			create("job_queued", Queued, "")
			if _, err := r.Cancel(ctx, "org_a", "job_queued"); err != nil {
				t.Fatal(err)
			}
			want.Canceled = 1
			check("canceled")
			for _, id := range []string{"job_queued", "job_done"} {
				if _, err := r.Cancel(ctx, "org_a", id); err == nil {
					t.Fatalf("canceling the finished %s succeeded", id)
				}
			}
			check("canceled again")
			// The job was canceled while it ran: its worker's finish is
			// refused.
			running := create("job_running", Processing, "")
			if _, err := r.Cancel(ctx, "org_a", "job_running"); err != nil {
				t.Fatal(err)
			}
			want.Canceled = 2
			if err := r.finish(ctx, running, map[string]any{}, nil); err != nil {
				t.Fatal(err)
			}
			check("finished after its cancel")

			// A creator's erasure cancels its active runs, once.
			create("job_c1", Queued, "cr_1")
			create("job_c2", Processing, "cr_1")
			create("job_c3", Completed, "cr_1")
			create("job_other", Queued, "cr_2")
			for range 2 {
				if err := st.Tx(ctx, func(ctx context.Context, tx *ent.Client, _ *sql.Tx) error {
					return CancelCreatorRuns(ctx, st.Dialect, tx, "org_a", "cr_1", time.Now().UTC())
				}); err != nil {
					t.Fatal(err)
				}
			}
			want.Canceled = 4
			check("creator's runs canceled")
			for id, status := range map[string]string{"job_c1": Canceled, "job_c2": Canceled, "job_c3": Completed, "job_other": Queued} {
				if j, err := st.Ent.Job.Get(ctx, id); err != nil || j.Status != status {
					t.Fatalf("%s: %v %v, want %s", id, j, err, status)
				}
			}

			// A finished job stored outside the worker (a re-plan's run).
			end := at.Add(5 * time.Second)
			if err := st.Tx(ctx, func(ctx context.Context, tx *ent.Client, _ *sql.Tx) error {
				return Insert(ctx, tx, &Job{ID: "job_replan", OrganizationID: "org_a", KeyID: "key_1", Vertical: "music",
					Workflow: "release-strategy", Context: map[string]any{}, Status: Completed, Progress: 100,
					CreatedAt: at, StartedAt: &at, CompletedAt: &end})
			}); err != nil {
				t.Fatal(err)
			}
			want.Completed, want.DurationN, want.DurationSumUS = 2, 3, want.DurationSumUS+5_000_000
			check("inserted")
		})
	}
}
