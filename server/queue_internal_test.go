package server

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/riverqueue/river"

	"github.com/creativeops/creativeops/ent"
	"github.com/creativeops/creativeops/internal/testdb"
	"github.com/creativeops/creativeops/storage"
	"github.com/creativeops/creativeops/webhooks"
)

type notifyProbeArgs struct{}

func (notifyProbeArgs) Kind() string { return "test.notify_probe" }

type notifyProbeWorker struct {
	river.WorkerDefaults[notifyProbeArgs]
}

func (notifyProbeWorker) Work(context.Context, *river.Job[notifyProbeArgs]) error { return nil }

// TestQueueInsertNotifiesEachCommit: on PostgreSQL the inserter coalesces
// its NOTIFYs per queue within insertNotifyWindow, counted from the insert.
// A job whose NOTIFY was coalesced into another transaction's is only found
// by the next poll if that other transaction's fetch ran before it
// committed; while one organization floods the queue that was every few of
// another's deliveries, each waiting for a 500 ms poll. Two inserts 2 ms
// apart, in two transactions, must each send one (a 10 ms window sent one
// for the pair), and a job whose NOTIFY is lost anyway must wait no longer
// for a poll than on SQLite.
func TestQueueInsertNotifiesEachCommit(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	store, err := storage.Open(ctx, testdb.PostgresURL(t))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	if err := store.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	workers := river.NewWorkers()
	river.AddWorker(workers, notifyProbeWorker{})
	cfg := Config{Workers: 1, WebhookWorkers: 1, JobTimeout: time.Minute, RescueAfter: time.Hour}
	log := slog.New(slog.DiscardHandler)

	work, insert := queueConfigs(true, workers, cfg, log)
	sqliteWork, _ := queueConfigs(false, workers, cfg, log)
	if insert == nil {
		t.Fatal("PostgreSQL: no inserter configuration")
	}
	if work.FetchPollInterval != sqliteWork.FetchPollInterval {
		t.Errorf("PostgreSQL workers poll every %v, SQLite's every %v: a job whose NOTIFY was coalesced waits longer", work.FetchPollInterval, sqliteWork.FetchPollInterval)
	}
	inserter, err := river.NewClient(store.River, insert)
	if err != nil {
		t.Fatal(err)
	}

	conn, err := store.Pool.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, `LISTEN "public.river_insert"`); err != nil {
		t.Fatal(err)
	}
	insertOne := func() {
		t.Helper()
		err := store.Tx(ctx, func(ctx context.Context, _ *ent.Client, tx *sql.Tx) error {
			_, err := inserter.InsertTx(ctx, tx, notifyProbeArgs{}, &river.InsertOpts{Queue: webhooks.Queue})
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	insertOne()
	time.Sleep(2 * time.Millisecond) // more than insertNotifyWindow apart
	insertOne()
	for i := range 2 {
		wait, cancelWait := context.WithTimeout(ctx, 5*time.Second)
		n, err := conn.Conn().WaitForNotification(wait)
		cancelWait()
		if err != nil {
			t.Fatalf("insert %d of 2 sent no NOTIFY: %v", i+1, err)
		}
		if n.Payload != `{"queue": "`+webhooks.Queue+`"}` {
			t.Errorf("NOTIFY payload %q", n.Payload)
		}
	}
}

// River's records of work a stop canceled are dropped; its other errors,
// and anything at WARN or above that is not a cancellation, are kept.
func TestRiverLogDropsCanceledWork(t *testing.T) {
	var buf bytes.Buffer
	log := slog.New(discardBelow{slog.NewTextHandler(&buf, nil), slog.LevelWarn})
	log.Error("maintenance.PeriodicJobEnqueuer: Error starting transaction", "error", context.Canceled)
	log.Error("maintenance.PeriodicJobEnqueuer: Error starting transaction", "error", fmt.Errorf("begin: %w", context.Canceled))
	log.Error("jobexecutor: job failed", "error", "context canceled")
	log.Info("an informational line")
	if buf.Len() != 0 {
		t.Fatalf("logged: %s", buf.String())
	}
	log.Error("jobexecutor: job failed", "error", errors.New("disk full"))
	if !strings.Contains(buf.String(), "disk full") {
		t.Fatalf("a real error was dropped: %q", buf.String())
	}
}
