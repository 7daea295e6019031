package server_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/creativeops/creativeops/ids"
	"github.com/creativeops/creativeops/internal/testserver"
	"github.com/creativeops/creativeops/server"
)

// GET /v1/events holds every event, with or without a webhook to receive
// it, with the id and data a delivery carries; "after" continues from the
// last one processed, oldest first, page by page.
func TestEventsAPI(t *testing.T) {
	s := testserver.Start(t, testserver.Options{})
	var created []string
	for range 3 {
		created = append(created, createCreator(t, s, s.AdminKey)["id"].(string))
	}
	rc := newReceiver(t, nil)
	createWebhook(t, s, s.AdminKey, rc.URL, []string{"creator.created"}, "")
	created = append(created, createCreator(t, s, s.AdminKey)["id"].(string))
	delivered := rc.wait(t, 1, 10*time.Second)[0].event(t)

	r := s.Do(t, "GET", "/v1/events?type=creator.created&page_size=2", s.AdminKey, nil)
	evs := r.JSON["events"].([]any)
	if r.Status != 200 || len(evs) != 2 || r.JSON["next_page_token"] == "" {
		t.Fatalf("first page: %d %s", r.Status, r.Body)
	}
	newest := evs[0].(map[string]any)
	// The delivered event is the newest: same id, same data.
	if newest["id"] != delivered["id"] || newest["object_id"] != created[3] ||
		newest["data"].(map[string]any)["email"] != delivered["data"].(map[string]any)["email"] {
		t.Fatalf("newest event %v, delivered %v", newest, delivered)
	}
	if g := s.Do(t, "GET", "/v1/events/"+newest["id"].(string), s.AdminKey, nil); g.Status != 200 || g.JSON["id"] != newest["id"] {
		t.Fatalf("get: %d %s", g.Status, g.Body)
	}
	if g := s.Do(t, "GET", "/v1/events/evt_01k3zw0e2f4g6h8j0k2m4n6p8q", s.AdminKey, nil); g.Status != http.StatusNotFound {
		t.Fatalf("get unknown: %d %s", g.Status, g.Body)
	}

	// Following from the first event: the others, oldest first, two by two.
	first := s.Do(t, "GET", "/v1/events?type=creator.created&object_id="+created[0], s.AdminKey, nil).JSON["events"].([]any)[0].(map[string]any)
	var got []string
	after, token := first["id"].(string), ""
	for {
		path := "/v1/events?type=creator.created&page_size=2&after=" + after
		if token != "" {
			path += "&page_token=" + token
		}
		r := s.Do(t, "GET", path, s.AdminKey, nil)
		if r.Status != 200 {
			t.Fatalf("follow: %d %s", r.Status, r.Body)
		}
		for _, ev := range r.JSON["events"].([]any) {
			got = append(got, ev.(map[string]any)["object_id"].(string))
		}
		if token, _ = r.JSON["next_page_token"].(string); token == "" {
			break
		}
	}
	if len(got) != 3 || got[0] != created[1] || got[1] != created[2] || got[2] != created[3] {
		t.Fatalf("after the first: %v, want %v", got, created[1:])
	}
	// A token is bound to its filters.
	if r := s.Do(t, "GET", "/v1/events?type=ip.registered&page_token="+s.Do(t, "GET", "/v1/events?page_size=1", s.AdminKey, nil).JSON["next_page_token"].(string), s.AdminKey, nil); r.Status != 400 {
		t.Fatalf("token with other filters: %d %s", r.Status, r.Body)
	}
	if r := s.Do(t, "GET", "/v1/events?created_after=not-a-time", s.AdminKey, nil); r.Status != 400 {
		t.Fatalf("bad created_after: %d %s", r.Status, r.Body)
	}
	// events:read is its own scope.
	reader := s.NewKey(t, "acme", "events:read")
	if r := s.Do(t, "GET", "/v1/events", reader, nil); r.Status != 200 {
		t.Fatalf("with events:read: %d %s", r.Status, r.Body)
	}
	if r := s.Do(t, "GET", "/v1/events", s.NewKey(t, "acme", "webhooks:read"), nil); r.Status != http.StatusForbidden {
		t.Fatalf("with webhooks:read only: %d %s", r.Status, r.Body)
	}
}

// Events older than the event retention are deleted by the clean-up; a
// delivery of such an event can no longer be redelivered, and says why.
func TestEventRetention(t *testing.T) {
	s := testserver.Start(t, testserver.Options{Configure: func(c *server.Config) { c.EventRetention = time.Hour }})
	ctx := context.Background()
	rc := newReceiver(t, nil)
	wh := createWebhook(t, s, s.AdminKey, rc.URL, []string{"creator.created"}, "")["id"].(string)
	createCreator(t, s, s.AdminKey)
	rc.wait(t, 1, 10*time.Second)
	d := deliveriesUntil(t, s, s.AdminKey, wh, 10*time.Second, settled)[0]
	old := s.Store.Ent.Event.Create().SetID(ids.New(ids.Event)).SetOrganizationID(s.OrgID).SetType("creator.created").
		SetData("{}").SetCreatedAt(time.Now().Add(-2 * time.Hour)).SetSequence(1000).SaveX(ctx)
	// The delivered event was recorded now; age it past the retention.
	if _, err := s.Store.DB.ExecContext(ctx, `UPDATE events SET created_at = ? WHERE id = ?`, time.Now().Add(-3*time.Hour).UTC(), d["event_id"]); err != nil {
		t.Fatal(err)
	}
	kept := createCreator(t, s, s.AdminKey)
	if err := s.CleanUp(ctx); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{old.ID, d["event_id"].(string)} {
		if r := s.Do(t, "GET", "/v1/events/"+id, s.AdminKey, nil); r.Status != http.StatusNotFound {
			t.Errorf("event %s past the retention: %d", id, r.Status)
		}
	}
	if r := s.Do(t, "GET", "/v1/events?object_id="+kept["id"].(string), s.AdminKey, nil); len(r.JSON["events"].([]any)) != 1 {
		t.Errorf("the recent event is gone: %s", r.Body)
	}
	r := s.Do(t, "POST", "/v1/webhooks/"+wh+"/deliveries/"+d["id"].(string)+":redeliver", s.AdminKey, map[string]any{})
	if r.Status != http.StatusBadRequest || r.ErrorReason() != "EVENT_EXPIRED" {
		t.Fatalf("redeliver an expired event: %d %s", r.Status, r.Body)
	}
	if r := s.Do(t, "GET", "/v1/events?after="+d["event_id"].(string), s.AdminKey, nil); r.Status != 400 {
		t.Fatalf("after an expired event: %d %s", r.Status, r.Body)
	}
}
