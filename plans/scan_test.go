package plans_test

import (
	"bytes"
	"context"
	"database/sql"
	"database/sql/driver"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creativeops/creativeops/ent"
	"github.com/creativeops/creativeops/ent/event"
	entplan "github.com/creativeops/creativeops/ent/plan"
	"github.com/creativeops/creativeops/events"
	"github.com/creativeops/creativeops/ids"
	"github.com/creativeops/creativeops/internal/clock"
	"github.com/creativeops/creativeops/internal/testdb"
	"github.com/creativeops/creativeops/jobs"
	"github.com/creativeops/creativeops/plans"
	"github.com/creativeops/creativeops/storage"
)

// rowCounter counts the rows the database returns, by the table a query
// reads (its first FROM), while on.
type rowCounter struct {
	mu      sync.Mutex
	on      bool
	byTable map[string]int
	// queries holds the text and arguments of each query counted.
	queries []countedQuery
}

type countedQuery struct {
	text string
	args []driver.NamedValue
}

var fromTable = regexp.MustCompile("(?i)\\bfrom\\s+[`\"]?(\\w+)")

func (c *rowCounter) start() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.on, c.byTable, c.queries = true, map[string]int{}, nil
}

func (c *rowCounter) stop() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.on = false
	return c.byTable
}

func (c *rowCounter) query(text string, args []driver.NamedValue) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.on {
		c.queries = append(c.queries, countedQuery{text, args})
	}
}

func (c *rowCounter) row(text string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.on {
		return
	}
	table := "other"
	if m := fromTable.FindStringSubmatch(text); m != nil {
		table = m[1]
	}
	c.byTable[table]++
}

func (c *rowCounter) wrap(conn driver.Connector) driver.Connector { return countingConnector{conn, c} }

type countingConnector struct {
	driver.Connector
	c *rowCounter
}

func (k countingConnector) Connect(ctx context.Context) (driver.Conn, error) {
	conn, err := k.Connector.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &countingConn{conn, k.c}, nil
}

// countingConn passes everything to the driver's connection, wrapping the
// rows of queries.
type countingConn struct {
	driver.Conn
	c *rowCounter
}

func (k *countingConn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	q, ok := k.Conn.(driver.QueryerContext)
	if !ok {
		return nil, driver.ErrSkip
	}
	rows, err := q.QueryContext(ctx, query, args)
	if err != nil {
		return nil, err
	}
	k.c.query(query, args)
	return countingRows{rows, k.c, query}, nil
}

func (k *countingConn) PrepareContext(ctx context.Context, query string) (driver.Stmt, error) {
	st, err := k.Conn.(driver.ConnPrepareContext).PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	return countingStmt{st, k.c, query}, nil
}

func (k *countingConn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	e, ok := k.Conn.(driver.ExecerContext)
	if !ok {
		return nil, driver.ErrSkip
	}
	return e.ExecContext(ctx, query, args)
}

func (k *countingConn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	return k.Conn.(driver.ConnBeginTx).BeginTx(ctx, opts)
}

func (k *countingConn) CheckNamedValue(v *driver.NamedValue) error {
	if c, ok := k.Conn.(driver.NamedValueChecker); ok {
		return c.CheckNamedValue(v)
	}
	return driver.ErrSkip
}

func (k *countingConn) ResetSession(ctx context.Context) error {
	if r, ok := k.Conn.(driver.SessionResetter); ok {
		return r.ResetSession(ctx)
	}
	return nil
}

func (k *countingConn) IsValid() bool {
	if v, ok := k.Conn.(driver.Validator); ok {
		return v.IsValid()
	}
	return true
}

func (k *countingConn) Ping(ctx context.Context) error {
	if p, ok := k.Conn.(driver.Pinger); ok {
		return p.Ping(ctx)
	}
	return nil
}

type countingStmt struct {
	driver.Stmt
	c     *rowCounter
	query string
}

func (s countingStmt) QueryContext(ctx context.Context, args []driver.NamedValue) (driver.Rows, error) {
	rows, err := s.Stmt.(driver.StmtQueryContext).QueryContext(ctx, args)
	if err != nil {
		return nil, err
	}
	s.c.query(s.query, args)
	return countingRows{rows, s.c, s.query}, nil
}

func (s countingStmt) ExecContext(ctx context.Context, args []driver.NamedValue) (driver.Result, error) {
	return s.Stmt.(driver.StmtExecContext).ExecContext(ctx, args)
}

func (s countingStmt) CheckNamedValue(v *driver.NamedValue) error {
	if c, ok := s.Stmt.(driver.NamedValueChecker); ok {
		return c.CheckNamedValue(v)
	}
	return driver.ErrSkip
}

type countingRows struct {
	driver.Rows
	c     *rowCounter
	query string
}

func (r countingRows) Next(dest []driver.Value) error {
	err := r.Rows.Next(dest)
	if err == nil {
		r.c.row(r.query)
	}
	return err
}

// fixture is a plans service over a fresh database.
type fixture struct {
	store *storage.Store
	clk   *clock.Test
	svc   *plans.Service
	rows  *rowCounter
}

// scanStart is the fixtures' first moment.
var scanStart = time.Date(2027, 1, 4, 9, 0, 0, 0, time.UTC)

// newFixture opens url, counting rows; encode renders event data (nil:
// JSON).
func newFixture(t *testing.T, url string, encode events.Encoder) *fixture {
	t.Helper()
	ctx := context.Background()
	rows := &rowCounter{}
	store, err := storage.Open(ctx, url, storage.Wrapped(rows.wrap))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	if err := store.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	if encode == nil {
		encode = func(r any) ([]byte, error) { return json.Marshal(r) }
	}
	clk := clock.NewTest(scanStart)
	return &fixture{store: store, clk: clk, svc: plans.NewService(store, events.NewEmitter(encode, nil), clk), rows: rows}
}

// milestone is one milestone of a seeded plan's result.
type milestone struct {
	key, date   string
	deliverable bool
}

// track stores plans as a tracked run's completion does (Track, or
// TrackBatch for many), 2,000 to a transaction: one plan per entry of
// each, each with its milestones, for organization org.
func (f *fixture) track(t *testing.T, org string, each [][]milestone) []string {
	t.Helper()
	ids := make([]string, len(each))
	const perTx = 2000
	for from := 0; from < len(each); from += perTx {
		part := each[from:min(from+perTx, len(each))]
		err := f.store.Tx(context.Background(), func(ctx context.Context, tx *ent.Client, sqlTx *sql.Tx) error {
			js := make([]*jobs.Job, len(part))
			for i, ms := range part {
				list := make([]any, len(ms))
				for j, m := range ms {
					list[j] = map[string]any{"key": m.key, "title": m.key, "date": m.date, "deliverable": m.deliverable}
				}
				js[i] = &jobs.Job{ID: newID("job"), OrganizationID: org, Vertical: "live-events", Workflow: "tour-routing",
					PlanID: newID("plan"), Context: map[string]any{}, Result: map[string]any{"timeline": map[string]any{"milestones": list}}}
				ids[from+i] = js[i].PlanID
			}
			// A tracked plan's job is stored with it (its context and
			// result are the plan's).
			if err := insertJobs(ctx, tx, js); err != nil {
				return err
			}
			if len(js) == 1 {
				return f.svc.Track(ctx, tx, sqlTx, js[0])
			}
			return f.svc.TrackBatch(ctx, tx, js)
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return ids
}

// insertJobs stores the completed jobs of tracked plans, 500 to a
// statement.
func insertJobs(ctx context.Context, tx *ent.Client, js []*jobs.Job) error {
	for part := range slices.Chunk(js, 500) {
		creates := make([]*ent.JobCreate, len(part))
		for i, j := range part {
			creates[i] = tx.Job.Create().SetID(j.ID).SetOrganizationID(j.OrganizationID).SetKeyID("key_test").
				SetVertical(j.Vertical).SetWorkflow(j.Workflow).SetStatus(jobs.Completed).SetProgress(100).
				SetContext(j.Context).SetResult(j.Result).SetTrack(true).SetCreatorID(j.CreatorID).SetPlanID(j.PlanID)
		}
		if err := tx.Job.CreateBulk(creates...).Exec(ctx); err != nil {
			return err
		}
	}
	return nil
}

func newID(prefix string) string {
	switch prefix {
	case "job":
		return ids.New(ids.Job)
	}
	return ids.New(ids.Plan)
}

func day(offset int) string { return scanStart.AddDate(0, 0, offset).Format(time.DateOnly) }

// eventsOf lists the types of the events of org.
func (f *fixture) eventsOf(t *testing.T, org string) map[string]int {
	t.Helper()
	evs, err := f.store.Read.Event.Query().Where(event.OrganizationID(org)).All(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]int{}
	for _, e := range evs {
		out[e.Type]++
	}
	return out
}

// The scan reads the plans that are due, and nothing of the others: with
// 2,000 plans whose milestones are weeks away and 5 with a reminder due,
// the rows the database returns during a scan are those of the 5, and a
// scan with nothing due reads no row at all. The query that finds them is
// answered from the (next_check, id) index, not by scanning the table.
func TestScanReadsOnlyDuePlans(t *testing.T) {
	for _, b := range testdb.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			f := newFixture(t, b.URL(t), nil)
			ctx := context.Background()
			far := make([][]milestone, 2000)
			for i := range far {
				far[i] = []milestone{{"a", day(40), true}, {"b", day(50), false}, {"c", day(60), false}}
			}
			f.track(t, "org_far", far)
			soon := make([][]milestone, 5)
			for i := range soon {
				soon[i] = []milestone{{"a", day(2), false}, {"b", day(40), false}, {"c", day(60), false}}
			}
			due := f.track(t, "org_soon", soon)

			f.rows.start()
			done, err := f.svc.Scan(ctx, nil, nil)
			read := f.rows.stop()
			if err != nil {
				t.Fatal(err)
			}
			if done.Reminded != 5 || done.Plans != 5 {
				t.Fatalf("scan: %+v, want 5 plans reminded", done)
			}
			// Per due plan: its row in the page and the batch and its
			// transaction (3), its 3 milestones, no reminders sent before.
			if read["plans"] > 3*len(due) || read["plan_milestones"] > 3*len(due) || read["plan_reminders"] > 0 {
				t.Errorf("the scan read %v rows; at most %d plans and %d milestones are due", read, 3*len(due), 3*len(due))
			}
			total := 0
			for _, n := range read {
				total += n
			}
			if total > 10*len(due) {
				t.Errorf("the scan read %d rows (%v) for %d due plans", total, read, len(due))
			}
			if ev := f.eventsOf(t, "org_soon"); ev["plan.milestone.due"] != 5 {
				t.Errorf("events: %v", ev)
			}
			checkIndexed(t, f, b.Name)

			// Nothing is due the next day: idle is idle.
			f.clk.Set(scanStart.AddDate(0, 0, 1))
			f.rows.start()
			done, err = f.svc.Scan(ctx, nil, nil)
			read = f.rows.stop()
			if err != nil || done.Plans != 0 {
				t.Fatalf("scan with nothing due: %+v, %v", done, err)
			}
			for table, n := range read {
				if n > 0 {
					t.Errorf("a scan with nothing due read %d rows of %s", n, table)
				}
			}
			// Two days on, on its date, each due plan is due once more.
			f.clk.Set(scanStart.AddDate(0, 0, 2))
			if done, err = f.svc.Scan(ctx, nil, nil); err != nil || done.Plans != 5 || done.Reminded != 5 {
				t.Fatalf("scan on the date: %+v, %v", done, err)
			}
		})
	}
}

// checkIndexed asks the database how it answers the scan's query for due
// plans (the first query of the scan, as counted): through the
// (next_check, id) index.
func checkIndexed(t *testing.T, f *fixture, backend string) {
	t.Helper()
	f.rows.mu.Lock()
	var q countedQuery
	for _, c := range f.rows.queries {
		if strings.Contains(c.text, "next_check") && strings.Contains(strings.ToUpper(c.text), "ORDER BY") {
			q = c
			break
		}
	}
	f.rows.mu.Unlock()
	if q.text == "" {
		t.Fatal("no query for due plans was counted")
	}
	plan := explainCounted(t, f, backend, q, false)
	if !strings.Contains(plan, "plan_next_check_id") {
		t.Errorf("the query for due plans does not use the (next_check, id) index:\n%s\n%s", q.text, plan)
	}
}

// explainCounted is the database's plan for a counted query, its plans
// analyzed first on PostgreSQL. generic asks PostgreSQL for the generic
// plan of the query prepared, the one a prepared statement settles on
// after five runs, instead of the plan for its arguments.
func explainCounted(t *testing.T, f *fixture, backend string, q countedQuery, generic bool) string {
	t.Helper()
	ctx := context.Background()
	conn, err := f.store.DB.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	explain := "EXPLAIN QUERY PLAN " + q.text
	var args []any
	for _, a := range q.args {
		args = append(args, a.Value)
	}
	if backend == "postgres" {
		if _, err := conn.ExecContext(ctx, "ANALYZE plans"); err != nil {
			t.Fatal(err)
		}
		explain = "EXPLAIN " + q.text
		if generic {
			var lits []string
			for _, a := range args {
				lits = append(lits, "'"+strings.ReplaceAll(fmt.Sprint(a), "'", "''")+"'")
			}
			for _, s := range []string{"SET plan_cache_mode = force_generic_plan", "PREPARE explained AS " + q.text} {
				if _, err := conn.ExecContext(ctx, s); err != nil {
					t.Fatalf("%s: %v", s, err)
				}
			}
			explain, args = "EXPLAIN EXECUTE explained("+strings.Join(lits, ", ")+")", nil
		}
	}
	rows, err := conn.QueryContext(ctx, explain, args...)
	if err != nil {
		t.Fatal(err)
	}
	var plan strings.Builder
	_, vals := testdb.Values(t, rows)
	for _, row := range vals {
		fmt.Fprintln(&plan, row...)
	}
	return plan.String()
}

// Past the database's bound-variable limit (SQLite 32,766, PostgreSQL
// 65,535), one organization's plans stop no one: 33,000 (SQLite) or 66,000
// (PostgreSQL) tracked plans of one organization, all within two months of a milestone (so an IN list of
// every plan due within the reminder horizon would exceed both limits),
// 250 of them due now and failing (their event data cannot be encoded),
// and another organization's plan still gets its reminder and its
// automatic re-plan. Each failure is logged at ERROR and counted.
func TestScanPastBoundVariableLimits(t *testing.T) {
	if testing.Short() {
		t.Skip("seeds tens of thousands of plans")
	}
	for _, b := range testdb.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			var badPlans sync.Map
			encode := func(r any) ([]byte, error) {
				if m, ok := r.(*plans.MilestoneEvent); ok {
					if _, bad := badPlans.Load(m.Plan.ID); bad {
						return nil, errors.New("unencodable milestone")
					}
				}
				return json.Marshal(r)
			}
			f := newFixture(t, b.URL(t), encode)
			ctx := context.Background()

			// The other organization: a real release plan, re-planned
			// automatically once its first deliverable slips.
			wf, err := jobs.Lookup("music", "release-strategy")
			if err != nil {
				t.Fatal(err)
			}
			in, err := wf.PrepareAt(map[string]any{"artist": "Nova", "genre": "indie pop", "release_date": "2027-03-05"}, scanStart)
			if err != nil {
				t.Fatal(err)
			}
			result, err := wf.Run(ctx, in, scanStart, nil)
			if err != nil {
				t.Fatal(err)
			}
			other := &jobs.Job{ID: newID("job"), OrganizationID: "org_other", Vertical: "music", Workflow: "release-strategy",
				PlanID: newID("plan"), Context: in.Values(), Result: result}
			if err := f.store.Tx(ctx, func(ctx context.Context, tx *ent.Client, sqlTx *sql.Tx) error {
				if err := insertJobs(ctx, tx, []*jobs.Job{other}); err != nil {
					return err
				}
				return f.svc.Track(ctx, tx, sqlTx, other)
			}); err != nil {
				t.Fatal(err)
			}
			p, err := f.svc.Get(ctx, "org_other", other.PlanID)
			if err != nil {
				t.Fatal(err)
			}
			var first plans.Milestone
			for _, m := range p.Milestones {
				if m.Deliverable {
					first = m
					break
				}
			}
			if first.Key == "" {
				t.Fatalf("no deliverable in %+v", p.Milestones)
			}
			// The scan runs the day after the first deliverable: it slipped.
			slipDay, _ := time.Parse(time.DateOnly, first.Date)
			slipDay = slipDay.AddDate(0, 0, 1)

			// The flood: due within the next weeks, not now; the failing
			// plans are due since the start (first in the scan's order).
			// Past the database's own limit: seeding SQLite is what takes
			// the time of this test, most of all under the race detector.
			flood := 33_000 // > 32,766
			if b.Name == "postgres" {
				flood = 66_000 // > 65,535
			}
			const failing = 250
			each := make([][]milestone, flood)
			for i := range each {
				each[i] = []milestone{{"show", slipDay.AddDate(0, 0, 20).Format(time.DateOnly), false}}
			}
			for i := range failing {
				each[i] = []milestone{{"show", day(1), false}}
			}
			floodIDs := f.track(t, "org_flood", each)
			for _, id := range floodIDs[:failing] {
				badPlans.Store(id, true)
			}
			f.clk.Set(slipDay.Add(9 * time.Hour))

			var logs bytes.Buffer
			log := slog.New(slog.NewTextHandler(&logs, nil))
			counted := map[string]int{}
			scanned, err := f.svc.Scan(ctx, log, func(stage string) { counted[stage]++ })
			if err == nil {
				t.Error("a scan with failed plans reports no error")
			}
			if scanned.Plans != failing+1 {
				t.Errorf("the scan worked %d plans, want %d", scanned.Plans, failing+1)
			}
			if scanned.Replanned != 1 {
				t.Errorf("re-planned %d plans, want the other organization's", scanned.Replanned)
			}
			ev := f.eventsOf(t, "org_other")
			if ev["plan.replanned"] != 1 || ev["plan.milestone.due"]+ev["plan.milestone.overdue"] == 0 {
				t.Errorf("the other organization's events: %v", ev)
			}
			if counted[plans.StagePlan] != failing {
				t.Errorf("failures counted: %v, want %d plans", counted, failing)
			}
			if n := strings.Count(logs.String(), `level=ERROR msg="plan reminders failed"`); n != failing {
				t.Errorf("%d ERROR lines for failed plans, want %d:\n%.2000s", n, failing, logs.String())
			}
		})
	}
}

// nextCheckOf reads a plan's next check (nil: none).
func (f *fixture) nextCheckOf(t *testing.T, id string) *int64 {
	t.Helper()
	p, err := f.store.Read.Plan.Query().Where(entplan.ID(id)).Only(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return p.NextCheck
}

// Every change keeps a plan's next check right: a check-off of the
// milestone whose reminder is next moves it to the next milestone's, a
// skip too, a reopen of a milestone in its reminder window makes the plan
// due now, new settings as well, a re-plan computes it from the new
// dates, and a completed plan has none.
func TestNextCheckFollowsChanges(t *testing.T) {
	for _, b := range testdb.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			f := newFixture(t, b.URL(t), nil)
			ctx := context.Background()
			midnight := func(offset int) int64 { return scanStart.Truncate(24*time.Hour).AddDate(0, 0, offset).Unix() }
			want := func(id string, at int64, what string) {
				t.Helper()
				got := f.nextCheckOf(t, id)
				switch {
				case at == 0 && got != nil:
					t.Errorf("%s: next check %v, want none", what, time.Unix(*got, 0).UTC())
				case at != 0 && (got == nil || *got != at):
					t.Errorf("%s: next check %v, want %v", what, got, time.Unix(at, 0).UTC())
				}
			}
			id := f.track(t, "org_a", [][]milestone{{{"a", day(10), false}, {"b", day(20), false}, {"c", day(30), false}}})[0]
			want(id, midnight(7), "tracked")
			if _, err := f.svc.Complete(ctx, "org_a", id, "a"); err != nil {
				t.Fatal(err)
			}
			want(id, midnight(17), "a done")
			if _, err := f.svc.Skip(ctx, "org_a", id, "b"); err != nil {
				t.Fatal(err)
			}
			want(id, midnight(27), "b skipped")
			// Eight days on, a is in its window: reopened, it is due now.
			f.clk.Set(scanStart.AddDate(0, 0, 8))
			if _, err := f.svc.Reopen(ctx, "org_a", id, "a"); err != nil {
				t.Fatal(err)
			}
			want(id, f.clk.Now().Unix(), "a reopened in its window")
			if done, err := f.svc.Scan(ctx, nil, nil); err != nil || done.Reminded != 1 {
				t.Fatalf("scan: %+v, %v", done, err)
			}
			want(id, midnight(10), "a reminded")
			// Ten days before: c's window opens now (it was 3).
			ten := 10
			if _, err := f.svc.Update(ctx, "org_a", id, plans.Settings{RemindDaysBefore: &ten}); err != nil {
				t.Fatal(err)
			}
			want(id, f.clk.Now().Unix(), "remind_days_before 10")
			if _, err := f.svc.Scan(ctx, nil, nil); err != nil {
				t.Fatal(err)
			}
			want(id, midnight(10), "a's date next")
			for _, k := range []string{"a", "c"} {
				if _, err := f.svc.Complete(ctx, "org_a", id, k); err != nil {
					t.Fatal(err)
				}
			}
			want(id, 0, "completed")

			// A re-plan: the new revision's dates decide.
			wf, err := jobs.Lookup("music", "release-strategy")
			if err != nil {
				t.Fatal(err)
			}
			in, err := wf.PrepareAt(map[string]any{"artist": "Nova", "genre": "indie pop", "release_date": "2027-06-04"}, f.clk.Now())
			if err != nil {
				t.Fatal(err)
			}
			result, err := wf.Run(ctx, in, f.clk.Now(), nil)
			if err != nil {
				t.Fatal(err)
			}
			j := &jobs.Job{ID: newID("job"), OrganizationID: "org_a", Vertical: "music", Workflow: "release-strategy", PlanID: newID("plan"), Context: in.Values(), Result: result}
			if err := f.store.Tx(ctx, func(ctx context.Context, tx *ent.Client, sqlTx *sql.Tx) error {
				if err := insertJobs(ctx, tx, []*jobs.Job{j}); err != nil {
					return err
				}
				return f.svc.Track(ctx, tx, sqlTx, j)
			}); err != nil {
				t.Fatal(err)
			}
			before := f.nextCheckOf(t, j.PlanID)
			p, _, err := f.svc.Replan(ctx, "org_a", "", j.PlanID, plans.Replan{Context: map[string]any{"release_date": "2027-09-03"}})
			if err != nil {
				t.Fatal(err)
			}
			after := f.nextCheckOf(t, j.PlanID)
			if before == nil || after == nil || *after <= *before {
				t.Errorf("a re-plan three months later: next check %v, then %v", before, after)
			}
			if _, err := f.svc.Scan(ctx, nil, nil); err != nil {
				t.Fatal(err)
			}
			first := ""
			for _, m := range p.Milestones {
				if m.State == plans.Pending && (first == "" || m.Date < first) {
					first = m.Date
				}
			}
			d, _ := time.Parse(time.DateOnly, first)
			if got := f.nextCheckOf(t, j.PlanID); got == nil || *got != d.AddDate(0, 0, -3).Unix() {
				t.Errorf("re-planned: next check %v, want 3 days before %s", got, first)
			}
			if err := f.svc.Delete(ctx, "org_a", j.PlanID); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// Plans an earlier version stored have no next check: the migration that
// adds the column gives them 0, due at once, and the first scan settles
// each, sending what is due and was not sent, nothing twice.
func TestNextCheckBackfill(t *testing.T) {
	for _, b := range testdb.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			f := newFixture(t, b.URL(t), nil)
			ctx := context.Background()
			ids := f.track(t, "org_a", [][]milestone{
				{{"a", day(1), false}}, // reminded below, before the upgrade
				{{"a", day(2), false}}, // due, never reminded
				{{"a", day(30), false}},
			})
			if done, err := f.svc.Scan(ctx, nil, nil); err != nil || done.Reminded != 2 {
				t.Fatalf("scan: %+v, %v", done, err)
			}
			if _, err := f.store.DB.Exec("DELETE FROM plan_reminders WHERE plan_id = '" + ids[1] + "'"); err != nil {
				t.Fatal(err)
			}
			// Back to the earlier version's schema, then the upgrade.
			for _, stmt := range []string{"DROP INDEX plan_next_check_id", "ALTER TABLE plans DROP COLUMN next_check"} {
				if _, err := f.store.DB.Exec(stmt); err != nil {
					t.Fatalf("%s: %v", stmt, err)
				}
			}
			if err := f.store.Migrate(ctx); err != nil {
				t.Fatal(err)
			}
			for _, id := range ids {
				if got := f.nextCheckOf(t, id); got == nil || *got != 0 {
					t.Fatalf("after the upgrade %s's next check is %v, want 0", id, got)
				}
			}
			done, err := f.svc.Scan(ctx, nil, nil)
			if err != nil || done.Plans != 3 || done.Reminded != 1 {
				t.Fatalf("first scan after the upgrade: %+v, %v; want 3 plans settled, 1 reminder (the one not sent)", done, err)
			}
			if got := f.nextCheckOf(t, ids[2]); got == nil || *got != scanStart.Truncate(24*time.Hour).AddDate(0, 0, 27).Unix() {
				t.Errorf("settled next check %v", got)
			}
			if ev := f.eventsOf(t, "org_a"); ev["plan.milestone.due"] != 3 {
				t.Errorf("events: %v, want 3 reminders in all", ev)
			}
		})
	}
}

// TrackBatch, the seeding fast path, writes for each plan what Track
// writes.
func TestTrackBatchWritesWhatTrackWrites(t *testing.T) {
	f := newFixture(t, testdb.SQLiteURL(t), nil)
	ctx := context.Background()
	result := map[string]any{"as_of": day(0), "timeline": map[string]any{"milestones": []any{
		map[string]any{"key": "a", "title": "A", "date": day(2), "deliverable": true},
		map[string]any{"key": "b", "title": "B", "date": day(40)},
	}}}
	job := func() *jobs.Job {
		return &jobs.Job{ID: newID("job"), OrganizationID: "org_a", Vertical: "music", Workflow: "release-strategy", PlanID: newID("plan"),
			CreatorID: "cr_x", Context: map[string]any{"artist": "Nova", "as_of": day(0), "time_zone": "Europe/Paris"}, Result: result}
	}
	one, many := job(), []*jobs.Job{job(), job()}
	err := f.store.Tx(ctx, func(ctx context.Context, tx *ent.Client, sqlTx *sql.Tx) error {
		if err := insertJobs(ctx, tx, append([]*jobs.Job{one}, many...)); err != nil {
			return err
		}
		if err := f.svc.Track(ctx, tx, sqlTx, one); err != nil {
			return err
		}
		return f.svc.TrackBatch(ctx, tx, many)
	})
	if err != nil {
		t.Fatal(err)
	}
	norm := func(id string) string {
		p, err := f.svc.Get(ctx, "org_a", id)
		if err != nil {
			t.Fatal(err)
		}
		p.ID, p.JobID = "", ""
		b, _ := json.Marshal(p)
		return fmt.Sprintf("%s next_check=%v", b, *f.nextCheckOf(t, id))
	}
	want := norm(one.PlanID)
	for _, j := range many {
		if got := norm(j.PlanID); got != want {
			t.Errorf("TrackBatch wrote\n%s\nTrack wrote\n%s", got, want)
		}
	}
}

// A feed URL finds its plan through the partial index of the plans that
// have a feed, however many plans have none. On PostgreSQL the lookup is
// asked for its generic plan, the one a prepared statement settles on
// after five runs: that plan estimates the equality by the column's one
// common value, the empty hash of every plan without a feed, and with the
// whole column indexed it scanned every plan (100 to 250 ms at a million).
func TestFeedLookupReadsTheFeedIndex(t *testing.T) {
	for _, b := range testdb.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			ctx := context.Background()
			f := newFixture(t, b.URL(t), nil)
			each := make([][]milestone, 3000)
			for i := range each {
				each[i] = []milestone{{key: "release", date: "2027-03-01", deliverable: true}}
			}
			ids := f.track(t, "org_feed", each)
			feeds := plans.NewFeeds(f.store, "https://ops.example")
			feed, err := feeds.Create(ctx, "org_feed", ids[7])
			if err != nil {
				t.Fatal(err)
			}
			u, err := url.Parse(feed.URL)
			if err != nil {
				t.Fatal(err)
			}
			f.rows.start()
			fp, err := feeds.ByToken(ctx, ids[7], u.Query().Get("token"))
			f.rows.stop()
			if err != nil || fp.ID != ids[7] {
				t.Fatalf("ByToken: %+v, %v", fp, err)
			}
			var q countedQuery
			for _, c := range f.rows.queries {
				if strings.Contains(c.text, "feed_token_hash") {
					q = c
				}
			}
			if q.text == "" {
				t.Fatal("no lookup by feed token was counted")
			}
			plan := explainCounted(t, f, b.Name, q, true)
			if !strings.Contains(plan, "plan_feed_token_hash_set") {
				t.Errorf("the lookup by feed token does not use the index of plans with a feed:\n%s\n%s", q.text, plan)
			}
		})
	}
}
