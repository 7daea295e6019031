package jobs

import (
	"context"
	"database/sql"
	"errors"

	"github.com/riverqueue/river"

	"github.com/creativeops/creativeops/engine"
	"github.com/creativeops/creativeops/ent"
	"github.com/creativeops/creativeops/ent/job"
	"github.com/creativeops/creativeops/storage"
)

// errCanceled stops a run whose job was canceled while it ran.
var errCanceled = errors.New("job canceled")

// Worker executes asynchronous runs on River.
type Worker struct {
	river.WorkerDefaults[RunArgs]
	runner *Runner
}

// NewWorker returns the River worker of asynchronous runs.
func NewWorker(r *Runner) *Worker { return &Worker{runner: r} }

// Work runs a job's workflow. It is safe to call more than once for the
// same job (River retries, a rescued job after a crash): a job that is
// already finished is left alone, and the finishing update only applies to
// a job still processing.
func (w *Worker) Work(ctx context.Context, rj *river.Job[RunArgs]) error {
	r := w.runner
	id := rj.Args.JobID
	j, err := r.store.Read.Job.Get(ctx, id)
	if ent.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	if j.Status != Queued && j.Status != Processing {
		return nil
	}
	t := now()
	upd := r.store.Ent.Job.Update().
		Where(job.ID(id), job.StatusIn(Queued, Processing)).
		SetStatus(Processing).AddAttempts(1).SetProgress(0).SetUpdatedAt(t)
	if j.StartedAt == nil {
		upd = upd.SetStartedAt(t)
		j.StartedAt = &t
	}
	if n, err := upd.Save(ctx); err != nil || n == 0 {
		return err
	}
	j.Status, j.Attempts, j.Progress, j.UpdatedAt = Processing, j.Attempts+1, 0, t
	wf, err := Lookup(j.Vertical, j.Workflow)
	if err != nil {
		return r.finish(ctx, j, nil, &engine.StepError{Step: "lookup", Code: "UNKNOWN_WORKFLOW", Err: err})
	}
	in, err := wf.Prepare(j.Context)
	if err != nil {
		return r.finish(ctx, j, nil, &engine.StepError{Step: "prepare", Code: "INVALID_CONTEXT", Err: err})
	}
	progress := startProgress(ctx, r, id)
	result, runErr := wf.Run(ctx, in, j.CreatedAt, progress.report)
	j.Progress = progress.close()
	switch {
	case errors.Is(runErr, errCanceled):
		return nil
	case runErr != nil && ctx.Err() != nil:
		// Shutdown or timeout: let River retry, and record the failure once
		// retries are exhausted.
		if rj.Attempt >= rj.MaxAttempts {
			return errors.Join(runErr, r.finish(context.WithoutCancel(ctx), j, nil, retriesExhausted(runErr)))
		}
		return runErr
	}
	return r.finish(ctx, j, result, runErr)
}

// finish records the outcome and its event in one transaction, only if the
// job is still processing (not canceled, not finished by another attempt).
// j is the job as this attempt left it; the finished job and its event are
// built before the transaction, which then only writes.
func (r *Runner) finish(ctx context.Context, j *ent.Job, result map[string]any, runErr error) error {
	t := now()
	j.CompletedAt, j.UpdatedAt = &t, t
	typ, data, err := r.settle(j, result, runErr)
	if err != nil {
		return err
	}
	done := false
	err = r.store.Tx(ctx, func(ctx context.Context, tx *ent.Client, sqlTx *sql.Tx) error {
		upd := tx.Job.Update().Where(job.ID(j.ID), job.Status(Processing)).
			SetStatus(j.Status).SetProgress(j.Progress).SetCompletedAt(t).SetUpdatedAt(t)
		if runErr != nil {
			upd = upd.SetErrorCode(j.ErrorCode).SetErrorMessage(j.ErrorMessage).SetErrorStep(j.ErrorStep)
		} else {
			upd = upd.SetResult(result).SetPlanID(j.PlanID)
		}
		n, err := upd.Save(ctx)
		if err != nil || n == 0 {
			return err
		}
		if err := r.track(ctx, tx, sqlTx, j); err != nil {
			return err
		}
		if _, err := r.events.EmitEncoded(ctx, tx, sqlTx, j.OrganizationID, typ, data); err != nil {
			return err
		}
		// Counted only by the update that finished the job; last, so the
		// organization's row of the minute stays locked only until commit.
		err = storage.AddJobMinutes(ctx, tx, finishedMinute(j))
		done = err == nil
		return err
	})
	if err == nil && done {
		r.finished(j)
	}
	return err
}

func retriesExhausted(err error) *engine.StepError {
	_, step := failure(err)
	return &engine.StepError{Step: step, Code: "RETRIES_EXHAUSTED", Err: err}
}
