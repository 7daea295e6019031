package plans

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"time"

	entsql "entgo.io/ent/dialect/sql"
	"github.com/riverqueue/river"

	"github.com/creativeops/creativeops/audit"
	"github.com/creativeops/creativeops/ent"
	"github.com/creativeops/creativeops/ent/plan"
	"github.com/creativeops/creativeops/ent/planmilestone"
	"github.com/creativeops/creativeops/ent/planreminder"
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

// Queue is the River queue of the reminder scans.
const Queue = "plans"

// DefaultScanInterval is how often due milestones are looked for.
const DefaultScanInterval = time.Minute

// maxHorizonDays bounds how far ahead a reminder can be due: the largest
// remind_days_before (60, the proto's bound) and a day for the time zones
// ahead of UTC.
const maxHorizonDays = 61

// ScanArgs is the River job that looks for due milestones and slipped
// deliverables.
type ScanArgs struct{}

// Kind names the River job kind.
func (ScanArgs) Kind() string { return "plans.scan" }

// InsertOpts puts scans on their queue.
func (ScanArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: Queue, MaxAttempts: 3}
}

// PeriodicScan is the periodic job that enqueues a scan every interval;
// River's leader enqueues it, so several replicas enqueue one between
// them. It also runs when the leader starts, so a restart catches up
// at once.
func PeriodicScan(interval time.Duration) *river.PeriodicJob {
	return river.NewPeriodicJob(river.PeriodicInterval(interval), func() (river.JobArgs, *river.InsertOpts) {
		return ScanArgs{}, &river.InsertOpts{UniqueOpts: river.UniqueOpts{ByPeriod: interval}}
	}, &river.PeriodicJobOpts{ID: "plans.scan", RunOnStart: true})
}

// ScanWorker works the scans.
type ScanWorker struct {
	river.WorkerDefaults[ScanArgs]
	plans *Service
	log   *slog.Logger
}

// NewScanWorker returns the worker of the scans, working through s.
func NewScanWorker(s *Service, log *slog.Logger) *ScanWorker { return &ScanWorker{plans: s, log: log} }

// Work runs one scan.
func (w *ScanWorker) Work(ctx context.Context, _ *river.Job[ScanArgs]) error {
	_, err := w.plans.Scan(ctx, w.log)
	return err
}

// Scanned counts what a scan did.
type Scanned struct {
	Replanned, Reminded int
}

// Scan re-plans the plans whose deliverables slipped, then sends the
// reminders that are due. Each is guarded in the database, so scans may
// run at once on several replicas (or again after a crash) and each
// re-plan and reminder still happens once: a re-plan commits only on the
// revision it was made from, a reminder only with its plan_reminders row.
func (s *Service) Scan(ctx context.Context, log *slog.Logger) (Scanned, error) {
	var done Scanned
	now := s.clock.Now()
	n, err := s.autoReplan(ctx, now, log)
	done.Replanned = n
	if err != nil {
		return done, err
	}
	done.Reminded, err = s.remind(ctx, now)
	return done, err
}

// autoReplan re-plans, as of today, every plan with auto_replan whose
// current revision was made before today and which has a pending
// deliverable dated before today. A plan whose re-plan fails (its context
// no longer passes the workflow's checks, say) is logged and left as it
// is; every later scan tries again (docs/plans.md says how to stop it).
func (s *Service) autoReplan(ctx context.Context, now time.Time, log *slog.Logger) (int, error) {
	// Dates are compared as text (YYYY-MM-DD); UTC's tomorrow bounds every
	// zone's today.
	latest := now.UTC().AddDate(0, 0, 1).Format(time.DateOnly)
	slipped, err := s.store.Read.PlanMilestone.Query().
		Where(planmilestone.State(Pending), planmilestone.Current(true), planmilestone.Deliverable(true), planmilestone.DateLT(latest)).
		Select(planmilestone.FieldPlanID).Strings(ctx)
	if err != nil || len(slipped) == 0 {
		return 0, err
	}
	rows, err := s.store.Read.Plan.Query().
		Where(plan.IDIn(unique(slipped)...), plan.AutoReplan(true), plan.State(Active)).All(ctx)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, row := range rows {
		p := fromEnt(row)
		day := today(now, p.TimeZone)
		if p.AsOf >= day {
			// Already planned as of today: once a day at most, so a plan
			// the workflow cannot move past today is not re-planned on
			// every scan.
			continue
		}
		ms, err := s.store.Read.PlanMilestone.Query().Where(planmilestone.PlanID(p.ID)).All(ctx)
		if err != nil {
			return n, err
		}
		p.Milestones = milestonesFromEnt(ms)
		if !hasSlipped(p.Milestones, day) {
			continue
		}
		_, _, err = s.replan(ctx, p, audit.ActorSystem, Replan{AsOf: day}, Automatic)
		switch {
		case errors.Is(err, errStale):
			// Another scan or a caller re-planned it first.
		case err != nil && ctx.Err() != nil:
			return n, ctx.Err()
		case err != nil:
			if log != nil {
				log.Warn("automatic re-plan failed", "plan_id", p.ID, "organization_id", p.OrganizationID, "error", err)
			}
		default:
			n++
		}
	}
	return n, nil
}

func hasSlipped(ms []Milestone, day string) bool {
	for _, m := range ms {
		if m.Current && m.State == Pending && m.Deliverable && m.Date < day {
			return true
		}
	}
	return false
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

// due is a reminder to send.
type due struct {
	plan      *Plan
	milestone Milestone
	kind      string
	days      int
}

// remind sends every reminder that is due and not sent yet.
func (s *Service) remind(ctx context.Context, now time.Time) (int, error) {
	horizon := now.UTC().AddDate(0, 0, maxHorizonDays).Format(time.DateOnly)
	rows, err := s.store.Read.PlanMilestone.Query().
		Where(planmilestone.State(Pending), planmilestone.Current(true), planmilestone.DateLTE(horizon)).
		All(ctx)
	if err != nil || len(rows) == 0 {
		return 0, err
	}
	planIDs := make([]string, len(rows))
	for i, r := range rows {
		planIDs[i] = r.PlanID
	}
	planIDs = unique(planIDs)
	plansByID := map[string]*Plan{}
	ps, err := s.store.Read.Plan.Query().Where(plan.IDIn(planIDs...)).All(ctx)
	if err != nil {
		return 0, err
	}
	for _, p := range ps {
		plansByID[p.ID] = fromEnt(p)
	}
	type reminderKey struct {
		plan, key, kind string
		revision        int
	}
	sent := map[reminderKey]bool{}
	rs, err := s.store.Read.PlanReminder.Query().Where(planreminder.PlanIDIn(planIDs...)).All(ctx)
	if err != nil {
		return 0, err
	}
	for _, r := range rs {
		sent[reminderKey{r.PlanID, r.MilestoneKey, r.Kind, r.Revision}] = true
	}
	var todo []due
	for _, r := range rows {
		p := plansByID[r.PlanID]
		if p == nil {
			continue // deleted since
		}
		kind, days := reminderKind(r.Date, today(now, p.TimeZone), p.RemindDaysBefore)
		if kind == "" || sent[reminderKey{r.PlanID, r.Key, kind, r.Revision}] {
			continue
		}
		m := milestonesFromEnt([]*ent.PlanMilestone{r})[0]
		todo = append(todo, due{plan: p, milestone: m, kind: kind, days: days})
	}
	n := 0
	for _, d := range todo {
		ok, err := s.send(ctx, d)
		if err != nil {
			return n, err
		}
		if ok {
			n++
		}
	}
	return n, nil
}

// errSent: the reminder's row exists; its event must not be sent again.
var errSent = errors.New("plans: reminder already sent")

// send records the reminder and emits its event in one transaction; it
// reports false when the reminder was sent already (by another replica's
// scan), in which case nothing commits.
func (s *Service) send(ctx context.Context, d due) (bool, error) {
	typ := events.PlanMilestoneDue
	if d.kind == Overdue {
		typ = events.PlanMilestoneOverdue
	}
	data, err := s.events.Encode(&MilestoneEvent{Plan: d.plan, Milestone: d.milestone, DaysUntil: d.days})
	if err != nil {
		return false, err
	}
	err = s.store.Tx(ctx, func(ctx context.Context, tx *ent.Client, sqlTx *sql.Tx) error {
		// The milestone must still be what the scan read: pending, current
		// and of the same revision (a re-plan or a check-off since then
		// wins).
		still, err := tx.PlanMilestone.Query().Where(
			planmilestone.PlanID(d.plan.ID), planmilestone.Key(d.milestone.Key), planmilestone.State(Pending),
			planmilestone.Current(true), planmilestone.Revision(d.milestone.Revision), planmilestone.Date(d.milestone.Date),
		).Exist(ctx)
		if err != nil {
			return err
		}
		if !still {
			return errSent
		}
		ev, err := s.events.EmitEncoded(ctx, tx, sqlTx, d.plan.OrganizationID, typ, data)
		if err != nil {
			return err
		}
		// The unique (plan, milestone, revision, kind) index decides which
		// of several scans sends it: the others insert nothing and roll
		// their event back.
		ins := entsql.Dialect(s.store.Dialect).Insert(planreminder.Table).
			Columns(planreminder.FieldPlanID, planreminder.FieldMilestoneKey, planreminder.FieldRevision,
				planreminder.FieldKind, planreminder.FieldEventID, planreminder.FieldCreatedAt).
			Values(d.plan.ID, d.milestone.Key, d.milestone.Revision, d.kind, ev.ID, time.Now().UTC().Truncate(time.Microsecond)).
			OnConflict(entsql.DoNothing())
		query, args := ins.Query()
		res, err := sqlTx.ExecContext(ctx, query, args...)
		if err != nil {
			return fmt.Errorf("record reminder: %w", err)
		}
		n, err := res.RowsAffected()
		if err != nil {
			return err
		}
		if n == 0 {
			return errSent
		}
		return nil
	})
	if errors.Is(err, errSent) {
		return false, nil
	}
	return err == nil, err
}

func unique(ss []string) []string {
	seen := make(map[string]bool, len(ss))
	out := ss[:0]
	for _, s := range ss {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}
