package server_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/creativeops/creativeops/internal/rpcrule"
	"github.com/creativeops/creativeops/internal/testserver"
)

// Every GET and DELETE route refuses a query parameter its request message
// has no field for, naming it, instead of ignoring it (a misspelt filter,
// GET /v1/creators?verticle=music, answered every creator); and takes every one it
// has, by proto and JSON name. The routes are read from the protos.
func TestUnknownQueryParametersAreRefused(t *testing.T) {
	s := testserver.Start(t, testserver.Options{})
	n := 0
	for _, m := range rpcrule.All() {
		if m.HTTPMethod != http.MethodGet && m.HTTPMethod != http.MethodDelete {
			continue
		}
		n++
		path := pathVariable.ReplaceAllString(m.Template, "x")
		r := s.Do(t, m.HTTPMethod, path+"?no_such_param=1", s.AdminKey, nil)
		if r.Status != http.StatusBadRequest || r.ErrorReason() != "UNKNOWN_PARAMETER" || strings.Join(r.ViolatedFields(), ",") != "no_such_param" {
			t.Errorf("%s %s?no_such_param=1: %d %s, want 400 UNKNOWN_PARAMETER naming it", m.HTTPMethod, path, r.Status, r.Body)
		}
		// Each field of the request not bound by the path is a parameter,
		// by either name: whatever else its value gets, it is not unknown.
		fields := m.Descriptor.Input().Fields()
		for i := 0; i < fields.Len(); i++ {
			f := fields.Get(i)
			if strings.Contains(m.Template, "{"+string(f.Name())+"}") {
				if r := s.Do(t, m.HTTPMethod, path+"?"+string(f.Name())+"=x", s.AdminKey, nil); r.ErrorReason() != "UNKNOWN_PARAMETER" {
					t.Errorf("%s %s?%s=x (a path field): %d %s, want UNKNOWN_PARAMETER", m.HTTPMethod, path, f.Name(), r.Status, r.Body)
				}
				continue
			}
			for _, name := range []string{string(f.Name()), f.JSONName()} {
				if r := s.Do(t, m.HTTPMethod, path+"?"+name+"=1", s.AdminKey, nil); r.ErrorReason() == "UNKNOWN_PARAMETER" {
					t.Errorf("%s %s?%s=1: refused as unknown: %s", m.HTTPMethod, path, name, r.Body)
				}
			}
		}
	}
	if n < 20 {
		t.Fatalf("%d GET and DELETE routes; the protos declare more", n)
	}

	r := s.Do(t, "GET", "/v1/creators?page_size=5&verticle=music", s.AdminKey, nil)
	if r.Status != http.StatusBadRequest || strings.Join(r.ViolatedFields(), ",") != "verticle" || !strings.Contains(string(r.Body), "vertical") {
		t.Fatalf("GET /v1/creators?verticle=: %d %s, want 400 naming verticle and what the route takes", r.Status, r.Body)
	}
	if r := s.Do(t, "GET", "/v1/creators?vertical=music&pageSize=10", s.AdminKey, nil); r.Status != http.StatusOK {
		t.Fatalf("GET /v1/creators with known parameters: %d %s", r.Status, r.Body)
	}
}
