// Package teststore opens stores for tests: on a database of one of the
// backends testdb offers, migrated, and closed when the test ends. (testdb
// cannot do it itself: storage's own tests use testdb.)
package teststore

import (
	"context"
	"testing"

	"github.com/creativeops/creativeops/internal/testdb"
	"github.com/creativeops/creativeops/storage"
)

// Open opens a migrated store on a new database of backend b.
func Open(t testing.TB, b testdb.Backend) *storage.Store {
	t.Helper()
	ctx := context.Background()
	st, err := storage.Open(ctx, b.URL(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	if err := st.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	return st
}
