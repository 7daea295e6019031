package webhooks

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"github.com/creativeops/creativeops/events"
)

func TestBudgetTake(t *testing.T) {
	b := NewBudget(10, 5)
	t0 := time.Unix(1000, 0)
	if got := b.take("org_a", 3, t0); got != 3 {
		t.Fatalf("first 3 of a burst of 5: paid %d", got)
	}
	if got := b.take("org_a", 4, t0); got != 2 {
		t.Fatalf("4 more with 2 left: paid %d, want 2", got)
	}
	if got := b.take("org_a", 1, t0); got != 0 {
		t.Fatalf("empty bucket: paid %d", got)
	}
	if got := b.take("org_b", 5, t0); got != 5 {
		t.Fatalf("another organization's bucket is its own: paid %d", got)
	}
	if got := b.take("org_a", 5, t0.Add(200*time.Millisecond)); got != 2 {
		t.Fatalf("after 200 ms at 10/s: paid %d, want 2", got)
	}
	var none *Budget
	if got := none.take("org_a", 1000, t0); got != 1000 {
		t.Fatalf("nil budget: paid %d", got)
	}
}

func TestBudgetPriorities(t *testing.T) {
	b := NewBudget(1, 2)
	got := b.priorities([]string{"a", "a", "b", "a", "b"}, time.Unix(1000, 0))
	want := []int{priorityNormal, priorityNormal, priorityNormal, priorityBacklog, priorityNormal}
	if !slices.Equal(got, want) {
		t.Fatalf("priorities %v, want %v", got, want)
	}
}

// With a prompt lane, the first deliveries of a burst go ahead of every
// organization's normal ones, so an organization's next delivery does not
// wait behind another's burst; the lane refills at the budget's rate, and
// a delivery the budget cannot pay for is backlog whatever the lane holds.
func TestBudgetPromptLane(t *testing.T) {
	b := NewBudget(10, 4)
	b.Prompt = 2
	t0 := time.Unix(1000, 0)
	burst := b.priorities([]string{"a", "a", "a", "a", "a"}, t0)
	if want := []int{priorityPrompt, priorityPrompt, priorityNormal, priorityNormal, priorityBacklog}; !slices.Equal(burst, want) {
		t.Fatalf("a's burst: %v, want %v", burst, want)
	}
	if got := b.priorities([]string{"b"}, t0); !slices.Equal(got, []int{priorityPrompt}) {
		t.Fatalf("b's delivery after a's burst: %v, want prompt", got)
	}
	if got := b.priorities([]string{"a"}, t0.Add(100*time.Millisecond)); !slices.Equal(got, []int{priorityPrompt}) {
		t.Fatalf("a after 100 ms at 10/s: %v, want prompt (refilled)", got)
	}
	if got := b.priorities([]string{"a"}, t0.Add(100*time.Millisecond)); !slices.Equal(got, []int{priorityBacklog}) {
		t.Fatalf("a beyond its budget: %v, want backlog", got)
	}
	if priorityPrompt >= priorityNormal || priorityNormal >= priorityBacklog {
		t.Fatal("River fetches lower priorities first: prompt < normal < backlog")
	}
}

// jobPriorities lists the priority of every delivery job, by delivery id
// order of insertion.
func jobPriorities(t *testing.T, f *fixture) []int {
	t.Helper()
	rows, err := f.store.DB.Query("SELECT priority FROM river_job ORDER BY id")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []int
	for rows.Next() {
		var p int
		if err := rows.Scan(&p); err != nil {
			t.Fatal(err)
		}
		out = append(out, p)
	}
	return out
}

// Retries spend from the budget too: once an organization has spent it,
// its retries are queued behind other organizations' deliveries, which
// keep normal priority.
func TestRetriesBeyondBudgetQueueBehind(t *testing.T) {
	f := newFixture(t)
	f.disp.Budget = NewBudget(0.001, 5)
	for range 5 {
		f.webhook(t, "org_a", EventWildcard)
	}
	f.webhook(t, "org_b", EventWildcard)
	f.emit(t, "org_a", events.CreatorCreated) // spends org_a's 5
	f.emit(t, "org_b", events.CreatorCreated)
	want := []int{priorityNormal, priorityNormal, priorityNormal, priorityNormal, priorityNormal, priorityNormal}
	if got := jobPriorities(t, f); !slices.Equal(got, want) {
		t.Fatalf("job priorities %v, want %v", got, want)
	}
	f.code.Store(http.StatusInternalServerError)
	var first string
	for _, d := range f.deliveries(t) {
		if d.OrganizationID == "org_a" {
			first = d.ID
			break
		}
	}
	if err := work(t, f.worker, first, 0); err != nil {
		t.Fatal(err)
	}
	got := jobPriorities(t, f)
	if len(got) != 7 || got[6] != priorityBacklog {
		t.Fatalf("retry job priorities %v, want a 7th at %d", got, priorityBacklog)
	}
}

// An event its organization's fan-out budget cannot pay for whole writes no
// delivery in the emitting transaction, only one fan-out job behind
// everyone's deliveries; another organization's event is fanned out at
// once. The job creates the deliveries once the budget pays, once only.
func TestFanOutBeyondBudgetIsDeferred(t *testing.T) {
	f := newFixture(t)
	f.disp.FanOutBudget = NewBudget(0.001, 5)
	for range 5 {
		f.webhook(t, "org_a", EventWildcard)
	}
	f.webhook(t, "org_b", EventWildcard)
	f.emit(t, "org_a", events.CreatorCreated) // paid: 5 deliveries
	ev := f.emit(t, "org_a", events.CreatorCreated)
	f.emit(t, "org_b", events.CreatorCreated)
	count := func() (a, b int) {
		for _, d := range f.deliveries(t) {
			switch {
			case d.EventID == ev.ID:
				a++
			case d.OrganizationID == "org_b":
				b++
			}
		}
		return a, b
	}
	if a, b := count(); a != 0 || b != 1 || len(f.deliveries(t)) != 6 {
		t.Fatalf("%d deliveries of the unpaid event, %d of org_b's, %d in all", a, b, len(f.deliveries(t)))
	}
	var kind string
	var prio int
	if err := f.store.DB.QueryRow("SELECT kind, priority FROM river_job WHERE kind = ?", FanOutArgs{}.Kind()).Scan(&kind, &prio); err != nil || prio != priorityBacklog {
		t.Fatalf("fan-out job: %q priority %d, %v", kind, prio, err)
	}
	fw := &FanOutWorker{Store: f.store, Dispatcher: f.disp}
	job := &river.Job[FanOutArgs]{JobRow: &rivertype.JobRow{}, Args: FanOutArgs{EventID: ev.ID}}
	var snooze *river.JobSnoozeError
	if err := fw.Work(context.Background(), job); !errors.As(err, &snooze) || snooze.Duration <= 0 {
		t.Fatalf("without budget: %v, want a snooze", err)
	}
	if a, _ := count(); a != 0 {
		t.Fatalf("%d deliveries created without budget", a)
	}
	f.disp.FanOutBudget = NewBudget(1000, 10)
	for range 2 { // a rescued job runs again: nothing twice
		if err := fw.Work(context.Background(), job); err != nil {
			t.Fatal(err)
		}
	}
	if a, _ := count(); a != 5 {
		t.Fatalf("%d deliveries of the deferred event, want 5", a)
	}
}

// A job that finds its organization's slots full is moved behind other
// organizations' (a new job at backlog priority, with the same arguments)
// instead of snoozing at normal priority; one already there snoozes.
func TestSlotStarvedJobMovesToBacklog(t *testing.T) {
	f := newFixture(t)
	f.worker.Slots = &Slots{PerOrganization: 1, PerHost: 10}
	f.webhook(t, "org_a", EventWildcard)
	f.emit(t, "org_a", events.CreatorCreated)
	d := f.deliveries(t)[0]
	release, ok := f.worker.Slots.acquire("org_a", "elsewhere.example")
	if !ok {
		t.Fatal("no slot")
	}
	defer release()
	job := func(priority int) *river.Job[DeliverArgs] {
		return &river.Job[DeliverArgs]{JobRow: &rivertype.JobRow{Priority: priority}, Args: DeliverArgs{DeliveryID: d.ID}}
	}
	if err := f.worker.Work(context.Background(), job(priorityNormal)); err != nil {
		t.Fatalf("normal job without a slot: %v, want done (moved)", err)
	}
	var args string
	var prio int
	if err := f.store.DB.QueryRow("SELECT args, priority FROM river_job ORDER BY id DESC LIMIT 1").Scan(&args, &prio); err != nil {
		t.Fatal(err)
	}
	if prio != priorityBacklog || !strings.Contains(args, d.ID) || !strings.Contains(args, `"attempt":0`) {
		t.Fatalf("moved job: priority %d, args %s", prio, args)
	}
	var snooze *river.JobSnoozeError
	if err := f.worker.Work(context.Background(), job(priorityBacklog)); !errors.As(err, &snooze) {
		t.Fatalf("backlog job without a slot: %v, want a snooze", err)
	}
	if f.hits.Load() != 0 {
		t.Fatalf("%d requests sent without a slot", f.hits.Load())
	}
}

// TestPrioritiesOfOrganizationWithFullSlots: deliveries enqueued while
// their organization holds all its slots go to the backlog without
// spending its budget (at normal priority they would be fetched ahead of
// other organizations' only to be moved back); another organization's,
// and the same organization's once a slot is free, are paid as before.
func TestPrioritiesOfOrganizationWithFullSlots(t *testing.T) {
	d := &Dispatcher{Budget: NewBudget(10, 2), Slots: &Slots{PerOrganization: 1, PerHost: 5}}
	t0 := time.Unix(1000, 0)
	release, ok := d.Slots.acquire("org_a", "a.example")
	if !ok {
		t.Fatal("first slot refused")
	}
	got, parked := d.priorities([]string{"org_a", "org_a", "org_b"}, t0)
	if want := []int{priorityBacklog, priorityBacklog, priorityNormal}; !slices.Equal(got, want) {
		t.Fatalf("org_a's slots full: priorities %v, want %v", got, want)
	}
	// org_a's two wait their turns, one after the other; org_b's does not.
	if parked[0] < snoozeOrganization*3/4 || parked[1] <= parked[0]-snoozeOrganization/2 || parked[2] != 0 {
		t.Fatalf("parked %v", parked)
	}
	release()
	got, _ = d.priorities([]string{"org_a", "org_a", "org_a", "org_b"}, t0)
	if want := []int{priorityNormal, priorityNormal, priorityBacklog, priorityNormal}; !slices.Equal(got, want) {
		t.Fatalf("slot free again: priorities %v, want %v (org_a's budget of 2 unspent while it was full)", got, want)
	}
	none := &Dispatcher{}
	if got, _ := none.priorities([]string{"org_a"}, t0); !slices.Equal(got, []int{priorityNormal}) {
		t.Fatalf("no budget, no slots: %v", got)
	}
}

// Jobs carry their organization, so that a backlog of an organization
// holding all its slots, or out of fan-out budget, is put off without a
// read per job: here the delivery and the event do not even exist, and the
// jobs are still put off rather than found to have nothing to do.
func TestFullOrganizationPutsOffJobsBeforeReading(t *testing.T) {
	f := newFixture(t)
	f.worker.Slots = &Slots{PerOrganization: 1, PerHost: 10}
	f.webhook(t, "org_a", EventWildcard)
	f.emit(t, "org_a", events.CreatorCreated)
	var args string
	if err := f.store.DB.QueryRow("SELECT args FROM river_job WHERE kind = ?", DeliverArgs{}.Kind()).Scan(&args); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(args, `"organization_id":"org_a"`) {
		t.Fatalf("enqueued job's args %s name no organization", args)
	}
	release, ok := f.worker.Slots.acquire("org_a", "elsewhere.example")
	if !ok {
		t.Fatal("no slot")
	}
	defer release()
	gone := &river.Job[DeliverArgs]{JobRow: &rivertype.JobRow{Priority: priorityNormal}, Args: DeliverArgs{DeliveryID: "dlv_gone", OrganizationID: "org_a"}}
	if err := f.worker.Work(context.Background(), gone); err != nil {
		t.Fatalf("job of a full organization: %v, want done (moved)", err)
	}
	var prio int
	if err := f.store.DB.QueryRow("SELECT args, priority FROM river_job ORDER BY id DESC LIMIT 1").Scan(&args, &prio); err != nil {
		t.Fatal(err)
	}
	if prio != priorityBacklog || !strings.Contains(args, "dlv_gone") || !strings.Contains(args, `"organization_id":"org_a"`) {
		t.Fatalf("moved job: priority %d, args %s", prio, args)
	}
	// Another organization's job is read as before (and finds nothing).
	other := &river.Job[DeliverArgs]{JobRow: &rivertype.JobRow{Priority: priorityNormal}, Args: DeliverArgs{DeliveryID: "dlv_gone", OrganizationID: "org_b"}}
	if err := f.worker.Work(context.Background(), other); err != nil {
		t.Fatal(err)
	}

	f.disp.FanOutBudget = NewBudget(0.001, 1)
	f.disp.FanOutBudget.takeAll("org_a", 1, time.Now())
	fw := &FanOutWorker{Store: f.store, Dispatcher: f.disp}
	fan := &river.Job[FanOutArgs]{JobRow: &rivertype.JobRow{}, Args: FanOutArgs{EventID: "evt_gone", OrganizationID: "org_a"}}
	var snooze *river.JobSnoozeError
	if err := fw.Work(context.Background(), fan); !errors.As(err, &snooze) || snooze.Duration < snoozeOrganization*3/4 {
		t.Fatalf("fan-out without budget: %v, want a snooze", err)
	}
}

// A job that finds only its receiver host's slots full, held by quick
// deliveries of the same burst, looks again within tens of milliseconds,
// not half a second.
func TestHostFullSnoozesBriefly(t *testing.T) {
	f := newFixture(t)
	f.worker.Slots = &Slots{PerOrganization: 10, PerHost: 1}
	wh := f.webhook(t, "org_a", EventWildcard)
	f.emit(t, "org_a", events.CreatorCreated)
	d := f.deliveries(t)[0]
	release, ok := f.worker.Slots.acquire("org_a", receiverHost(wh.URL))
	if !ok {
		t.Fatal("no slot")
	}
	defer release()
	var snooze *river.JobSnoozeError
	job := &river.Job[DeliverArgs]{JobRow: &rivertype.JobRow{Priority: priorityNormal}, Args: DeliverArgs{DeliveryID: d.ID, OrganizationID: "org_a"}}
	if err := f.worker.Work(context.Background(), job); !errors.As(err, &snooze) || snooze.Duration > snoozeHost*5/4 {
		t.Fatalf("host full: %v, want a snooze of about %v", err, snoozeHost)
	}
	if f.hits.Load() != 0 {
		t.Fatalf("%d requests sent without a slot", f.hits.Load())
	}
}

// Deferred fan-outs waiting for budget come back at the pace the budget
// refills, in order: eight events of 50 deliveries at 200 a second, a
// quarter of a second apart.
func TestFanOutsParkAtTheBudgetsPace(t *testing.T) {
	b := NewBudget(200, 200)
	t0 := time.Unix(1000, 0)
	for k := 1; k <= 8; k++ {
		d := b.park("org_a", 50, t0)
		want := max(time.Duration(k)*250*time.Millisecond, snoozeOrganization*3/4)
		if d < want || (want > snoozeOrganization*5/4 && d != want) {
			t.Fatalf("event %d parked %v, want %v", k, d, want)
		}
	}
	if d := b.park("org_b", 50, t0); d > snoozeOrganization*5/4 {
		t.Fatalf("another organization's event parked %v", d)
	}
}

// A deferred fan-out whose turn comes within seconds is queued available
// and keeps its turn itself (River would promote a scheduled job up to its
// scheduler interval late): fetched before it, it snoozes until then
// without taking another turn; at its turn it fans out.
func TestDeferredFanOutKeepsItsTurn(t *testing.T) {
	f := newFixture(t)
	f.disp.FanOutBudget = NewBudget(100, 5)
	for range 5 {
		f.webhook(t, "org_a", EventWildcard)
	}
	f.emit(t, "org_a", events.CreatorCreated) // paid: 5 deliveries
	before := time.Now()
	ev := f.emit(t, "org_a", events.CreatorCreated)
	var state, raw string
	if err := f.store.DB.QueryRow("SELECT state, args FROM river_job WHERE kind = ?", FanOutArgs{}.Kind()).Scan(&state, &raw); err != nil {
		t.Fatal(err)
	}
	var args FanOutArgs
	if err := json.Unmarshal([]byte(raw), &args); err != nil {
		t.Fatal(err)
	}
	if turn := args.NotBefore.Sub(before); state != "available" || turn < snoozeOrganization*3/4 || turn > immediateWithin {
		t.Fatalf("deferred fan-out %s with its turn in %v (args %s), want available within %v", state, turn, raw, immediateWithin)
	}
	fw := &FanOutWorker{Store: f.store, Dispatcher: f.disp}
	var snooze *river.JobSnoozeError
	err := fw.Work(context.Background(), &river.Job[FanOutArgs]{JobRow: &rivertype.JobRow{}, Args: args})
	if !errors.As(err, &snooze) || snooze.Duration > time.Until(args.NotBefore)+time.Millisecond {
		t.Fatalf("before its turn: %v, want a snooze until %v", err, args.NotBefore)
	}
	args.NotBefore = time.Now().Add(-time.Millisecond)
	f.disp.FanOutBudget = NewBudget(100, 5) // its turn: the budget pays
	if err := fw.Work(context.Background(), &river.Job[FanOutArgs]{JobRow: &rivertype.JobRow{}, Args: args}); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, d := range f.deliveries(t) {
		if d.EventID == ev.ID {
			n++
		}
	}
	if n != 5 {
		t.Fatalf("%d deliveries of the deferred event at its turn, want 5", n)
	}
}
