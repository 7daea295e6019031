// Package plans keeps the plans workflow runs made as tracked plans: their
// milestones are checked off or skipped, the plan is re-planned when its
// context changes or a deliverable slips (a new revision; what is done
// stays done), and reminders go out as webhook events before milestones
// are due (reminders.go). "Today" is the service's clock's date in the
// plan's time zone.
package plans

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	"google.golang.org/grpc/codes"

	"github.com/creativeops/creativeops/apierror"
	"github.com/creativeops/creativeops/audit"
	"github.com/creativeops/creativeops/engine"
	"github.com/creativeops/creativeops/ent"
	"github.com/creativeops/creativeops/ent/creator"
	"github.com/creativeops/creativeops/ent/job"
	"github.com/creativeops/creativeops/ent/plan"
	"github.com/creativeops/creativeops/ent/planmilestone"
	"github.com/creativeops/creativeops/ent/planreminder"
	"github.com/creativeops/creativeops/events"
	"github.com/creativeops/creativeops/ids"
	"github.com/creativeops/creativeops/internal/clock"
	"github.com/creativeops/creativeops/jobs"
	"github.com/creativeops/creativeops/storage"
)

// Plan states.
const (
	Active    = "active"    // a milestone is pending
	Completed = "completed" // every milestone is done or skipped
)

// Milestone states.
const (
	Pending = "pending"
	Done    = "done"
	Skipped = "skipped"
)

// How a milestone changed in a re-plan (Change.Change).
const (
	Moved   = "moved"
	Added   = "added"
	Removed = "removed"
	Kept    = "kept"
)

// What made a re-plan (ReplannedEvent.Trigger).
const (
	Manual    = "manual"
	Automatic = "automatic"
)

// Defaults of a new plan's settings.
const (
	DefaultRemindDaysBefore = 3
	DefaultAutoReplan       = true
)

// Plan is a tracked plan with its milestones.
type Plan struct {
	ID, OrganizationID, CreatorID string
	Vertical, Workflow            string
	// Context is what the current revision was made from, without as_of
	// (AsOf says it), so a re-plan without one is made as of today.
	Context          map[string]any
	Result           map[string]any
	Revision         int
	JobID            string
	AsOf             string // YYYY-MM-DD
	TimeZone         string
	State            string
	Milestones       []Milestone
	RemindDaysBefore int
	AutoReplan       bool
	FeedActive       bool
	CreatedAt        time.Time
	UpdatedAt        time.Time
}

// Milestone is one milestone of a plan.
type Milestone struct {
	Key, Title  string
	Date        string // YYYY-MM-DD
	Deliverable bool
	State       string
	DoneAt      *time.Time
	// Revision is the revision in which the date or title last changed.
	Revision int
	// Current is false for a done or skipped milestone a later revision
	// no longer has: kept as a record of what was done.
	Current bool
}

// Change is how one milestone changed in a re-plan.
type Change struct {
	Key, Title       string
	Change           string // Moved, Added, Removed, Kept
	FromDate, ToDate string
}

// ReplannedEvent is the data of plan.replanned.
type ReplannedEvent struct {
	Plan    *Plan
	Changes []Change
	Trigger string // Manual or Automatic
}

// MilestoneEvent is the data of plan.milestone.due and
// plan.milestone.overdue.
type MilestoneEvent struct {
	Plan      *Plan // the plan as of the reminder (without milestones)
	Milestone Milestone
	DaysUntil int
}

// Service keeps tracked plans.
type Service struct {
	store  *storage.Store
	events *events.Emitter
	clock  clock.Clock
}

// NewService returns the plans service: plans in store, their events
// through emitter, "today" from clk.
func NewService(store *storage.Store, emitter *events.Emitter, clk clock.Clock) *Service {
	return &Service{store: store, events: emitter, clock: clk}
}

// On returns a service like s that works through store (the background
// store, for the reminder scans).
func (s *Service) On(store *storage.Store) *Service {
	c := *s
	c.store = store
	return &c
}

func (s *Service) now() time.Time { return s.clock.Now().UTC().Truncate(time.Microsecond) }

// CheckCreator reports NOT_FOUND unless the organization has the creator.
func (s *Service) CheckCreator(ctx context.Context, orgID, creatorID string) error {
	ok, err := s.store.Read.Creator.Query().Where(creator.ID(creatorID), creator.OrganizationID(orgID)).Exist(ctx)
	if err != nil {
		return err
	}
	if !ok {
		e := apierror.NotFound("creator", creatorID)
		e.Metadata["field"] = "creator_id"
		return e
	}
	return nil
}

// Track stores the plan of a tracked run (jobs.Tracker) as j.PlanID,
// inside the transaction that completes the run.
func (s *Service) Track(ctx context.Context, tx *ent.Client, _ *sql.Tx, j *jobs.Job) error {
	_, err := s.insert(ctx, tx, j.PlanID, j, j.CreatorID, DefaultRemindDaysBefore, DefaultAutoReplan)
	return err
}

// New describes a plan to track from a completed job.
type New struct {
	JobID, CreatorID string
	// Unset settings take DefaultRemindDaysBefore and DefaultAutoReplan.
	Settings
}

// Create tracks the plan of a completed job of the organization.
func (s *Service) Create(ctx context.Context, orgID string, in New) (*Plan, error) {
	if in.CreatorID != "" {
		if err := s.CheckCreator(ctx, orgID, in.CreatorID); err != nil {
			return nil, err
		}
	}
	remind, auto := DefaultRemindDaysBefore, DefaultAutoReplan
	if in.RemindDaysBefore != nil {
		remind = *in.RemindDaysBefore
	}
	if in.AutoReplan != nil {
		auto = *in.AutoReplan
	}
	var p *Plan
	err := s.store.Tx(ctx, func(ctx context.Context, tx *ent.Client, _ *sql.Tx) error {
		j, err := tx.Job.Query().Where(job.ID(in.JobID), job.OrganizationID(orgID)).Only(ctx)
		if ent.IsNotFound(err) {
			e := apierror.NotFound("job", in.JobID)
			e.Metadata["field"] = "job_id"
			return e
		}
		if err != nil {
			return err
		}
		if j.Status != jobs.Completed {
			e := apierror.New(codes.FailedPrecondition, "JOB_NOT_COMPLETED",
				fmt.Sprintf("job %s is %s: only a completed job's plan can be tracked", j.ID, j.Status))
			e.Metadata = map[string]string{"job_id": j.ID, "status": j.Status}
			return e
		}
		if j.PlanID != "" {
			return apierror.Conflict("PLAN_EXISTS", fmt.Sprintf("job %s's plan is already tracked as %s", j.ID, j.PlanID),
				map[string]string{"job_id": j.ID, "plan_id": j.PlanID})
		}
		id := ids.New(ids.Plan)
		// Only one plan per job, also when two requests race.
		n, err := tx.Job.Update().Where(job.ID(j.ID), job.PlanID("")).SetPlanID(id).Save(ctx)
		if err != nil {
			return err
		}
		if n == 0 {
			return apierror.Conflict("PLAN_EXISTS", fmt.Sprintf("job %s's plan is already tracked", j.ID), map[string]string{"job_id": j.ID})
		}
		jj := &jobs.Job{ID: j.ID, OrganizationID: orgID, Vertical: j.Vertical, Workflow: j.Workflow, Context: j.Context, Result: j.Result}
		p, err = s.insert(ctx, tx, id, jj, in.CreatorID, remind, auto)
		return err
	})
	if err != nil {
		return nil, err
	}
	return p, nil
}

// insert stores the plan j's result makes, as revision 1.
func (s *Service) insert(ctx context.Context, tx *ent.Client, id string, j *jobs.Job, creatorID string, remind int, auto bool) (*Plan, error) {
	p := newPlan(id, j, creatorID, remind, auto, s.now())
	if err := planCreate(tx, p).Exec(ctx); err != nil {
		return nil, err
	}
	creates := make([]*ent.PlanMilestoneCreate, len(p.Milestones))
	for i, m := range p.Milestones {
		creates[i] = milestoneCreate(tx, p, m, i)
	}
	if err := tx.PlanMilestone.CreateBulk(creates...).Exec(ctx); err != nil {
		return nil, err
	}
	return p, nil
}

// TrackBatch stores the plans of many tracked runs (each job's PlanID) at
// once, writing for each exactly what Track writes, with a few multi-row
// inserts instead of two statements a plan: the fast path of seeding
// (benchmarks, and tests that need tens of thousands of plans).
func (s *Service) TrackBatch(ctx context.Context, tx *ent.Client, js []*jobs.Job) error {
	// Rows to a statement: both databases' bound-variable limits hold
	// (SQLite's 32,766 the lower) with room to spare.
	const plansPerInsert, milestonesPerInsert = 500, 1000
	t := s.now()
	var milestones []*ent.PlanMilestoneCreate
	for chunk := range slices.Chunk(js, plansPerInsert) {
		creates := make([]*ent.PlanCreate, len(chunk))
		for i, j := range chunk {
			p := newPlan(j.PlanID, j, j.CreatorID, DefaultRemindDaysBefore, DefaultAutoReplan, t)
			creates[i] = planCreate(tx, p)
			for pos, m := range p.Milestones {
				milestones = append(milestones, milestoneCreate(tx, p, m, pos))
			}
		}
		if err := tx.Plan.CreateBulk(creates...).Exec(ctx); err != nil {
			return err
		}
	}
	for chunk := range slices.Chunk(milestones, milestonesPerInsert) {
		if err := tx.PlanMilestone.CreateBulk(chunk...).Exec(ctx); err != nil {
			return err
		}
	}
	return nil
}

// newPlan is the plan j's result makes, as revision 1, at t.
func newPlan(id string, j *jobs.Job, creatorID string, remind int, auto bool, t time.Time) *Plan {
	ms := milestonesOf(j.Result, 1)
	return &Plan{
		ID: id, OrganizationID: j.OrganizationID, CreatorID: creatorID, Vertical: j.Vertical, Workflow: j.Workflow,
		Context: withoutAsOf(j.Context), Result: j.Result, Revision: 1, JobID: j.ID,
		AsOf: asOfOf(j.Result, j.Context), TimeZone: timeZoneOf(j.Context), State: stateOf(ms),
		Milestones: ms, RemindDaysBefore: remind, AutoReplan: auto, CreatedAt: t, UpdatedAt: t,
	}
}

// planCreate is the insert of p's row.
func planCreate(tx *ent.Client, p *Plan) *ent.PlanCreate {
	return tx.Plan.Create().
		SetID(p.ID).SetOrganizationID(p.OrganizationID).SetCreatorID(p.CreatorID).
		SetVertical(p.Vertical).SetWorkflow(p.Workflow).SetContext(ofJob()).SetResult(ofJob()).
		SetRevision(p.Revision).SetJobID(p.JobID).SetAsOf(p.AsOf).SetTimeZone(p.TimeZone).SetState(p.State).
		SetRemindDaysBefore(p.RemindDaysBefore).SetAutoReplan(p.AutoReplan).
		// Without a next check (nothing pending) the column's default, 0,
		// has the first scan settle it.
		SetNillableNextCheck(nextCheck(p, p.Milestones, p.CreatedAt, true)).
		SetCreatedAt(p.CreatedAt).SetUpdatedAt(p.UpdatedAt)
}

func milestoneCreate(tx *ent.Client, p *Plan, m Milestone, position int) *ent.PlanMilestoneCreate {
	return tx.PlanMilestone.Create().
		SetPlanID(p.ID).SetOrganizationID(p.OrganizationID).SetKey(m.Key).SetTitle(m.Title).SetDate(m.Date).
		SetDeliverable(m.Deliverable).SetPosition(position).SetState(m.State).SetNillableDoneAt(m.DoneAt).
		SetRevision(m.Revision).SetCurrent(m.Current)
}

// Get returns a plan of the organization.
func (s *Service) Get(ctx context.Context, orgID, id string) (*Plan, error) {
	return get(ctx, s.store.Read, orgID, id)
}

func get(ctx context.Context, c *ent.Client, orgID, id string) (*Plan, error) {
	row, err := c.Plan.Query().Where(plan.ID(id), plan.OrganizationID(orgID)).Only(ctx)
	if ent.IsNotFound(err) {
		return nil, apierror.NotFound("plan", id)
	}
	if err != nil {
		return nil, err
	}
	p := fromEnt(row)
	if err := documents(ctx, c, orgID, []*Plan{p}); err != nil {
		return nil, err
	}
	ms, err := c.PlanMilestone.Query().Where(planmilestone.PlanID(id), planmilestone.OrganizationID(orgID)).All(ctx)
	if err != nil {
		return nil, err
	}
	p.Milestones = milestonesFromEnt(ms)
	return p, nil
}

// A plan's context and result are those of the job that made its current
// revision (JobID): the job keeps them (GET /v1/engine/status shows them),
// and the plan's row holds an empty document in their place instead of a
// second copy, which was a third of a tracked plan's bytes. The context is
// the job's without as_of (the plan's AsOf says it), exactly as the plan
// took it when it kept a copy. Rows written before keep their copies,
// which read back as they are until Compact drops them.

// ofJob is what a plan's context and result columns hold when the plan's
// job holds them: an empty document (no workflow run has an empty result).
func ofJob() map[string]any { return map[string]any{} }

// documents fills in the context and result of the plans (read in full, of
// organization orgID) that take them from their jobs, with one query.
func documents(ctx context.Context, c *ent.Client, orgID string, ps []*Plan) error {
	var jobIDs []string
	for _, p := range ps {
		if len(p.Result) == 0 {
			jobIDs = append(jobIDs, p.JobID)
		}
	}
	if len(jobIDs) == 0 {
		return nil
	}
	rows, err := c.Job.Query().Where(job.OrganizationID(orgID), job.IDIn(jobIDs...)).
		Select(job.FieldID, job.FieldContext, job.FieldResult).All(ctx)
	if err != nil {
		return err
	}
	byID := make(map[string]*ent.Job, len(rows))
	for _, r := range rows {
		byID[r.ID] = r
	}
	for _, p := range ps {
		if len(p.Result) > 0 {
			continue
		}
		j, ok := byID[p.JobID]
		if !ok {
			return fmt.Errorf("plan %s: its job %s is missing", p.ID, p.JobID)
		}
		p.Context, p.Result = withoutAsOf(j.Context), j.Result
	}
	return nil
}

// ListQuery selects a page of plans, newest first.
type ListQuery struct {
	CreatorID, Vertical, State string // empty: any
	After                      string // the last id of the previous page
	Limit                      int
	// Basic leaves each plan's context and result unread: a list of plans
	// shows their milestones, and the two documents were nearly all of a
	// large plan's bytes and of the time to read it.
	Basic bool
}

// basicColumns are a plan's columns but its context and result.
var basicColumns = func() []string {
	var out []string
	for _, c := range plan.Columns {
		if c != plan.FieldContext && c != plan.FieldResult {
			out = append(out, c)
		}
	}
	return out
}()

// List returns up to q.Limit plans of the organization after q.After.
func (s *Service) List(ctx context.Context, orgID string, q ListQuery) ([]*Plan, error) {
	query := s.store.Read.Plan.Query().Where(plan.OrganizationID(orgID))
	if q.Vertical != "" {
		if err := engine.CheckVertical("vertical", q.Vertical); err != nil {
			return nil, err
		}
		query = query.Where(plan.Vertical(q.Vertical))
	}
	if q.CreatorID != "" {
		query = query.Where(plan.CreatorID(q.CreatorID))
	}
	if q.State != "" {
		query = query.Where(plan.State(q.State))
	}
	if q.After != "" {
		query = query.Where(plan.IDLT(q.After))
	}
	query = query.Order(ent.Desc(plan.FieldID)).Limit(q.Limit)
	if q.Basic {
		query.Select(basicColumns...)
	}
	rows, err := query.All(ctx)
	if err != nil || len(rows) == 0 {
		return nil, err
	}
	out := make([]*Plan, len(rows))
	byID := make(map[string]*Plan, len(rows))
	planIDs := make([]string, len(rows))
	for i, r := range rows {
		out[i] = fromEnt(r)
		byID[r.ID], planIDs[i] = out[i], r.ID
	}
	ms, err := s.store.Read.PlanMilestone.Query().
		Where(planmilestone.PlanIDIn(planIDs...), planmilestone.OrganizationID(orgID)).All(ctx)
	if err != nil {
		return nil, err
	}
	grouped := map[string][]*ent.PlanMilestone{}
	for _, m := range ms {
		grouped[m.PlanID] = append(grouped[m.PlanID], m)
	}
	for id, p := range byID {
		p.Milestones = milestonesFromEnt(grouped[id])
	}
	if !q.Basic {
		if err := documents(ctx, s.store.Read, orgID, out); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// Settings are a plan's settings to change; nil leaves one as it is.
type Settings struct {
	RemindDaysBefore *int
	AutoReplan       *bool
}

// Update changes a plan's settings.
func (s *Service) Update(ctx context.Context, orgID, id string, in Settings) (*Plan, error) {
	var p *Plan
	err := s.store.Tx(ctx, func(ctx context.Context, tx *ent.Client, _ *sql.Tx) error {
		t := s.now()
		upd := tx.Plan.Update().Where(plan.ID(id), plan.OrganizationID(orgID)).SetUpdatedAt(t)
		if in.RemindDaysBefore != nil {
			upd.SetRemindDaysBefore(*in.RemindDaysBefore)
		}
		if in.AutoReplan != nil {
			upd.SetAutoReplan(*in.AutoReplan)
		}
		n, err := upd.Save(ctx)
		if err != nil {
			return err
		}
		if n == 0 {
			return apierror.NotFound("plan", id)
		}
		if p, err = get(ctx, tx, orgID, id); err != nil {
			return err
		}
		// Other settings, other reminder days.
		return setNextCheck(tx.Plan.Update().Where(plan.ID(id)), nextCheck(p, p.Milestones, t, true)).Exec(ctx)
	})
	if err != nil {
		return nil, err
	}
	return p, nil
}

// Delete stops tracking a plan: its milestones and reminders go with it,
// and the deletion is audited.
func (s *Service) Delete(ctx context.Context, orgID, id string) error {
	return s.store.Tx(ctx, func(ctx context.Context, tx *ent.Client, _ *sql.Tx) error {
		row, err := tx.Plan.Query().Where(plan.ID(id), plan.OrganizationID(orgID)).Only(ctx)
		if ent.IsNotFound(err) {
			return apierror.NotFound("plan", id)
		}
		if err != nil {
			return err
		}
		if _, err := tx.Plan.Delete().Where(plan.ID(id), plan.OrganizationID(orgID)).Exec(ctx); err != nil {
			return err
		}
		if _, err := tx.PlanMilestone.Delete().Where(planmilestone.PlanID(id), planmilestone.OrganizationID(orgID)).Exec(ctx); err != nil {
			return err
		}
		if _, err := tx.PlanReminder.Delete().Where(planreminder.PlanID(id)).Exec(ctx); err != nil {
			return err
		}
		// The jobs that made the plan (its run, its re-plans) no longer
		// name it: the dashboard linked them to a 404, and a job naming a
		// plan can never be tracked again.
		if _, err := tx.Job.Update().Where(job.OrganizationID(orgID), job.PlanID(id)).SetPlanID("").Save(ctx); err != nil {
			return err
		}
		return audit.Record(ctx, tx, audit.Entry{
			OrganizationID: orgID, Action: audit.PlanDeleted, TargetType: audit.TargetPlan, TargetID: id,
			Details: map[string]string{"vertical": row.Vertical, "workflow": row.Workflow, "revision": fmt.Sprint(row.Revision)},
		})
	})
}

// Complete marks a milestone done.
func (s *Service) Complete(ctx context.Context, orgID, id, key string) (*Plan, error) {
	return s.setState(ctx, orgID, id, key, Done)
}

// Skip marks a milestone skipped: not done, and no longer reminded.
func (s *Service) Skip(ctx context.Context, orgID, id, key string) (*Plan, error) {
	return s.setState(ctx, orgID, id, key, Skipped)
}

// Reopen returns a milestone to pending.
func (s *Service) Reopen(ctx context.Context, orgID, id, key string) (*Plan, error) {
	return s.setState(ctx, orgID, id, key, Pending)
}

func (s *Service) setState(ctx context.Context, orgID, id, key, state string) (*Plan, error) {
	var p *Plan
	err := s.store.Tx(ctx, func(ctx context.Context, tx *ent.Client, _ *sql.Tx) error {
		t := s.now()
		// The plan's row first: a re-plan updates it first too, so the two
		// take turns on PostgreSQL instead of interleaving.
		n, err := tx.Plan.Update().Where(plan.ID(id), plan.OrganizationID(orgID)).SetUpdatedAt(t).Save(ctx)
		if err != nil {
			return err
		}
		if n == 0 {
			return apierror.NotFound("plan", id)
		}
		m, err := tx.PlanMilestone.Query().Where(planmilestone.PlanID(id), planmilestone.OrganizationID(orgID), planmilestone.Key(key)).Only(ctx)
		if ent.IsNotFound(err) {
			e := apierror.NotFound("milestone", key)
			e.Metadata["plan_id"] = id
			e.Message = fmt.Sprintf("plan %s has no milestone %q", id, key)
			return e
		}
		if err != nil {
			return err
		}
		if !m.Current {
			e := apierror.New(codes.FailedPrecondition, "MILESTONE_REMOVED",
				fmt.Sprintf("milestone %q is no longer in plan %s (kept because it was %s); it cannot change", key, id, m.State))
			e.Metadata = map[string]string{"plan_id": id, "key": key}
			return e
		}
		if m.State != state {
			upd := tx.PlanMilestone.UpdateOne(m).SetState(state)
			if state == Pending {
				upd.ClearDoneAt()
			} else {
				upd.SetDoneAt(t)
			}
			if err := upd.Exec(ctx); err != nil {
				return err
			}
		}
		if p, err = get(ctx, tx, orgID, id); err != nil {
			return err
		}
		upd := tx.Plan.Update().Where(plan.ID(id))
		if st := stateOf(p.Milestones); st != p.State {
			p.State = st
			upd.SetState(st)
		}
		// A reopened milestone may be due (or overdue) now; a done one no
		// longer is.
		return setNextCheck(upd, nextCheck(p, p.Milestones, t, true)).Exec(ctx)
	})
	if err != nil {
		return nil, err
	}
	return p, nil
}

// Replan asks for a re-plan: Context holds the context fields to change
// (a nil value removes one), AsOf the date to plan as of (empty: today in
// the plan's time zone).
type Replan struct {
	Context map[string]any
	AsOf    string
}

// errStale: the plan changed revision since it was read.
var errStale = errors.New("plans: the plan changed revision while it was re-planned")

// Replan runs the plan's workflow again and makes the result the next
// revision: done and skipped milestones keep their state and date, pending
// ones take the new dates and titles, new ones are added, and pending ones
// the workflow no longer makes are removed. keyID is the caller's key, for
// the re-plan's job. The plan.replanned event commits with it.
func (s *Service) Replan(ctx context.Context, orgID, keyID, id string, in Replan) (*Plan, []Change, error) {
	cur, err := s.Get(ctx, orgID, id)
	if err != nil {
		return nil, nil, err
	}
	p, changes, err := s.replan(ctx, cur, keyID, in, Manual)
	if errors.Is(err, errStale) {
		e := apierror.New(codes.Aborted, "PLAN_CHANGED", fmt.Sprintf("plan %s was re-planned while this re-plan ran; read it again and retry", id))
		e.Metadata = map[string]string{"plan_id": id}
		return nil, nil, e
	}
	return p, changes, err
}

// replan makes cur's next revision, if cur is still the current one.
func (s *Service) replan(ctx context.Context, cur *Plan, keyID string, in Replan, trigger string) (*Plan, []Change, error) {
	wf, err := jobs.Lookup(cur.Vertical, cur.Workflow)
	if err != nil {
		return nil, nil, err
	}
	// Merged into the plan's context, a field named twice would keep one
	// of its values at random: refused, as a run with it is.
	if vs := engine.DuplicateKeys(in.Context, "context"); len(vs) > 0 {
		return nil, nil, engine.NewContextError(vs)
	}
	merged := maps.Clone(cur.Context)
	if merged == nil {
		merged = map[string]any{}
	}
	for k, v := range in.Context {
		k = engine.ContextKey(k)
		if v == nil {
			delete(merged, k)
		} else {
			merged[k] = v
		}
	}
	if in.AsOf != "" {
		if _, err := engine.ParseDate(in.AsOf); err != nil {
			return nil, nil, apierror.InvalidField("as_of", err.Error())
		}
		merged[engine.AsOfField] = in.AsOf
	}
	startedAt := s.now()
	prepared, err := wf.PrepareAt(merged, startedAt)
	if err != nil {
		return nil, nil, err
	}
	result, runErr := wf.Run(ctx, prepared, startedAt, nil)
	if runErr != nil {
		if ctx.Err() != nil {
			return nil, nil, ctx.Err()
		}
		code, step := "STEP_FAILED", ""
		var se *engine.StepError
		if errors.As(runErr, &se) {
			code, step = se.Code, se.Step
		}
		e := apierror.New(codes.FailedPrecondition, "REPLAN_FAILED", fmt.Sprintf("the workflow failed (%s): %v; the plan is unchanged", code, runErr))
		e.Metadata = map[string]string{"plan_id": cur.ID, "step": step, "code": code}
		return nil, nil, e
	}
	completedAt := s.now()
	rev := cur.Revision + 1
	runJob := &jobs.Job{
		ID: ids.New(ids.Job), OrganizationID: cur.OrganizationID, KeyID: keyID, Status: jobs.Completed,
		Vertical: cur.Vertical, Workflow: cur.Workflow, Context: prepared.Values(), Result: result,
		Progress: 100, Attempts: 1, PlanID: cur.ID, CreatorID: cur.CreatorID,
		CreatedAt: startedAt, StartedAt: &startedAt, CompletedAt: &completedAt,
	}
	jobData, err := s.events.Encode(runJob)
	if err != nil {
		return nil, nil, err
	}
	next := milestonesOf(result, rev)
	var (
		out     *Plan
		changes []Change
	)
	err = s.store.Tx(ctx, func(ctx context.Context, tx *ent.Client, sqlTx *sql.Tx) error {
		// The revision is the guard: of two re-plans of one revision (two
		// replicas' scans, or a scan and a caller), one commits.
		n, err := tx.Plan.Update().
			Where(plan.ID(cur.ID), plan.OrganizationID(cur.OrganizationID), plan.Revision(cur.Revision)).
			SetRevision(rev).SetContext(ofJob()).SetResult(ofJob()).
			SetAsOf(asOfOf(result, prepared.Values())).SetTimeZone(timeZoneOf(prepared.Values())).
			SetJobID(runJob.ID).SetUpdatedAt(completedAt).
			Save(ctx)
		if err != nil {
			return err
		}
		if n == 0 {
			return errStale
		}
		// The plan reads its context and result from this job.
		if err := jobs.Insert(ctx, tx, runJob); err != nil {
			return err
		}
		rows, err := tx.PlanMilestone.Query().Where(planmilestone.PlanID(cur.ID), planmilestone.OrganizationID(cur.OrganizationID)).All(ctx)
		if err != nil {
			return err
		}
		if changes, err = applyRevision(ctx, tx, cur, rows, next, rev); err != nil {
			return err
		}
		if out, err = get(ctx, tx, cur.OrganizationID, cur.ID); err != nil {
			return err
		}
		upd := tx.Plan.Update().Where(plan.ID(cur.ID))
		if st := stateOf(out.Milestones); st != out.State {
			out.State = st
			upd.SetState(st)
		}
		// New dates, new reminder days.
		if err := setNextCheck(upd, nextCheck(out, out.Milestones, completedAt, true)).Exec(ctx); err != nil {
			return err
		}
		if _, err := s.events.EmitEncoded(ctx, tx, sqlTx, cur.OrganizationID, events.JobCompleted, jobData); err != nil {
			return err
		}
		_, err = s.events.Emit(ctx, tx, sqlTx, cur.OrganizationID, events.PlanReplanned, &ReplannedEvent{Plan: out, Changes: changes, Trigger: trigger})
		return err
	})
	if err != nil {
		return nil, nil, err
	}
	return out, changes, nil
}

// applyRevision turns the stored milestones (rows) into revision rev's
// (next) and returns what changed.
func applyRevision(ctx context.Context, tx *ent.Client, cur *Plan, rows []*ent.PlanMilestone, next []Milestone, rev int) ([]Change, error) {
	old := make(map[string]*ent.PlanMilestone, len(rows))
	for _, r := range rows {
		old[r.Key] = r
	}
	var changes []Change
	seen := make(map[string]bool, len(next))
	for pos, m := range next {
		seen[m.Key] = true
		r, ok := old[m.Key]
		if !ok {
			if err := milestoneCreate(tx, cur, m, pos).Exec(ctx); err != nil {
				return nil, err
			}
			changes = append(changes, Change{Key: m.Key, Title: m.Title, Change: Added, ToDate: m.Date})
			continue
		}
		upd := tx.PlanMilestone.UpdateOne(r).SetPosition(pos).SetCurrent(true)
		if r.State != Pending {
			// Done and skipped milestones are history: they keep their
			// date and title; the change says where the plan would have
			// put them.
			if r.Date != m.Date {
				changes = append(changes, Change{Key: r.Key, Title: r.Title, Change: Kept, FromDate: r.Date, ToDate: r.Date})
			}
		} else {
			if r.Date != m.Date || r.Title != m.Title {
				upd.SetDate(m.Date).SetTitle(m.Title).SetRevision(rev)
			}
			if r.Date != m.Date {
				changes = append(changes, Change{Key: m.Key, Title: m.Title, Change: Moved, FromDate: r.Date, ToDate: m.Date})
			}
			upd.SetDeliverable(m.Deliverable)
		}
		if err := upd.Exec(ctx); err != nil {
			return nil, err
		}
	}
	for _, r := range rows {
		if seen[r.Key] || !r.Current {
			continue
		}
		changes = append(changes, Change{Key: r.Key, Title: r.Title, Change: Removed, FromDate: r.Date})
		var err error
		if r.State == Pending {
			err = tx.PlanMilestone.DeleteOne(r).Exec(ctx)
		} else {
			err = tx.PlanMilestone.UpdateOne(r).SetCurrent(false).Exec(ctx)
		}
		if err != nil {
			return nil, err
		}
	}
	return changes, nil
}

// milestonesOf reads a run's milestones (timeline.milestones) as pending
// milestones of revision rev, in the run's order; a key the run repeats
// keeps its first milestone.
func milestonesOf(result map[string]any, rev int) []Milestone {
	timeline, _ := result["timeline"].(map[string]any)
	list, _ := timeline["milestones"].([]any)
	out := make([]Milestone, 0, len(list))
	seen := map[string]bool{}
	for _, v := range list {
		m, _ := v.(map[string]any)
		key, _ := m["key"].(string)
		if key == "" || seen[key] {
			continue
		}
		seen[key] = true
		title, _ := m["title"].(string)
		date, _ := m["date"].(string)
		deliverable, _ := m["deliverable"].(bool)
		out = append(out, Milestone{Key: key, Title: title, Date: date, Deliverable: deliverable, State: Pending, Revision: rev, Current: true})
	}
	return out
}

// stateOf is a plan's state given its milestones.
func stateOf(ms []Milestone) string {
	if slices.ContainsFunc(ms, func(m Milestone) bool { return m.Current && m.State == Pending }) {
		return Active
	}
	return Completed
}

func withoutAsOf(ctx map[string]any) map[string]any {
	out := maps.Clone(ctx)
	if out == nil {
		out = map[string]any{}
	}
	delete(out, engine.AsOfField)
	return out
}

func asOfOf(result, ctx map[string]any) string {
	if s, ok := result["as_of"].(string); ok {
		return s
	}
	s, _ := ctx[engine.AsOfField].(string)
	return s
}

func timeZoneOf(ctx map[string]any) string {
	if tz, ok := ctx[engine.TimeZoneField].(string); ok && tz != "" {
		return tz
	}
	return "UTC"
}

// today is the date of now in the time zone tz (UTC when it does not
// load), as YYYY-MM-DD.
func today(now time.Time, tz string) string {
	loc, err := engine.LoadTimeZone(tz)
	if err != nil {
		loc = time.UTC
	}
	return now.In(loc).Format(time.DateOnly)
}

func fromEnt(p *ent.Plan) *Plan {
	return &Plan{
		ID: p.ID, OrganizationID: p.OrganizationID, CreatorID: p.CreatorID, Vertical: p.Vertical, Workflow: p.Workflow,
		Context: p.Context, Result: p.Result, Revision: p.Revision, JobID: p.JobID, AsOf: p.AsOf, TimeZone: p.TimeZone,
		State: p.State, RemindDaysBefore: p.RemindDaysBefore, AutoReplan: p.AutoReplan, FeedActive: p.FeedTokenHash != "",
		CreatedAt: p.CreatedAt, UpdatedAt: p.UpdatedAt,
	}
}

// milestonesFromEnt orders milestones as a timeline: by date, then by
// their place in the current revision.
func milestonesFromEnt(rows []*ent.PlanMilestone) []Milestone {
	slices.SortFunc(rows, func(a, b *ent.PlanMilestone) int {
		if a.Date != b.Date {
			if a.Date < b.Date {
				return -1
			}
			return 1
		}
		return a.Position - b.Position
	})
	out := make([]Milestone, len(rows))
	for i, r := range rows {
		out[i] = Milestone{Key: r.Key, Title: r.Title, Date: r.Date, Deliverable: r.Deliverable, State: r.State,
			DoneAt: r.DoneAt, Revision: r.Revision, Current: r.Current}
	}
	return out
}

// Compact drops the copies of their jobs' context and result that plans
// stored before a plan read them from its job (see ofJob): a plan whose
// copy equals its job's, as every copy did when written, reads the same
// afterwards; one that differs (which no version wrote) keeps its copy.
// It pages through every plan once, by id, a page to a transaction, so it
// is for `creativeops migrate`, not for every start; plans it has done
// cost only their row's read on a second run. It returns how many plans
// it changed.
func (s *Service) Compact(ctx context.Context) (int, error) {
	const page = 200
	changed, after := 0, ""
	for {
		q := s.store.Read.Plan.Query().Order(ent.Asc(plan.FieldID)).Limit(page)
		if after != "" {
			q = q.Where(plan.IDGT(after))
		}
		rows, err := q.Select(plan.FieldID, plan.FieldOrganizationID, plan.FieldJobID, plan.FieldContext, plan.FieldResult, plan.FieldUpdatedAt).All(ctx)
		if err != nil || len(rows) == 0 {
			return changed, err
		}
		after = rows[len(rows)-1].ID
		var copies []*ent.Plan
		var jobIDs []string
		for _, r := range rows {
			if len(r.Result) > 0 {
				copies = append(copies, r)
				jobIDs = append(jobIDs, r.JobID)
			}
		}
		if len(copies) == 0 {
			continue
		}
		js, err := s.store.Read.Job.Query().Where(job.IDIn(jobIDs...)).
			Select(job.FieldID, job.FieldOrganizationID, job.FieldContext, job.FieldResult).All(ctx)
		if err != nil {
			return changed, err
		}
		byID := make(map[string]*ent.Job, len(js))
		for _, j := range js {
			byID[j.ID] = j
		}
		err = s.store.Tx(ctx, func(ctx context.Context, tx *ent.Client, _ *sql.Tx) error {
			for _, r := range copies {
				j, ok := byID[r.JobID]
				if !ok || j.OrganizationID != r.OrganizationID || len(j.Result) == 0 ||
					!sameJSON(withoutAsOf(j.Context), r.Context) || !sameJSON(j.Result, r.Result) {
					continue
				}
				// Only while the plan is still at that job's revision; it
				// reads as it did, updated_at included.
				n, err := tx.Plan.Update().Where(plan.ID(r.ID), plan.JobID(r.JobID), plan.UpdatedAt(r.UpdatedAt)).
					SetContext(ofJob()).SetResult(ofJob()).SetUpdatedAt(r.UpdatedAt).Save(ctx)
				if err != nil {
					return err
				}
				changed += n
			}
			return nil
		})
		if err != nil {
			return changed, err
		}
	}
}

// sameJSON reports whether a and b encode to the same JSON, as the API
// would show them.
func sameJSON(a, b map[string]any) bool {
	x, err1 := json.Marshal(a)
	y, err2 := json.Marshal(b)
	return err1 == nil && err2 == nil && bytes.Equal(x, y)
}
