package ipreg

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/digitorus/timestamp"

	"github.com/creativeops/creativeops/ent"
	"github.com/creativeops/creativeops/ent/iprecord"
	"github.com/creativeops/creativeops/events"
	"github.com/creativeops/creativeops/internal/testdb"
	"github.com/creativeops/creativeops/secrets"
	"github.com/creativeops/creativeops/storage"
)

// TestSealBatch seals one batch mixing new works, a duplicate within the
// batch, a work registered by an earlier batch and the same content under
// another organization, on every backend: each outcome is decided once,
// accepted records take consecutive log positions and verify, and their
// events are written and fanned out together.
func TestSealBatch(t *testing.T) {
	for _, b := range testdb.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			ctx := context.Background()
			var fanOuts [][]*ent.Event
			r, st := openSealTest(t, b, func(evs []*ent.Event) error {
				fanOuts = append(fanOuts, evs)
				return nil
			})
			work := func(org, content string) *pending { return r.testWork(t, org, content, content) }
			earlier := work("org_a", "1")
			<-r.seal(ctx, []*pending{earlier}, nil).done
			if earlier.err != nil {
				t.Fatalf("first batch: %v", earlier.err)
			}
			if n := r.rechecked.Load(); n != 0 {
				t.Fatalf("a batch of new content planned again (%d)", n)
			}
			fanOuts = nil

			batch := []*pending{
				work("org_a", "2"), // new
				work("org_a", "2"), // same content earlier in this batch
				work("org_a", "1"), // registered by the earlier batch
				work("org_b", "1"), // same content, another organization
				work("org_a", "3"), // new
			}
			<-r.seal(ctx, batch, nil).done
			// On PostgreSQL batches are planned without asking for
			// registered content first; this one held some, so its insert
			// was refused and it was planned again with the query.
			wantRechecked := int64(0)
			if b.Name == "postgres" {
				wantRechecked = 1
			}
			if n := r.rechecked.Load(); n != wantRechecked {
				t.Errorf("batches planned again: %d, want %d", n, wantRechecked)
			}
			for i, want := range []string{"", batch[0].rec.ID, earlier.rec.ID, "", ""} {
				p := batch[i]
				if want == "" {
					if p.err != nil || p.rec == nil {
						t.Fatalf("work %d: err %v, want a record", i, p.err)
					}
					continue
				}
				if p.rec != nil || p.err == nil || !strings.Contains(p.err.Error(), want) {
					t.Fatalf("work %d: rec %v err %v, want a duplicate of %s", i, p.rec, p.err, want)
				}
			}
			accepted := []*pending{batch[0], batch[3], batch[4]}
			for i, p := range accepted {
				if p.rec.LogIndex != int64(1+i) {
					t.Errorf("record %d at log index %d, want %d", i, p.rec.LogIndex, 1+i)
				}
				// Stored as sealed, every column (the batch's insert lists
				// them itself).
				stored, err := st.Ent.IPRecord.Get(ctx, p.rec.ID)
				if err != nil {
					t.Fatal(err)
				}
				got, want := recordValues(stored), recordValues(p.rec)
				for c, col := range iprecord.Columns {
					g, w := got[c], want[c]
					if gt, ok := g.(time.Time); ok {
						g, w = gt.UTC(), w.(time.Time).UTC()
					}
					if !reflect.DeepEqual(g, w) {
						t.Errorf("record %d: %s stored as %v, want %v", i, col, g, w)
					}
				}
				bundle, err := r.Certificate(ctx, toWork(p.rec))
				if err != nil {
					t.Fatal(err)
				}
				rep, err := Verify(bundle, nil)
				if err != nil || !rep.OK {
					t.Fatalf("record %d does not verify: %v %+v", i, err, rep.Failed())
				}
				resp, err := timestamp.ParseResponse(p.rec.Token)
				if err != nil {
					t.Fatal(err)
				}
				serial, _ := certificateSerial(p.rec.CertificateID)
				if resp.SerialNumber.Cmp(serial) != 0 {
					t.Errorf("token serial %v, want the certificate's %v", resp.SerialNumber, serial)
				}
			}
			if len(fanOuts) != 1 || len(fanOuts[0]) != len(accepted) {
				t.Fatalf("fan-outs %d of %v events, want one of %d", len(fanOuts), fanOuts, len(accepted))
			}
			for i, ev := range fanOuts[0] {
				if ev.Type != events.IPRegistered || ev.OrganizationID != accepted[i].reg.OrganizationID ||
					!strings.Contains(ev.Data, fmt.Sprintf(`"id":"%s"`, accepted[i].rec.ID)) {
					t.Errorf("event %d = %+v, want ip.registered of %s", i, ev, accepted[i].rec.ID)
				}
			}
			if n := st.Ent.Event.Query().CountX(ctx); n != 4 {
				t.Errorf("%d events stored, want 4", n)
			}
			head, err := r.Head(ctx)
			if err != nil || head.Size != 4 {
				t.Fatalf("log size %d (%v), want 4", head.Size, err)
			}
		})
	}
}

// TestSealAhead seals batches planned on top of earlier ones that have not
// committed (the sequencer does this while the writer or the log head's
// lock is busy). The first batch fails, so the second, which took the first's
// content for a duplicate, must be placed again; the third then lands on a
// log of the size it was planned for but with other records in it, and
// must be placed again too rather than written with stale tree hashes.
func TestSealAhead(t *testing.T) {
	for _, b := range testdb.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			ctx := context.Background()
			r, _ := openSealTest(t, b, func(evs []*ent.Event) error {
				for _, ev := range evs {
					if strings.Contains(ev.Data, "refused") {
						return errors.New("fan-out refused")
					}
				}
				return nil
			})
			work := func(title, content string) *pending { return r.testWork(t, "org_a", title, content) }
			first := work("refused", "1")
			fa := r.seal(ctx, []*pending{first}, nil)
			second := []*pending{work("again", "1"), work("new", "2")}
			fb := r.seal(ctx, second, []*flight{fa})
			third := work("third", "3")
			fc := r.seal(ctx, []*pending{third}, []*flight{fa, fb})
			// Planned ahead: the second as if the first committed, the
			// third ending where the second was planned to. (On PostgreSQL
			// the second's transaction may already have found its plan
			// stale when the third is planned, and then the third is
			// placed under the lock.)
			if fb.plan == nil || fb.plan.from != 1 || len(fb.plan.rejected) != 1 {
				t.Fatalf("second batch not planned ahead: %+v", fb.plan)
			}
			if (b.Name == "sqlite" || fc.plan != nil) && (fc.plan == nil || fc.plan.from != 2) {
				t.Fatalf("third batch not planned ahead on the second: %+v", fc.plan)
			}
			for _, f := range []*flight{fa, fb, fc} {
				<-f.done
			}
			if first.err == nil || first.rec != nil {
				t.Fatalf("first batch: rec %v err %v, want its failure", first.rec, first.err)
			}
			for i, p := range append(second, third) {
				if p.err != nil || p.rec == nil || p.rec.LogIndex != int64(i) {
					t.Fatalf("work %d: rec %+v err %v, want a record at index %d", i, p.rec, p.err, i)
				}
				bundle, err := r.Certificate(ctx, toWork(p.rec))
				if err != nil {
					t.Fatal(err)
				}
				rep, err := Verify(bundle, nil)
				if err != nil || !rep.OK {
					t.Fatalf("work %d does not verify: %v %+v", i, err, rep.Failed())
				}
			}
			head, err := r.Head(ctx)
			if err != nil || head.Size != 3 {
				t.Fatalf("log size %d (%v), want 3", head.Size, err)
			}
			// A batch planned on the head as committed moves it in the
			// statement that locks it (on PostgreSQL once the pause after
			// a stale plan is over).
			r.staleAt.Store(0)
			before := r.advanced.Load()
			fourth := work("fourth", "4")
			<-r.seal(ctx, []*pending{fourth}, nil).done
			if fourth.err != nil || fourth.rec == nil || fourth.rec.LogIndex != 3 {
				t.Fatalf("fourth: rec %+v err %v, want a record at index 3", fourth.rec, fourth.err)
			}
			if r.advanced.Load() != before+1 {
				t.Fatalf("the fourth batch, planned on the committed head, was placed under the lock")
			}
		})
	}
}

// Two registries on one database (two replicas) register concurrently:
// each plans ahead on the head it last saw, finds it stale when the other
// appended, and places its batch again under the lock. Every work lands
// once, at its own index, and verifies.
func TestSealTwoSequencers(t *testing.T) {
	for _, b := range testdb.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			ctx := context.Background()
			url := b.URL(t)
			keyring, err := secrets.NewKeyring(secrets.GenerateKey())
			if err != nil {
				t.Fatal(err)
			}
			var regs []*Registry
			for range 2 {
				regs = append(regs, openRegistryOn(t, url, keyring, func([]*ent.Event) error { return nil }))
			}
			const each = 30
			var wg sync.WaitGroup
			recs := make([][]*pending, len(regs))
			for i, r := range regs {
				for j := range each {
					p := r.testWork(t, "org_a", fmt.Sprintf("r%d-%d", i, j), fmt.Sprintf("%02x", i*each+j+1))
					recs[i] = append(recs[i], p)
					wg.Add(1)
					go func() {
						defer wg.Done()
						r.queue <- p
						<-p.done
					}()
				}
			}
			wg.Wait()
			seen := map[int64]bool{}
			for i, ps := range recs {
				for _, p := range ps {
					if p.err != nil || p.rec == nil {
						t.Fatalf("registry %d: rec %v err %v", i, p.rec, p.err)
					}
					if seen[p.rec.LogIndex] {
						t.Fatalf("log index %d given twice", p.rec.LogIndex)
					}
					seen[p.rec.LogIndex] = true
					bundle, err := regs[i].Certificate(ctx, toWork(p.rec))
					if err != nil {
						t.Fatal(err)
					}
					if rep, err := Verify(bundle, nil); err != nil || !rep.OK {
						t.Fatalf("index %d does not verify: %v %+v", p.rec.LogIndex, err, rep.Failed())
					}
				}
			}
			head, err := regs[0].Head(ctx)
			if err != nil || head.Size != 2*each {
				t.Fatalf("log size %d (%v), want %d", head.Size, err, 2*each)
			}
		})
	}
}

// openSealTest opens a migrated database of backend b and a registry on
// it whose webhook fan-out is fanOut.
func openSealTest(t *testing.T, b testdb.Backend, fanOut func([]*ent.Event) error) (*Registry, *storage.Store) {
	t.Helper()
	keyring, err := secrets.NewKeyring(secrets.GenerateKey())
	if err != nil {
		t.Fatal(err)
	}
	r := openRegistryOn(t, b.URL(t), keyring, fanOut)
	return r, r.store
}

// openRegistryOn opens a registry on the database at url (migrated first)
// whose webhook fan-out is fanOut. Registries opened on one database with
// one keyring share its keys, like replicas.
func openRegistryOn(t *testing.T, url string, keyring *secrets.Keyring, fanOut func([]*ent.Event) error) *Registry {
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
	// The service encodes events with server/wire; what matters here is
	// that each event carries its own work.
	encode := func(v any) ([]byte, error) {
		w := v.(*Work)
		return json.Marshal(map[string]string{"id": w.ID, "title": w.Title})
	}
	emitter := events.NewEmitter(encode, func(_ context.Context, _ *ent.Client, _ *sql.Tx, evs []*ent.Event) error {
		return fanOut(evs)
	})
	r, err := OpenRegistry(ctx, st, keyring, emitter, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.Close)
	return r
}

// testWork drafts a registration of a song whose content hash repeats
// content.
func (r *Registry) testWork(t *testing.T, org, title, content string) *pending {
	t.Helper()
	p, err := r.newPending(Registration{
		OrganizationID: org, CreatorID: "cr_" + org, Title: title, Type: "song",
		ContentHash: "sha256:" + strings.Repeat(content, 64)[:64],
	})
	if err != nil {
		t.Fatal(err)
	}
	return p
}
