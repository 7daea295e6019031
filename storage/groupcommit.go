package storage

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync"

	"github.com/creativeops/creativeops/ent"
)

// SQLite has one writer. Under load, write transactions queue for it and
// each pays its own BEGIN, COMMIT and WAL frames for the pages it touched;
// a WAL checkpoint that a commit triggers stalls everyone queued behind
// it. groupCommitter runs the queued transactions together instead: one
// BEGIN IMMEDIATE, each caller's work inside its own SAVEPOINT (so one
// caller's error undoes only its own writes), one COMMIT. Rows written by
// neighbours share B-tree pages, so a batch writes fewer WAL frames than
// its transactions would alone, and fewer checkpoints come due. Nothing
// waits to form a batch: a transaction that finds the writer idle runs at
// once, alone; only those that arrive while a batch runs are grouped.
type groupCommitter struct {
	db      *sql.DB
	dialect string
	wal     *walCheckpointer
	queue   chan *txRequest
	stopped chan struct{}
	// mu guards closing queue against sends in progress.
	mu     sync.RWMutex
	closed bool
}

// maxGroup bounds how many transactions share one commit, so that a
// batch's own duration stays short.
const maxGroup = 64

type txRequest struct {
	ctx  context.Context
	fn   TxFunc
	err  error
	done chan struct{}
	// panicked holds what fn panicked with, re-raised in the caller.
	panicked any
}

func newGroupCommitter(db *sql.DB, dialect string, wal *walCheckpointer) *groupCommitter {
	g := &groupCommitter{db: db, dialect: dialect, wal: wal, queue: make(chan *txRequest, 4*maxGroup), stopped: make(chan struct{})}
	go g.run()
	return g
}

// do runs fn in a transaction shared with whatever else is queued and
// returns once that transaction has committed or failed.
func (g *groupCommitter) do(ctx context.Context, fn TxFunc) error {
	r, err := g.enqueue(ctx, fn)
	if err != nil {
		return err
	}
	return r.wait()
}

// enqueue queues fn for the writer. Requests run in the order they were
// queued.
func (g *groupCommitter) enqueue(ctx context.Context, fn TxFunc) (*txRequest, error) {
	r := &txRequest{ctx: ctx, fn: fn, done: make(chan struct{})}
	g.mu.RLock()
	defer g.mu.RUnlock()
	if g.closed {
		return nil, errClosed
	}
	select {
	case g.queue <- r:
		return r, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// wait returns once the request's transaction has committed or failed.
// Once queued, the request is decided by the committer; its context is
// honoured only until its turn comes.
func (r *txRequest) wait() error {
	<-r.done
	if r.panicked != nil {
		panic(r.panicked)
	}
	return r.err
}

var errClosed = errors.New("storage: database is closed")

// close stops the committer once queued transactions have run.
func (g *groupCommitter) close() {
	g.mu.Lock()
	first := !g.closed
	if first {
		g.closed = true
		close(g.queue)
	}
	g.mu.Unlock()
	<-g.stopped
	if first {
		g.wal.close()
	}
}

func (g *groupCommitter) run() {
	defer close(g.stopped)
	for first := range g.queue {
		batch := []*txRequest{first}
	drain:
		for len(batch) < maxGroup {
			select {
			case r, ok := <-g.queue:
				if !ok {
					break drain
				}
				batch = append(batch, r)
			default:
				break drain
			}
		}
		if g.wal.restartDue() {
			// Between batches the writer is idle: the moment to rewind
			// the WAL. A failure leaves it to the next batch, or to the
			// writer's own automatic checkpoint.
			g.wal.restart(g.db)
		}
		g.commit(batch)
		g.wal.committed.Add(int64(len(batch)))
		for _, r := range batch {
			close(r.done)
		}
	}
}

// commit runs a batch in one transaction. A request whose context ended
// while it queued is skipped. Each runs with its context detached from
// cancellation: SQLite answers an interrupted write inside a transaction
// by rolling back the whole transaction, which would undo its neighbours'
// work too.
func (g *groupCommitter) commit(batch []*txRequest) {
	live := batch[:0:0]
	for _, r := range batch {
		if err := r.ctx.Err(); err != nil {
			r.err = err
			continue
		}
		live = append(live, r)
	}
	if len(live) == 0 {
		return
	}
	fail := func(err error) {
		for _, r := range live {
			if r.err == nil && r.panicked == nil {
				r.err = err
			}
		}
	}
	sqlTx, err := g.db.BeginTx(context.Background(), nil)
	if err != nil {
		fail(err)
		return
	}
	client := txClient(g.dialect, sqlTx)
	if len(live) == 1 {
		r := live[0]
		r.err = r.call(client, sqlTx)
		if r.err != nil || r.panicked != nil {
			_ = sqlTx.Rollback()
			return
		}
		r.err = sqlTx.Commit()
		return
	}
	for _, r := range live {
		ctx := context.WithoutCancel(r.ctx)
		_, err := sqlTx.ExecContext(ctx, "SAVEPOINT grouped")
		if err != nil {
			_ = sqlTx.Rollback()
			fail(err)
			return
		}
		r.err = r.call(client, sqlTx)
		if r.panicked != nil {
			// Its writes are in an unknown state: undo the whole batch.
			_ = sqlTx.Rollback()
			fail(errors.New("storage: transaction abandoned: another transaction of its commit group panicked"))
			return
		}
		if r.err != nil {
			_, err = sqlTx.ExecContext(ctx, "ROLLBACK TO grouped")
		}
		if err == nil {
			_, err = sqlTx.ExecContext(ctx, "RELEASE grouped")
		}
		if err != nil {
			// The transaction itself is gone (SQLite rolled it back):
			// nobody's writes survive it.
			_ = sqlTx.Rollback()
			fail(fmt.Errorf("storage: commit group rolled back: %w", err))
			return
		}
	}
	if err := sqlTx.Commit(); err != nil {
		fail(err)
	}
}

// call runs the request's function, catching a panic to re-raise in the
// caller's goroutine.
func (r *txRequest) call(client *ent.Client, sqlTx *sql.Tx) (err error) {
	defer func() {
		if p := recover(); p != nil {
			r.panicked = p
		}
	}()
	return r.fn(context.WithoutCancel(r.ctx), client, sqlTx)
}
