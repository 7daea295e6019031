package plans

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"time"

	entsql "entgo.io/ent/dialect/sql"
	"github.com/riverqueue/river"

	"github.com/creativeops/creativeops/apierror"
	"github.com/creativeops/creativeops/audit"
	"github.com/creativeops/creativeops/engine"
	"github.com/creativeops/creativeops/ent"
	"github.com/creativeops/creativeops/ent/plan"
	"github.com/creativeops/creativeops/ent/planmilestone"
	"github.com/creativeops/creativeops/ent/planreminder"
	"github.com/creativeops/creativeops/ent/predicate"
	"github.com/creativeops/creativeops/events"
)

// Reminder kinds: one reminder of each per milestone and revision of its
// date, at most.
const (
	// DueBefore: remind_days_before days (or fewer) before the date.
	DueBefore = "due_before"
	// DueToday: on the date.
	DueToday = "due_today"
	// Overdue: the date passed and the milestone is still pending.
	Overdue = "overdue"
)

// Queue is the River queue of the reminder scans and their batches.
const Queue = "plans"

// DefaultScanInterval is how often due plans are looked for.
const DefaultScanInterval = time.Minute

// BatchSize is how many due plans one batch (a plans.remind job) works,
// and so the size of every page and IN list of the scan: nothing the scan
// sends to the database grows with the number of plans.
const BatchSize = 100

// claimFor is how long a batch has to work its plans before a later scan
// hands them out again: a batch that failed, or whose replica died, is
// retried when its claim lapses.
const claimFor = 10 * time.Minute

// maxBatchesPerScan bounds what one scan hands out (BatchSize plans
// each); whatever is left is due still, and the next scan's.
const maxBatchesPerScan = 1000

// ScanArgs is the periodic River job that finds the plans due now and
// hands them out in batches (RemindArgs).
type ScanArgs struct{}

// Kind names the River job kind.
func (ScanArgs) Kind() string { return "plans.scan" }

// InsertOpts puts scans on their queue.
func (ScanArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: Queue, MaxAttempts: 3}
}

// RemindArgs is one batch of due plans: any replica's worker re-plans
// those whose deliverables slipped and sends their due reminders.
type RemindArgs struct {
	PlanIDs []string `json:"plan_ids"`
}

// Kind names the River job kind.
func (RemindArgs) Kind() string { return "plans.remind" }

// InsertOpts puts batches on the scans' queue.
func (RemindArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: Queue, MaxAttempts: 3}
}

// PeriodicScan is the periodic job that enqueues a scan every interval;
// River's leader enqueues it, so several replicas enqueue one between
// them. It also runs when the leader starts, so a restart catches up
// at once. One scan per interval at most (River's uniqueness, which
// counts in whole seconds, so a shorter interval scans once a second).
func PeriodicScan(interval time.Duration) *river.PeriodicJob {
	period := max(interval, time.Second)
	return river.NewPeriodicJob(river.PeriodicInterval(interval), func() (river.JobArgs, *river.InsertOpts) {
		return ScanArgs{}, &river.InsertOpts{UniqueOpts: river.UniqueOpts{ByPeriod: period}}
	}, &river.PeriodicJobOpts{ID: "plans.scan", RunOnStart: true})
}

// What failed, for Failed (the metric's label).
const (
	// StageScan: the scan could not read or hand out the due plans.
	StageScan = "scan"
	// StageBatch: a batch could not read its plans (River retries it).
	StageBatch = "batch"
	// StagePlan: one plan's re-plan or reminders failed; the others of
	// its batch went on, and the plan is tried again when its claim
	// lapses.
	StagePlan = "plan"
)

// Failed is told of every failure of the scan, by stage (a metric).
type Failed func(stage string)

// ScanWorker works the scans: it enqueues the batches through queue.
type ScanWorker struct {
	river.WorkerDefaults[ScanArgs]
	plans  *Service
	queue  *river.Client[*sql.Tx]
	log    *slog.Logger
	failed Failed
}

// NewScanWorker returns the worker of the scans, reading through s and
// enqueueing batches on queue; failures are logged on log and told to
// failed.
func NewScanWorker(s *Service, queue *river.Client[*sql.Tx], log *slog.Logger, failed Failed) *ScanWorker {
	return &ScanWorker{plans: s, queue: queue, log: log, failed: failed}
}

// Work runs one scan.
func (w *ScanWorker) Work(ctx context.Context, job *river.Job[ScanArgs]) error {
	n, err := w.plans.Dispatch(ctx, w.queue)
	if err != nil && ctx.Err() == nil {
		w.log.Error("plan reminder scan failed", "error", err, "batches_enqueued", n, "attempt", job.Attempt)
		w.failed(StageScan)
	}
	return err
}

// RemindWorker works the batches the scans hand out.
type RemindWorker struct {
	river.WorkerDefaults[RemindArgs]
	plans  *Service
	log    *slog.Logger
	failed Failed
}

// NewRemindWorker returns the worker of the batches, working through s;
// failures are logged on log and told to failed.
func NewRemindWorker(s *Service, log *slog.Logger, failed Failed) *RemindWorker {
	return &RemindWorker{plans: s, log: log, failed: failed}
}

// Work works one batch. A plan that fails is logged and left to its
// claim's lapse; only a batch that cannot read its plans fails (and is
// retried by River).
func (w *RemindWorker) Work(ctx context.Context, job *river.Job[RemindArgs]) error {
	// A plan's own failure is logged and counted by Remind.
	_, _, err := w.plans.Remind(ctx, job.Args.PlanIDs, w.log, w.failed)
	if err != nil && ctx.Err() == nil {
		w.log.Error("plan reminder batch failed", "error", err, "plans", len(job.Args.PlanIDs), "attempt", job.Attempt)
		w.failed(StageBatch)
	}
	return err
}

// Scanned counts what a scan did.
type Scanned struct {
	Replanned, Reminded int
	// Plans is how many due plans it worked.
	Plans int
}

func (s *Scanned) add(o Scanned) {
	s.Replanned += o.Replanned
	s.Reminded += o.Reminded
	s.Plans += o.Plans
}

// Scan works every plan due now on this replica, batch after batch
// (administration, and tests; the periodic scan hands the batches to the
// queue instead, so every replica works them). Each re-plan and reminder
// is guarded in the database, so scans may run at once on several
// replicas (or again after a crash) and each still happens once: a
// re-plan commits only on the revision it was made from, a reminder only
// with its plan_reminders row. A plan that fails does not stop the
// others (see Remind); their errors are returned together at the end.
func (s *Service) Scan(ctx context.Context, log *slog.Logger, failed Failed) (Scanned, error) {
	var done Scanned
	var failures []error
	now := s.clock.Now().Unix()
	var after *cursor
	for {
		page, err := s.duePage(ctx, now, after)
		if err != nil || len(page) == 0 {
			return done, errors.Join(append(failures, err)...)
		}
		n, errs, err := s.Remind(ctx, idsOf(page), log, failed)
		done.add(n)
		failures = append(failures, errs...)
		if err != nil || len(page) < BatchSize {
			return done, errors.Join(append(failures, err)...)
		}
		after = &page[len(page)-1]
	}
}

// Dispatch hands the plans due now to the queue in batches of BatchSize:
// each batch's job is inserted in the transaction that claims its plans
// (moves their next check claimFor ahead), so the next scans leave them to
// it. It returns how many batches it enqueued.
func (s *Service) Dispatch(ctx context.Context, queue *river.Client[*sql.Tx]) (int, error) {
	now := s.clock.Now()
	var after *cursor
	for n := 0; n < maxBatchesPerScan; n++ {
		page, err := s.duePage(ctx, now.Unix(), after)
		if err != nil || len(page) == 0 {
			return n, err
		}
		ids := idsOf(page)
		err = s.store.Tx(ctx, func(ctx context.Context, tx *ent.Client, sqlTx *sql.Tx) error {
			err := tx.Plan.Update().Where(plan.IDIn(ids...), plan.NextCheckLTE(now.Unix())).
				SetNextCheck(now.Add(claimFor).Unix()).Exec(ctx)
			if err != nil {
				return err
			}
			_, err = queue.InsertTx(ctx, sqlTx, RemindArgs{PlanIDs: ids}, nil)
			return err
		})
		if err != nil {
			return n, err
		}
		if len(page) < BatchSize {
			return n + 1, nil
		}
		after = &page[len(page)-1]
	}
	return maxBatchesPerScan, nil
}

// cursor is a place in the scan's keyset order, (next_check, id).
type cursor struct {
	at int64
	id string
}

// duePage reads the next BatchSize plans due at now (Unix seconds) after
// after (nil: from the start), in (next_check, id) order: a range of the
// plans' (next_check, id) index, so plans not due are never read.
func (s *Service) duePage(ctx context.Context, now int64, after *cursor) ([]cursor, error) {
	q := s.store.Read.Plan.Query().Where(plan.NextCheckLTE(now))
	if after != nil {
		q = q.Where(afterCursor(*after))
	}
	rows, err := q.Order(ent.Asc(plan.FieldNextCheck), ent.Asc(plan.FieldID)).Limit(BatchSize).
		Select(plan.FieldID, plan.FieldNextCheck).All(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]cursor, len(rows))
	for i, r := range rows {
		out[i] = cursor{id: r.ID}
		if r.NextCheck != nil {
			out[i].at = *r.NextCheck
		}
	}
	return out, nil
}

// afterCursor is (next_check, id) > (c.at, c.id): a row-value comparison,
// which both databases answer from the (next_check, id) index.
func afterCursor(c cursor) predicate.Plan {
	return func(s *entsql.Selector) {
		s.Where(entsql.P(func(b *entsql.Builder) {
			b.WriteString("("+s.C(plan.FieldNextCheck)+", "+s.C(plan.FieldID)+") > (").Args(c.at, c.id).WriteByte(')')
		}))
	}
}

func idsOf(page []cursor) []string {
	out := make([]string, len(page))
	for i, c := range page {
		out[i] = c.id
	}
	return out
}

// scanFields are the columns of a plan a scan reads: its settings, not
// its context and result.
var scanFields = []string{
	plan.FieldID, plan.FieldOrganizationID, plan.FieldCreatorID, plan.FieldVertical, plan.FieldWorkflow,
	plan.FieldRevision, plan.FieldJobID, plan.FieldAsOf, plan.FieldTimeZone, plan.FieldState,
	plan.FieldRemindDaysBefore, plan.FieldAutoReplan, plan.FieldCreatedAt, plan.FieldUpdatedAt,
}

// Remind works one batch of plans: for each, in order, the automatic
// re-plan if a deliverable slipped, then the reminders due, then its next
// check. A plan that fails is logged at ERROR, told to failed (nil: not
// told) and returned in errs; the others go on. err is a failure of the
// whole batch (its plans could not be read, or ctx ended).
func (s *Service) Remind(ctx context.Context, planIDs []string, log *slog.Logger, failed Failed) (done Scanned, errs []error, err error) {
	now := s.clock.Now()
	rows, err := s.store.Read.Plan.Query().Where(plan.IDIn(planIDs...)).Select(scanFields...).All(ctx)
	if err != nil {
		return done, nil, err
	}
	// In the batch's order, which is the scan's: the longest due first.
	pos := make(map[string]int, len(planIDs))
	for i, id := range planIDs {
		pos[id] = i
	}
	slices.SortFunc(rows, func(a, b *ent.Plan) int { return pos[a.ID] - pos[b.ID] })
	for _, row := range rows {
		n, err := s.remindPlan(ctx, fromEnt(row), now, log)
		done.add(n)
		if err == nil {
			continue
		}
		if ctx.Err() != nil {
			return done, errs, ctx.Err()
		}
		err = fmt.Errorf("plan %s: %w", row.ID, err)
		errs = append(errs, err)
		if log != nil {
			log.Error("plan reminders failed", "plan_id", row.ID, "organization_id", row.OrganizationID, "error", err)
		}
		if failed != nil {
			failed(StagePlan)
		}
	}
	return done, errs, nil
}

// remindPlan works one due plan (p holds its settings, not its
// milestones).
func (s *Service) remindPlan(ctx context.Context, p *Plan, now time.Time, log *slog.Logger) (Scanned, error) {
	done := Scanned{Plans: 1}
	day := today(now, p.TimeZone)
	// A plan with auto_replan whose current revision was made before today
	// and which has a pending deliverable dated before today is re-planned
	// as of today: once a day at most, so a plan the workflow cannot move
	// past today is not re-planned on every scan.
	if p.AutoReplan && p.State == Active && p.AsOf < day {
		slipped, err := s.store.Read.PlanMilestone.Query().Where(planmilestone.PlanID(p.ID), planmilestone.State(Pending),
			planmilestone.Current(true), planmilestone.Deliverable(true), planmilestone.DateLT(day)).Exist(ctx)
		if err != nil {
			return done, err
		}
		if slipped {
			ok, err := s.autoReplan(ctx, p, day, log)
			if err != nil {
				return done, err
			}
			if ok {
				done.Replanned++
			}
		}
	}
	n, err := s.sendDue(ctx, p.ID, now)
	done.Reminded = n
	return done, err
}

// autoReplan re-plans p as of day. A re-plan the workflow refuses (its
// context no longer passes the workflow's checks, say) is logged and the
// plan left as it is: its next check is the next day, when it is tried
// again (docs/plans.md says how to stop it).
func (s *Service) autoReplan(ctx context.Context, p *Plan, day string, log *slog.Logger) (bool, error) {
	full, err := get(ctx, s.store.Read, p.OrganizationID, p.ID)
	if err != nil {
		var notFound *apierror.Error
		if errors.As(err, &notFound) {
			return false, nil // deleted since
		}
		return false, err
	}
	_, _, err = s.replan(ctx, full, audit.ActorSystem, Replan{AsOf: day}, Automatic)
	var refused *apierror.Error
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, errStale):
		// Another scan or a caller re-planned it first.
		return false, nil
	case errors.As(err, &refused):
		if log != nil {
			log.Warn("automatic re-plan failed", "plan_id", p.ID, "organization_id", p.OrganizationID, "error", err)
		}
		return false, nil
	}
	return false, err
}

// sendDue sends, in one transaction, the reminders of the plan that are
// due and not sent yet, and sets the plan's next check. Each reminder
// commits with its plan_reminders row and its event; several replicas may
// work one plan at once, and each reminder is still sent once.
func (s *Service) sendDue(ctx context.Context, planID string, now time.Time) (int, error) {
	var sent int
	err := s.store.Tx(ctx, func(ctx context.Context, tx *ent.Client, sqlTx *sql.Tx) error {
		sent = 0
		// The plan's row first, as check-offs and re-plans do: on
		// PostgreSQL they take turns, and what is read next is what the
		// last of them committed.
		lock, args := entsql.Dialect(s.store.Dialect).Update(plan.Table).
			Set(plan.FieldNextCheck, entsql.Expr(plan.FieldNextCheck)).Where(entsql.EQ(plan.FieldID, planID)).Query()
		res, err := sqlTx.ExecContext(ctx, lock, args...)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			return err // deleted since: nothing to send
		}
		row, err := tx.Plan.Query().Where(plan.ID(planID)).Select(scanFields...).Only(ctx)
		if err != nil {
			return err
		}
		p := fromEnt(row)
		rows, err := tx.PlanMilestone.Query().Where(planmilestone.PlanID(planID), planmilestone.State(Pending), planmilestone.Current(true)).All(ctx)
		if err != nil {
			return err
		}
		ms := milestonesFromEnt(rows)
		type reminderKey struct {
			key, kind string
			revision  int
		}
		done := map[reminderKey]bool{}
		rs, err := tx.PlanReminder.Query().Where(planreminder.PlanID(planID)).
			Select(planreminder.FieldMilestoneKey, planreminder.FieldKind, planreminder.FieldRevision).All(ctx)
		if err != nil {
			return err
		}
		for _, r := range rs {
			done[reminderKey{r.MilestoneKey, r.Kind, r.Revision}] = true
		}
		day := today(now, p.TimeZone)
		for _, m := range ms {
			kind, days := reminderKind(m.Date, day, p.RemindDaysBefore)
			if kind == "" || done[reminderKey{m.Key, kind, m.Revision}] {
				continue
			}
			ok, err := s.send(ctx, tx, sqlTx, p, m, kind, days)
			if err != nil {
				return err
			}
			if ok {
				sent++
			}
		}
		return setNextCheck(tx.Plan.Update().Where(plan.ID(planID)), nextCheck(p, ms, now, false)).Exec(ctx)
	})
	return sent, err
}

// send records the reminder and emits its event inside the plan's
// transaction. The unique (plan, milestone, revision, kind) index has the
// last word: the row is inserted first, and only if it was not there
// already is the event emitted (false otherwise).
func (s *Service) send(ctx context.Context, tx *ent.Client, sqlTx *sql.Tx, p *Plan, m Milestone, kind string, days int) (bool, error) {
	typ := events.PlanMilestoneDue
	if kind == Overdue {
		typ = events.PlanMilestoneOverdue
	}
	data, err := s.events.Encode(&MilestoneEvent{Plan: p, Milestone: m, DaysUntil: days})
	if err != nil {
		return false, err
	}
	ins := entsql.Dialect(s.store.Dialect).Insert(planreminder.Table).
		Columns(planreminder.FieldPlanID, planreminder.FieldMilestoneKey, planreminder.FieldRevision,
			planreminder.FieldKind, planreminder.FieldEventID, planreminder.FieldCreatedAt).
		Values(p.ID, m.Key, m.Revision, kind, "", time.Now().UTC().Truncate(time.Microsecond)).
		OnConflict(entsql.DoNothing())
	query, args := ins.Query()
	res, err := sqlTx.ExecContext(ctx, query, args...)
	if err != nil {
		return false, fmt.Errorf("record reminder: %w", err)
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		return false, err
	}
	ev, err := s.events.EmitEncoded(ctx, tx, sqlTx, p.OrganizationID, typ, data)
	if err != nil {
		return false, err
	}
	// The row names its event once the event exists (event_id is
	// immutable to the domain: this is where it is first set).
	upd, args := entsql.Dialect(s.store.Dialect).Update(planreminder.Table).Set(planreminder.FieldEventID, ev.ID).
		Where(entsql.And(entsql.EQ(planreminder.FieldPlanID, p.ID), entsql.EQ(planreminder.FieldMilestoneKey, m.Key),
			entsql.EQ(planreminder.FieldRevision, m.Revision), entsql.EQ(planreminder.FieldKind, kind))).Query()
	if _, err := sqlTx.ExecContext(ctx, upd, args...); err != nil {
		return false, err
	}
	return true, nil
}

// reminderKind is the one reminder a pending milestone dated date needs
// on day, and the days until its date: the latest that applies, so a
// milestone whose earlier reminder was never sent (tracked a day before
// its date, or the service was down) gets the one that is true now rather
// than a burst of stale ones. "" when none is due yet.
func reminderKind(date, day string, remindDaysBefore int) (string, int) {
	d, err1 := time.Parse(time.DateOnly, date)
	t, err2 := time.Parse(time.DateOnly, day)
	if err1 != nil || err2 != nil {
		return "", 0
	}
	days := int(d.Sub(t).Hours() / 24)
	switch {
	case days < 0:
		return Overdue, days
	case days == 0:
		return DueToday, 0
	case days <= remindDaysBefore:
		return DueBefore, days
	}
	return "", days
}

// nextCheck is when the scan next needs plan p, whose pending milestones
// are among ms, as of now: the first midnight (in the plan's time zone)
// at which a pending milestone's reminder changes kind (remind_days_before
// days before its date, on its date, the day after), and for a plan with
// auto_replan whose deliverable slipped, the next midnight (its daily
// re-plan). nil when nothing will ever be due.
//
// With dueNow (a change by a caller: a new plan, a check-off, a re-plan,
// new settings), a milestone whose reminder applies today makes the plan
// due now: the scan sends it unless it was sent already. The scan itself
// passes false, having just sent what applies today.
func nextCheck(p *Plan, ms []Milestone, now time.Time, dueNow bool) *int64 {
	loc, err := engine.LoadTimeZone(p.TimeZone)
	if err != nil {
		loc = time.UTC
	}
	day := now.In(loc).Format(time.DateOnly)
	var next *int64
	consider := func(d time.Time) {
		t := midnight(d, loc).Unix()
		if next == nil || t < *next {
			next = &t
		}
	}
	for _, m := range ms {
		if m.State != Pending || !m.Current {
			continue
		}
		date, err := time.Parse(time.DateOnly, m.Date)
		if err != nil {
			continue // no date, no reminder
		}
		kind, _ := reminderKind(m.Date, day, p.RemindDaysBefore)
		if dueNow && kind != "" {
			t := now.Unix()
			return &t
		}
		var boundaries []time.Time
		if p.RemindDaysBefore > 0 {
			boundaries = append(boundaries, date.AddDate(0, 0, -p.RemindDaysBefore))
		}
		for _, b := range append(boundaries, date, date.AddDate(0, 0, 1)) {
			if b.Format(time.DateOnly) > day {
				consider(b)
				break
			}
		}
		if kind == Overdue && m.Deliverable && p.AutoReplan && p.State == Active {
			d, _ := time.Parse(time.DateOnly, day)
			consider(d.AddDate(0, 0, 1))
		}
	}
	return next
}

// setNextCheck sets next_check to next, or clears it (nil: never).
func setNextCheck(u *ent.PlanUpdate, next *int64) *ent.PlanUpdate {
	if next == nil {
		return u.ClearNextCheck()
	}
	return u.SetNextCheck(*next)
}

// midnight is the first moment of day d (a date at UTC midnight) in loc:
// its midnight, or where a clock change skips midnight, the first moment
// after it that is d there.
func midnight(d time.Time, loc *time.Location) time.Time {
	day := d.Format(time.DateOnly)
	t := time.Date(d.Year(), d.Month(), d.Day(), 0, 0, 0, 0, loc)
	for t.In(loc).Format(time.DateOnly) < day {
		t = t.Add(15 * time.Minute)
	}
	return t
}
