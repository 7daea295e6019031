package webhooks

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"github.com/creativeops/creativeops/ent"
	"github.com/creativeops/creativeops/ent/delivery"
	"github.com/creativeops/creativeops/events"
	"github.com/creativeops/creativeops/ids"
)

func TestSlots(t *testing.T) {
	s := &Slots{PerOrganization: 2, PerHost: 3}
	r1, ok1 := s.acquire("a", "h1")
	_, ok2 := s.acquire("a", "h2")
	_, ok3 := s.acquire("a", "h3")
	if !ok1 || !ok2 || ok3 {
		t.Fatalf("organization cap: %v %v %v", ok1, ok2, ok3)
	}
	_, okB := s.acquire("b", "h1")
	_, okC := s.acquire("c", "h1")
	_, okD := s.acquire("d", "h1")
	if !okB || !okC || okD {
		t.Fatalf("host cap: %v %v %v", okB, okC, okD)
	}
	r1()
	r1() // releasing twice frees one slot only
	if _, ok := s.acquire("a", "h3"); !ok {
		t.Fatal("released slot not reusable")
	}
	if _, ok := s.acquire("a", "h4"); ok {
		t.Fatal("double release freed two slots")
	}
	var unlimited *Slots
	if _, ok := unlimited.acquire("a", "h"); !ok {
		t.Fatal("nil Slots refused")
	}
	for _, tc := range []struct {
		metadata string
		first    time.Duration
		want     time.Duration
	}{
		{`{}`, snoozeHost, snoozeHost},
		{`{"snoozes": 2}`, snoozeHost, 4 * snoozeHost},
		{`{}`, snoozeOrganization, snoozeOrganization},
		{`{"snoozes": 3}`, snoozeOrganization, 8 * snoozeOrganization},
		{`{"snoozes": 40}`, snoozeOrganization, snoozeMax},
		{`{"snoozes": 70}`, snoozeHost, snoozeMax},
	} {
		if d := snoozeFor([]byte(tc.metadata), tc.first); d < tc.want*3/4 || d > tc.want*5/4 {
			t.Errorf("snoozeFor(%s, %v) = %v, want %v ±25%%", tc.metadata, tc.first, d, tc.want)
		}
	}
	if receiverHost("https://Hooks.Example.com.:8443/x") != "hooks.example.com" {
		t.Fatal(receiverHost("https://Hooks.Example.com.:8443/x"))
	}
}

// Organization A has many subscriptions on a slow receiver. Its attempts
// take only its share of the workers and the receiver's; its other jobs are
// snoozed without an attempt, and organization B's delivery goes out while
// A's attempts are still stuck.
func TestSlowOrganizationDoesNotHoldTheWorkers(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	f.worker.Slots = &Slots{PerOrganization: 2, PerHost: 2}
	arrived := make(chan struct{}, 100)
	unblock := make(chan struct{})
	var requests atomic.Int32
	// The first two requests hang until the end of the test; any more
	// (there must be none) would be answered at once, so a missing limit
	// fails the test instead of hanging it.
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if requests.Add(1) <= 2 {
			arrived <- struct{}{}
			<-unblock
		}
	}))
	t.Cleanup(slow.Close)
	t.Cleanup(func() {
		select {
		case <-unblock:
		default:
			close(unblock)
		}
	})
	hook := func(org, url string) {
		if _, err := f.store.Ent.Webhook.Create().SetID(ids.New(ids.Webhook)).SetOrganizationID(org).
			SetURL(url).SetEvents([]string{EventWildcard}).SetSecret(GenerateSecret()).Save(ctx); err != nil {
			t.Fatal(err)
		}
	}
	for range 6 {
		hook("org_a", slow.URL) // 127.0.0.1
	}
	f.emit(t, "org_a", events.CreatorCreated)
	pendingOf := func(org string) []*ent.Delivery {
		ds, err := f.store.Ent.Delivery.Query().Where(delivery.OrganizationID(org), delivery.Status(DeliveryPending)).Order(ent.Asc(delivery.FieldID)).All(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return ds
	}
	a := pendingOf("org_a")
	if len(a) != 6 {
		t.Fatalf("%d deliveries for A", len(a))
	}
	var wg sync.WaitGroup
	for _, d := range a[:2] {
		wg.Go(func() {
			if err := work(t, f.worker, d.ID, 0); err != nil {
				t.Errorf("A's attempt: %v", err)
			}
		})
	}
	<-arrived
	<-arrived
	// A holds its two slots: its other jobs are snoozed, not attempted
	// (jobs at backlog priority; one at normal priority is first moved
	// there, see TestSlotStarvedJobMovesToBacklog).
	for _, d := range a[2:] {
		var snooze *river.JobSnoozeError
		backlog := &river.Job[DeliverArgs]{JobRow: &rivertype.JobRow{Priority: priorityBacklog}, Args: DeliverArgs{DeliveryID: d.ID}}
		if err := f.worker.Work(context.Background(), backlog); !errors.As(err, &snooze) {
			t.Fatalf("A's third attempt: %v, want a snooze", err)
		}
	}
	if n := requests.Load(); n != 2 {
		t.Fatalf("%d requests reached the slow receiver, want 2", n)
	}
	for _, d := range pendingOf("org_a")[2:] {
		if d.Attempts != 0 {
			t.Fatalf("a snooze counted as an attempt: %+v", d)
		}
	}

	// B's delivery, to another receiver, goes out while A's are stuck.
	hook("org_b", strings.Replace(f.srv.URL, "127.0.0.1", "localhost", 1))
	f.emit(t, "org_b", events.CreatorCreated)
	b := pendingOf("org_b")
	if err := work(t, f.worker, b[0].ID, 0); err != nil {
		t.Fatal(err)
	}
	if d := f.store.Ent.Delivery.GetX(ctx, b[0].ID); d.Status != DeliverySucceeded || f.hits.Load() != 1 {
		t.Fatalf("B's delivery while A's are stuck: %s, %d hits", d.Status, f.hits.Load())
	}

	// C's receiver is the slow one too: its host is full, whoever asks.
	hook("org_c", slow.URL)
	f.emit(t, "org_c", events.CreatorCreated)
	var snooze *river.JobSnoozeError
	if err := work(t, f.worker, pendingOf("org_c")[0].ID, 0); !errors.As(err, &snooze) {
		t.Fatalf("C on a full host: %v, want a snooze", err)
	}

	close(unblock)
	wg.Wait()
	// Slots are free again.
	rest := pendingOf("org_a")
	if err := work(t, f.worker, rest[0].ID, 0); err != nil {
		t.Fatal(err)
	}
	if d := f.store.Ent.Delivery.GetX(ctx, rest[0].ID); d.Status != DeliverySucceeded {
		t.Fatalf("after the slow attempts: %s", d.Status)
	}
}

// The jobs of an organization holding all its slots come back at
// parkPerSecond in the order they were parked, however many there are,
// instead of each backing off on its own; another organization's first
// parked job waits only the floor.
func TestParkedJobsComeBackAtAPace(t *testing.T) {
	s := NewSlots(20)
	t0 := time.Unix(1000, 0)
	var last time.Duration
	for i := range 200 {
		d := s.park("org_a", t0)
		if d < snoozeOrganization*3/4 {
			t.Fatalf("job %d parked %v, under the floor", i, d)
		}
		if turn := time.Duration(i) * time.Second / parkPerSecond; turn > snoozeOrganization*5/4 && d != turn {
			t.Fatalf("job %d parked %v, want its turn %v", i, d, turn)
		}
		last = d
	}
	if want := 199 * time.Second / parkPerSecond; last != want {
		t.Fatalf("200th job parked %v, want %v", last, want)
	}
	if d := s.park("org_b", t0); d > snoozeOrganization*5/4 {
		t.Fatalf("another organization's first job parked %v", d)
	}
	if d := (*Slots)(nil).park("org_a", t0); d < snoozeOrganization*3/4 || d > snoozeOrganization*5/4 {
		t.Fatalf("nil Slots parked %v", d)
	}
}
