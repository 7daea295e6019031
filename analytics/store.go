package analytics

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"maps"
	"slices"
	"time"

	entsql "entgo.io/ent/dialect/sql"

	"github.com/creativeops/creativeops/ent"
	"github.com/creativeops/creativeops/ent/usageminute"
	"github.com/creativeops/creativeops/storage"
)

// writeBatch bounds the rows of one upsert statement (and transaction).
const writeBatch = 200

// Write adds aggregates to the usage_minutes table: a missing row is
// inserted, an existing one (written by this or another replica) gets the
// counts added and the histograms merged. Rows are written in key order so
// that replicas flushing the same minutes lock rows in the same order.
func Write(ctx context.Context, st *storage.Store, aggs map[Key]*Aggregate) error {
	keys := slices.SortedFunc(maps.Keys(aggs), compareKeys)
	for batch := range slices.Chunk(keys, writeBatch) {
		if err := st.Tx(ctx, func(ctx context.Context, _ *ent.Client, tx *sql.Tx) error {
			return writeBatchTx(ctx, st.Dialect, tx, batch, aggs)
		}); err != nil {
			return fmt.Errorf("write usage: %w", err)
		}
	}
	return nil
}

func compareKeys(a, b Key) int {
	return cmp.Or(cmp.Compare(a.Org, b.Org), cmp.Compare(a.Minute, b.Minute), cmp.Compare(a.KeyID, b.KeyID),
		cmp.Compare(a.Method, b.Method), cmp.Compare(a.Route, b.Route), cmp.Compare(a.Status, b.Status))
}

func writeBatchTx(ctx context.Context, dialect string, tx *sql.Tx, keys []Key, aggs map[Key]*Aggregate) error {
	// The upsert adds the counters in SQL. It leaves the histogram alone and
	// returns it, so that it can be merged and written back while this
	// transaction holds the row.
	ins := entsql.Dialect(dialect).Insert(usageminute.Table).Columns(
		usageminute.FieldOrganizationID, usageminute.FieldMinute, usageminute.FieldKeyID, usageminute.FieldMethod,
		usageminute.FieldRoute, usageminute.FieldStatus, usageminute.FieldRequests, usageminute.FieldLatencySumUs,
		usageminute.FieldHistogram)
	for _, k := range keys {
		a := aggs[k]
		ins.Values(k.Org, k.Minute, k.KeyID, k.Method, k.Route, k.Status, a.Requests, a.LatencySumUS, []byte{})
	}
	ins.OnConflict(
		entsql.ConflictColumns(usageminute.FieldOrganizationID, usageminute.FieldMinute, usageminute.FieldKeyID,
			usageminute.FieldMethod, usageminute.FieldRoute, usageminute.FieldStatus),
		entsql.ResolveWith(func(u *entsql.UpdateSet) {
			excluded := entsql.Dialect(dialect).Table("excluded")
			for _, c := range []string{usageminute.FieldRequests, usageminute.FieldLatencySumUs} {
				u.Set(c, entsql.Expr(u.Table().C(c)+" + "+excluded.C(c)))
			}
		}),
	).Returning(usageminute.FieldID, usageminute.FieldOrganizationID, usageminute.FieldMinute, usageminute.FieldKeyID,
		usageminute.FieldMethod, usageminute.FieldRoute, usageminute.FieldStatus, usageminute.FieldHistogram)
	query, args, err := ins.QueryErr()
	if err != nil {
		return err
	}
	rows, err := tx.QueryContext(ctx, query, args...)
	if err != nil {
		return err
	}
	type stored struct {
		id   int64
		hist []byte
	}
	found := make(map[Key]stored, len(keys))
	for rows.Next() {
		var k Key
		var s stored
		if err := rows.Scan(&s.id, &k.Org, &k.Minute, &k.KeyID, &k.Method, &k.Route, &k.Status, &s.hist); err != nil {
			rows.Close()
			return err
		}
		found[k] = s
	}
	if err := rows.Close(); err != nil {
		return err
	}
	if err := rows.Err(); err != nil {
		return err
	}
	for _, k := range keys {
		s, ok := found[k]
		if !ok {
			return fmt.Errorf("upsert returned no row for %v", k)
		}
		var h Histogram
		if err := h.UnmarshalBinary(s.hist); err != nil {
			return err
		}
		h.Merge(&aggs[k].Latency)
		enc, _ := h.MarshalBinary()
		q, args := entsql.Dialect(dialect).Update(usageminute.Table).
			Set(usageminute.FieldHistogram, enc).
			Where(entsql.EQ(usageminute.FieldID, s.id)).Query()
		if _, err := tx.ExecContext(ctx, q, args...); err != nil {
			return err
		}
	}
	return nil
}

// MinuteRow is one stored aggregate as the usage report reads it.
type MinuteRow struct {
	Minute    int64  `json:"minute"`
	Method    string `json:"method"`
	Route     string `json:"route"`
	Status    int    `json:"status"`
	Requests  int64  `json:"requests"`
	Histogram []byte `json:"histogram"`
}

// readChunk is the span of minutes read per query, which bounds memory
// whatever the window.
const readChunk = 6 * 60 * 60

// ReadMinutes calls fn with the organization's rows whose minute is in
// [from, to) (Unix seconds), optionally only those of one key.
func ReadMinutes(ctx context.Context, client *ent.Client, org, keyID string, from, to int64, fn func(MinuteRow) error) error {
	for lo := from; lo < to; lo += readChunk {
		hi := min(lo+readChunk, to)
		q := client.UsageMinute.Query().Where(
			usageminute.OrganizationID(org), usageminute.MinuteGTE(lo), usageminute.MinuteLT(hi))
		if keyID != "" {
			q = q.Where(usageminute.KeyID(keyID))
		}
		var rows []MinuteRow
		err := q.Select(usageminute.FieldMinute, usageminute.FieldMethod, usageminute.FieldRoute,
			usageminute.FieldStatus, usageminute.FieldRequests, usageminute.FieldHistogram).Scan(ctx, &rows)
		if err != nil {
			return err
		}
		for _, r := range rows {
			if err := fn(r); err != nil {
				return err
			}
		}
	}
	return nil
}

// DeleteBefore deletes the usage minutes that started before cutoff and
// says how many rows went (the retention period's clean-up).
func DeleteBefore(ctx context.Context, st *storage.Store, cutoff time.Time) (int, error) {
	return storage.DeleteInBatches(ctx, st, usageminute.Table, storage.DeleteBatch, usageminute.MinuteLT(cutoff.Unix()))
}
