package analytics

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/creativeops/creativeops/storage"
)

// MaxPending bounds the aggregates kept in memory while the database is
// unreachable; beyond it the oldest flush's data is dropped (and logged).
const MaxPending = 100_000

// Flusher writes what a Recorder collects to the database every Interval
// and once more when stopped.
type Flusher struct {
	Recorder *Recorder
	Store    *storage.Store
	Interval time.Duration
	Log      *slog.Logger

	mu       sync.Mutex // one flush at a time
	pending  map[Key]*Aggregate
	stop     chan struct{}
	done     chan struct{}
	stopOnce sync.Once

	// Rows is the number of aggregates written; Failures counts flushes
	// that failed (their data is retried with the next one).
	Rows, Failures, Dropped atomic.Int64
}

// Start runs the periodic flush until Stop.
func (f *Flusher) Start() {
	f.stop, f.done = make(chan struct{}), make(chan struct{})
	go func() {
		defer close(f.done)
		t := time.NewTicker(f.Interval)
		defer t.Stop()
		for {
			select {
			case <-f.stop:
				return
			case <-t.C:
				ctx, cancel := context.WithTimeout(context.Background(), max(f.Interval, 10*time.Second))
				_ = f.Flush(ctx)
				cancel()
			}
		}
	}()
}

// Flush writes everything recorded so far. On failure the data is kept
// for the next attempt.
func (f *Flusher) Flush(ctx context.Context) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	aggs := f.Recorder.Drain()
	if f.pending != nil {
		Merge(f.pending, aggs)
		aggs, f.pending = f.pending, nil
	}
	if len(aggs) == 0 {
		return nil
	}
	if err := Write(ctx, f.Store, aggs); err != nil {
		f.Failures.Add(1)
		if len(aggs) > MaxPending {
			f.Dropped.Add(int64(len(aggs)))
			f.Log.ErrorContext(ctx, "usage analytics dropped: the database is unreachable", "aggregates", len(aggs), "error", err)
			return err
		}
		f.pending = aggs
		f.Log.WarnContext(ctx, "usage analytics flush failed; retrying with the next flush", "aggregates", len(aggs), "error", err)
		return err
	}
	f.Rows.Add(int64(len(aggs)))
	return nil
}

// Stop ends the periodic flush and writes what is left.
func (f *Flusher) Stop(ctx context.Context) error {
	f.stopOnce.Do(func() {
		if f.stop != nil {
			close(f.stop)
			<-f.done
		}
	})
	return f.Flush(ctx)
}
