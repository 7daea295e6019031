package events_test

import (
	"context"
	"database/sql"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/creativeops/creativeops/ent"
	"github.com/creativeops/creativeops/events"
	"github.com/creativeops/creativeops/internal/testdb"
	"github.com/creativeops/creativeops/storage"
)

func openStore(t *testing.T, url string) *storage.Store {
	t.Helper()
	ctx := context.Background()
	st, err := storage.Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	if err := st.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	return st
}

// A follower that lists "after the last event it saw" while writers commit
// out of the order they started in gets every event exactly once: an
// event's sequence number is taken in its transaction, behind the
// organization's sequence row, so no smaller number commits after a larger
// one was seen. (Event ids, ULIDs made when the event is written, would
// skip the writer that started first and committed last.) Both the
// emitter that tells the fan-out (Subscribed: one upsert statement) and the
// plain one are covered.
func TestFollowingAfterMissesNothingUnderConcurrentWriters(t *testing.T) {
	for _, b := range testdb.Backends(t) {
		for _, subscribed := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/subscribed=%v", b.Name, subscribed), func(t *testing.T) {
				st := openStore(t, b.URL(t))
				fanOut := func(context.Context, *ent.Client, *sql.Tx, []*ent.Event) error { return nil }
				em := events.NewEmitter(nil, fanOut)
				if subscribed {
					em = em.Subscribed(st.Dialect, "(TRUE)")
				}
				const writers, each = 4, 15
				ctx := context.Background()
				var wg sync.WaitGroup
				errs := make(chan error, writers)
				for w := range writers {
					wg.Go(func() {
						for i := range each {
							err := st.Tx(ctx, func(ctx context.Context, tx *ent.Client, sqlTx *sql.Tx) error {
								_, err := em.EmitEncoded(ctx, tx, sqlTx, "org_a", "creator.created", fmt.Appendf(nil, `{"id":"cr_%d_%d"}`, w, i))
								if err != nil {
									return err
								}
								// Hold the transaction open a while after
								// writing, so commits interleave.
								time.Sleep(time.Duration((w*7+i*3)%5) * time.Millisecond)
								return nil
							})
							if err != nil {
								errs <- err
								return
							}
						}
					})
				}
				// Another organization's events interleave and are never
				// listed with org_a's.
				wg.Go(func() {
					for range 10 {
						if err := st.Tx(ctx, func(ctx context.Context, tx *ent.Client, sqlTx *sql.Tx) error {
							_, err := em.EmitBatch(ctx, tx, sqlTx, []events.Encoded{
								{OrganizationID: "org_b", Type: "creator.created", Data: []byte(`{"id":"cr_b"}`)},
								{OrganizationID: "org_a", Type: "ip.registered", Data: []byte(`{"id":"ip_a"}`)},
							})
							return err
						}); err != nil {
							errs <- err
							return
						}
					}
				})
				done := make(chan struct{})
				go func() { wg.Wait(); close(done) }()

				log := events.NewLog(st)
				seen := map[string]int{}
				var pos int64
				var last int64
				follow := func() {
					for {
						page, err := log.List(ctx, "org_a", events.Filter{}, events.Page{Ascending: true, Position: pos, Limit: 7})
						if err != nil {
							t.Fatal(err)
						}
						for _, r := range page {
							seen[r.ID]++
							if r.Sequence <= last {
								t.Fatalf("sequence %d after %d", r.Sequence, last)
							}
							last, pos = r.Sequence, r.Sequence
						}
						if len(page) < 7 {
							return
						}
					}
				}
				for running := true; running; {
					select {
					case <-done:
						running = false
					default:
						follow()
						time.Sleep(time.Millisecond)
					}
				}
				follow()
				close(errs)
				for err := range errs {
					t.Fatal(err)
				}
				if want := writers*each + 10; len(seen) != want {
					t.Fatalf("follower saw %d events, want %d", len(seen), want)
				}
				for id, n := range seen {
					if n != 1 {
						t.Fatalf("event %s seen %d times", id, n)
					}
				}
				if last != int64(writers*each+10) {
					t.Fatalf("last sequence %d, want %d (numbers without gaps)", last, writers*each+10)
				}
				other, err := log.List(ctx, "org_b", events.Filter{}, events.Page{Limit: 100})
				if err != nil {
					t.Fatal(err)
				}
				if len(other) != 10 || other[0].Sequence != 10 || other[0].ObjectID != "cr_b" {
					t.Fatalf("org_b's events: %d, newest %+v", len(other), other[0])
				}
			})
		}
	}
}

// Filters: type, object id and created range; newest first by default.
func TestListFilters(t *testing.T) {
	st := openStore(t, testdb.SQLiteURL(t))
	em := events.NewEmitter(nil, nil)
	ctx := context.Background()
	emit := func(typ, data string) {
		t.Helper()
		if err := st.Tx(ctx, func(ctx context.Context, tx *ent.Client, sqlTx *sql.Tx) error {
			_, err := em.EmitEncoded(ctx, tx, sqlTx, "org_a", typ, []byte(data))
			return err
		}); err != nil {
			t.Fatal(err)
		}
	}
	emit("creator.created", `{"id":"cr_1"}`)
	emit("plan.milestone.due", `{"plan_id":"plan_1","milestone":{"key":"x"}}`)
	emit("plan.replanned", `{"plan":{"id":"plan_1"},"changes":[]}`)
	mid := time.Now()
	time.Sleep(2 * time.Millisecond)
	emit("creator.created", `{"id":"cr_2"}`)
	log := events.NewLog(st)
	list := func(f events.Filter) []string {
		t.Helper()
		rs, err := log.List(ctx, "org_a", f, events.Page{Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, r := range rs {
			out = append(out, fmt.Sprintf("%d:%s", r.Sequence, r.ObjectID))
		}
		return out
	}
	for name, c := range map[string]struct {
		f    events.Filter
		want string
	}{
		"all, newest first": {events.Filter{}, "[4:cr_2 3:plan_1 2:plan_1 1:cr_1]"},
		"type":              {events.Filter{Types: []string{"creator.created"}}, "[4:cr_2 1:cr_1]"},
		"object":            {events.Filter{ObjectID: "plan_1"}, "[3:plan_1 2:plan_1]"},
		"created after":     {events.Filter{CreatedAfter: mid}, "[4:cr_2]"},
		"created before":    {events.Filter{CreatedBefore: mid}, "[3:plan_1 2:plan_1 1:cr_1]"},
	} {
		if got := fmt.Sprint(list(c.f)); got != c.want {
			t.Errorf("%s: %s, want %s", name, got, c.want)
		}
	}
}

// The retention deletes what is older than its cut-off, in batches, and
// nothing newer.
func TestDeleteBefore(t *testing.T) {
	st := openStore(t, testdb.SQLiteURL(t))
	ctx := context.Background()
	old := time.Now().Add(-48 * time.Hour).UTC()
	creates := make([]*ent.EventCreate, 0, 2500)
	for i := range 2500 {
		at := old
		if i%2 == 1 {
			at = time.Now().UTC()
		}
		creates = append(creates, st.Ent.Event.Create().SetID(fmt.Sprintf("evt_%05d", i)).SetOrganizationID("org_a").
			SetType("creator.created").SetData("{}").SetCreatedAt(at).SetSequence(int64(i+1)))
	}
	for i := 0; i < len(creates); i += 500 {
		if err := st.Ent.Event.CreateBulk(creates[i : i+500]...).Exec(ctx); err != nil {
			t.Fatal(err)
		}
	}
	n, err := events.DeleteBefore(ctx, st, time.Now().Add(-24*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	left, err := st.Ent.Event.Query().Count(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if n != 1250 || left != 1250 {
		t.Fatalf("deleted %d, left %d; want 1250 and 1250", n, left)
	}
}

func TestCreatorID(t *testing.T) {
	for data, want := range map[string]string{
		`{"id":"cr_1","name":"Nova"}`:                           "cr_1", // a creator
		`{"id":"job_1","creator_id":"cr_2"}`:                    "cr_2", // a run, a plan, an IP record
		`{"plan":{"id":"pln_1","creator_id":"cr_3"}}`:           "cr_3", // a re-plan, a reminder
		`{"job":{"id":"job_1","creator_id":"cr_4"}}`:            "cr_4",
		`{"id":"job_1","creator_id":"","context":{"x":"cr_5"}}`: "", // a run for no creator
		`{"id":"wh_1","url":"https://example.com"}`:             "",
		`not json`: "",
	} {
		if got := events.CreatorID([]byte(data)); got != want {
			t.Errorf("CreatorID(%s) = %q, want %q", data, got, want)
		}
	}
}
