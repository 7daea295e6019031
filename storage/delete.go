package storage

import (
	"context"

	entsql "entgo.io/ent/dialect/sql"
)

// DeleteBatch is how many rows one statement of a periodic clean-up
// deletes at most.
const DeleteBatch = 1000

// DeleteInBatches deletes the rows of table (whose key is id) that where
// selects, at most batch rows to a statement, each statement its own
// transaction, until none is left; it returns how many it deleted. where
// is an ent predicate of the table (an indexed one: each statement looks
// its rows up by it). A clean-up that finds a large backlog (a retention
// just enabled, a service down for weeks) so never holds SQLite's writer,
// or one long PostgreSQL transaction, for the whole backlog.
func DeleteInBatches[P ~func(*entsql.Selector)](ctx context.Context, s *Store, table string, batch int, where P) (int, error) {
	total := 0
	for {
		d := entsql.Dialect(s.Dialect)
		ids := d.Select("id").From(entsql.Table(table)).Limit(batch)
		where(ids)
		query, args := d.Delete(table).Where(entsql.In("id", ids)).Query()
		res, err := s.DB.ExecContext(ctx, query, args...)
		if err != nil {
			return total, err
		}
		n, err := res.RowsAffected()
		total += int(n)
		if err != nil || n < int64(batch) {
			return total, err
		}
	}
}
