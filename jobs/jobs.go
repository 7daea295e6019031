// Package jobs runs engine workflows as persisted jobs: synchronously inside
// a request, or asynchronously on River workers. A job's completion, its
// result and its event commit in one transaction, and the job is only
// finished once, however often River delivers it.
package jobs

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/riverqueue/river"
	"google.golang.org/grpc/codes"
	"google.golang.org/protobuf/types/known/structpb"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/creativeops/creativeops/apierror"
	"github.com/creativeops/creativeops/engine"
	"github.com/creativeops/creativeops/ent"
	"github.com/creativeops/creativeops/ent/job"
	"github.com/creativeops/creativeops/events"
	creativeopsv1 "github.com/creativeops/creativeops/gen/creativeops/v1"
	"github.com/creativeops/creativeops/ids"
	"github.com/creativeops/creativeops/storage"
)

// Job statuses.
const (
	Queued     = "queued"
	Processing = "processing"
	Completed  = "completed"
	Failed     = "failed"
	Canceled   = "canceled"
)

// Queue is the River queue engine runs use.
const Queue = "engine"

// MaxAttempts bounds how often River retries a run after transient failures
// (database errors, a worker killed mid-run).
const MaxAttempts = 5

// RunArgs is the River job that executes an asynchronous run.
type RunArgs struct {
	JobID string `json:"job_id"`
}

// Kind names the River job kind.
func (RunArgs) Kind() string { return "engine.run" }

// InsertOpts puts runs on the engine queue.
func (RunArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: Queue, MaxAttempts: MaxAttempts}
}

// Runner creates and executes jobs.
type Runner struct {
	Store  *storage.Store
	Events *events.Emitter
	// River enqueues asynchronous runs; it is set once the client exists.
	River *river.Client[*sql.Tx]
	Log   *slog.Logger
	// Finished, when set, is told of every job this process finished
	// (committed as completed or failed).
	Finished func(status string, async bool)
}

func (r *Runner) finished(j *ent.Job) {
	if r.Finished != nil {
		r.Finished(j.Status, j.Async)
	}
}

// Request is a run as the API receives it.
type Request struct {
	OrganizationID string
	KeyID          string
	Vertical       string
	Workflow       string
	Context        map[string]any
	Async          bool
}

func now() time.Time { return time.Now().UTC().Truncate(time.Microsecond) }

// Lookup resolves a vertical and workflow the way the run endpoint does.
func Lookup(vertical, workflow string) (*engine.Workflow, error) {
	if _, ok := engine.LookupVertical(vertical); !ok {
		return nil, apierror.Invalid("UNKNOWN_VERTICAL", "vertical", fmt.Sprintf("unknown vertical %q; GET /v1/engine/verticals lists the keys", vertical))
	}
	wf, ok := engine.LookupWorkflow(workflow)
	if !ok || wf.Vertical != vertical {
		e := apierror.New(codes.NotFound, "UNKNOWN_WORKFLOW", fmt.Sprintf("vertical %s has no workflow %q; GET /v1/engine/workflows?vertical=%s lists them", vertical, workflow, vertical))
		e.Metadata = map[string]string{"vertical": vertical, "workflow": workflow}
		return nil, e
	}
	return wf, nil
}

// Submit validates a run and either executes it now (synchronous) or
// enqueues it (asynchronous). The returned job is as stored.
func (r *Runner) Submit(ctx context.Context, req Request) (*ent.Job, error) {
	wf, err := Lookup(req.Vertical, req.Workflow)
	if err != nil {
		return nil, err
	}
	in, err := wf.Prepare(req.Context)
	if err != nil {
		return nil, err
	}
	created := now()
	j := &ent.Job{
		ID: ids.New(ids.Job), OrganizationID: req.OrganizationID, KeyID: req.KeyID,
		Vertical: req.Vertical, Workflow: req.Workflow, Context: in.Values(), Async: req.Async,
		CreatedAt: created, UpdatedAt: created,
	}
	if req.Async {
		j.Status = Queued
		err = r.Store.Tx(ctx, func(ctx context.Context, tx *ent.Client, sqlTx *sql.Tx) error {
			if err := jobCreate(tx, j).Exec(ctx); err != nil {
				return err
			}
			_, err := r.River.InsertTx(ctx, sqlTx, RunArgs{JobID: j.ID}, nil)
			return err
		})
		if err != nil {
			return nil, err
		}
		return j, nil
	}
	// A synchronous run is pure computation: run it, then persist the
	// finished job and its event together. Both are built first, so the
	// transaction (and SQLite's single writer) only writes.
	result, runErr := wf.Run(ctx, in, created, nil)
	if runErr != nil && ctx.Err() != nil {
		return nil, ctx.Err()
	}
	completed := now()
	j.Attempts, j.StartedAt, j.CompletedAt = 1, &created, &completed
	typ, data, err := settle(j, result, runErr)
	if err != nil {
		return nil, err
	}
	err = r.Store.Tx(ctx, func(ctx context.Context, tx *ent.Client, sqlTx *sql.Tx) error {
		if err := jobCreate(tx, j).Exec(ctx); err != nil {
			return err
		}
		_, err := r.Events.EmitEncoded(ctx, tx, sqlTx, j.OrganizationID, typ, data)
		return err
	})
	if err != nil {
		return nil, err
	}
	r.finished(j)
	return j, nil
}

// jobCreate inserts j as it is.
func jobCreate(tx *ent.Client, j *ent.Job) *ent.JobCreate {
	c := tx.Job.Create().
		SetID(j.ID).
		SetOrganizationID(j.OrganizationID).
		SetKeyID(j.KeyID).
		SetVertical(j.Vertical).
		SetWorkflow(j.Workflow).
		SetContext(j.Context).
		SetAsync(j.Async).
		SetStatus(j.Status).
		SetProgress(j.Progress).
		SetAttempts(j.Attempts).
		SetNillableStartedAt(j.StartedAt).
		SetNillableCompletedAt(j.CompletedAt).
		SetCreatedAt(j.CreatedAt).
		SetUpdatedAt(j.UpdatedAt)
	if j.Result != nil {
		c.SetResult(j.Result)
	}
	if j.ErrorCode != "" {
		c.SetErrorCode(j.ErrorCode).SetErrorMessage(j.ErrorMessage).SetErrorStep(j.ErrorStep)
	}
	return c
}

// failure names what a failed run records: the error code and the step.
func failure(err error) (code, step string) {
	var se *engine.StepError
	if errors.As(err, &se) {
		return se.Code, se.Step
	}
	return "STEP_FAILED", ""
}

// settle records a run's outcome on j and returns the event the finished
// job emits, encoded.
func settle(j *ent.Job, result map[string]any, runErr error) (typ string, data []byte, err error) {
	typ = events.JobCompleted
	if runErr != nil {
		j.Status, typ = Failed, events.JobFailed
		j.ErrorCode, j.ErrorStep = failure(runErr)
		j.ErrorMessage = runErr.Error()
	} else {
		j.Status, j.Progress, j.Result = Completed, 100, result
	}
	data, err = events.Encode(ToProto(j))
	return typ, data, err
}

// Cancel stops a queued or processing job. A running worker notices at its
// next step and stops without finishing the job.
func (r *Runner) Cancel(ctx context.Context, orgID, id string) (*ent.Job, error) {
	t := now()
	n, err := r.Store.Ent.Job.Update().
		Where(job.ID(id), job.OrganizationID(orgID), job.StatusIn(Queued, Processing)).
		SetStatus(Canceled).SetCompletedAt(t).SetUpdatedAt(t).
		Save(ctx)
	if err != nil {
		return nil, err
	}
	j, err := r.Store.Ent.Job.Query().Where(job.ID(id), job.OrganizationID(orgID)).Only(ctx)
	if ent.IsNotFound(err) {
		return nil, apierror.NotFound("job", id)
	}
	if err != nil {
		return nil, err
	}
	if n == 0 {
		e := apierror.New(codes.FailedPrecondition, "JOB_ALREADY_FINISHED", fmt.Sprintf("job %s is already %s", id, j.Status))
		e.Metadata = map[string]string{"status": j.Status}
		return nil, e
	}
	return j, nil
}

// ToProto renders a job as the API returns it.
func ToProto(j *ent.Job) *creativeopsv1.Job {
	out := &creativeopsv1.Job{
		Id:          j.ID,
		Status:      j.Status,
		Vertical:    j.Vertical,
		Workflow:    j.Workflow,
		Progress:    int32(j.Progress),
		CreatedAt:   timestamppb.New(j.CreatedAt),
		StartedAt:   optionalTime(j.StartedAt),
		CompletedAt: optionalTime(j.CompletedAt),
		Attempts:    int32(j.Attempts),
		Async:       j.Async,
	}
	if s, err := structpb.NewStruct(j.Context); err == nil {
		out.Context = s
	}
	if j.Result != nil {
		if s, err := structpb.NewStruct(j.Result); err == nil {
			out.Result = s
		}
	}
	if j.Status == Failed {
		out.Error = &creativeopsv1.JobError{Code: j.ErrorCode, Message: j.ErrorMessage, Step: j.ErrorStep}
	}
	return out
}

func optionalTime(t *time.Time) *timestamppb.Timestamp {
	if t == nil {
		return nil
	}
	return timestamppb.New(*t)
}
