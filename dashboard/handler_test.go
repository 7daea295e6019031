package dashboard_test

import (
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/creativeops/creativeops/dashboard"
)

var build = fstest.MapFS{
	"index.html":              {Data: []byte(`<!doctype html><script type="module" src="/dashboard/assets/index-abc123.js"></script>`)},
	"assets/index-abc123.js":  {Data: []byte(`console.log("app")`)},
	"assets/index-def456.css": {Data: []byte(`body{margin:0}`)},
	"favicon.svg":             {Data: []byte(`<svg xmlns="http://www.w3.org/2000/svg"/>`)},
}

func serve(t *testing.T, h http.Handler, method, path string, headers ...string) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequest(method, path, nil)
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	return w
}

func checkSecurityHeaders(t *testing.T, path string, h http.Header) {
	t.Helper()
	want := map[string]string{
		"Content-Security-Policy": "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
		"Referrer-Policy":         "no-referrer",
		"X-Content-Type-Options":  "nosniff",
		"X-Frame-Options":         "DENY",
	}
	for k, v := range want {
		if got := h.Get(k); got != v {
			t.Errorf("%s: %s = %q, want %q", path, k, got, v)
		}
	}
}

func TestServesTheApp(t *testing.T) {
	h, err := dashboard.NewFS(build)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		path, body, cache, ctype string
		status                   int
	}{
		{"/dashboard/", "<!doctype html>", "no-cache", "text/html; charset=utf-8", 200},
		{"/dashboard/index.html", "<!doctype html>", "no-cache", "text/html; charset=utf-8", 200},
		// Client-side routes load the app.
		{"/dashboard/keys", "<!doctype html>", "no-cache", "text/html; charset=utf-8", 200},
		{"/dashboard/keys/key_01/rotate", "<!doctype html>", "no-cache", "text/html; charset=utf-8", 200},
		{"/dashboard/assets/index-abc123.js", `console.log("app")`, "public, max-age=31536000, immutable", "text/javascript; charset=utf-8", 200},
		{"/dashboard/assets/index-def456.css", `body{margin:0}`, "public, max-age=31536000, immutable", "text/css; charset=utf-8", 200},
		{"/dashboard/favicon.svg", `<svg`, "no-cache", "image/svg+xml", 200},
		// A hashed file of another build is missing, not the app.
		{"/dashboard/assets/index-old.js", "404", "", "text/plain; charset=utf-8", 404},
	} {
		w := serve(t, h, "GET", c.path)
		checkSecurityHeaders(t, c.path, w.Header())
		if w.Code != c.status || !strings.HasPrefix(w.Body.String(), c.body) {
			t.Errorf("%s: %d %q, want %d %q…", c.path, w.Code, w.Body.String(), c.status, c.body)
		}
		if got := w.Header().Get("Cache-Control"); got != c.cache {
			t.Errorf("%s: Cache-Control %q, want %q", c.path, got, c.cache)
		}
		if got := w.Header().Get("Content-Type"); got != c.ctype {
			t.Errorf("%s: Content-Type %q, want %q", c.path, got, c.ctype)
		}
	}

	// Revalidation: the ETag answers 304.
	first := serve(t, h, "GET", "/dashboard/")
	etag := first.Header().Get("ETag")
	if etag == "" {
		t.Fatal("no ETag on index.html")
	}
	if w := serve(t, h, "GET", "/dashboard/settings", "If-None-Match", etag); w.Code != http.StatusNotModified {
		t.Errorf("If-None-Match the current ETag: %d, want 304", w.Code)
	}
	if w := serve(t, h, "HEAD", "/dashboard/"); w.Code != 200 || w.Body.Len() != 0 {
		t.Errorf("HEAD: %d with %d bytes", w.Code, w.Body.Len())
	}
	w := serve(t, h, "POST", "/dashboard/")
	checkSecurityHeaders(t, "POST /dashboard/", w.Header())
	if w.Code != http.StatusMethodNotAllowed {
		t.Errorf("POST: %d, want 405", w.Code)
	}
}

var (
	scriptTag   = regexp.MustCompile(`(?i)<script\b[^>]*>`)
	inlineStyle = regexp.MustCompile(`(?i)<style\b|\sstyle\s*=`)
)

func TestBuildNeedsIndex(t *testing.T) {
	if _, err := dashboard.NewFS(fstest.MapFS{"assets/a.js": {Data: []byte("x")}}); err == nil {
		t.Fatal("a build without index.html was accepted")
	}
}

// The embedded build (the committed dist/) loads and has no inline
// script, which the Content-Security-Policy would block.
func TestEmbeddedBuild(t *testing.T) {
	h, err := dashboard.New()
	if err != nil {
		t.Fatal(err)
	}
	w := serve(t, h, "GET", "/dashboard/")
	body := w.Body.String()
	if w.Code != 200 || !strings.Contains(strings.ToLower(body), "<!doctype html>") {
		t.Fatalf("embedded index.html: %d %q", w.Code, body)
	}
	for _, tag := range scriptTag.FindAllString(body, -1) {
		if !strings.Contains(tag, " src=") {
			t.Errorf("embedded index.html has an inline script %s, which the CSP blocks", tag)
		}
	}
	if inlineStyle.MatchString(body) {
		t.Errorf("embedded index.html has an inline style, which the CSP blocks: %s", inlineStyle.FindString(body))
	}
}
