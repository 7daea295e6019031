package storage

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/creativeops/creativeops/ent"
	"github.com/creativeops/creativeops/ent/organization"
)

func openSQLite(t *testing.T) *Store {
	t.Helper()
	ctx := context.Background()
	st, err := Open(ctx, "sqlite://"+filepath.Join(t.TempDir(), "g.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	if err := st.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	return st
}

// hold occupies the single writer until release is closed, so that the
// transactions started meanwhile queue and then commit as one group.
func hold(t *testing.T, st *Store) (release func(), done <-chan error) {
	t.Helper()
	started, unblock, errc := make(chan struct{}), make(chan struct{}), make(chan error, 1)
	go func() {
		errc <- st.Tx(context.Background(), func(ctx context.Context, tx *ent.Client, _ *sql.Tx) error {
			close(started)
			<-unblock
			return tx.Organization.Create().SetID("org_holder").SetName("holder").Exec(ctx)
		})
	}()
	<-started
	return func() { close(unblock) }, errc
}

// waitQueued waits until n transactions are queued behind the writer.
func waitQueued(t *testing.T, st *Store, n int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for len(st.group.queue) < n {
		if time.Now().After(deadline) {
			t.Fatalf("%d transactions queued, want %d", len(st.group.queue), n)
		}
		time.Sleep(time.Millisecond)
	}
}

func orgNames(t *testing.T, st *Store) []string {
	t.Helper()
	names, err := st.Ent.Organization.Query().Order(ent.Asc(organization.FieldName)).Select(organization.FieldName).Strings(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return names
}

// Transactions queued together commit together, and one that fails takes
// only its own writes with it.
func TestGroupCommitIsolatesFailures(t *testing.T) {
	st := openSQLite(t)
	release, held := hold(t, st)
	const n = 40
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = st.Tx(context.Background(), func(ctx context.Context, tx *ent.Client, _ *sql.Tx) error {
				name := fmt.Sprintf("org%02d", i)
				if err := tx.Organization.Create().SetID("org_" + name).SetName(name).Exec(ctx); err != nil {
					return err
				}
				if i%3 == 0 {
					return errors.New("refused after writing")
				}
				if i%7 == 0 {
					// A constraint error inside the group: the name is taken.
					return tx.Organization.Create().SetID("org_dup" + name).SetName(name).Exec(ctx)
				}
				return nil
			})
		}()
	}
	waitQueued(t, st, n)
	release()
	wg.Wait()
	if err := <-held; err != nil {
		t.Fatal(err)
	}
	want := []string{"holder"}
	for i := range n {
		switch {
		case i%3 == 0:
			if errs[i] == nil || errs[i].Error() != "refused after writing" {
				t.Errorf("tx %d: %v, want its own error", i, errs[i])
			}
		case i%7 == 0:
			if !ent.IsConstraintError(errs[i]) {
				t.Errorf("tx %d: %v, want a constraint error", i, errs[i])
			}
		default:
			if errs[i] != nil {
				t.Errorf("tx %d: %v", i, errs[i])
			}
			want = append(want, fmt.Sprintf("org%02d", i))
		}
	}
	slices.Sort(want)
	if got := orgNames(t, st); !slices.Equal(got, want) {
		t.Fatalf("committed %v, want %v", got, want)
	}
}

// A transaction that panics re-panics in its caller; its group is rolled
// back and the others are told so, never half-written.
func TestGroupCommitPanic(t *testing.T) {
	st := openSQLite(t)
	release, held := hold(t, st)
	var wg sync.WaitGroup
	var neighbour, recovered any
	wg.Add(2)
	go func() {
		defer wg.Done()
		neighbour = st.Tx(context.Background(), func(ctx context.Context, tx *ent.Client, _ *sql.Tx) error {
			return tx.Organization.Create().SetID("org_n").SetName("neighbour").Exec(ctx)
		})
	}()
	waitQueued(t, st, 1)
	go func() {
		defer wg.Done()
		defer func() { recovered = recover() }()
		_ = st.Tx(context.Background(), func(ctx context.Context, tx *ent.Client, _ *sql.Tx) error {
			if err := tx.Organization.Create().SetID("org_p").SetName("panicker").Exec(ctx); err != nil {
				return err
			}
			panic("boom")
		})
	}()
	waitQueued(t, st, 2)
	release()
	wg.Wait()
	if err := <-held; err != nil {
		t.Fatal(err)
	}
	if recovered != "boom" {
		t.Fatalf("caller recovered %v, want the panic", recovered)
	}
	if neighbour == nil {
		t.Fatal("the panicking transaction's neighbour reported success")
	}
	if got := orgNames(t, st); !slices.Equal(got, []string{"holder"}) {
		t.Fatalf("committed %v, want only the holder", got)
	}
	// The committer goes on working.
	if err := st.Tx(context.Background(), func(ctx context.Context, tx *ent.Client, _ *sql.Tx) error {
		return tx.Organization.Create().SetID("org_after").SetName("after").Exec(ctx)
	}); err != nil {
		t.Fatal(err)
	}
}

// A caller that gives up while queued writes nothing; one whose turn has
// come finishes even if it gives up meanwhile.
func TestGroupCommitCanceledWhileQueued(t *testing.T) {
	st := openSQLite(t)
	release, held := hold(t, st)
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		errc <- st.Tx(ctx, func(ctx context.Context, tx *ent.Client, _ *sql.Tx) error {
			return tx.Organization.Create().SetID("org_late").SetName("late").Exec(ctx)
		})
	}()
	waitQueued(t, st, 1)
	cancel()
	release()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Fatalf("canceled transaction: %v, want context.Canceled", err)
	}
	if err := <-held; err != nil {
		t.Fatal(err)
	}

	ctx, cancel = context.WithCancel(context.Background())
	err := st.Tx(ctx, func(ctx context.Context, tx *ent.Client, _ *sql.Tx) error {
		cancel()
		return tx.Organization.Create().SetID("org_ran").SetName("ran").Exec(ctx)
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := orgNames(t, st); !slices.Equal(got, []string{"holder", "ran"}) {
		t.Fatalf("committed %v, want holder and ran", got)
	}
}

// After Close, transactions fail instead of hanging.
func TestGroupCommitClosed(t *testing.T) {
	st := openSQLite(t)
	st.Close()
	err := st.Tx(context.Background(), func(context.Context, *ent.Client, *sql.Tx) error { return nil })
	if !errors.Is(err, errClosed) {
		t.Fatalf("Tx after Close: %v, want errClosed", err)
	}
}

// The WAL is checkpointed in the background and rewound by the writer
// between batches, so it stays near restartFrames instead of growing with
// every write; a reader holding an old snapshot delays the rewind only
// until it lets go. The test drives the checkpointer itself, one checkpoint
// every few transactions, rather than racing its ticker: what it checks
// does not depend on how fast the machine is.
func TestWALStaysBounded(t *testing.T) {
	every, restart := checkpointEvery, restartFrames
	// The ticker never fires during the test; restartFrames is small so
	// that a rewind comes due every few dozen transactions, well before
	// the writer's own automatic checkpoint (4*restartFrames) would step
	// in.
	checkpointEvery, restartFrames = time.Hour, 64
	t.Cleanup(func() { checkpointEvery, restartFrames = every, restart })
	dir := t.TempDir()
	ctx := context.Background()
	st, err := Open(ctx, "sqlite://"+filepath.Join(dir, "w.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if err := st.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	// Start from an empty WAL: the migration's schema writes are one burst
	// that grows with every table, not the steady writes measured here.
	if _, err := st.DB.ExecContext(ctx, "PRAGMA wal_checkpoint(TRUNCATE)"); err != nil {
		t.Fatal(err)
	}
	wal := st.group.wal
	written := 0
	tx := func() {
		t.Helper()
		name := fmt.Sprintf("o%05d", written)
		err := st.Tx(ctx, func(ctx context.Context, tx *ent.Client, _ *sql.Tx) error {
			return tx.Organization.Create().SetID("org_" + name).SetName(name).Exec(ctx)
		})
		if err != nil {
			t.Fatal(err)
		}
		written++
	}
	// write commits n transactions in rounds of four, as steady writes
	// with readers beside them do: a reader's snapshot, taken after the
	// round's first transaction, is still open when the background
	// checkpoint runs, so that checkpoint never copies the whole WAL and
	// SQLite alone would never rewind it. It returns the longest WAL (in
	// frames) a checkpoint saw.
	write := func(n int) (longest int64) {
		t.Helper()
		for range n / 4 {
			tx()
			reader, err := st.readDB.Conn(ctx)
			if err != nil {
				t.Fatal(err)
			}
			var count int
			if _, err := reader.ExecContext(ctx, "BEGIN"); err != nil {
				t.Fatal(err)
			}
			if err := reader.QueryRowContext(ctx, "SELECT count(*) FROM organizations").Scan(&count); err != nil {
				t.Fatal(err)
			}
			tx()
			tx()
			tx()
			wal.checkpoint()
			longest = max(longest, wal.frames.Load())
			if _, err := reader.ExecContext(ctx, "COMMIT"); err != nil {
				t.Fatal(err)
			}
			reader.Close()
		}
		return longest
	}
	// A checkpoint finds the WAL past restartFrames at most four
	// transactions (a few frames each) after it got there; the next batch
	// rewinds it. Without the rewind the WAL would reach the automatic
	// checkpoint's 4*restartFrames.
	bound := 2 * restartFrames

	if longest := write(1000); longest > bound {
		t.Fatalf("steady writes: WAL reached %d frames, want at most %d", longest, bound)
	}
	if wal.restarts.Load() < 5 {
		t.Fatalf("WAL rewound %d times in 1,000 transactions", wal.restarts.Load())
	}
	if fi, err := os.Stat(filepath.Join(dir, "w.db-wal")); err != nil {
		t.Fatal(err)
	} else if limit := bound*4120 + 32; fi.Size() > limit {
		t.Fatalf("WAL file of %d bytes, want at most %d", fi.Size(), limit)
	}

	// A reader in the middle of a transaction pins the frames its
	// snapshot needs: no checkpoint can copy past them, so no rewind.
	conn, err := st.readDB.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "BEGIN"); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := conn.QueryRowContext(ctx, "SELECT count(*) FROM organizations").Scan(&n); err != nil {
		t.Fatal(err)
	}
	before := wal.restarts.Load()
	if longest := write(200); longest <= bound {
		t.Fatalf("with a reader pinning it the WAL stayed at %d frames: the test no longer exercises the reader", longest)
	}
	if got := wal.restarts.Load(); got != before {
		t.Fatalf("WAL rewound %d times under a reader's snapshot", got-before)
	}
	// Once it lets go, the next checkpoints catch up and the WAL is
	// rewound again.
	if _, err := conn.ExecContext(ctx, "COMMIT"); err != nil {
		t.Fatal(err)
	}
	write(8)
	if wal.restarts.Load() == before {
		t.Fatal("the WAL was not rewound after the reader finished")
	}
	if longest := write(400); longest > bound {
		t.Fatalf("after the reader: WAL reached %d frames, want at most %d", longest, bound)
	}
	if n, err := st.Ent.Organization.Query().Count(ctx); err != nil || n != written {
		t.Fatalf("%d organizations (%v), want %d", n, err, written)
	}
}
