package server_test

import (
	"net/http"
	"sync"
	"testing"

	"github.com/creativeops/creativeops/internal/testdb"
	"github.com/creativeops/creativeops/internal/testserver"
	"github.com/creativeops/creativeops/webhooks"
)

// An organization has at most webhooks.MaxWebhooksPerOrganization webhooks,
// even when it registers them concurrently; other organizations are not
// affected, and deleting one makes room.
func TestWebhookLimitPerOrganization(t *testing.T) {
	for _, b := range testdb.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			s := testserver.Start(t, testserver.Options{DatabaseURL: b.URL(t), NoWorkers: true})
			body := map[string]any{"url": "http://127.0.0.1:9/hook", "events": []string{"*"}}
			const concurrent = 10
			for range webhooks.MaxWebhooksPerOrganization - concurrent/2 {
				if r := s.Do(t, "POST", "/v1/webhooks", s.AdminKey, body); r.Status != http.StatusCreated {
					t.Fatalf("create: %d %s", r.Status, r.Body)
				}
			}
			var wg sync.WaitGroup
			statuses := make([]int, concurrent)
			for i := range concurrent {
				wg.Go(func() { statuses[i] = s.Do(t, "POST", "/v1/webhooks", s.AdminKey, body).Status })
			}
			wg.Wait()
			created := 0
			for _, st := range statuses {
				switch st {
				case http.StatusCreated:
					created++
				case http.StatusBadRequest:
				default:
					t.Fatalf("concurrent create: %d", st)
				}
			}
			if created != concurrent/2 {
				t.Fatalf("%d of %d concurrent registrations succeeded, want %d", created, concurrent, concurrent/2)
			}
			r := s.Do(t, "POST", "/v1/webhooks", s.AdminKey, body)
			if r.Status != http.StatusBadRequest || r.ErrorReason() != "WEBHOOK_LIMIT_REACHED" {
				t.Fatalf("over the limit: %d %s", r.Status, r.Body)
			}
			other := s.NewKey(t, "globex", "*")
			if r := s.Do(t, "POST", "/v1/webhooks", other, body); r.Status != http.StatusCreated {
				t.Fatalf("another organization: %d %s", r.Status, r.Body)
			}
			list := s.Do(t, "GET", "/v1/webhooks?page_size=1", s.AdminKey, nil)
			id := list.JSON["webhooks"].([]any)[0].(map[string]any)["id"].(string)
			if r := s.Do(t, "DELETE", "/v1/webhooks/"+id, s.AdminKey, nil); r.Status != http.StatusNoContent {
				t.Fatalf("delete: %d", r.Status)
			}
			if r := s.Do(t, "POST", "/v1/webhooks", s.AdminKey, body); r.Status != http.StatusCreated {
				t.Fatalf("after a deletion: %d %s", r.Status, r.Body)
			}
		})
	}
}
