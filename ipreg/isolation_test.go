package ipreg

import (
	"context"
	"strings"
	"testing"

	"github.com/creativeops/creativeops/ent"
	"github.com/creativeops/creativeops/internal/testdb"
)

// A registration the database refuses fails alone: the others sealed in the
// same batch, of this organization and of others, are registered.
func TestSealIsolatesARefusedRow(t *testing.T) {
	for _, b := range testdb.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			ctx := context.Background()
			r, st := openSealTest(t, b, func([]*ent.Event) error { return nil })
			first := r.testWork(t, "org_a", "first", "1")
			<-r.seal(ctx, []*pending{first}, nil).done
			if first.err != nil {
				t.Fatal(first.err)
			}
			// A record id that exists already: refused by the primary key
			// on every backend.
			clash := r.testWork(t, "org_bad", "clash", "2")
			clash.row.ID = first.rec.ID
			bad := []*pending{clash}
			if b.Name == "postgres" {
				// PostgreSQL refuses NUL in text (what the API now rejects
				// at the edge, and Register before batching).
				bad = append(bad, r.testWork(t, "org_bad", "nul\x00title", "3"))
			}
			good := []*pending{r.testWork(t, "org_b", "b", "4"), r.testWork(t, "org_c", "c", "5"), r.testWork(t, "org_b", "b2", "6")}
			batch := append([]*pending{good[0]}, bad...)
			batch = append(batch, good[1:]...)
			<-r.seal(ctx, batch, nil).done
			for i, p := range good {
				if p.err != nil || p.rec == nil {
					t.Fatalf("good registration %d failed with the bad one: %v", i, p.err)
				}
			}
			for i, p := range bad {
				if p.err == nil || p.rec != nil {
					t.Fatalf("bad registration %d was registered", i)
				}
			}
			if n := st.Ent.IPRecord.Query().CountX(ctx); n != 1+len(good) {
				t.Fatalf("%d records, want %d", n, 1+len(good))
			}
			head, err := r.Head(ctx)
			if err != nil || head.Size != int64(1+len(good)) {
				t.Fatalf("log size %d (%v)", head.Size, err)
			}
			for _, p := range good {
				bundle, err := r.Certificate(ctx, toWork(p.rec))
				if err != nil {
					t.Fatal(err)
				}
				if rep, err := Verify(bundle, nil); err != nil || !rep.OK {
					t.Fatalf("%s does not verify: %v", p.rec.ID, err)
				}
			}
		})
	}
}

// Register refuses text the database cannot store before it joins a batch.
func TestRegisterRefusesUnstorableText(t *testing.T) {
	r, _ := openSealTest(t, testdb.Backends(t)[0], func([]*ent.Event) error { return nil })
	for field, reg := range map[string]Registration{
		"title":       {OrganizationID: "o", CreatorID: "cr_1", Title: "a\x00b", Type: "song", ContentHash: "sha256:" + strings.Repeat("a", 64)},
		"description": {OrganizationID: "o", CreatorID: "cr_1", Title: "t", Description: "\xff", Type: "song", ContentHash: "sha256:" + strings.Repeat("a", 64)},
	} {
		_, err := r.Register(context.Background(), reg)
		if err == nil || !strings.HasPrefix(err.Error(), field+":") {
			t.Errorf("%s: %v", field, err)
		}
	}
}
