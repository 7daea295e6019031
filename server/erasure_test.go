package server_test

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/protobuf/encoding/protojson"
	_ "modernc.org/sqlite"

	creativeopsv1 "github.com/creativeops/creativeops/gen/creativeops/v1"
	"github.com/creativeops/creativeops/internal/testdb"
	"github.com/creativeops/creativeops/internal/testserver"
	"github.com/creativeops/creativeops/ipreg"
	"github.com/creativeops/creativeops/server/wire"
)

// The personal data of the erased creator: words found nowhere else, so
// that finding one of them anywhere is finding a copy.
const (
	erasedName  = "Zephyrine Quillfeather"
	erasedEmail = "Zephyrine.Q@Example.org"
	erasedAgent = "Marlowe Penhaligon"
)

// erasedWords are the byte strings no database file may hold after the
// erasure (the email as given and as its lower-cased key).
var erasedWords = []string{erasedName, erasedEmail, strings.ToLower(erasedEmail), erasedAgent}

// An erasure leaves no byte of the creator's personal data in the live
// database: the creator is made, runs tracked plans (re-planned once)
// for it, gets works registered and webhooks delivered (to a receiver
// that echoes what it is sent, so the delivery log holds it too), is
// updated and exported, and a backup is taken; then it is erased. After
// it the SQLite file (checkpointed, and again vacuumed) and a new backup
// hold none of it, nor any text column on PostgreSQL; its certificates
// still verify offline; the export before held all of it.
func TestErasureLeavesNoPersonalData(t *testing.T) {
	for _, b := range testdb.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			s := testserver.Start(t, testserver.Options{DatabaseURL: b.URL(t)})
			key := s.AdminKey
			var mu sync.Mutex
			received := 0
			receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				body, _ := io.ReadAll(r.Body)
				mu.Lock()
				received++
				mu.Unlock()
				w.WriteHeader(http.StatusOK)
				w.Write(body) // echoed: the delivery log keeps the first KiB of a response
			}))
			t.Cleanup(receiver.Close)
			mustDo := func(method, path string, body any, want int, headers ...string) map[string]any {
				t.Helper()
				r := s.Do(t, method, path, key, body, headers...)
				if r.Status != want {
					t.Fatalf("%s %s: %d, want %d: %s", method, path, r.Status, want, r.Body)
				}
				return r.JSON
			}
			mustDo("POST", "/v1/webhooks", map[string]any{"url": receiver.URL + "/hooks", "events": []string{"*"}}, http.StatusCreated)

			c := mustDo("POST", "/v1/creators", map[string]any{"name": erasedName, "email": erasedEmail, "vertical": "music",
				"metadata": map[string]any{"agent": erasedAgent}}, http.StatusCreated, "Idempotency-Key", "create-"+b.Name)
			id := c["id"].(string)
			other := mustDo("POST", "/v1/creators", map[string]any{"name": "Kept Person", "email": "kept@example.org", "vertical": "film"}, http.StatusCreated)["id"].(string)
			mustDo("PATCH", "/v1/creators/"+id, map[string]any{"metadata": map[string]any{"agency": erasedAgent + " Ltd"}}, http.StatusOK)

			run := mustDo("POST", "/v1/engine/run", map[string]any{"vertical": "music", "workflow": "release-strategy", "track": true, "creator_id": id,
				"context": map[string]any{"artist": erasedName, "genre": "indie pop", "releaseDate": "2027-03-03", "as_of": "2026-11-23"}}, http.StatusOK,
				"Idempotency-Key", "run-"+b.Name)
			planID := run["plan_id"].(string)
			if run["creator_id"] != id {
				t.Fatalf("the job does not name its creator: %v", run)
			}
			mustDo("POST", "/v1/plans/"+planID+":replan", map[string]any{"context": map[string]any{"releaseDate": "2027-04-02"}}, http.StatusOK)
			otherRun := mustDo("POST", "/v1/engine/run", map[string]any{"vertical": "music", "workflow": "release-strategy", "track": true, "creator_id": other,
				"context": map[string]any{"artist": "Kept Person", "genre": "jazz", "releaseDate": "2027-03-03", "as_of": "2026-11-23"}}, http.StatusOK)

			work := "The master recording, every byte of it."
			rec := mustDo("POST", "/v1/ip/register", map[string]any{"creator_id": id, "title": "Night Songs", "type": "song", "content_hash": digestOf(work)}, http.StatusCreated)
			certID := rec["certificate_id"].(string)

			// Every event reaches the receiver: created x2, updated, two
			// completed runs, replanned, the plan's reminders (if due), the
			// registration.
			deadline := time.Now().Add(20 * time.Second)
			for {
				mu.Lock()
				n := received
				mu.Unlock()
				if n >= 6 {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("only %d deliveries arrived", n)
				}
				time.Sleep(50 * time.Millisecond)
			}
			waitDeliveriesSettled(t, s)

			// The export, before erasure, holds all of it.
			exp := s.Do(t, "GET", "/v1/creators/"+id+":export", key, nil)
			if exp.Status != http.StatusOK {
				t.Fatalf("export: %d %s", exp.Status, exp.Body)
			}
			var doc creativeopsv1.CreatorExport
			if err := protojson.Unmarshal(exp.Body, &doc); err != nil {
				t.Fatal(err)
			}
			if doc.Creator.GetEmail() != erasedEmail || doc.Creator.GetMetadata().AsMap()["agent"] != erasedAgent ||
				len(doc.Plans) != 1 || len(doc.Jobs) != 2 || len(doc.Records) != 1 || len(doc.Certificates) != 1 {
				t.Fatalf("export misses something: creator %v, %d plans, %d jobs, %d records, %d certificates",
					doc.Creator, len(doc.Plans), len(doc.Jobs), len(doc.Records), len(doc.Certificates))
			}
			types := map[string]int{}
			delivered := 0
			for _, ev := range doc.Events {
				types[ev.Type]++
				delivered += len(ev.Deliveries)
			}
			for _, typ := range []string{"creator.created", "creator.updated", "engine.job.completed", "plan.replanned", "ip.registered"} {
				if types[typ] == 0 {
					t.Errorf("export has no %s event: %v", typ, types)
				}
			}
			if delivered < len(doc.Events) {
				t.Errorf("export shows %d deliveries for %d events", delivered, len(doc.Events))
			}
			for _, w := range []string{erasedName, erasedEmail, erasedAgent} {
				if !bytes.Contains(exp.Body, []byte(w)) {
					t.Errorf("export does not hold %q", w)
				}
			}
			for _, j := range doc.Jobs {
				if j.GetId() == otherRun["id"] {
					t.Errorf("export holds another creator's job")
				}
			}

			// A backup taken before the erasure holds the data (so the
			// checks below can see it when it is there).
			dir := t.TempDir()
			if b.Name == "sqlite" {
				before := filepath.Join(dir, "before.db")
				sqliteExec(t, s.Store.Path(), "VACUUM INTO '"+before+"'")
				if found := wordsIn(t, before); len(found) == 0 {
					t.Fatal("the backup before the erasure holds none of the personal data: the check cannot see it")
				}
			} else if found := postgresWords(t, s.Store.DB); len(found) == 0 {
				t.Fatal("the database holds none of the personal data before the erasure: the check cannot see it")
			}

			mustDo("DELETE", "/v1/creators/"+id, nil, http.StatusNoContent)

			for _, path := range []string{"/v1/creators/" + id, "/v1/creators/" + id + ":export", "/v1/plans/" + planID} {
				if r := s.Do(t, "GET", path, key, nil); r.Status != http.StatusNotFound {
					t.Errorf("GET %s after erasure: %d %s", path, r.Status, r.Body)
				}
			}
			if r := s.Do(t, "PATCH", "/v1/creators/"+id, key, map[string]any{"name": erasedName}); r.Status != http.StatusNotFound {
				t.Errorf("PATCH of an erased creator: %d %s", r.Status, r.Body)
			}
			if r := s.Do(t, "POST", "/v1/ip/register", key, map[string]any{"creator_id": id, "title": "Later", "type": "song", "content_hash": digestOf("later")}); r.Status != http.StatusNotFound {
				t.Errorf("registering a work for an erased creator: %d %s", r.Status, r.Body)
			}
			if r := s.Do(t, "GET", "/v1/creators?email="+erasedEmail, key, nil); len(r.JSON["creators"].([]any)) != 0 {
				t.Errorf("the erased creator is still found by email: %s", r.Body)
			}
			// The tombstone keeps the id from being used again.
			if err := s.Store.Ent.Creator.Create().SetID(id).SetOrganizationID(s.OrgID).SetName("x").SetEmail("x@example.org").
				SetEmailKey("x@example.org").SetVertical("music").Exec(context.Background()); err == nil {
				t.Error("a creator was created again with an erased id")
			}
			// Others' data is untouched.
			if r := s.Do(t, "GET", "/v1/creators/"+other, key, nil); r.Status != http.StatusOK || r.JSON["name"] != "Kept Person" {
				t.Errorf("another creator changed: %d %s", r.Status, r.Body)
			}
			if r := s.Do(t, "GET", "/v1/engine/status/"+otherRun["id"].(string), key, nil); r.JSON["context"].(map[string]any)["artist"] != "Kept Person" {
				t.Errorf("another creator's job changed: %s", r.Body)
			}
			// The IP record stays, and its certificate verifies offline.
			if r := s.Do(t, "GET", "/v1/ip/records/"+rec["id"].(string), key, nil); r.Status != http.StatusOK {
				t.Errorf("IP record after erasure: %d %s", r.Status, r.Body)
			}
			_, bundle := fetchBundle(t, s, key, certID)
			if report, err := ipreg.Verify(bundle, []byte(work)); err != nil || !report.OK {
				t.Errorf("certificate no longer verifies: %v %+v", err, report)
			}
			for _, c := range doc.Certificates {
				if report, err := ipreg.Verify(wire.Bundle(c), []byte(work)); err != nil || !report.OK {
					t.Errorf("exported certificate does not verify: %v %+v", err, report)
				}
			}
			// creator.deleted went out, naming nothing but the id.
			deleted := waitForDeleted(t, s, id)
			for _, w := range erasedWords {
				if strings.Contains(deleted, w) {
					t.Errorf("creator.deleted holds %q: %s", w, deleted)
				}
			}
			// The audit log says who erased it, and never what it held.
			audits := s.Do(t, "GET", "/v1/audit-events?target_id="+id, key, nil)
			if !strings.Contains(string(audits.Body), `"creator.erased"`) || !strings.Contains(string(audits.Body), `"creator.updated"`) {
				t.Errorf("audit log misses the update or the erasure: %s", audits.Body)
			}

			waitDeliveriesSettled(t, s)
			if b.Name == "sqlite" {
				path := s.Store.Path()
				// Checkpointed: the database file as a page-by-page backup
				// (.backup) copies it, free pages included.
				sqliteCheckpoint(t, path)
				for _, f := range []string{path, path + "-wal"} {
					if found := wordsIn(t, f); len(found) > 0 {
						t.Errorf("%s holds %q after the erasure and a checkpoint", filepath.Base(f), found)
					}
				}
				after := filepath.Join(dir, "after.db")
				sqliteExec(t, path, "VACUUM INTO '"+after+"'")
				if found := wordsIn(t, after); len(found) > 0 {
					t.Errorf("a backup after the erasure holds %q", found)
				}
				sqliteExec(t, path, "VACUUM")
				sqliteCheckpoint(t, path)
				if found := wordsIn(t, path); len(found) > 0 {
					t.Errorf("the vacuumed database holds %q", found)
				}
			} else if found := postgresWords(t, s.Store.DB); len(found) > 0 {
				t.Errorf("PostgreSQL still holds the personal data: %v", found)
			}
		})
	}
}

// waitDeliveriesSettled waits until no delivery is pending, so no write
// of the queue is under way when the files are read.
func waitDeliveriesSettled(t *testing.T, s *testserver.Server) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		n, err := s.Store.Ent.Delivery.Query().Where().All(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		pending := 0
		for _, d := range n {
			if d.Status == "pending" {
				pending++
			}
		}
		if pending == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d deliveries still pending", pending)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// waitForDeleted returns the data of the creator.deleted event of id.
func waitForDeleted(t *testing.T, s *testserver.Server, id string) string {
	t.Helper()
	evs, err := s.Store.Ent.Event.Query().All(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, ev := range evs {
		if ev.Type == "creator.deleted" {
			var data map[string]any
			if err := json.Unmarshal([]byte(ev.Data), &data); err != nil || data["id"] != id || data["deleted_at"] == nil {
				t.Fatalf("creator.deleted data: %s", ev.Data)
			}
			return ev.Data
		}
	}
	t.Fatal("no creator.deleted event")
	return ""
}

func sqliteExec(t *testing.T, path, stmt string) {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(stmt); err != nil {
		t.Fatalf("%s: %v", stmt, err)
	}
}

// sqliteCheckpoint copies the whole WAL into the database file and
// empties it, retrying while a reader of the running server holds an
// older snapshot (the checkpoint then reports itself busy and copies only
// part).
func sqliteCheckpoint(t *testing.T, path string) {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	deadline := time.Now().Add(30 * time.Second)
	for {
		var busy, frames, copied int
		if err := db.QueryRow("PRAGMA wal_checkpoint(TRUNCATE)").Scan(&busy, &frames, &copied); err != nil {
			t.Fatal(err)
		}
		if busy == 0 && frames == copied {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("checkpoint still busy: %d of %d frames copied", copied, frames)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// wordsIn returns the erased words a file holds (none when it does not
// exist).
func wordsIn(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	var found []string
	for _, w := range erasedWords {
		if bytes.Contains(b, []byte(w)) {
			found = append(found, w)
		}
	}
	return found
}

// postgresWords returns "table.column: word" for every column of text,
// JSON or bytes of the test's database holding an erased word.
func postgresWords(t *testing.T, db *sql.DB) []string {
	t.Helper()
	ctx := context.Background()
	rows, err := db.QueryContext(ctx, `SELECT table_name, column_name, data_type FROM information_schema.columns
		WHERE table_schema = current_schema() AND data_type IN ('text', 'character varying', 'json', 'jsonb', 'bytea')`)
	if err != nil {
		t.Fatal(err)
	}
	type column struct{ table, name, typ string }
	var cols []column
	for rows.Next() {
		var c column
		if err := rows.Scan(&c.table, &c.name, &c.typ); err != nil {
			t.Fatal(err)
		}
		cols = append(cols, c)
	}
	rows.Close()
	if len(cols) < 20 {
		t.Fatalf("only %d text columns found", len(cols))
	}
	var found []string
	for _, c := range cols {
		for _, w := range erasedWords {
			cond := fmt.Sprintf(`position($1 in %q::text) > 0`, c.name)
			arg := any(w)
			if c.typ == "bytea" {
				cond, arg = fmt.Sprintf(`position($1::bytea in %q) > 0`, c.name), []byte(w)
			}
			var n int
			if err := db.QueryRowContext(ctx, fmt.Sprintf(`SELECT count(*) FROM %q WHERE %s`, c.table, cond), arg).Scan(&n); err != nil {
				t.Fatalf("%s.%s: %v", c.table, c.name, err)
			}
			if n > 0 {
				found = append(found, fmt.Sprintf("%s.%s: %s", c.table, c.name, w))
			}
		}
	}
	return found
}
