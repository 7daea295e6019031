package storage

import (
	"context"
	"database/sql"
	"sync/atomic"
	"time"
)

// SQLite's WAL must be checkpointed: its frames copied back into the
// database file, with an fsync of the WAL before and of the database after.
// By default the connection whose commit pushes the WAL past 1,000 pages
// does that itself, holding the single writer meanwhile, and under load
// those fsyncs flush megabytes the page cache has gathered: every writer
// queued behind them waited for them (measured at 1,000 req/s of the
// benchmark mix: write p99 20–27 ms, against 13–20 ms with the checkpoints
// moved away). walCheckpointer runs them on a connection of its own
// instead, at about the same cadence; PASSIVE checkpoints take no write
// lock, so commits go on beside them.
//
// A PASSIVE checkpoint never rewinds the WAL, though: SQLite only starts it
// again from the beginning when a write transaction begins with every
// frame already copied, which steady writes rarely allow, so the file would
// grow without bound. Once it passes restartFrames, the group committer
// copies the last few frames itself between two batches (see restart). The
// writer's own automatic checkpoint stays on at four times that, in case
// this goroutine falls behind.
type walCheckpointer struct {
	db        *sql.DB
	every     time.Duration
	restartAt int64
	// frames is the WAL's length in frames at the last checkpoint.
	frames atomic.Int64
	// restarts counts the times the writer copied every frame, so that
	// its next transaction could rewind the WAL.
	restarts atomic.Int64
	// committed counts transactions the group committer committed: the
	// checkpoint runs once enough of them have added frames.
	committed atomic.Int64
	stop      chan struct{}
	done      chan struct{}
}

// Variables only so that tests can shorten them.
var (
	// checkpointEvery is how often the checkpointer looks for work.
	checkpointEvery = 20 * time.Millisecond
	// checkpointTxns is how many committed transactions call for a
	// checkpoint.
	checkpointTxns int64 = 64
	// restartFrames (16 MiB of 4 KiB pages) is the WAL length past which
	// the writer rewinds it; the writer's own automatic checkpoint is set
	// to four times that.
	restartFrames int64 = 4096
)

func startCheckpointer(db *sql.DB) *walCheckpointer {
	c := &walCheckpointer{db: db, every: checkpointEvery, restartAt: restartFrames, stop: make(chan struct{}), done: make(chan struct{})}
	go c.run()
	return c
}

func (c *walCheckpointer) run() {
	defer close(c.done)
	t := time.NewTicker(c.every)
	defer t.Stop()
	var seen int64
	last := time.Now()
	for {
		select {
		case <-c.stop:
			return
		case now := <-t.C:
			// About as often as SQLite's own 1,000-page threshold would
			// (a transaction writes a dozen pages or so), or once a second
			// for writes made outside transactions.
			if n := c.committed.Load(); n-seen >= checkpointTxns || now.Sub(last) >= time.Second {
				seen, last = n, now
				c.checkpoint()
			}
		}
	}
}

// checkpoint runs one background checkpoint and records the WAL's length,
// which tells the writer whether to rewind it. A failed checkpoint (the
// database closing) is retried on the next tick; the writer's automatic
// checkpoint is the fallback.
func (c *walCheckpointer) checkpoint() {
	if frames, _, err := checkpoint(c.db); err == nil {
		c.frames.Store(frames)
	}
}

// checkpoint runs a PASSIVE checkpoint on db and returns the WAL's length
// in frames and how many of them are copied into the database file.
func checkpoint(db *sql.DB) (frames, copied int64, err error) {
	var busy int64
	err = db.QueryRowContext(context.Background(), "PRAGMA wal_checkpoint(PASSIVE)").Scan(&busy, &frames, &copied)
	return frames, copied, err
}

// restartDue reports whether the WAL has grown past restartFrames.
func (c *walCheckpointer) restartDue() bool { return c.frames.Load() >= c.restartAt }

// restart lets the writer rewind the WAL. A write transaction that
// begins with every frame copied starts the WAL again from its beginning,
// unless a reader still holds old frames. So between two batches a PASSIVE
// checkpoint on the writer's own connection copies the few frames the
// background one has not, and the next batch's BEGIN rewinds. Nothing
// waits for readers: while one holds old frames the copy stops short and
// is tried again after the next batch, and a rewind the readers prevented
// shows in the background checkpointer's next count, which asks again.
func (c *walCheckpointer) restart(writer *sql.DB) {
	frames, copied, err := checkpoint(writer)
	if err == nil && frames == copied {
		c.frames.Store(0)
		c.restarts.Add(1)
	}
}

func (c *walCheckpointer) close() {
	close(c.stop)
	<-c.done
	c.db.Close()
}
