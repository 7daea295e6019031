package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"testing"
	"time"

	entsql "entgo.io/ent/dialect/sql"

	"github.com/creativeops/creativeops/ent/job"
	"github.com/creativeops/creativeops/internal/testdb"
	"github.com/creativeops/creativeops/internal/testserver"
	"github.com/creativeops/creativeops/server"
)

var releaseRun = map[string]any{"vertical": "music", "workflow": "release-strategy",
	"context": map[string]any{"artist": "Nova Reyes", "genre": "indie pop", "release_date": "2027-03-05", "formats": []any{"digital", "vinyl"}, "budget_usd": 5000}}

func post(client *http.Client, url, key string, body any, want int) func(context.Context) error {
	b, _ := json.Marshal(body)
	return func(ctx context.Context) error {
		req, _ := http.NewRequestWithContext(ctx, "POST", url, bytes.NewReader(b))
		req.Header.Set("Authorization", "Bearer "+key)
		resp, err := client.Do(req)
		if err != nil {
			return err
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != want {
			return fmt.Errorf("status %d", resp.StatusCode)
		}
		return nil
	}
}

// BenchmarkSyncRun: synchronous release-strategy runs over REST on SQLite at
// a fixed 200 runs/s (each is computed and persisted with its event).
func BenchmarkSyncRun(b *testing.B) {
	s := testserver.Start(b, testserver.Options{})
	client := Client()
	for i := 0; i < b.N; i++ {
		report(b, Rate(context.Background(), 200, loadSeconds(), 64, post(client, s.URL+"/v1/engine/run", s.AdminKey, releaseRun, 200)))
	}
}

// BenchmarkAsyncThroughput: completed asynchronous runs per second, from the
// first insert to the last completion, on SQLite and PostgreSQL.
func BenchmarkAsyncThroughput(b *testing.B) {
	const jobs = 3000
	async := map[string]any{}
	for k, v := range releaseRun {
		async[k] = v
	}
	async["async"] = true
	for _, backend := range testdb.Backends(b) {
		b.Run(backend.Name, func(b *testing.B) {
			s := testserver.Start(b, testserver.Options{DatabaseURL: backend.URL(b), Configure: func(c *server.Config) { c.Workers = 32 }})
			client := Client()
			for n := 0; n < b.N; n++ {
				submit := Closed(context.Background(), 32, 2*time.Minute, jobs, func(ctx context.Context, _ int) error {
					return post(client, s.URL+"/v1/engine/run", s.AdminKey, async, 202)(ctx)
				})
				if submit.Errors > 0 {
					b.Fatalf("%d submissions failed", submit.Errors)
				}
				ctx := context.Background()
				deadline := time.Now().Add(5 * time.Minute)
				for {
					open, err := s.Store.Ent.Job.Query().Where(job.StatusIn("queued", "processing")).Count(ctx)
					if err != nil {
						b.Fatal(err)
					}
					if open == 0 {
						break
					}
					if time.Now().After(deadline) {
						b.Fatalf("%d jobs still open after 5 minutes", open)
					}
					time.Sleep(20 * time.Millisecond)
				}
				first, _ := s.Store.Ent.Job.Query().Where(job.Async(true)).Order(job.ByCreatedAt()).First(ctx)
				last, _ := s.Store.Ent.Job.Query().Where(job.Async(true)).Order(job.ByCompletedAt(entsql.OrderDesc())).First(ctx)
				completed, _ := s.Store.Ent.Job.Query().Where(job.Async(true), job.Status("completed")).Count(ctx)
				elapsed := last.CompletedAt.Sub(first.CreatedAt)
				b.ReportMetric(float64(completed)/elapsed.Seconds(), "jobs/s")
				b.Logf("%d async jobs completed in %v (submission alone %.0f req/s): %.0f jobs/s",
					completed, elapsed.Round(time.Millisecond), submit.Throughput(), float64(completed)/elapsed.Seconds())
				if _, err := s.Store.Ent.Job.Delete().Exec(ctx); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
