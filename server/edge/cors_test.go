package edge_test

import (
	"bytes"
	"net/http"
	"strings"
	"testing"

	"github.com/creativeops/creativeops/internal/testserver"
	"github.com/creativeops/creativeops/server"
	"github.com/creativeops/creativeops/server/edge"
)

// A page of an allowed origin may call REST, Connect and gRPC-Web with an
// API key: preflights are answered before authentication, and the
// headers the clients read are exposed. Other origins get no CORS
// headers, so their browsers refuse the answer.
func TestCORS(t *testing.T) {
	const allowed = "http://app.example.test:5173"
	s := testserver.Start(t, testserver.Options{Configure: func(c *server.Config) {
		c.CORSAllowedOrigins = []string{allowed}
	}})
	do := func(method, path, origin string, header http.Header, body string) *http.Response {
		t.Helper()
		req, err := http.NewRequest(method, s.URL+path, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header = header.Clone()
		if req.Header == nil {
			req.Header = http.Header{}
		}
		req.Header.Set("Origin", origin)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp
	}
	preflight := func(path, origin, method, headers string) *http.Response {
		return do(http.MethodOptions, path, origin, http.Header{
			"Access-Control-Request-Method":  {method},
			"Access-Control-Request-Headers": {headers},
		}, "")
	}

	for _, c := range []struct{ name, path, method, headers string }{
		{"REST", "/v1/creators", "POST", "authorization,content-type,idempotency-key"},
		{"REST delete", "/v1/webhooks/wh_x", "DELETE", "authorization"},
		{"Connect", "/creativeops.v1.CreatorsService/GetCreator", "POST", "authorization,connect-protocol-version,connect-timeout-ms,content-type"},
		{"gRPC-Web", "/creativeops.v1.CreatorsService/GetCreator", "POST", "authorization,content-type,grpc-timeout,x-grpc-web,x-user-agent"},
	} {
		t.Run("preflight "+c.name, func(t *testing.T) {
			resp := preflight(c.path, allowed, c.method, c.headers)
			if resp.StatusCode != http.StatusNoContent {
				t.Fatalf("status %d, want 204 without a key", resp.StatusCode)
			}
			h := resp.Header
			if h.Get("Access-Control-Allow-Origin") != allowed || !strings.Contains(h.Get("Access-Control-Allow-Methods"), c.method) {
				t.Errorf("allow origin %q, methods %q", h.Get("Access-Control-Allow-Origin"), h.Get("Access-Control-Allow-Methods"))
			}
			if got := strings.ToLower(h.Get("Access-Control-Allow-Headers")); got != c.headers {
				t.Errorf("allow headers %q, want %q", got, c.headers)
			}
			if h.Get("Access-Control-Allow-Credentials") != "" || h.Get("Access-Control-Max-Age") == "" {
				t.Errorf("credentials %q, max age %q", h.Get("Access-Control-Allow-Credentials"), h.Get("Access-Control-Max-Age"))
			}
		})
	}
	t.Run("preflight of a header not allowed", func(t *testing.T) {
		if h := preflight("/v1/creators", allowed, "POST", "authorization,x-secret").Header; h.Get("Access-Control-Allow-Origin") != "" {
			t.Errorf("a preflight asking for x-secret was allowed: %v", h)
		}
	})
	t.Run("disallowed origin", func(t *testing.T) {
		for _, origin := range []string{"http://evil.example.test", "https://app.example.test:5173", "http://app.example.test"} {
			if h := preflight("/v1/creators", origin, "POST", "authorization").Header; h.Get("Access-Control-Allow-Origin") != "" {
				t.Errorf("preflight from %s allowed: %v", origin, h)
			}
			resp := do("GET", "/v1/creators", origin, http.Header{"Authorization": {"Bearer " + s.AdminKey}}, "")
			if resp.Header.Get("Access-Control-Allow-Origin") != "" || resp.Header.Get("Access-Control-Expose-Headers") != "" {
				t.Errorf("GET from %s carries CORS headers: %v", origin, resp.Header)
			}
		}
	})
	t.Run("exposed headers", func(t *testing.T) {
		auth := http.Header{"Authorization": {"Bearer " + s.AdminKey}, "Content-Type": {"application/json"}}
		resp := do("POST", "/creativeops.v1.CreatorsService/GetCreator", allowed, auth, `{"id":"cr_00000000000000000000000000"}`)
		if resp.StatusCode != http.StatusNotFound || resp.Header.Get("Access-Control-Allow-Origin") != allowed {
			t.Fatalf("connect call: %d, allow origin %q", resp.StatusCode, resp.Header.Get("Access-Control-Allow-Origin"))
		}
		exposed := strings.ReplaceAll(strings.ToLower(resp.Header.Get("Access-Control-Expose-Headers")), " ", "")
		for _, h := range []string{"x-request-id", "retry-after", "location", "ratelimit", "ratelimit-policy", "grpc-status", "grpc-message", "grpc-status-details-bin", "idempotent-replayed"} {
			if !strings.Contains(","+exposed+",", ","+h+",") {
				t.Errorf("%q not exposed (%q)", h, exposed)
			}
		}
		if resp.Header.Get("X-Request-Id") == "" {
			t.Error("no X-Request-Id")
		}
		// REST answers cross-origin too, through authentication.
		if resp := do("GET", "/v1/creators", allowed, http.Header{}, ""); resp.StatusCode != http.StatusUnauthorized || resp.Header.Get("Access-Control-Allow-Origin") != allowed {
			t.Errorf("REST without a key: %d, allow origin %q", resp.StatusCode, resp.Header.Get("Access-Control-Allow-Origin"))
		}
	})
}

// Without --cors-allowed-origins the server sends no CORS headers at all:
// browsers keep the same-origin rule, and a preflight is not answered.
func TestCORSOffByDefault(t *testing.T) {
	s := testserver.Start(t, testserver.Options{})
	req, _ := http.NewRequest(http.MethodOptions, s.URL+"/v1/creators", nil)
	req.Header.Set("Origin", "http://app.example.test")
	req.Header.Set("Access-Control-Request-Method", "POST")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.Header.Get("Access-Control-Allow-Origin") != "" || resp.StatusCode == http.StatusNoContent {
		t.Fatalf("preflight answered %d %v with no origins configured", resp.StatusCode, resp.Header)
	}
	req, _ = http.NewRequest(http.MethodPost, s.URL+"/creativeops.v1.CreatorsService/GetCreator", bytes.NewReader([]byte(`{"id":"x"}`)))
	req.Header.Set("Origin", "http://app.example.test")
	req.Header.Set("Content-Type", "application/json")
	if resp, err = http.DefaultClient.Do(req); err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.Header.Get("Access-Control-Allow-Origin") != "" {
		t.Fatalf("CORS headers with no origins configured: %v", resp.Header)
	}
}

func TestCheckCORSOrigins(t *testing.T) {
	for _, ok := range [][]string{nil, {"*"}, {"https://app.example.com"}, {"http://localhost:5173", "https://*.example.com"}} {
		if err := edge.CheckCORSOrigins(ok); err != nil {
			t.Errorf("%q refused: %v", ok, err)
		}
	}
	for _, bad := range [][]string{{"*", "https://a.example"}, {"app.example.com"}, {"ftp://a.example"}, {"https://a.example/path"}, {"https://u@a.example"}, {"https://a.*.example"}, {"https://a.example?x=1"}} {
		if err := edge.CheckCORSOrigins(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}
