package storage

import (
	"context"
	"database/sql/driver"
	"reflect"
	"strings"

	"modernc.org/sqlite"

	"github.com/creativeops/creativeops/storage/jsondoc"
)

// The embedded SQLite spends a third of a simple statement's time parsing
// SQL, and the ORM and the queue send the same few dozen statement texts
// over and over. stmtConnector hands database/sql connections that keep a
// prepared statement per text, so every query, inside transactions too,
// skips the parser after its first run. (PostgreSQL's driver already caches
// statements.)
type stmtConnector struct {
	dsn string
	drv *sqlite.Driver
}

func (c stmtConnector) Connect(context.Context) (driver.Conn, error) {
	conn, err := c.drv.Open(c.dsn)
	if err != nil {
		return nil, err
	}
	return &stmtConn{Conn: conn, stmts: map[string]*cachedStmt{}}, nil
}

func (c stmtConnector) Driver() driver.Driver { return c.drv }

// maxStmtsPerConn bounds the cache; texts past it run unprepared.
const maxStmtsPerConn = 256

// stmtConn is used by one goroutine at a time (database/sql guarantees it),
// so its cache needs no lock. A statement whose rows are still open is
// busy: the same text run meanwhile takes the uncached path.
type stmtConn struct {
	driver.Conn
	stmts map[string]*cachedStmt
}

// CheckNamedValue stores a JSON document (a job's context and result)
// compressed (jsondoc.Compact); every other value goes to the driver as
// database/sql converts it.
func (c *stmtConn) CheckNamedValue(nv *driver.NamedValue) error {
	d, ok := nv.Value.(jsondoc.Doc)
	if !ok {
		return driver.ErrSkip
	}
	v, err := jsondoc.Compact(d)
	if err != nil {
		return err
	}
	nv.Value = v
	return nil
}

type cachedStmt struct {
	stmt driver.Stmt
	busy bool
}

func (c *stmtConn) cached(ctx context.Context, query string) *cachedStmt {
	if cs, ok := c.stmts[query]; ok {
		if cs.busy {
			return nil
		}
		return cs
	}
	// Scripts (several statements) cannot be kept prepared.
	if len(c.stmts) >= maxStmtsPerConn || strings.Contains(strings.TrimRight(strings.TrimSpace(query), ";"), ";") {
		return nil
	}
	st, err := c.Conn.(driver.ConnPrepareContext).PrepareContext(ctx, query)
	if err != nil {
		return nil
	}
	cs := &cachedStmt{stmt: st}
	c.stmts[query] = cs
	return cs
}

func (c *stmtConn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	cs := c.cached(ctx, query)
	if cs == nil {
		return c.Conn.(driver.QueryerContext).QueryContext(ctx, query, args)
	}
	rows, err := cs.stmt.(driver.StmtQueryContext).QueryContext(ctx, args)
	if err != nil {
		return nil, err
	}
	cs.busy = true
	return &stmtRows{Rows: rows, cs: cs}, nil
}

func (c *stmtConn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	cs := c.cached(ctx, query)
	if cs == nil {
		return c.Conn.(driver.ExecerContext).ExecContext(ctx, query, args)
	}
	return cs.stmt.(driver.StmtExecContext).ExecContext(ctx, args)
}

func (c *stmtConn) PrepareContext(ctx context.Context, query string) (driver.Stmt, error) {
	return c.Conn.(driver.ConnPrepareContext).PrepareContext(ctx, query)
}

func (c *stmtConn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	return c.Conn.(driver.ConnBeginTx).BeginTx(ctx, opts)
}

func (c *stmtConn) Ping(ctx context.Context) error { return c.Conn.(driver.Pinger).Ping(ctx) }

func (c *stmtConn) ResetSession(ctx context.Context) error {
	return c.Conn.(driver.SessionResetter).ResetSession(ctx)
}

func (c *stmtConn) IsValid() bool { return c.Conn.(driver.Validator).IsValid() }

func (c *stmtConn) Close() error {
	for _, cs := range c.stmts {
		_ = cs.stmt.Close()
	}
	c.stmts = nil
	return c.Conn.Close()
}

// stmtRows frees its statement for reuse when closed, and passes through
// the column metadata the driver offers.
type stmtRows struct {
	driver.Rows
	cs *cachedStmt
}

func (r *stmtRows) Close() error {
	err := r.Rows.Close()
	r.cs.busy = false
	return err
}

func (r *stmtRows) ColumnTypeDatabaseTypeName(i int) string {
	return r.Rows.(driver.RowsColumnTypeDatabaseTypeName).ColumnTypeDatabaseTypeName(i)
}

func (r *stmtRows) ColumnTypeLength(i int) (int64, bool) {
	return r.Rows.(driver.RowsColumnTypeLength).ColumnTypeLength(i)
}

func (r *stmtRows) ColumnTypeNullable(i int) (bool, bool) {
	return r.Rows.(driver.RowsColumnTypeNullable).ColumnTypeNullable(i)
}

func (r *stmtRows) ColumnTypePrecisionScale(i int) (int64, int64, bool) {
	return r.Rows.(driver.RowsColumnTypePrecisionScale).ColumnTypePrecisionScale(i)
}

func (r *stmtRows) ColumnTypeScanType(i int) reflect.Type {
	return r.Rows.(driver.RowsColumnTypeScanType).ColumnTypeScanType(i)
}
