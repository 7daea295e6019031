package analytics_test

import (
	"context"
	"database/sql"
	"fmt"
	"testing"
	"time"

	"github.com/creativeops/creativeops/analytics"
	"github.com/creativeops/creativeops/ent"
	"github.com/creativeops/creativeops/ent/job"
	"github.com/creativeops/creativeops/internal/testdb"
	"github.com/creativeops/creativeops/jobs"
	"github.com/creativeops/creativeops/storage"
)

// referenceJobStats is how the report computed its job figures before the
// job_minutes rollup: every job of the organization created in [from, to)
// grouped by status, and the run times of the completed and failed ones
// read and averaged.
func referenceJobStats(t testing.TB, client *ent.Client, org, keyID string, from, to time.Time) analytics.JobStats {
	t.Helper()
	ctx := context.Background()
	query := func() *ent.JobQuery {
		jq := client.Job.Query().Where(job.OrganizationID(org), job.CreatedAtGTE(from), job.CreatedAtLT(to))
		if keyID != "" {
			jq = jq.Where(job.KeyID(keyID))
		}
		return jq
	}
	var byStatus []struct {
		Status string `json:"status"`
		Count  int64  `json:"count"`
	}
	if err := query().GroupBy(job.FieldStatus).Aggregate(ent.Count()).Scan(ctx, &byStatus); err != nil {
		t.Fatal(err)
	}
	var out analytics.JobStats
	for _, s := range byStatus {
		switch s.Status {
		case jobs.Queued:
			out.Queued = s.Count
		case jobs.Processing:
			out.Processing = s.Count
		case jobs.Completed:
			out.Completed = s.Count
		case jobs.Failed:
			out.Failed = s.Count
		case jobs.Canceled:
			out.Canceled = s.Count
		}
	}
	runs, err := query().Where(job.StatusIn(jobs.Completed, jobs.Failed), job.StartedAtNotNil(), job.CompletedAtNotNil()).All(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var sum time.Duration
	var n int
	for _, r := range runs {
		if !r.CompletedAt.Before(*r.StartedAt) {
			sum += r.CompletedAt.Sub(*r.StartedAt)
			n++
		}
	}
	if n > 0 {
		out.AvgDurationMS = float64(sum.Microseconds()) / 1000 / float64(n)
	}
	return out
}

var statuses = []string{jobs.Queued, jobs.Processing, jobs.Completed, jobs.Failed, jobs.Canceled}

// makeJobs returns n jobs of two organizations and two keys, in every
// status, created over the minutes from base (several to a minute, at
// varying seconds), with varying run times: some finished without a start,
// some (clock skew) finished before they started.
func makeJobs(base time.Time, n int) []*jobs.Job {
	out := make([]*jobs.Job, n)
	for i := range n {
		org := "org_a"
		if i%7 == 3 {
			org = "org_b"
		}
		created := base.Add(time.Duration(i%5)*time.Minute + time.Duration(i*13%60)*time.Second + time.Duration(i)*time.Microsecond)
		j := &jobs.Job{
			ID: fmt.Sprintf("job_%06d", i), OrganizationID: org, KeyID: fmt.Sprintf("key_%d", 1+i%2),
			Vertical: "music", Workflow: "release-strategy", Context: map[string]any{},
			Status: statuses[(i/10)%len(statuses)], CreatedAt: created,
		}
		if j.Status != jobs.Queued {
			started := created.Add(time.Duration(i%11) * time.Second)
			j.StartedAt = &started
		}
		if j.Status == jobs.Completed || j.Status == jobs.Failed || j.Status == jobs.Canceled {
			done := j.StartedAt.Add(time.Duration(1+i*7919%5000) * time.Millisecond).Add(time.Duration(i%997) * time.Microsecond)
			switch i % 13 {
			case 0:
				j.StartedAt = nil
			case 1:
				done = j.StartedAt.Add(-time.Second)
			}
			j.CompletedAt = &done
		}
		out[i] = j
	}
	return out
}

// jobQueries are report windows over makeJobs' jobs: both organizations,
// one key, windows that start and end inside a minute, and an organization
// without jobs.
func jobQueries(base time.Time) []analytics.Query {
	return []analytics.Query{
		{Org: "org_a", From: base, To: base.Add(5 * time.Minute)},
		{Org: "org_b", From: base, To: base.Add(5 * time.Minute)},
		{Org: "org_a", KeyID: "key_2", From: base, To: base.Add(5 * time.Minute)},
		{Org: "org_b", KeyID: "key_1", From: base.Add(-time.Hour), To: base.Add(time.Hour)},
		{Org: "org_a", From: base.Add(90 * time.Second), To: base.Add(3*time.Minute + 10*time.Second)},
		{Org: "org_a", KeyID: "key_1", From: base.Add(4 * time.Minute), To: base.Add(4*time.Minute + 500*time.Millisecond)},
		{Org: "org_c", From: base, To: base.Add(5 * time.Minute)},
	}
}

// checkAgainstReference compares the report's job figures with the
// reference computation over the whole minutes the query's window touches.
func checkAgainstReference(t *testing.T, st *storage.Store, base time.Time) {
	t.Helper()
	for _, q := range jobQueries(base) {
		q.Granularity = analytics.Minute
		rep, err := analytics.Usage(context.Background(), st, q)
		if err != nil {
			t.Fatal(err)
		}
		from := q.From.Truncate(time.Minute)
		to := q.To.Truncate(time.Minute)
		if to.Before(q.To) {
			to = to.Add(time.Minute)
		}
		want := referenceJobStats(t, st.Read, q.Org, q.KeyID, from, to)
		if rep.Jobs != want {
			t.Errorf("%s key %q [%s, %s): %+v, want %+v", q.Org, q.KeyID, q.From.Format(time.TimeOnly), q.To.Format(time.TimeOnly), rep.Jobs, want)
		}
		if q.Org != "org_c" && want.Completed == 0 {
			t.Errorf("%s key %q: the window holds no completed job", q.Org, q.KeyID)
		}
	}
}

func seed(t testing.TB, st *storage.Store, js []*jobs.Job) {
	t.Helper()
	if err := st.Tx(context.Background(), func(ctx context.Context, tx *ent.Client, _ *sql.Tx) error {
		return jobs.InsertBatch(ctx, tx, js)
	}); err != nil {
		t.Fatal(err)
	}
}

// The report's job figures, read from the rollup and the active jobs, are
// the ones the jobs table holds, by organization, key and window.
func TestJobStatsMatchTheJobs(t *testing.T) {
	for _, b := range testdb.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			st := openStore(t, b.URL(t))
			base := time.Now().UTC().Truncate(time.Hour).Add(-3 * time.Hour)
			seed(t, st, makeJobs(base, 700))
			checkAgainstReference(t, st, base)
		})
	}
}

// A database from before the rollup: its finished jobs are not counted
// (the report never reads finished jobs from the jobs table) until the
// migration fills the rollup from them, once.
func TestJobMinutesBackfill(t *testing.T) {
	for _, b := range testdb.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			ctx := context.Background()
			st := openStore(t, b.URL(t))
			base := time.Now().UTC().Truncate(time.Hour).Add(-3 * time.Hour)
			// More than one batch of the backfill.
			js := makeJobs(base, 12000)
			insertWithoutRollup(t, st, js)
			q := analytics.Query{Org: "org_a", From: base, To: base.Add(5 * time.Minute), Granularity: analytics.Hour}
			rep, err := analytics.Usage(ctx, st, q)
			if err != nil {
				t.Fatal(err)
			}
			want := referenceJobStats(t, st.Read, q.Org, "", q.From, q.To)
			if rep.Jobs.Completed+rep.Jobs.Failed+rep.Jobs.Canceled != 0 || rep.Jobs.AvgDurationMS != 0 ||
				rep.Jobs.Queued != want.Queued || rep.Jobs.Processing != want.Processing {
				t.Fatalf("before the backfill: %+v; want only the %d queued and %d processing", rep.Jobs, want.Queued, want.Processing)
			}
			for range 2 { // the second migration finds the rollup filled
				if err := st.Migrate(ctx); err != nil {
					t.Fatal(err)
				}
				checkAgainstReference(t, st, base)
			}
			// A finished job the rollup missed stays uncounted: the rollup
			// is only filled while empty.
			late := makeJobs(base, 12001)[12000:]
			late[0].Status = jobs.Completed
			insertWithoutRollup(t, st, late)
			if err := st.Migrate(ctx); err != nil {
				t.Fatal(err)
			}
			rep, err = analytics.Usage(ctx, st, analytics.Query{Org: "org_a", From: base, To: base.Add(5 * time.Minute), Granularity: analytics.Hour})
			if err != nil {
				t.Fatal(err)
			}
			if want := referenceJobStats(t, st.Read, "org_a", "", base, base.Add(5*time.Minute)); rep.Jobs.Completed != want.Completed-1 {
				t.Fatalf("%d completed, want %d (not the one stored without the rollup)", rep.Jobs.Completed, want.Completed-1)
			}
		})
	}
}

// insertWithoutRollup stores jobs as a version before the rollup did.
func insertWithoutRollup(t testing.TB, st *storage.Store, js []*jobs.Job) {
	t.Helper()
	ctx := context.Background()
	for from := 0; from < len(js); from += 1000 {
		part := js[from:min(from+1000, len(js))]
		creates := make([]*ent.JobCreate, len(part))
		for i, j := range part {
			creates[i] = st.Ent.Job.Create().SetID(j.ID).SetOrganizationID(j.OrganizationID).SetKeyID(j.KeyID).
				SetVertical(j.Vertical).SetWorkflow(j.Workflow).SetContext(j.Context).SetStatus(j.Status).
				SetNillableStartedAt(j.StartedAt).SetNillableCompletedAt(j.CompletedAt).
				SetCreatedAt(j.CreatedAt).SetUpdatedAt(j.CreatedAt)
		}
		if err := st.Ent.Job.CreateBulk(creates...).Exec(ctx); err != nil {
			t.Fatal(err)
		}
	}
}

// BenchmarkJobStats is the report's job figures over a day holding n
// finished jobs (and a few active ones) of one organization: the cost
// follows the minutes of the window, not the jobs. reference is the
// computation the rollup replaced, for comparison.
func BenchmarkJobStats(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		st := openStore(b, testdb.SQLiteURL(b))
		base := time.Now().UTC().Truncate(24 * time.Hour).Add(-48 * time.Hour)
		js := make([]*jobs.Job, n)
		for i := range js {
			created := base.Add(time.Duration(i) * 24 * time.Hour / time.Duration(n))
			started, done := created.Add(time.Second), created.Add(time.Second+time.Duration(i%5000)*time.Millisecond)
			status := []string{jobs.Completed, jobs.Completed, jobs.Failed, jobs.Canceled}[i%4]
			if i%1000 == 0 {
				status = jobs.Queued
			}
			js[i] = &jobs.Job{ID: fmt.Sprintf("job_%07d", i), OrganizationID: "org_a", KeyID: fmt.Sprintf("key_%d", i%2),
				Vertical: "music", Workflow: "release-strategy", Context: map[string]any{}, Status: status,
				CreatedAt: created, StartedAt: &started, CompletedAt: &done}
		}
		seed(b, st, js)
		q := analytics.Query{Org: "org_a", From: base, To: base.Add(24 * time.Hour), Granularity: analytics.Hour}
		b.Run(fmt.Sprintf("rollup/jobs=%d", n), func(b *testing.B) {
			for b.Loop() {
				if _, err := analytics.Usage(context.Background(), st, q); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("reference/jobs=%d", n), func(b *testing.B) {
			for b.Loop() {
				referenceJobStats(b, st.Read, q.Org, "", q.From, q.To)
			}
		})
	}
}
