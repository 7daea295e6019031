package server_test

import (
	"encoding/base64"
	"fmt"
	"net/http"
	"slices"
	"testing"

	"github.com/creativeops/creativeops/internal/testserver"
)

// A page token continues only the list, with the filters, that issued it;
// forged and edited tokens, and tokens of other lists, are a 400
// INVALID_PAGE_TOKEN naming page_token.
func TestPageTokensAreBoundToTheirList(t *testing.T) {
	s := testserver.Start(t, testserver.Options{})
	for i := range 3 {
		for _, v := range []string{"music", "film"} {
			if r := s.Do(t, "POST", "/v1/creators", s.AdminKey, map[string]any{"name": "C", "email": fmt.Sprintf("%s%d@example.com", v, i), "vertical": v}); r.Status != 201 {
				t.Fatal(r.Status)
			}
		}
		if r := s.Do(t, "POST", "/v1/keys", s.AdminKey, map[string]any{"name": "k", "scopes": []string{"ip:read"}}); r.Status != 201 {
			t.Fatal(r.Status)
		}
	}
	token := func(path string) string {
		r := s.Do(t, "GET", path, s.AdminKey, nil)
		tok, _ := r.JSON["next_page_token"].(string)
		if r.Status != 200 || tok == "" {
			t.Fatalf("%s: %d %s", path, r.Status, r.Body)
		}
		return tok
	}
	music := token("/v1/creators?vertical=music&page_size=1")
	keys := token("/v1/keys?page_size=1")
	// The token works for its own list, with any page size.
	if r := s.Do(t, "GET", "/v1/creators?vertical=music&page_size=5&page_token="+music, s.AdminKey, nil); r.Status != 200 || len(r.JSON["creators"].([]any)) != 2 {
		t.Fatalf("own list: %d %s", r.Status, r.Body)
	}
	first := s.Do(t, "GET", "/v1/creators?page_size=1", s.AdminKey, nil).JSON["creators"].([]any)[0].(map[string]any)["id"].(string)
	for name, path := range map[string]string{
		"other filters":      "/v1/creators?vertical=film&page_token=" + music,
		"no filters":         "/v1/creators?page_token=" + music,
		"another list":       "/v1/creators?page_token=" + keys,
		"creators' on keys":  "/v1/keys?page_token=" + music,
		"forged, old format": "/v1/creators?page_token=" + base64.RawURLEncoding.EncodeToString([]byte("v1:"+first)),
		"forged, new format": "/v1/creators?page_token=" + base64.RawURLEncoding.EncodeToString([]byte("v2:"+first+":AAAAAAAAAAAAAAAA")),
		"garbage":            "/v1/creators?page_token=garbage",
		"too long":           "/v1/creators?page_token=" + base64.RawURLEncoding.EncodeToString(make([]byte, 300)),
	} {
		r := s.Do(t, "GET", path, s.AdminKey, nil)
		if r.Status != http.StatusBadRequest || r.ErrorReason() != "INVALID_PAGE_TOKEN" || !slices.Equal(r.ViolatedFields(), []string{"page_token"}) {
			t.Errorf("%s: %d %s", name, r.Status, r.Body)
		}
	}
}

// Deliveries of one webhook cannot be paged with another's token.
func TestDeliveryPageTokensAreBoundToTheWebhook(t *testing.T) {
	s := testserver.Start(t, testserver.Options{NoWorkers: true})
	hook := func() string {
		r := s.Do(t, "POST", "/v1/webhooks", s.AdminKey, map[string]any{"url": "http://127.0.0.1:9/h", "events": []string{"*"}})
		return r.JSON["id"].(string)
	}
	a, b := hook(), hook()
	for range 2 {
		for _, id := range []string{a, b} {
			if r := s.Do(t, "POST", "/v1/webhooks/"+id+":test", s.AdminKey, map[string]any{}); r.Status != 202 {
				t.Fatalf("test: %d %s", r.Status, r.Body)
			}
		}
	}
	r := s.Do(t, "GET", "/v1/webhooks/"+a+"/deliveries?page_size=1", s.AdminKey, nil)
	tok := r.JSON["next_page_token"].(string)
	if r := s.Do(t, "GET", "/v1/webhooks/"+a+"/deliveries?page_token="+tok, s.AdminKey, nil); r.Status != 200 {
		t.Fatalf("own webhook: %d %s", r.Status, r.Body)
	}
	if r := s.Do(t, "GET", "/v1/webhooks/"+b+"/deliveries?page_token="+tok, s.AdminKey, nil); r.Status != 400 || r.ErrorReason() != "INVALID_PAGE_TOKEN" {
		t.Fatalf("other webhook: %d %s", r.Status, r.Body)
	}
}
