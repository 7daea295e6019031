package storage

import (
	"context"
	"database/sql"
	"errors"
	"testing"

	"github.com/creativeops/creativeops/internal/testdb"
)

// KeyedRead reads the row its keys select, reports a missing one as
// sql.ErrNoRows, and refuses a context already done; KeyedQuery writes
// the statement in the store's dialect.
func TestKeyedRead(t *testing.T) {
	for _, b := range testdb.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			ctx := context.Background()
			st, err := Open(ctx, b.URL(t))
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			if err := st.Migrate(ctx); err != nil {
				t.Fatal(err)
			}
			for _, org := range []string{"org_a", "org_b"} {
				if err := st.Ent.Organization.Create().SetID(org).SetName("name of " + org).Exec(ctx); err != nil {
					t.Fatal(err)
				}
			}
			query := st.KeyedQuery("organizations", []string{"id", "name"}, "id", "name")
			want := map[string]string{"sqlite": "SELECT `id`, `name` FROM `organizations` WHERE `id` = ? AND `name` = ?",
				"postgres": `SELECT "id", "name" FROM "organizations" WHERE "id" = $1 AND "name" = $2`}[b.Name]
			if query != want {
				t.Fatalf("KeyedQuery = %s, want %s", query, want)
			}
			var id, name string
			if err := st.KeyedRead(ctx, query, []any{"org_b", "name of org_b"}, &id, &name); err != nil || id != "org_b" || name != "name of org_b" {
				t.Fatalf("KeyedRead = %q, %q, %v", id, name, err)
			}
			if err := st.KeyedRead(ctx, query, []any{"org_b", "name of org_a"}, &id, &name); !errors.Is(err, sql.ErrNoRows) {
				t.Fatalf("KeyedRead of no row: %v, want sql.ErrNoRows", err)
			}
			done, cancel := context.WithCancel(ctx)
			cancel()
			if err := st.KeyedRead(done, query, []any{"org_a", "name of org_a"}, &id, &name); !errors.Is(err, context.Canceled) {
				t.Fatalf("KeyedRead with a cancelled context: %v, want context.Canceled", err)
			}
		})
	}
}
