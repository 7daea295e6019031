package bench

import (
	"context"
	"net/http"
	"testing"

	"github.com/creativeops/creativeops/creators"
	"github.com/creativeops/creativeops/ent/creator"
	"github.com/creativeops/creativeops/internal/testserver"
)

// BenchmarkCreatorRead measures the read of one creator by its key with no
// HTTP around it, under a cancellable context as a request's: through ent
// on the read pool (what make bench-read's bare handlers do) and as the
// service reads it (creators.Service.Get, storage.Store.KeyedRead).
func BenchmarkCreatorRead(b *testing.B) {
	s := testserver.Start(b, testserver.Options{NoWorkers: true})
	r := s.Do(b, "POST", "/v1/creators", s.AdminKey, map[string]any{"name": "Nova Reyes", "email": "nova@example.com", "vertical": "music", "metadata": map[string]any{"label": "Night Owl"}})
	if r.Status != http.StatusCreated {
		b.Fatalf("create creator: %d %s", r.Status, r.Body)
	}
	id := r.JSON["id"].(string)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	svc := creators.NewService(s.Store, nil)
	for _, v := range []struct {
		name string
		read func() (string, error)
	}{
		{"ent", func() (string, error) {
			c, err := s.Store.Read.Creator.Query().Where(creator.ID(id), creator.OrganizationID(s.OrgID)).Only(ctx)
			if err != nil {
				return "", err
			}
			return c.ID, nil
		}},
		{"service", func() (string, error) {
			c, err := svc.Get(ctx, s.OrgID, id)
			if err != nil {
				return "", err
			}
			return c.ID, nil
		}},
	} {
		b.Run(v.name, func(b *testing.B) {
			b.ReportAllocs()
			cpu := cpuTime()
			for b.Loop() {
				if got, err := v.read(); err != nil || got != id {
					b.Fatal(got, err)
				}
			}
			b.ReportMetric(float64(cpuTime()-cpu)/float64(b.N), "cpu-ns/op")
		})
	}
}
