package dashboard

import (
	"crypto/tls"
	"net/http/httptest"
	"strings"
	"testing"
)

// The cookie policy on its own: a plain cookie only in local plaintext
// development, and no forwarded header or public name can weaken it.
// server/sessions_test.go checks the same through a whole server.
func TestCookieSecure(t *testing.T) {
	cases := []struct {
		name      string
		host      string
		headers   []string
		tls       bool
		servesTLS bool
		want      bool
	}{
		{"localhost", "localhost:8080", nil, false, false, false},
		{"127.0.0.1", "127.0.0.1:8080", nil, false, false, false},
		{"127.1.2.3", "127.1.2.3", nil, false, false, false},
		{"[::1]", "[::1]:8080", nil, false, false, false},
		{"mapped loopback", "[::ffff:127.0.0.1]:8080", nil, false, false, false},
		{"public name", "dashboard.example.com", nil, false, false, true},
		{"public address", "203.0.113.7:8080", nil, false, false, true},
		{"name that starts like localhost", "localhost.example.com", nil, false, false, true},
		{"empty host", "", nil, false, false, true},
		{"TLS connection", "localhost:8443", nil, true, false, true},
		{"server serves TLS", "localhost:8080", nil, false, true, true},
		{"plain proxy hop", "localhost", []string{"X-Forwarded-Proto", "http"}, false, false, false},
		{"X-Forwarded-Proto https", "localhost", []string{"X-Forwarded-Proto", "https"}, false, false, true},
		{"X-Forwarded-Proto list", "localhost", []string{"X-Forwarded-Proto", "http, HTTPS"}, false, false, true},
		{"Forwarded proto=https", "localhost", []string{"Forwarded", `for=10.0.0.1;proto="https";host=localhost`}, false, false, true},
		{"Forwarded, second element", "localhost", []string{"Forwarded", `proto=http, for=10.0.0.2;proto=https`}, false, false, true},
		{"Forwarded proto=http", "localhost", []string{"Forwarded", `for=10.0.0.1;proto=http`}, false, false, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := httptest.NewRequest("GET", SessionPath, nil)
			r.Host = c.host
			for i := 0; i+1 < len(c.headers); i += 2 {
				r.Header.Add(c.headers[i], c.headers[i+1])
			}
			if c.tls {
				r.TLS = &tls.ConnectionState{}
			}
			s := &Sessions{servesTLS: c.servesTLS}
			if got := s.cookieSecure(r); got != c.want {
				t.Errorf("cookieSecure = %v, want %v", got, c.want)
			}
			// The cookie follows: __Host- and Secure, or neither.
			ck := s.cookie(c.want, "tok", false)
			if ck.Secure != c.want || strings.HasPrefix(ck.Name, "__Host-") != c.want || !ck.HttpOnly || ck.Path != "/" {
				t.Errorf("cookie %+v for secure=%v", ck, c.want)
			}
		})
	}
}

// A creativeops_session cookie authenticates only a request that is
// local plaintext; the __Host- one, anywhere.
func TestSessionTokenFromCookies(t *testing.T) {
	for _, c := range []struct {
		name    string
		lines   []string
		plainOK bool
		want    string
	}{
		{"__Host-", []string{"__Host-creativeops_session=a"}, false, "a"},
		{"__Host- before plain", []string{"creativeops_session=p; __Host-creativeops_session=a"}, true, "a"},
		{"plain in local plaintext", []string{"creativeops_session=p"}, true, "p"},
		{"plain elsewhere", []string{"creativeops_session=p"}, false, ""},
		{"beside a malformed cookie", []string{`other="unterminated; creativeops_session=p`, "__Host-creativeops_session=a"}, false, "a"},
		{"none", []string{"other=x"}, true, ""},
	} {
		if got := sessionToken(c.lines, c.plainOK); got != c.want {
			t.Errorf("%s: sessionToken = %q, want %q", c.name, got, c.want)
		}
	}
}

func TestWithCookiePolicy(t *testing.T) {
	s := &Sessions{}
	marked := func(host, cookie string) bool {
		r := httptest.NewRequest("GET", "/v1/creators", nil)
		r.Host = host
		if cookie != "" {
			r.Header.Set("Cookie", cookie)
		}
		return s.WithCookiePolicy(r).Context().Value(plainCookieKey{}) != nil
	}
	if !marked("localhost:8080", "creativeops_session=p") {
		t.Error("a local plaintext request with the plain cookie is not marked")
	}
	if marked("dashboard.example.com", "creativeops_session=p") {
		t.Error("a public request with the plain cookie is marked")
	}
	if marked("localhost:8080", "creativeops_session=") || marked("localhost:8080", "") {
		t.Error("a request without a plain session cookie is marked")
	}
}

func TestCrossSite(t *testing.T) {
	for _, c := range []struct {
		headers []string
		want    bool
	}{
		{nil, false},
		{[]string{"Origin", "http://localhost:8080"}, false},
		{[]string{"Origin", "http://LOCALHOST:8080", "Sec-Fetch-Site", "same-origin"}, false},
		{[]string{"Origin", "https://evil.example"}, true},
		{[]string{"Origin", "null"}, true},
		{[]string{"Sec-Fetch-Site", "cross-site"}, true},
	} {
		r := httptest.NewRequest("POST", SessionPath, nil)
		r.Host = "localhost:8080"
		for i := 0; i+1 < len(c.headers); i += 2 {
			r.Header.Set(c.headers[i], c.headers[i+1])
		}
		if got := crossSite(r); got != c.want {
			t.Errorf("crossSite with %q = %v, want %v", c.headers, got, c.want)
		}
	}
}

// Every malformed sign-in is refused with the field it is about.
func TestDecodeSignIn(t *testing.T) {
	for _, c := range []struct {
		body, field, reason string
	}{
		{``, "api_key", "INVALID_ARGUMENT"},
		{`{}`, "api_key", "INVALID_ARGUMENT"},
		{`{"api_key":""}`, "api_key", "INVALID_ARGUMENT"},
		{`{"api_key":"k","client_id":"c","client_secret":"s"}`, "api_key", "INVALID_ARGUMENT"},
		{`{"client_secret":"s"}`, "client_id", "INVALID_ARGUMENT"},
		{`{"client_id":"c"}`, "client_secret", "INVALID_ARGUMENT"},
		{`{"api_key":1}`, "api_key", "INVALID_ARGUMENT"},
		{`{"key":"k"}`, "key", "UNKNOWN_FIELD"},
		{`{"api_key":"k"}{}`, "", "MALFORMED_BODY"},
		{`{"api_key":`, "", "MALFORMED_BODY"},
	} {
		_, bad := decodeSignIn(strings.NewReader(c.body))
		if bad == nil {
			t.Errorf("%s: accepted", c.body)
			continue
		}
		field := ""
		if len(bad.Violations) == 1 {
			field = bad.Violations[0].Field
		}
		if bad.Reason != c.reason || field != c.field {
			t.Errorf("%s: %s on %q (%s), want %s on %q", c.body, bad.Reason, field, bad.Message, c.reason, c.field)
		}
	}
	in, bad := decodeSignIn(strings.NewReader(`{"client_id":"c","client_secret":"s"}`))
	if bad != nil || in != (signInBody{clientID: "c", clientSecret: "s"}) {
		t.Errorf("client credentials: %+v, %v", in, bad)
	}
	in, bad = decodeSignIn(strings.NewReader(`{"api_key":"k"}`))
	if bad != nil || in != (signInBody{apiKey: "k"}) {
		t.Errorf("API key: %+v, %v", in, bad)
	}
}

func TestIsPath(t *testing.T) {
	for path, want := range map[string]bool{
		"/dashboard": true, "/dashboard/": true, SessionPath: true, "/dashboard/assets/a.js": true,
		"/dashboards": false, "/v1/creators": false, "/": false,
	} {
		if IsPath(path) != want {
			t.Errorf("IsPath(%q) = %v", path, !want)
		}
	}
}
