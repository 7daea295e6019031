package bench

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"testing"

	"github.com/creativeops/creativeops/internal/testdb"
	"github.com/creativeops/creativeops/internal/testserver"
)

// BenchmarkIPRegister: registrations per second with certificates (token +
// log entry + signed checkpoint per batch) and their latency, with one
// client (each registration its own batch: the latency of one seal) and
// with 64 (batches of many: the throughput).
func BenchmarkIPRegister(b *testing.B) {
	for _, backend := range testdb.Backends(b) {
		for _, clients := range []int{1, 64} {
			b.Run(fmt.Sprintf("%s/clients=%d", backend.Name, clients), func(b *testing.B) {
				benchmarkIPRegister(b, backend, clients)
			})
		}
	}
}

func benchmarkIPRegister(b *testing.B, backend testdb.Backend, clients int) {
	s := testserver.Start(b, testserver.Options{DatabaseURL: backend.URL(b), NoWorkers: true})
	r := s.Do(b, "POST", "/v1/creators", s.AdminKey, map[string]any{"name": "W", "email": "w@example.com", "vertical": "music"})
	creator := r.JSON["id"].(string)
	client := Client()
	for n := 0; n < b.N; n++ {
		res := Closed(context.Background(), clients, loadSeconds(), 100000, func(ctx context.Context, i int) error {
			sum := sha256.Sum256([]byte(fmt.Sprint(n, "-", i)))
			work := map[string]any{"creator_id": creator, "title": fmt.Sprint("Work ", i), "type": "song", "content_hash": hex.EncodeToString(sum[:])}
			return post(client, s.URL+"/v1/ip/register", s.AdminKey, work, 201)(ctx)
		})
		report(b, res)
	}
}
