package bench

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/creativeops/creativeops/internal/testdb"
	"github.com/creativeops/creativeops/internal/testserver"
)

// BenchmarkPlanStorage measures what a tracked release plan costs on disk:
// it seeds BENCH_PLANS (default 2,000) tracked release-strategy runs
// through the REST handler (the job, its event, the plan and its
// milestones, as a client's POST /v1/engine/run with "track": true stores
// them), checks off one milestone of each and re-plans every
// BENCH_REPLAN_EVERY-th plan (default 4; 0: none), then reports the bytes
// per plan of every table (its rows and its indexes) that grew. On SQLite
// the WAL is checkpointed and the file vacuumed first, and sizes come from
// the dbstat virtual table (the pages of each, so a vacuumed file's size);
// on PostgreSQL from pg_total_relation_size after VACUUM FULL (PostgreSQL
// compresses large values itself, TOAST).
//
//	go test -run '^$' -bench PlanStorage -benchtime 1x ./bench/
//	BENCH_DB=postgres BENCH_PLANS=5000 go test -run '^$' -bench PlanStorage -benchtime 1x ./bench/
func BenchmarkPlanStorage(b *testing.B) {
	for _, backend := range testdb.Backends(b) {
		if db := envString("BENCH_DB", ""); db != "" && !strings.Contains(db, backend.Name) {
			continue
		}
		b.Run(backend.Name, func(b *testing.B) {
			for n := 0; n < b.N; n++ {
				benchmarkPlanStorage(b, backend)
			}
		})
	}
}

func envString(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

func benchmarkPlanStorage(b *testing.B, backend testdb.Backend) {
	plans := envInt("BENCH_PLANS", 2000)
	replanEvery := envInt("BENCH_REPLAN_EVERY", 4)
	s := testserver.Start(b, testserver.Options{DatabaseURL: backend.URL(b), NoWorkers: true})
	r := s.Do(b, "POST", "/v1/creators", s.AdminKey, map[string]any{"name": "Nova Reyes", "email": "nova@example.com", "vertical": "music"})
	creator := r.JSON["id"].(string)
	h := s.Handler()
	before := tableBytes(b, s.Store.DB, s.Store.Dialect)

	do := func(method, path string, body any) map[string]any {
		data, _ := json.Marshal(body)
		req := httptest.NewRequest(method, path, bytes.NewReader(data))
		req.Header.Set("Authorization", "Bearer "+s.AdminKey)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		if w.Code != http.StatusOK && w.Code != http.StatusCreated {
			b.Fatalf("%s %s: %d %s", method, path, w.Code, w.Body)
		}
		var out map[string]any
		_ = json.Unmarshal(w.Body.Bytes(), &out)
		return out
	}
	// Four clients: SQLite's group commit batches their writes as a
	// server's would.
	var wg sync.WaitGroup
	next := make(chan int)
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				run := map[string]any{"vertical": "music", "workflow": "release-strategy", "track": true, "creator_id": creator,
					"context": map[string]any{"artist": fmt.Sprintf("Artist %d", i), "genre": "indie pop",
						"release_date": fmt.Sprintf("2027-%02d-%02d", 3+i%6, 1+i%27), "formats": []any{"digital", "vinyl"}, "budget_usd": 5000 + i%7*1000}}
				job := do("POST", "/v1/engine/run", run)
				planID, _ := job["plan_id"].(string)
				if planID == "" {
					b.Errorf("run %d made no plan: %v", i, job)
					return
				}
				plan := do("GET", "/v1/plans/"+planID, nil)
				ms, _ := plan["milestones"].([]any)
				if len(ms) > 0 {
					key := ms[0].(map[string]any)["key"].(string)
					do("POST", "/v1/plans/"+planID+"/milestones/"+key+":complete", map[string]any{})
				}
				if replanEvery > 0 && i%replanEvery == 0 {
					do("POST", "/v1/plans/"+planID+":replan", map[string]any{
						"context": map[string]any{"release_date": fmt.Sprintf("2027-%02d-%02d", 9+i%3, 1+i%27)}})
				}
			}
		}()
	}
	for i := range plans {
		next <- i
	}
	close(next)
	wg.Wait()
	if b.Failed() {
		return
	}
	after := tableBytes(b, s.Store.DB, s.Store.Dialect)
	var names []string
	var total int64
	for name, n := range after {
		if d := n - before[name]; d > 0 {
			names = append(names, name)
			total += d
		}
	}
	sort.Slice(names, func(i, j int) bool { return after[names[i]]-before[names[i]] > after[names[j]]-before[names[j]] })
	// Events are kept for --event-retention (30 days) only: the plan's own
	// bytes are the rest.
	var events int64
	for _, name := range names {
		if name == "events" || strings.HasPrefix(name, "event_") {
			events += after[name] - before[name]
		}
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "%d tracked release plans on %s (a quarter re-planned once, one milestone each done): %.0f bytes a plan, %.0f without its events\n",
		plans, backend.Name, float64(total)/float64(plans), float64(total-events)/float64(plans))
	for _, name := range names {
		d := after[name] - before[name]
		fmt.Fprintf(&sb, "  %-44s %8.0f B/plan  %5.1f%%\n", name, float64(d)/float64(plans), 100*float64(d)/float64(total))
	}
	// Every line (b.Log keeps ten of a benchmark's).
	fmt.Print(sb.String())
	b.ReportMetric(float64(total)/float64(plans), "bytes/plan")
	b.ReportMetric(float64(total-events)/float64(plans), "bytes/plan-without-events")
}

// tableBytes is the space each table and index of the database takes, by
// name; tables' figures on PostgreSQL include their indexes and TOAST.
func tableBytes(b *testing.B, db *sql.DB, dialect string) map[string]int64 {
	b.Helper()
	ctx := context.Background()
	var query string
	if dialect == "sqlite3" {
		for _, stmt := range []string{"PRAGMA wal_checkpoint(TRUNCATE)", "VACUUM", "PRAGMA wal_checkpoint(TRUNCATE)"} {
			if _, err := db.ExecContext(ctx, stmt); err != nil {
				b.Fatalf("%s: %v", stmt, err)
			}
		}
		query = "SELECT name, SUM(pgsize) FROM dbstat GROUP BY name"
	} else {
		if _, err := db.ExecContext(ctx, "VACUUM FULL"); err != nil {
			b.Fatalf("VACUUM FULL: %v", err)
		}
		query = `SELECT relname, pg_total_relation_size(c.oid) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
			WHERE n.nspname = current_schema() AND c.relkind = 'r'`
	}
	rows, err := db.QueryContext(ctx, query)
	if err != nil {
		b.Fatalf("sizes: %v", err)
	}
	defer rows.Close()
	out := map[string]int64{}
	for rows.Next() {
		var name string
		var n int64
		if err := rows.Scan(&name, &n); err != nil {
			b.Fatal(err)
		}
		out[name] = n
	}
	if err := rows.Err(); err != nil {
		b.Fatal(err)
	}
	return out
}
