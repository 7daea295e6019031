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

	entsql "entgo.io/ent/dialect/sql"
	"github.com/riverqueue/river"
	"google.golang.org/grpc/codes"

	"github.com/creativeops/creativeops/apierror"
	"github.com/creativeops/creativeops/engine"
	"github.com/creativeops/creativeops/ent"
	"github.com/creativeops/creativeops/ent/job"
	"github.com/creativeops/creativeops/events"
	"github.com/creativeops/creativeops/ids"
	"github.com/creativeops/creativeops/internal/clock"
	"github.com/creativeops/creativeops/storage"
	"github.com/creativeops/creativeops/storage/jsondoc"
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

// Tracker keeps the plan of a run that asked to be tracked (package plans).
type Tracker interface {
	// CheckCreator reports an error when the organization has no such
	// creator, before a tracked run is accepted.
	CheckCreator(ctx context.Context, orgID, creatorID string) error
	// Track stores the plan of j, a run that completed with track set,
	// as the plan j.PlanID, inside the transaction that completes j.
	Track(ctx context.Context, tx *ent.Client, sqlTx *sql.Tx, j *Job) error
}

// Runner creates and executes jobs.
type Runner struct {
	store   *storage.Store
	events  *events.Emitter
	river   *river.Client[*sql.Tx]
	log     *slog.Logger
	onDone  func(status string, async bool)
	clock   clock.Clock
	tracker Tracker
	// getQuery is Get's statement in the store's dialect, built once.
	getQuery string
}

// NewRunner returns a runner that stores jobs in store, emits their events
// through emitter and enqueues asynchronous runs on queue. onDone, when not
// nil, is told of every job this process finished (committed as completed
// or failed). Tracked runs are dated by clk when their context gives no
// as_of, and their plans are kept by tracker.
func NewRunner(store *storage.Store, emitter *events.Emitter, queue *river.Client[*sql.Tx], log *slog.Logger, onDone func(status string, async bool), clk clock.Clock, tracker Tracker) *Runner {
	return &Runner{store: store, events: emitter, river: queue, log: log, onDone: onDone, clock: clk, tracker: tracker,
		getQuery: store.KeyedQuery(job.Table, getColumns, job.FieldID, job.FieldOrganizationID)}
}

// On returns a runner like r that stores jobs through store: the workers'
// runner uses the background store (storage.Store.Background).
func (r *Runner) On(store *storage.Store) *Runner {
	c := *r
	c.store = store
	return &c
}

func (r *Runner) finished(j *ent.Job) {
	if r.onDone != nil {
		r.onDone(j.Status, j.Async)
	}
}

// Job is a workflow run as the API shows it.
type Job struct {
	ID             string
	OrganizationID string
	KeyID          string
	Status         string
	Vertical       string
	Workflow       string
	Context        map[string]any
	Result         map[string]any // nil until completed
	Progress       int
	Attempts       int
	Async          bool
	// Track: the run's plan is kept as a tracked plan, for CreatorID
	// (optional), whose id is PlanID once the run completed.
	Track        bool
	CreatorID    string
	PlanID       string
	ErrorCode    string
	ErrorMessage string
	ErrorStep    string
	CreatedAt    time.Time
	StartedAt    *time.Time
	CompletedAt  *time.Time
}

func toJob(j *ent.Job) *Job {
	return &Job{
		ID: j.ID, OrganizationID: j.OrganizationID, KeyID: j.KeyID, Status: j.Status,
		Vertical: j.Vertical, Workflow: j.Workflow, Context: j.Context, Result: j.Result,
		Progress: j.Progress, Attempts: j.Attempts, Async: j.Async,
		Track: j.Track, CreatorID: j.CreatorID, PlanID: j.PlanID,
		ErrorCode: j.ErrorCode, ErrorMessage: j.ErrorMessage, ErrorStep: j.ErrorStep,
		CreatedAt: j.CreatedAt, StartedAt: j.StartedAt, CompletedAt: j.CompletedAt,
	}
}

// getColumns are the columns Get reads, in the order it scans them: all
// but updated_at and current_step, which the API does not show.
var getColumns = []string{
	job.FieldID, job.FieldOrganizationID, job.FieldKeyID, job.FieldStatus, job.FieldVertical, job.FieldWorkflow,
	job.FieldContext, job.FieldResult, job.FieldProgress, job.FieldAttempts, job.FieldAsync,
	job.FieldTrack, job.FieldCreatorID, job.FieldPlanID,
	job.FieldErrorCode, job.FieldErrorMessage, job.FieldErrorStep, job.FieldCreatedAt, job.FieldStartedAt, job.FieldCompletedAt,
}

// Get returns a job of the organization. Clients poll their asynchronous
// runs with it, so it is a keyed read (storage.Store.KeyedRead), as a
// creator's is, rather than an ent query.
func (r *Runner) Get(ctx context.Context, orgID, id string) (*Job, error) {
	var j Job
	var contextData, resultData []byte
	// Optional columns are NULL until set; ent reads NULL as the zero value.
	var errorCode, errorMessage, errorStep sql.NullString
	var startedAt, completedAt sql.NullTime
	err := r.store.KeyedRead(ctx, r.getQuery, []any{id, orgID},
		&j.ID, &j.OrganizationID, &j.KeyID, &j.Status, &j.Vertical, &j.Workflow, &contextData, &resultData, &j.Progress, &j.Attempts, &j.Async,
		&j.Track, &j.CreatorID, &j.PlanID,
		&errorCode, &errorMessage, &errorStep, &j.CreatedAt, &startedAt, &completedAt)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, apierror.NotFound("job", id)
	}
	if err != nil {
		return nil, err
	}
	j.ErrorCode, j.ErrorMessage, j.ErrorStep = errorCode.String, errorMessage.String, errorStep.String
	if startedAt.Valid {
		j.StartedAt = &startedAt.Time
	}
	if completedAt.Valid {
		j.CompletedAt = &completedAt.Time
	}
	// As ent reads the columns (jsondoc.Doc): no value, or JSON's null, is
	// a nil map; a compressed document is decompressed.
	for _, m := range []struct {
		column string
		data   []byte
		to     *map[string]any
	}{{job.FieldContext, contextData, &j.Context}, {job.FieldResult, resultData, &j.Result}} {
		d, err := jsondoc.Decode(m.data)
		if err != nil {
			return nil, fmt.Errorf("job %s: %s: %w", id, m.column, err)
		}
		*m.to = d
	}
	return &j, nil
}

// ListQuery selects a page of jobs, newest first.
type ListQuery struct {
	Status, Vertical, Workflow string // empty: any
	CreatorID                  string // empty: any (the runs given this creator_id)
	After                      string // the last id of the previous page
	Limit                      int
	// Basic leaves each job's context and result unread: nearly all of a
	// large job's bytes, and not what a list of jobs shows.
	Basic bool
}

// basicColumns are a job's columns but its context and result.
var basicColumns = func() []string {
	var out []string
	for _, c := range job.Columns {
		if c != job.FieldContext && c != job.FieldResult {
			out = append(out, c)
		}
	}
	return out
}()

// List returns up to q.Limit jobs of the organization after q.After.
func (r *Runner) List(ctx context.Context, orgID string, q ListQuery) ([]*Job, error) {
	query := r.store.Read.Job.Query().Where(job.OrganizationID(orgID))
	if q.Status != "" {
		query = query.Where(job.Status(q.Status))
	}
	if q.Vertical != "" {
		if err := engine.CheckVertical("vertical", q.Vertical); err != nil {
			return nil, err
		}
		query = query.Where(job.Vertical(q.Vertical))
	}
	if q.Workflow != "" {
		query = query.Where(job.Workflow(q.Workflow))
	}
	if q.CreatorID != "" {
		query = query.Where(job.CreatorID(q.CreatorID))
	}
	if q.After != "" {
		query = query.Where(job.IDLT(q.After))
	}
	query = query.Order(ent.Desc(job.FieldID)).Limit(q.Limit)
	if q.Basic {
		query.Select(basicColumns...)
	}
	rows, err := query.All(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]*Job, len(rows))
	for i, j := range rows {
		out[i] = toJob(j)
	}
	return out, nil
}

// Request is a run as the API receives it.
type Request struct {
	OrganizationID string
	KeyID          string
	Vertical       string
	Workflow       string
	Context        map[string]any
	Async          bool
	// Track keeps the run's plan as a tracked plan (package plans) for
	// CreatorID, which is optional and only allowed with Track.
	Track     bool
	CreatorID string
}

func now() time.Time { return time.Now().UTC().Truncate(time.Microsecond) }

// Lookup resolves a vertical and workflow the way the run endpoint does.
func Lookup(vertical, workflow string) (*engine.Workflow, error) {
	if err := engine.CheckVertical("vertical", vertical); err != nil {
		return nil, err
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
func (r *Runner) Submit(ctx context.Context, req Request) (*Job, error) {
	wf, err := Lookup(req.Vertical, req.Workflow)
	if err != nil {
		return nil, err
	}
	if req.CreatorID != "" && !req.Track {
		return nil, apierror.InvalidField("creator_id", "names the creator of a tracked plan: set track too, or leave creator_id out")
	}
	var in *engine.Input
	if req.Track {
		// A tracked plan is dated by the service's clock (reminders and
		// re-plans count days from it), fixed when the run is asked for,
		// so an asynchronous run is dated as a synchronous one would be.
		in, err = wf.PrepareAt(req.Context, r.clock.Now())
	} else {
		in, err = wf.Prepare(req.Context)
	}
	if err != nil {
		return nil, err
	}
	if req.CreatorID != "" {
		if err := r.tracker.CheckCreator(ctx, req.OrganizationID, req.CreatorID); err != nil {
			return nil, err
		}
	}
	created := now()
	j := &ent.Job{
		ID: ids.New(ids.Job), OrganizationID: req.OrganizationID, KeyID: req.KeyID,
		Vertical: req.Vertical, Workflow: req.Workflow, Context: in.Values(), Async: req.Async,
		Track: req.Track, CreatorID: req.CreatorID,
		CreatedAt: created, UpdatedAt: created,
	}
	if req.Async {
		j.Status = Queued
		err = r.store.Tx(ctx, func(ctx context.Context, tx *ent.Client, sqlTx *sql.Tx) error {
			if err := jobCreate(tx, j).Exec(ctx); err != nil {
				return err
			}
			_, err := r.river.InsertTx(ctx, sqlTx, RunArgs{JobID: j.ID}, nil)
			return err
		})
		if err != nil {
			return nil, err
		}
		return toJob(j), nil
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
	typ, data, err := r.settle(j, result, runErr)
	if err != nil {
		return nil, err
	}
	err = r.store.Tx(ctx, func(ctx context.Context, tx *ent.Client, sqlTx *sql.Tx) error {
		if err := jobCreate(tx, j).Exec(ctx); err != nil {
			return err
		}
		if err := r.track(ctx, tx, sqlTx, j); err != nil {
			return err
		}
		if _, err := r.events.EmitEncoded(ctx, tx, sqlTx, j.OrganizationID, typ, data); err != nil {
			return err
		}
		// Last: the organization's row of the minute is locked only until
		// commit.
		return storage.AddJobMinutes(ctx, tx, finishedMinute(j))
	})
	if err != nil {
		return nil, err
	}
	r.finished(j)
	return toJob(j), nil
}

// Insert stores a finished job made outside Submit and the worker (a
// re-plan's run, package plans) inside the caller's transaction, and
// counts it in the usage report's rollup.
func Insert(ctx context.Context, tx *ent.Client, j *Job) error {
	return InsertBatch(ctx, tx, []*Job{j})
}

// IsFinished reports whether status is one a job ends in.
func IsFinished(status string) bool {
	return status == Completed || status == Failed || status == Canceled
}

// finishedMinute is what j, which has just finished, adds to the usage
// report's rollup (storage.AddJobMinutes).
func finishedMinute(j *ent.Job) storage.JobMinute {
	return storage.FinishedJob(j.OrganizationID, j.KeyID, j.Status, j.CreatedAt, j.StartedAt, j.CompletedAt)
}

// entJob is the row of a job made outside Submit and the worker.
func entJob(j *Job) *ent.Job {
	return &ent.Job{
		ID: j.ID, OrganizationID: j.OrganizationID, KeyID: j.KeyID, Vertical: j.Vertical, Workflow: j.Workflow,
		Context: j.Context, Result: j.Result, Async: j.Async, Track: j.Track, CreatorID: j.CreatorID, PlanID: j.PlanID,
		Status: j.Status, Progress: j.Progress, Attempts: j.Attempts, StartedAt: j.StartedAt, CompletedAt: j.CompletedAt,
		ErrorCode: j.ErrorCode, ErrorMessage: j.ErrorMessage, ErrorStep: j.ErrorStep,
		CreatedAt: j.CreatedAt, UpdatedAt: j.CreatedAt,
	}
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
		SetTrack(j.Track).
		SetCreatorID(j.CreatorID).
		SetPlanID(j.PlanID).
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
func (r *Runner) settle(j *ent.Job, result map[string]any, runErr error) (typ string, data []byte, err error) {
	typ = events.JobCompleted
	if runErr != nil {
		j.Status, typ = Failed, events.JobFailed
		j.ErrorCode, j.ErrorStep = failure(runErr)
		j.ErrorMessage = runErr.Error()
	} else {
		j.Status, j.Progress, j.Result = Completed, 100, result
		if j.Track {
			// The plan's id is known before the transaction that stores
			// it, so the job's event names it too.
			j.PlanID = ids.New(ids.Plan)
		}
	}
	data, err = r.events.Encode(toJob(j))
	return typ, data, err
}

// track stores the plan of a completed run that asked for it, in the
// transaction that completes the run (settle named it).
func (r *Runner) track(ctx context.Context, tx *ent.Client, sqlTx *sql.Tx, j *ent.Job) error {
	if j.PlanID == "" || j.Status != Completed {
		return nil
	}
	return r.tracker.Track(ctx, tx, sqlTx, toJob(j))
}

// Cancel stops a queued or processing job. A running worker notices at its
// next step and stops without finishing the job.
func (r *Runner) Cancel(ctx context.Context, orgID, id string) (*Job, error) {
	t := now()
	var j *ent.Job
	var n int
	err := r.store.Tx(ctx, func(ctx context.Context, tx *ent.Client, _ *sql.Tx) error {
		var err error
		n, err = tx.Job.Update().
			Where(job.ID(id), job.OrganizationID(orgID), job.StatusIn(Queued, Processing)).
			SetStatus(Canceled).SetCompletedAt(t).SetUpdatedAt(t).
			Save(ctx)
		if err != nil {
			return err
		}
		if j, err = tx.Job.Query().Where(job.ID(id), job.OrganizationID(orgID)).Only(ctx); err != nil {
			return err
		}
		if n == 0 {
			return nil
		}
		// Only the update that canceled the job counts it.
		return storage.AddJobMinutes(ctx, tx, finishedMinute(j))
	})
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
	return toJob(j), nil
}

// CancelCreatorRuns cancels, inside tx, the organization's queued and
// processing jobs given creatorID (a creator's erasure), and counts the
// ones its update canceled in the usage report's rollup: the update
// returns exactly those, so a job a worker finished meanwhile is neither
// canceled nor counted. dialect is the store's.
func CancelCreatorRuns(ctx context.Context, dialect string, tx *ent.Client, orgID, creatorID string, t time.Time) error {
	query, args := entsql.Dialect(dialect).Update(job.Table).
		Set(job.FieldStatus, Canceled).Set(job.FieldCompletedAt, t).Set(job.FieldUpdatedAt, t).
		Where(entsql.And(entsql.EQ(job.FieldOrganizationID, orgID), entsql.EQ(job.FieldCreatorID, creatorID),
			entsql.In(job.FieldStatus, Queued, Processing))).
		Returning(job.FieldKeyID, job.FieldCreatedAt).Query()
	rows, err := tx.QueryContext(ctx, query, args...)
	if err != nil {
		return err
	}
	var canceled []storage.JobMinute
	for rows.Next() {
		var keyID string
		var created time.Time
		if err := rows.Scan(&keyID, &created); err != nil {
			rows.Close()
			return err
		}
		canceled = append(canceled, storage.FinishedJob(orgID, keyID, Canceled, created, nil, nil))
	}
	if err := rows.Close(); err != nil {
		return err
	}
	if err := rows.Err(); err != nil {
		return err
	}
	return storage.AddJobMinutes(ctx, tx, canceled...)
}

// CountByStatus counts the jobs of every organization by status.
func CountByStatus(ctx context.Context, store *storage.Store) (map[string]int64, error) {
	var rows []struct {
		Status string `json:"status"`
		Count  int64  `json:"count"`
	}
	if err := store.Read.Job.Query().GroupBy(job.FieldStatus).Aggregate(ent.Count()).Scan(ctx, &rows); err != nil {
		return nil, err
	}
	out := make(map[string]int64, len(rows))
	for _, r := range rows {
		out[r.Status] = r.Count
	}
	return out, nil
}

// jobsPerInsert keeps one multi-row insert of jobs (21 columns) under
// SQLite's 32,766 and PostgreSQL's 65,535 bound parameters.
const jobsPerInsert = 1000

// InsertBatch stores many finished jobs made outside Submit and the worker
// inside the caller's transaction, each exactly as Insert stores it, with
// a few multi-row inserts: the fast path of seeding (bench/scale). The
// finished ones are counted in the usage report's rollup.
func InsertBatch(ctx context.Context, tx *ent.Client, js []*Job) error {
	for from := 0; from < len(js); from += jobsPerInsert {
		part := js[from:min(from+jobsPerInsert, len(js))]
		creates := make([]*ent.JobCreate, len(part))
		var finished []storage.JobMinute
		for i, j := range part {
			e := entJob(j)
			creates[i] = jobCreate(tx, e)
			if IsFinished(e.Status) {
				finished = append(finished, finishedMinute(e))
			}
		}
		if err := tx.Job.CreateBulk(creates...).Exec(ctx); err != nil {
			return err
		}
		if err := storage.AddJobMinutes(ctx, tx, finished...); err != nil {
			return err
		}
	}
	return nil
}
