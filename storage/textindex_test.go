package storage

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/creativeops/creativeops/internal/testdb"
)

// insertRecord stores an ip_records row with the given title and returns
// its rowid (SQLite).
func insertRecord(t *testing.T, st *Store, n int, title string) int64 {
	t.Helper()
	ctx := context.Background()
	err := st.Ent.IPRecord.Create().SetID(fmt.Sprintf("ip_%d", n)).SetOrganizationID("org_a").SetCreatorID("cr").
		SetTitle(title).SetType("song").SetContentHash(fmt.Sprintf("sha256:%064d", n)).SetTimestamp(time.Now()).
		SetCertificateID(fmt.Sprintf("cert_%d", n)).SetLogOrigin("test").SetLogIndex(int64(n)).
		SetRecordBytes([]byte("{}")).SetToken([]byte("token")).Exec(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var rowid int64
	if err := st.DB.QueryRowContext(ctx, "SELECT rowid FROM ip_records WHERE id = ?", fmt.Sprintf("ip_%d", n)).Scan(&rowid); err != nil {
		t.Fatal(err)
	}
	return rowid
}

// titleMatches lists the rowids the title index gives for a phrase.
func titleMatches(t *testing.T, st *Store, phrase string) []int64 {
	t.Helper()
	return indexMatches(t, st, TitleIndex, `"`+phrase+`"`)
}

// wordMatches lists the rowids the titles' word index gives for a word.
func wordMatches(t *testing.T, st *Store, word string) []int64 {
	t.Helper()
	return indexMatches(t, st, TitleWordIndex, `"`+word+`"`)
}

func indexMatches(t *testing.T, st *Store, index, query string) []int64 {
	t.Helper()
	rows, err := st.DB.Query("SELECT rowid FROM "+index+" WHERE "+index+" MATCH ? ORDER BY rowid", query)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		out = append(out, id)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// checkTitleIndex runs FTS5's integrity check of the index against
// ip_records' titles: it fails when an entry is missing, stale or extra.
func checkTitleIndex(t *testing.T, st *Store, when string) {
	t.Helper()
	for _, ix := range []string{TitleIndex, TitleWordIndex} {
		if _, err := st.DB.Exec("INSERT INTO " + ix + "(" + ix + ", rank) VALUES ('integrity-check', 1)"); err != nil {
			t.Errorf("%s: %s does not match the records: %v", when, ix, err)
		}
	}
}

// SQLite's title index follows ip_records through inserts, and through
// deletes and title updates made by hand (the service makes neither), and
// survives VACUUM, which keeps the rowids of a table with indexes (the
// FTS5 table refers to records by rowid).
func TestSQLiteTitleIndexFollowsTheRecords(t *testing.T) {
	st := openSQLite(t)
	night := insertRecord(t, st, 1, "Night River")
	day := insertRecord(t, st, 2, "Day River")
	if got := titleMatches(t, st, "river"); len(got) != 2 {
		t.Fatalf("river: rowids %v, want %d and %d", got, night, day)
	}
	if got := wordMatches(t, st, "river"); len(got) != 2 {
		t.Fatalf("the word river: rowids %v, want %d and %d", got, night, day)
	}
	if got := wordMatches(t, st, "rive"); len(got) != 0 {
		t.Fatalf("the word rive: rowids %v, want none", got)
	}
	checkTitleIndex(t, st, "after inserts")
	if _, err := st.DB.Exec("DELETE FROM ip_records WHERE rowid = ?", day); err != nil {
		t.Fatal(err)
	}
	if got := titleMatches(t, st, "day"); len(got) != 0 {
		t.Errorf("a deleted record is still indexed: %v", got)
	}
	checkTitleIndex(t, st, "after a delete")
	if _, err := st.DB.Exec("UPDATE ip_records SET title = 'Morning Brook' WHERE rowid = ?", night); err != nil {
		t.Fatal(err)
	}
	if got := titleMatches(t, st, "night"); len(got) != 0 {
		t.Errorf("an updated title is still indexed under the old one: %v", got)
	}
	if got := titleMatches(t, st, "brook"); len(got) != 1 || got[0] != night {
		t.Errorf("brook: %v, want [%d]", got, night)
	}
	if got := wordMatches(t, st, "night"); len(got) != 0 {
		t.Errorf("an updated title is still indexed under its old words: %v", got)
	}
	checkTitleIndex(t, st, "after an update")
	for i := 3; i < 50; i++ {
		insertRecord(t, st, i, fmt.Sprintf("Work %d", i))
	}
	if _, err := st.DB.Exec("DELETE FROM ip_records WHERE title LIKE 'Work 1%'"); err != nil {
		t.Fatal(err)
	}
	if _, err := st.DB.Exec("VACUUM"); err != nil {
		t.Fatal(err)
	}
	checkTitleIndex(t, st, "after VACUUM")
	if got := titleMatches(t, st, "brook"); len(got) != 1 || got[0] != night {
		t.Errorf("after VACUUM, brook: %v, want [%d]", got, night)
	}
}

// A database made before the title index gets it, filled from its
// records, at its first migration; later migrations leave the index as
// they find it (they do not read every record again).
func TestSQLiteTitleIndexBackfilledOnce(t *testing.T) {
	ctx := context.Background()
	st := openSQLite(t)
	// As an earlier version left it: no index, no triggers (the word
	// index came later than the trigram one: both are made the same way).
	for _, ix := range []string{TitleIndex, TitleWordIndex} {
		for _, stmt := range []string{"DROP TABLE " + ix, "DROP TRIGGER " + ix + "_insert",
			"DROP TRIGGER " + ix + "_delete", "DROP TRIGGER " + ix + "_update"} {
			if _, err := st.DB.Exec(stmt); err != nil {
				t.Fatal(err)
			}
		}
	}
	var n int
	if err := st.DB.QueryRow("SELECT count(*) FROM sqlite_master WHERE name LIKE 'ip_records_title%'").Scan(&n); err != nil || n != 0 {
		t.Fatalf("%d objects of the title indexes left (%v)", n, err)
	}
	old := insertRecord(t, st, 1, "Stored Before")
	if err := st.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	if got := titleMatches(t, st, "before"); len(got) != 1 || got[0] != old {
		t.Fatalf("a record stored before the index: %v, want [%d]", got, old)
	}
	if got := wordMatches(t, st, "before"); len(got) != 1 || got[0] != old {
		t.Fatalf("a record stored before the word index: %v, want [%d]", got, old)
	}
	checkTitleIndex(t, st, "after the backfill")
	// A record the indexes missed (their triggers gone) stays missing: the
	// next migration finds the indexes and does not rebuild them.
	for _, ix := range []string{TitleIndex, TitleWordIndex} {
		if _, err := st.DB.Exec("DROP TRIGGER " + ix + "_insert"); err != nil {
			t.Fatal(err)
		}
	}
	insertRecord(t, st, 2, "Stored Unseen")
	if err := st.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	if got := titleMatches(t, st, "unseen"); len(got) != 0 {
		t.Errorf("a second migration rebuilt the title index: %v", got)
	}
	if got := wordMatches(t, st, "unseen"); len(got) != 0 {
		t.Errorf("a second migration rebuilt the word index: %v", got)
	}
}

// On PostgreSQL the migration makes the trigram index of titles; where it
// may not create the pg_trgm extension (a role without CREATE on the
// database), it migrates all the same, without the index, and warns once.
func TestPostgresTitleIndex(t *testing.T) {
	base := os.Getenv(testdb.PostgresEnv)
	if base == "" {
		t.Skipf("PostgreSQL tests skipped: %s is not set", testdb.PostgresEnv)
	}
	ctx := context.Background()
	trgm := func(st *Store) int {
		var n int
		if err := st.DB.QueryRowContext(ctx, "SELECT count(*) FROM pg_indexes WHERE indexname = $1", TitleTrigramIndex).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	t.Run("superuser", func(t *testing.T) {
		var logs bytes.Buffer
		st, err := Open(ctx, testdb.PostgresURL(t), Logger(slog.New(slog.NewTextHandler(&logs, nil))))
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		if err := st.Migrate(ctx); err != nil {
			t.Fatal(err)
		}
		if trgm(st) != 1 {
			t.Error("no trigram index of titles")
		}
		if logs.Len() != 0 {
			t.Errorf("warnings: %s", logs.String())
		}
	})
	t.Run("without pg_trgm", func(t *testing.T) {
		admin, err := Open(ctx, base)
		if err != nil {
			t.Fatal(err)
		}
		defer admin.Close()
		role := fmt.Sprintf("co_test_role_%d", time.Now().UnixNano())
		if _, err := admin.DB.ExecContext(ctx, "CREATE ROLE "+role+" LOGIN"); err != nil {
			t.Fatal(err)
		}
		// Registered first, so it runs after the database is dropped.
		t.Cleanup(func() { _, _ = admin.DB.ExecContext(context.Background(), "DROP ROLE IF EXISTS "+role) })
		dbURL := testdb.PostgresURL(t)
		owner, err := Open(ctx, dbURL)
		if err != nil {
			t.Fatal(err)
		}
		defer owner.Close()
		// The role may create tables in the schema, not extensions in the
		// database.
		if _, err := owner.DB.ExecContext(ctx, "GRANT USAGE, CREATE ON SCHEMA public TO "+role); err != nil {
			t.Fatal(err)
		}
		u, err := url.Parse(dbURL)
		if err != nil {
			t.Fatal(err)
		}
		u.User = url.User(role)
		var logs bytes.Buffer
		st, err := Open(ctx, u.String(), Logger(slog.New(slog.NewTextHandler(&logs, nil))))
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		if err := st.Migrate(ctx); err != nil {
			t.Fatalf("migration without pg_trgm: %v", err)
		}
		if trgm(st) != 0 {
			t.Error("a trigram index without pg_trgm?")
		}
		if got := logs.String(); strings.Count(got, "level=WARN") != 1 || !strings.Contains(got, "pg_trgm") {
			t.Errorf("want one warning naming pg_trgm, got: %s", got)
		}
		// The catalog's search, unchanged, scans.
		var n int
		if err := st.DB.QueryRowContext(ctx, "SELECT count(*) FROM ip_records WHERE title ILIKE '%night%'").Scan(&n); err != nil {
			t.Fatal(err)
		}
	})
}
