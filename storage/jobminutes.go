package storage

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"time"

	entsql "entgo.io/ent/dialect/sql"

	"github.com/creativeops/creativeops/ent"
	"github.com/creativeops/creativeops/ent/job"
	"github.com/creativeops/creativeops/ent/jobminute"
)

// finishedStatuses are the statuses a job ends in (package jobs names
// them); a job reaches one once.
var finishedStatuses = []string{"completed", "failed", "canceled"}

// JobMinute is what one or more finished jobs add to a row of the
// job_minutes rollup (ent/schema/jobminute.go).
type JobMinute struct {
	OrganizationID, KeyID string
	// Minute is the start of the jobs' creation minute, Unix seconds.
	Minute                      int64
	Completed, Failed, Canceled int64
	DurationSumUS, DurationN    int64
}

// FinishedJob is what a job that has just finished with status adds to the
// rollup: one count of its status in its creation minute and, when it
// completed or failed after starting, its run time.
func FinishedJob(orgID, keyID, status string, createdAt time.Time, startedAt, completedAt *time.Time) JobMinute {
	m := JobMinute{OrganizationID: orgID, KeyID: keyID, Minute: createdAt.Truncate(time.Minute).Unix()}
	switch status {
	case "completed":
		m.Completed = 1
	case "failed":
		m.Failed = 1
	case "canceled":
		m.Canceled = 1
	}
	if (m.Completed+m.Failed) > 0 && startedAt != nil && completedAt != nil && !completedAt.Before(*startedAt) {
		m.DurationSumUS, m.DurationN = completedAt.Sub(*startedAt).Microseconds(), 1
	}
	return m
}

// jobMinutesPerInsert keeps one multi-row upsert (8 columns) well under
// both databases' bound parameter limits.
const jobMinutesPerInsert = 500

// AddJobMinutes adds finished jobs to the rollup inside tx, the
// transaction that finishes them: a missing row is inserted, an existing
// one gets the counts added. The caller adds a job only when its own
// update moved the job from queued or processing to a finished status, so
// a job is counted once however often its finishing is retried. Rows are
// merged and written in key order, so concurrent writers lock them in the
// same order.
func AddJobMinutes(ctx context.Context, tx *ent.Client, ms ...JobMinute) error {
	if len(ms) == 1 {
		// A job finishing alone, the hot path: nothing to merge or order.
		return upsertJobMinutes(ctx, tx, []*JobMinute{&ms[0]})
	}
	type key struct {
		org, keyID string
		minute     int64
	}
	merged := map[key]*JobMinute{}
	for _, m := range ms {
		k := key{m.OrganizationID, m.KeyID, m.Minute}
		if a := merged[k]; a != nil {
			a.Completed += m.Completed
			a.Failed += m.Failed
			a.Canceled += m.Canceled
			a.DurationSumUS += m.DurationSumUS
			a.DurationN += m.DurationN
		} else {
			merged[k] = &m
		}
	}
	rows := make([]*JobMinute, 0, len(merged))
	for _, m := range merged {
		rows = append(rows, m)
	}
	slices.SortFunc(rows, func(a, b *JobMinute) int {
		return cmp.Or(cmp.Compare(a.OrganizationID, b.OrganizationID), cmp.Compare(a.Minute, b.Minute), cmp.Compare(a.KeyID, b.KeyID))
	})
	return upsertJobMinutes(ctx, tx, rows)
}

// upsertJobMinutes writes rows, distinct and in key order, with multi-row
// upserts that add to the rows already stored.
func upsertJobMinutes(ctx context.Context, tx *ent.Client, rows []*JobMinute) error {
	for part := range slices.Chunk(rows, jobMinutesPerInsert) {
		creates := make([]*ent.JobMinuteCreate, len(part))
		for i, m := range part {
			creates[i] = tx.JobMinute.Create().
				SetOrganizationID(m.OrganizationID).SetKeyID(m.KeyID).SetMinute(m.Minute).
				SetCompleted(m.Completed).SetFailed(m.Failed).SetCanceled(m.Canceled).
				SetDurationSumUs(m.DurationSumUS).SetDurationN(m.DurationN)
		}
		err := tx.JobMinute.CreateBulk(creates...).OnConflict(
			entsql.ConflictColumns(jobminute.FieldOrganizationID, jobminute.FieldMinute, jobminute.FieldKeyID),
			entsql.ResolveWith(func(u *entsql.UpdateSet) {
				excluded := entsql.Dialect(u.Dialect()).Table("excluded")
				for _, c := range []string{jobminute.FieldCompleted, jobminute.FieldFailed, jobminute.FieldCanceled,
					jobminute.FieldDurationSumUs, jobminute.FieldDurationN} {
					u.Set(c, entsql.Expr(u.Table().C(c)+" + "+excluded.C(c)))
				}
			}),
		).Exec(ctx)
		if err != nil {
			return fmt.Errorf("job minutes: %w", err)
		}
	}
	return nil
}

// backfillBatch is how many finished jobs the backfill reads at a time.
const backfillBatch = 5000

// backfillJobMinutes fills the rollup from the finished jobs of a
// database that predates it, once: only while the rollup is empty and
// finished jobs exist (every job finished since adds itself). It reads the
// jobs in batches, in one transaction, so an interrupted backfill leaves
// the rollup empty and the next migration starts it again. It returns how
// many jobs it counted.
func (s *Store) backfillJobMinutes(ctx context.Context) (int, error) {
	sqlTx, err := s.DB.BeginTx(ctx, nil)
	if err != nil {
		return 0, err
	}
	defer sqlTx.Rollback()
	tx := txClient(s.Dialect, sqlTx)
	if filled, err := tx.JobMinute.Query().Exist(ctx); err != nil || filled {
		return 0, err
	}
	total, last := 0, ""
	for {
		q := tx.Job.Query().Where(job.StatusIn(finishedStatuses...))
		if last != "" {
			q = q.Where(job.IDGT(last))
		}
		js, err := q.Order(ent.Asc(job.FieldID)).Limit(backfillBatch).
			Select(job.FieldID, job.FieldOrganizationID, job.FieldKeyID, job.FieldStatus,
				job.FieldCreatedAt, job.FieldStartedAt, job.FieldCompletedAt).All(ctx)
		if err != nil {
			return 0, err
		}
		ms := make([]JobMinute, len(js))
		for i, j := range js {
			ms[i] = FinishedJob(j.OrganizationID, j.KeyID, j.Status, j.CreatedAt, j.StartedAt, j.CompletedAt)
		}
		if err := AddJobMinutes(ctx, tx, ms...); err != nil {
			return 0, err
		}
		total += len(js)
		if len(js) < backfillBatch {
			break
		}
		last = js[len(js)-1].ID
	}
	if total == 0 {
		return 0, nil
	}
	return total, sqlTx.Commit()
}
