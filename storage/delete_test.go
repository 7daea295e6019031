package storage

import (
	"context"
	"database/sql/driver"
	"fmt"
	"sync/atomic"
	"testing"

	entsql "entgo.io/ent/dialect/sql"

	"github.com/creativeops/creativeops/internal/testdb"
)

// execCounter counts the statements executed through its connections.
type execCounter struct {
	driver.Connector
	n *atomic.Int64
}

func (c execCounter) Connect(ctx context.Context) (driver.Conn, error) {
	conn, err := c.Connector.Connect(ctx)
	return countingExecConn{conn, c.n}, err
}

type countingExecConn struct {
	driver.Conn
	n *atomic.Int64
}

func (c countingExecConn) ExecContext(ctx context.Context, q string, args []driver.NamedValue) (driver.Result, error) {
	c.n.Add(1)
	return c.Conn.(driver.ExecerContext).ExecContext(ctx, q, args)
}

func (c countingExecConn) QueryContext(ctx context.Context, q string, args []driver.NamedValue) (driver.Rows, error) {
	return c.Conn.(driver.QueryerContext).QueryContext(ctx, q, args)
}

func (c countingExecConn) PrepareContext(ctx context.Context, q string) (driver.Stmt, error) {
	return c.Conn.(driver.ConnPrepareContext).PrepareContext(ctx, q)
}

func (c countingExecConn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	return c.Conn.(driver.ConnBeginTx).BeginTx(ctx, opts)
}

// A clean-up deletes what its predicate selects, and nothing else, at
// most a batch to a statement.
func TestDeleteInBatches(t *testing.T) {
	for _, b := range testdb.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			ctx := context.Background()
			var execs atomic.Int64
			st, err := Open(ctx, b.URL(t), Wrapped(func(c driver.Connector) driver.Connector { return execCounter{c, &execs} }))
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			if _, err := st.DB.ExecContext(ctx, "CREATE TABLE cleanup (id integer PRIMARY KEY, v integer NOT NULL)"); err != nil {
				t.Fatal(err)
			}
			for i := range 15 {
				if _, err := st.DB.ExecContext(ctx, fmt.Sprintf("INSERT INTO cleanup (id, v) VALUES (%d, %d)", i+1, i)); err != nil {
					t.Fatal(err)
				}
			}
			execs.Store(0)
			n, err := DeleteInBatches(ctx, st, "cleanup", 3, func(s *entsql.Selector) { s.Where(entsql.LT(s.C("v"), 10)) })
			if err != nil || n != 10 {
				t.Fatalf("deleted %d (%v), want 10", n, err)
			}
			if got := execs.Load(); got != 4 {
				t.Errorf("%d statements for 10 rows in batches of 3, want 4", got)
			}
			var left, low int
			if err := st.DB.QueryRowContext(ctx, "SELECT count(*), count(CASE WHEN v < 10 THEN 1 END) FROM cleanup").Scan(&left, &low); err != nil {
				t.Fatal(err)
			}
			if left != 5 || low != 0 {
				t.Errorf("%d rows left (%d selected), want the 5 others", left, low)
			}
		})
	}
}
