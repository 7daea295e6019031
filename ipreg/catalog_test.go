package ipreg

import (
	"context"
	"sync/atomic"
	"testing"

	"entgo.io/ent/dialect"
	entsql "entgo.io/ent/dialect/sql"

	"github.com/creativeops/creativeops/ent"
	"github.com/creativeops/creativeops/internal/testdb"
)

// A catalog page carries the count of every match, whichever page it is,
// filtered like the page but not cut by the page's position; a page past
// the end (its works gone since the token was issued) still counts. A page
// with works is one statement: the count rides along with it.
func TestCatalogTotalOnEveryPage(t *testing.T) {
	for _, b := range testdb.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			ctx := context.Background()
			r, _ := openSealTest(t, b, func([]*ent.Event) error { return nil })
			var batch []*pending
			for i, org := range []string{"org_a", "org_a", "org_b", "org_a", "org_a", "org_a"} {
				batch = append(batch, r.testWork(t, org, "work", string(rune('1'+i))))
			}
			<-r.seal(ctx, batch, nil).done
			for _, p := range batch {
				if p.err != nil {
					t.Fatal(p.err)
				}
			}
			var statements atomic.Int64
			r.store.Read = ent.NewClient(ent.Driver(dialect.DebugWithContext(
				entsql.OpenDB(r.store.Dialect, r.store.ReadDB()),
				func(context.Context, ...any) { statements.Add(1) })))
			var ids []string
			after := ""
			for {
				statements.Store(0)
				page, total, err := r.Catalog(ctx, "org_a", CatalogQuery{After: after, Limit: 2})
				if err != nil {
					t.Fatal(err)
				}
				if total != 5 {
					t.Fatalf("page after %q: total %d, want 5", after, total)
				}
				if len(page) == 0 {
					break
				}
				if n := statements.Load(); n != 1 {
					t.Fatalf("page after %q took %d statements, want 1", after, n)
				}
				for _, w := range page {
					if w.OrganizationID != "org_a" {
						t.Fatalf("another organization's work %s", w.ID)
					}
					ids = append(ids, w.ID)
				}
				after = page[len(page)-1].ID
			}
			if len(ids) != 5 {
				t.Fatalf("paged through %d works, want 5", len(ids))
			}
			if page, total, err := r.Catalog(ctx, "org_a", CatalogQuery{CreatorID: "nobody", Limit: 2}); err != nil || len(page) != 0 || total != 0 {
				t.Fatalf("no match: %d works, total %d (%v)", len(page), total, err)
			}
		})
	}
}
