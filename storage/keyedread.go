package storage

import (
	"context"

	entsql "entgo.io/ent/dialect/sql"
)

// KeyedQuery is the text of a KeyedRead in the store's dialect: columns of
// table where every one of keys equals its argument, in order.
func (s *Store) KeyedQuery(table string, columns []string, keys ...string) string {
	where := make([]*entsql.Predicate, len(keys))
	for i, k := range keys {
		where[i] = entsql.EQ(k, "")
	}
	query, _ := entsql.Dialect(s.Dialect).Select(columns...).From(entsql.Table(table)).Where(entsql.And(where...)).Query()
	return query
}

// KeyedRead runs query, a read of at most one row by a unique key (a
// primary-key lookup; its text from KeyedQuery), on the read pool, and
// scans the row into dest. No row is sql.ErrNoRows.
//
// It is for the hottest reads, which were dearer than the HTTP around them:
// ent builds the statement's text anew on every call (a third of a
// creator's read), and a statement run with a cancellable context costs two
// goroutines, database/sql's and the SQLite driver's, each watching the
// context for the few microseconds the statement runs (another third under
// load). So the caller writes the text once, and on SQLite the statement
// runs detached from ctx's cancellation: ctx is checked before it starts,
// and a keyed read is over in microseconds, never waiting for the writer
// (readers of a WAL database do not), at worst for busy_timeout while
// SQLite recovers a crashed writer's log. Its values (the trace) are kept.
// PostgreSQL's statements travel the network, so there ctx still cancels
// them.
func (s *Store) KeyedRead(ctx context.Context, query string, args []any, dest ...any) error {
	if s.readDB == nil {
		return s.DB.QueryRowContext(ctx, query, args...).Scan(dest...)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	return s.readDB.QueryRowContext(context.WithoutCancel(ctx), query, args...).Scan(dest...)
}
