package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/creativeops/creativeops/auth"
	"github.com/creativeops/creativeops/dashboard"
	"github.com/creativeops/creativeops/ent/session"
	"github.com/creativeops/creativeops/internal/testdb"
	"github.com/creativeops/creativeops/internal/testserver"
	"github.com/creativeops/creativeops/oauth"
	"github.com/creativeops/creativeops/server"
)

// browser is a dashboard client: it holds the session cookie and the
// CSRF token the way the app does, and never the API key.
type browser struct {
	t      *testing.T
	srv    *testserver.Server
	cookie *http.Cookie
	csrf   string
}

type sessionReply struct {
	status int
	header http.Header
	body   []byte
	json   map[string]any
}

func (r sessionReply) reason() string {
	return testserver.Response{JSON: r.json}.ErrorReason()
}

// send makes a request to srv with the browser's cookie, and its CSRF
// token when csrf is set; headers are extra name, value pairs.
func (b *browser) send(srv *testserver.Server, method, path string, body any, csrf bool, headers ...string) sessionReply {
	b.t.Helper()
	var rd io.Reader
	switch v := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(v)
	default:
		buf, err := json.Marshal(v)
		if err != nil {
			b.t.Fatal(err)
		}
		rd = bytes.NewReader(buf)
	}
	req, err := http.NewRequest(method, srv.URL+path, rd)
	if err != nil {
		b.t.Fatal(err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if b.cookie != nil {
		req.AddCookie(b.cookie)
	}
	if csrf {
		req.Header.Set("X-CSRF-Token", b.csrf)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		if headers[i] == "Host" {
			req.Host = headers[i+1]
			continue
		}
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		b.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	out := sessionReply{status: resp.StatusCode, header: resp.Header, body: raw}
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") && len(raw) > 0 {
		if err := json.Unmarshal(raw, &out.json); err != nil {
			b.t.Fatalf("%s %s: not JSON: %s", method, path, raw)
		}
	}
	return out
}

// signIn opens a session with key on srv and keeps its cookie and token;
// headers are extra name, value pairs of the sign-in request.
func signIn(t *testing.T, srv *testserver.Server, key string, headers ...string) (*browser, sessionReply) {
	t.Helper()
	b := &browser{t: t, srv: srv}
	r := b.send(srv, "POST", "/dashboard/api/session", map[string]string{"api_key": key}, false, headers...)
	if r.status != http.StatusOK {
		t.Fatalf("sign in: %d %s", r.status, r.body)
	}
	for _, c := range (&http.Response{Header: r.header}).Cookies() {
		if (c.Name == "creativeops_session" || c.Name == "__Host-creativeops_session") && c.MaxAge >= 0 {
			b.cookie = &http.Cookie{Name: c.Name, Value: c.Value}
		}
	}
	if b.cookie == nil {
		t.Fatalf("sign in set no session cookie: %v", r.header)
	}
	b.csrf, _ = r.json["csrf_token"].(string)
	return b, r
}

func (b *browser) rest(method, path string, body any) sessionReply {
	b.t.Helper()
	return b.send(b.srv, method, path, body, true)
}

func (b *browser) connect(method string, body any) sessionReply {
	b.t.Helper()
	return b.send(b.srv, "POST", "/creativeops.v1."+method, body, true)
}

func TestSessionSignInAndOut(t *testing.T) {
	for _, be := range testdb.Backends(t) {
		t.Run(be.Name, func(t *testing.T) {
			srv := testserver.Start(t, testserver.Options{DatabaseURL: be.URL(t), NoWorkers: true})
			b, r := signIn(t, srv, srv.AdminKey)

			// The answer describes the key, never repeats it.
			for _, f := range []string{"key_id", "organization_id", "csrf_token", "expires_at"} {
				if s, _ := r.json[f].(string); s == "" {
					t.Errorf("sign-in answer lacks %s: %s", f, r.body)
				}
			}
			if r.json["organization_id"] != srv.OrgID {
				t.Errorf("organization_id %v, want %s", r.json["organization_id"], srv.OrgID)
			}
			if scopes, _ := r.json["scopes"].([]any); len(scopes) != 1 || scopes[0] != "*" {
				t.Errorf("scopes %v, want [*]", r.json["scopes"])
			}
			if bytes.Contains(r.body, []byte(srv.AdminKey)) {
				t.Error("sign-in answer contains the API key")
			}
			// The cookie: opaque, for every path, out of scripts' reach,
			// same-site only, and not Secure over cleartext.
			setCookie := r.header.Get("Set-Cookie")
			for _, want := range []string{"creativeops_session=", "Path=/", "HttpOnly", "SameSite=Strict"} {
				if !strings.Contains(setCookie, want) {
					t.Errorf("Set-Cookie %q lacks %q", setCookie, want)
				}
			}
			if strings.Contains(setCookie, "Secure") || strings.Contains(b.cookie.Value, srv.AdminKey) {
				t.Errorf("Set-Cookie %q: Secure over cleartext, or the key itself", setCookie)
			}
			// The session table keeps neither the key nor the token.
			rows, err := srv.Store.Ent.Session.Query().All(context.Background())
			if err != nil || len(rows) != 1 {
				t.Fatalf("sessions: %v %v", rows, err)
			}
			if rows[0].TokenHash == b.cookie.Value || rows[0].TokenHash != auth.Hash(b.cookie.Value) || rows[0].KeyID != r.json["key_id"] {
				t.Errorf("session row: token hash %q, key id %q", rows[0].TokenHash, rows[0].KeyID)
			}

			// GET describes the session, with the same CSRF token.
			g := b.send(srv, "GET", "/dashboard/api/session", nil, false)
			if g.status != http.StatusOK || g.json["csrf_token"] != b.csrf || g.json["key_id"] != r.json["key_id"] {
				t.Fatalf("get session: %d %s", g.status, g.body)
			}

			// Calls: cookie and CSRF token act as the key.
			if c := b.rest("POST", "/v1/creators", map[string]any{"name": "Nova", "email": "nova@example.com", "vertical": "music"}); c.status != http.StatusCreated {
				t.Fatalf("REST with the session: %d %s", c.status, c.body)
			}
			if c := b.connect("CreatorsService/ListCreators", map[string]any{}); c.status != http.StatusOK {
				t.Fatalf("Connect with the session: %d %s", c.status, c.body)
			}
			// A cookie without the header, or with another token, is no
			// credential.
			for name, extra := range map[string][]string{
				"no CSRF header":  nil,
				"wrong CSRF":      {"X-CSRF-Token", b.csrf[:len(b.csrf)-1] + "x"},
				"empty CSRF":      {"X-CSRF-Token", ""},
				"short CSRF":      {"X-CSRF-Token", "x"},
				"CSRF, no cookie": {"Cookie", "", "X-CSRF-Token", b.csrf},
			} {
				for _, path := range []string{"/v1/creators", "/creativeops.v1.CreatorsService/ListCreators"} {
					method, body := "GET", any(nil)
					if strings.HasPrefix(path, "/creativeops.") {
						method, body = "POST", map[string]any{}
					}
					req := b
					if name == "CSRF, no cookie" {
						req = &browser{t: t, srv: srv, csrf: b.csrf}
					}
					c := req.send(srv, method, path, body, false, extra...)
					if c.status != http.StatusUnauthorized {
						t.Errorf("%s, %s: %d, want 401", name, path, c.status)
					}
				}
			}

			// Sign-out needs the CSRF token too.
			if d := b.send(srv, "DELETE", "/dashboard/api/session", nil, false); d.status != http.StatusUnauthorized {
				t.Fatalf("sign-out without CSRF: %d, want 401", d.status)
			}
			d := b.send(srv, "DELETE", "/dashboard/api/session", nil, true)
			if d.status != http.StatusNoContent {
				t.Fatalf("sign-out: %d %s", d.status, d.body)
			}
			if sc := d.header.Get("Set-Cookie"); !strings.Contains(sc, "creativeops_session=;") || !strings.Contains(sc, "Max-Age=0") {
				t.Errorf("sign-out does not clear the cookie: %q", sc)
			}
			if n, _ := srv.Store.Ent.Session.Query().Count(context.Background()); n != 0 {
				t.Errorf("%d sessions left after sign-out", n)
			}
			if g := b.send(srv, "GET", "/dashboard/api/session", nil, false); g.status != http.StatusUnauthorized {
				t.Errorf("get after sign-out: %d, want 401", g.status)
			}
			if c := b.rest("GET", "/v1/creators", nil); c.status != http.StatusUnauthorized {
				t.Errorf("REST after sign-out: %d, want 401", c.status)
			}
		})
	}
}

// The session cookie is Secure, by the __Host- name, unless the request is
// plain local development: plaintext server, loopback Host, and no proxy
// saying the browser is on HTTPS. Each cookie works only where it would be
// set, the __Host- one everywhere.
func TestSessionCookieSecureUnlessLocalPlaintext(t *testing.T) {
	srv := testserver.Start(t, testserver.Options{NoWorkers: true, Configure: func(c *server.Config) {
		c.SignInLimit = auth.RateLimit{RequestsPerSecond: 1e6, Burst: 1e6}
	}})
	_, port, _ := strings.Cut(strings.TrimPrefix(srv.URL, "http://"), ":")
	const public = "dash.example.com"
	for _, c := range []struct {
		name    string
		headers []string
		secure  bool
	}{
		{"127.0.0.1", nil, false},
		{"localhost", []string{"Host", "localhost:" + port}, false},
		{"LocalHost, no port", []string{"Host", "LocalHost"}, false},
		{"::1", []string{"Host", "[::1]:" + port}, false},
		{"127.0.0.2", []string{"Host", "127.0.0.2:" + port}, false},
		{"plain proxy hop", []string{"X-Forwarded-Proto", "http"}, false},
		{"public name", []string{"Host", public}, true},
		{"public name and port", []string{"Host", public + ":8080"}, true},
		{"LAN address", []string{"Host", "192.168.1.20:" + port}, true},
		{"localhost lookalike", []string{"Host", "localhost.example.com"}, true},
		{"X-Forwarded-Proto https", []string{"X-Forwarded-Proto", "https"}, true},
		{"X-Forwarded-Proto list", []string{"X-Forwarded-Proto", "http, HTTPS"}, true},
		{"Forwarded proto=https", []string{"Forwarded", `for=10.0.0.1;proto="https";host=localhost`}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			b, r := signIn(t, srv, srv.AdminKey, c.headers...)
			set := (&http.Response{Header: r.header}).Cookies()
			if len(set) != 1 {
				t.Fatalf("Set-Cookie: %q, want one cookie", r.header.Values("Set-Cookie"))
			}
			ck := set[0]
			wantName := "creativeops_session"
			if c.secure {
				wantName = "__Host-creativeops_session"
			}
			if ck.Name != wantName || ck.Secure != c.secure || ck.Path != "/" || ck.Domain != "" || !ck.HttpOnly || ck.SameSite != http.SameSiteStrictMode {
				t.Fatalf("Set-Cookie %q: want %s, Secure %v, Path=/, no Domain, HttpOnly, SameSite=Strict", r.header.Get("Set-Cookie"), wantName, c.secure)
			}
			// Where it was set, the cookie works: the session's CSRF token,
			// REST, Connect.
			if g := b.send(srv, "GET", "/dashboard/api/session", nil, false, c.headers...); g.status != http.StatusOK || g.json["csrf_token"] != b.csrf {
				t.Errorf("get session where signed in: %d %s", g.status, g.body)
			}
			if g := b.send(srv, "GET", "/v1/creators", nil, true, c.headers...); g.status != http.StatusOK {
				t.Errorf("REST where signed in: %d %s", g.status, g.body)
			}
			if g := b.send(srv, "POST", "/creativeops.v1.CreatorsService/ListCreators", map[string]any{}, true, c.headers...); g.status != http.StatusOK {
				t.Errorf("Connect where signed in: %d %s", g.status, g.body)
			}
			// The plain cookie is refused on a request whose cookie would be
			// Secure; the __Host- cookie is accepted on any.
			elsewhere := []string{"Host", public}
			if c.secure {
				elsewhere = []string{"Host", "127.0.0.1:" + port}
			}
			want := http.StatusUnauthorized
			if c.secure {
				want = http.StatusOK
			}
			if g := b.send(srv, "GET", "/dashboard/api/session", nil, false, elsewhere...); g.status != want {
				t.Errorf("get session with %s at Host %s: %d, want %d", ck.Name, elsewhere[1], g.status, want)
			}
			if g := b.send(srv, "GET", "/v1/creators", nil, true, elsewhere...); g.status != want {
				t.Errorf("REST with %s at Host %s: %d, want %d", ck.Name, elsewhere[1], g.status, want)
			}
			if g := b.send(srv, "POST", "/creativeops.v1.CreatorsService/ListCreators", map[string]any{}, true, elsewhere...); g.status != want {
				t.Errorf("Connect with %s at Host %s: %d, want %d", ck.Name, elsewhere[1], g.status, want)
			}
			// Sign-out clears the cookie it ended, by its name.
			d := b.send(srv, "DELETE", "/dashboard/api/session", nil, true, c.headers...)
			cleared := (&http.Response{Header: d.header}).Cookies()
			if d.status != http.StatusNoContent || len(cleared) != 1 || cleared[0].Name != wantName || cleared[0].MaxAge >= 0 || cleared[0].Secure != c.secure {
				t.Errorf("sign-out: %d, Set-Cookie %q", d.status, d.header.Values("Set-Cookie"))
			}
		})
	}

	// The __Host- cookie is read first: a plain cookie beside it, tossed
	// by a sibling subdomain or left over, does not replace it.
	t.Run("both names", func(t *testing.T) {
		b, _ := signIn(t, srv, srv.AdminKey, "Host", public)
		g := b.send(srv, "GET", "/dashboard/api/session", nil, false, "Host", "localhost:"+port,
			"Cookie", "creativeops_session=tossed; "+b.cookie.Name+"="+b.cookie.Value)
		if g.status != http.StatusOK || g.json["csrf_token"] != b.csrf {
			t.Errorf("both cookies: %d %s", g.status, g.body)
		}
		// Signing in locally again drops the older __Host- cookie, which
		// would otherwise be read before the new one.
		r := b.send(srv, "POST", "/dashboard/api/session", map[string]string{"api_key": srv.AdminKey}, false)
		got := map[string]*http.Cookie{}
		for _, ck := range (&http.Response{Header: r.header}).Cookies() {
			got[ck.Name] = ck
		}
		if h, p := got["__Host-creativeops_session"], got["creativeops_session"]; r.status != 200 || h == nil || h.MaxAge >= 0 || !h.Secure || p == nil || p.Value == "" {
			t.Errorf("local sign-in beside a __Host- cookie: %d %q", r.status, r.header.Values("Set-Cookie"))
		}
	})
}

// Sign-in refuses bad keys and bodies with the API's errors, and requests
// another site starts.
func TestSessionSignInRefusals(t *testing.T) {
	srv := testserver.Start(t, testserver.Options{NoWorkers: true, Configure: func(c *server.Config) {
		c.SignInLimit = auth.RateLimit{RequestsPerSecond: 1e6, Burst: 1e6}
	}})
	revoked := srv.Do(t, "POST", "/v1/keys", srv.AdminKey, map[string]any{"name": "old", "scopes": []string{"creators:read"}})
	if r := srv.Do(t, "DELETE", "/v1/keys/"+revoked.JSON["id"].(string), srv.AdminKey, nil); r.Status >= 300 {
		t.Fatalf("revoke: %d", r.Status)
	}
	b := &browser{t: t, srv: srv}
	for _, c := range []struct {
		name    string
		body    any
		headers []string
		status  int
		reason  string
	}{
		{"unknown key", map[string]string{"api_key": "co_live_" + strings.Repeat("a", 38)}, nil, 401, "UNAUTHENTICATED"},
		{"revoked key", map[string]string{"api_key": revoked.JSON["secret"].(string)}, nil, 401, "UNAUTHENTICATED"},
		{"no key", map[string]string{}, nil, 400, "INVALID_ARGUMENT"},
		{"unknown field", map[string]string{"api_key": srv.AdminKey, "password": "x"}, nil, 400, "UNKNOWN_FIELD"},
		{"malformed", "{", nil, 400, "MALFORMED_BODY"},
		{"two values", `{"api_key":"x"} {}`, nil, 400, "MALFORMED_BODY"},
		{"key not a string", map[string]any{"api_key": 5}, nil, 400, "INVALID_ARGUMENT"},
		{"cross-site origin", map[string]string{"api_key": srv.AdminKey}, []string{"Origin", "https://evil.example"}, 403, "CROSS_SITE_REQUEST"},
		{"null origin", map[string]string{"api_key": srv.AdminKey}, []string{"Origin", "null"}, 403, "CROSS_SITE_REQUEST"},
		{"cross-site fetch", map[string]string{"api_key": srv.AdminKey}, []string{"Sec-Fetch-Site", "cross-site"}, 403, "CROSS_SITE_REQUEST"},
		{"same origin", map[string]string{"api_key": srv.AdminKey}, []string{"Origin", srv.URL, "Sec-Fetch-Site", "same-origin"}, 200, ""},
	} {
		r := b.send(srv, "POST", "/dashboard/api/session", c.body, false, c.headers...)
		if r.status != c.status || r.reason() != c.reason {
			t.Errorf("%s: %d %s, want %d %s", c.name, r.status, r.body, c.status, c.reason)
		}
		if r.status != 200 && r.header.Get("Set-Cookie") != "" {
			t.Errorf("%s: refused sign-in sets a cookie", c.name)
		}
	}
	r := b.send(srv, "POST", "/dashboard/api/session", map[string]string{}, false)
	if fields := (testserver.Response{JSON: r.json}).ViolatedFields(); len(fields) != 1 || fields[0] != "api_key" {
		t.Errorf("missing key does not name api_key: %s", r.body)
	}
}

// Failed sign-in attempts are throttled per client address: after the
// default 10 wrong keys the next wrong one waits, but a right key still
// signs in from there. Behind a proxy every browser shares the address:
// anyone failing from it must not keep everyone out.
func TestSessionSignInThrottled(t *testing.T) {
	srv := testserver.Start(t, testserver.Options{NoWorkers: true, Configure: func(c *server.Config) {
		c.SignInLimit = auth.RateLimit{RequestsPerSecond: 0.01, Burst: dashboard.DefaultSignInLimit.Burst}
	}})
	b := &browser{t: t, srv: srv}
	for i := range dashboard.DefaultSignInLimit.Burst {
		// A different wrong key each time: the address's bucket, not a
		// key's, runs out.
		bad := map[string]string{"api_key": wellFormedKey(t)}
		if r := b.send(srv, "POST", "/dashboard/api/session", bad, false); r.status != http.StatusUnauthorized {
			t.Fatalf("attempt %d: %d", i+1, r.status)
		}
	}
	r := b.send(srv, "POST", "/dashboard/api/session", map[string]string{"api_key": wellFormedKey(t)}, false)
	if r.status != http.StatusTooManyRequests || r.reason() != "RATE_LIMITED" || r.header.Get("Retry-After") == "" ||
		!strings.Contains(string(r.body), "from this address") {
		t.Fatalf("wrong key after 10 failures: %d %s %v, want 429 with Retry-After", r.status, r.body, r.header)
	}
	for i := range 3 {
		signIn(t, srv, srv.AdminKey) // fails the test on anything but 200
		if r := b.send(srv, "POST", "/dashboard/api/session", map[string]string{"api_key": wellFormedKey(t)}, false); r.status != http.StatusTooManyRequests {
			t.Fatalf("wrong key %d after a right one: %d, want 429", i+1, r.status)
		}
	}
}

// wellFormedKey is an API key that passes the checksum but names no key,
// so checking it costs a lookup.
func wellFormedKey(t *testing.T) string {
	t.Helper()
	k, err := auth.NewKey()
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// Failed attempts are throttled per credential too, an OAuth client's at
// each address: past the limit a wrong secret is refused as throttled,
// but the right one still signs in, from that address and any other, so
// failing in a client's name (its id is no secret) cannot keep it out.
// Other credentials sign in from the same address.
func TestSessionSignInThrottledPerCredential(t *testing.T) {
	srv := testserver.Start(t, testserver.Options{NoWorkers: true, Configure: func(c *server.Config) {
		c.SignInLimit = auth.RateLimit{RequestsPerSecond: 0.01, Burst: 3}
		c.TrustedProxies = []string{"127.0.0.0/8"}
	}})
	ctx := context.Background()
	c, secret, err := srv.OAuth().CreateClient(ctx, oauth.NewClientParams{OrganizationID: srv.OrgID, Name: "erp", Scopes: []string{auth.ScopeCreatorsRead}})
	if err != nil {
		t.Fatal(err)
	}
	b := &browser{t: t, srv: srv}
	attempt := func(secret, from string) sessionReply {
		return b.send(srv, "POST", "/dashboard/api/session", map[string]string{"client_id": c.ID, "client_secret": secret}, false, "X-Forwarded-For", from)
	}
	const attacker = "203.0.113.1"
	for i := range 3 {
		if r := attempt(oauth.SecretPrefix+"wrong", attacker); r.status != http.StatusUnauthorized {
			t.Fatalf("wrong secret %d: %d %s", i+1, r.status, r.body)
		}
	}
	for i := range 5 {
		r := attempt(oauth.SecretPrefix+"wrong", attacker)
		if r.status != http.StatusTooManyRequests || r.header.Get("Retry-After") == "" || !strings.Contains(string(r.body), "with this credential") {
			t.Fatalf("wrong secret %d past the limit: %d %s, want 429", i+4, r.status, r.body)
		}
		for _, from := range []string{attacker, "203.0.113.9"} {
			if r := attempt(secret, from); r.status != http.StatusOK {
				t.Fatalf("the right secret from %s while the client's failures are past the limit: %d %s", from, r.status, r.body)
			}
		}
	}
	// Another address's failures have their own limit.
	if r := attempt(oauth.SecretPrefix+"wrong", "203.0.113.9"); r.status != http.StatusUnauthorized {
		t.Fatalf("wrong secret from another address: %d %s, want 401", r.status, r.body)
	}
	// Its throttle is its own: a key signs in from that address.
	signIn(t, srv, srv.AdminKey, "X-Forwarded-For", attacker)
	// And one wrong key, retried, is throttled as a credential.
	bad := wellFormedKey(t)
	for i, from := range []string{"203.0.113.5", "203.0.113.6", "203.0.113.7", "203.0.113.8"} {
		want := http.StatusUnauthorized
		if i == 3 {
			want = http.StatusTooManyRequests
		}
		if r := b.send(srv, "POST", "/dashboard/api/session", map[string]string{"api_key": bad}, false, "X-Forwarded-For", from); r.status != want {
			t.Fatalf("wrong key, attempt %d: %d, want %d", i+1, r.status, want)
		}
	}
}

// Sign-ins that succeed spend nothing: behind a proxy, where every browser
// shares one address, many sign-ins never lock anyone out, and the wrong
// keys among them are still counted.
func TestSessionSignInSuccessesNotThrottled(t *testing.T) {
	srv := testserver.Start(t, testserver.Options{NoWorkers: true, Configure: func(c *server.Config) {
		c.SignInLimit = auth.RateLimit{RequestsPerSecond: 0.01, Burst: 3}
	}})
	for i := range 30 {
		signIn(t, srv, srv.AdminKey) // fails the test on anything but 200
		if i%10 == 0 {
			// Neither does a body that names no key.
			b := &browser{t: t, srv: srv}
			if r := b.send(srv, "POST", "/dashboard/api/session", map[string]string{}, false); r.status != http.StatusBadRequest {
				t.Fatalf("sign-in without a key: %d %s", r.status, r.body)
			}
		}
	}
	b := &browser{t: t, srv: srv}
	bad := map[string]string{"api_key": "co_live_" + strings.Repeat("c", 38)}
	for i := range 3 {
		if r := b.send(srv, "POST", "/dashboard/api/session", bad, false); r.status != http.StatusUnauthorized {
			t.Fatalf("wrong key %d after 30 sign-ins: %d, want 401", i+1, r.status)
		}
		if i < 2 {
			signIn(t, srv, srv.AdminKey) // the bucket still holds 3-(i+1)
		}
	}
	if r := b.send(srv, "POST", "/dashboard/api/session", bad, false); r.status != http.StatusTooManyRequests {
		t.Fatalf("fourth wrong key: %d, want 429", r.status)
	}
}

// A session is exactly as strong as its key: the key's scopes, its rate
// limit, and an explicit Authorization header wins over the cookie.
func TestSessionActsAsItsKey(t *testing.T) {
	srv := testserver.Start(t, testserver.Options{NoWorkers: true})
	k := srv.Do(t, "POST", "/v1/keys", srv.AdminKey, map[string]any{"name": "reader", "scopes": []string{"creators:read"},
		"rate_limit": map[string]any{"requests_per_second": 0.01, "burst": 4}})
	if k.Status != http.StatusCreated {
		t.Fatalf("create key: %d %s", k.Status, k.Body)
	}
	reader := k.JSON["secret"].(string)
	b, _ := signIn(t, srv, reader)

	// Four calls over REST and Connect spend the key's burst of 4.
	for i := range 2 {
		if r := b.rest("GET", "/v1/creators", nil); r.status != http.StatusOK {
			t.Fatalf("REST read %d: %d %s", i, r.status, r.body)
		}
		if r := b.connect("CreatorsService/ListCreators", map[string]any{}); r.status != http.StatusOK {
			t.Fatalf("Connect read %d: %d %s", i, r.status, r.body)
		}
	}
	r := b.rest("POST", "/v1/creators", map[string]any{"name": "Nova", "email": "nova@example.com", "vertical": "music"})
	if r.status != http.StatusForbidden || r.reason() != "MISSING_SCOPE" {
		t.Errorf("REST write: %d %s, want 403 MISSING_SCOPE", r.status, r.body)
	}
	r = b.connect("CreatorsService/CreateCreator", map[string]any{"name": "Nova", "email": "nova@example.com", "vertical": "music"})
	if r.status != http.StatusForbidden || !bytes.Contains(r.body, []byte("MISSING_SCOPE")) {
		t.Errorf("Connect write: %d %s, want 403 MISSING_SCOPE", r.status, r.body)
	}
	// The key itself is limited now, and the session with it.
	if r := b.rest("GET", "/v1/creators", nil); r.status != http.StatusTooManyRequests {
		t.Errorf("the session past its key's burst: %d, want 429", r.status)
	}
	if st := srv.Do(t, "GET", "/v1/creators", reader, nil).Status; st != http.StatusTooManyRequests {
		t.Errorf("the key after its session spent its burst: %d, want 429", st)
	}

	// An Authorization header wins: the admin session with a bad key is
	// refused, and with the reader's key is only a reader.
	admin, _ := signIn(t, srv, srv.AdminKey)
	if r := admin.send(srv, "GET", "/v1/creators", nil, true, "Authorization", "Bearer co_live_nope"); r.status != http.StatusUnauthorized {
		t.Errorf("bad Authorization beside a session: %d, want 401", r.status)
	}
	other := srv.NewKey(t, "acme", "creators:read")
	r = admin.send(srv, "POST", "/v1/creators", map[string]any{"name": "N", "email": "n@example.com", "vertical": "music"}, true,
		"Authorization", "Bearer "+other)
	if r.status != http.StatusForbidden {
		t.Errorf("reader's Authorization beside an admin session: %d, want 403", r.status)
	}
}

// Revoking the key ends its sessions.
func TestSessionEndsWithItsKey(t *testing.T) {
	for _, be := range testdb.Backends(t) {
		t.Run(be.Name, func(t *testing.T) {
			srv := testserver.Start(t, testserver.Options{DatabaseURL: be.URL(t), NoWorkers: true})
			k := srv.Do(t, "POST", "/v1/keys", srv.AdminKey, map[string]any{"name": "app", "scopes": []string{"creators:read"}})
			b, r := signIn(t, srv, k.JSON["secret"].(string))
			if c := b.rest("GET", "/v1/creators", nil); c.status != http.StatusOK {
				t.Fatalf("before revocation: %d", c.status)
			}
			if d := srv.Do(t, "DELETE", "/v1/keys/"+r.json["key_id"].(string), srv.AdminKey, nil); d.Status >= 300 {
				t.Fatalf("revoke: %d %s", d.Status, d.Body)
			}
			if c := b.rest("GET", "/v1/creators", nil); c.status != http.StatusUnauthorized {
				t.Errorf("REST after revocation: %d, want 401", c.status)
			}
			if c := b.send(srv, "GET", "/dashboard/api/session", nil, false); c.status != http.StatusUnauthorized {
				t.Errorf("session after revocation: %d, want 401", c.status)
			}
			if n, err := srv.Store.Ent.Session.Query().Where(session.KeyID(r.json["key_id"].(string))).Count(context.Background()); err != nil || n != 0 {
				t.Errorf("%d sessions of the revoked key left (%v)", n, err)
			}
		})
	}
}

// Sign-out on one replica stops the cookie on another once it has polled
// the key epoch (within auth.KeyChangeBound).
func TestSessionSignOutReachesOtherReplica(t *testing.T) {
	url := testdb.PostgresURL(t)
	a := testserver.Start(t, testserver.Options{DatabaseURL: url, NoWorkers: true})
	bSrv := testserver.Start(t, testserver.Options{DatabaseURL: url, NoWorkers: true})
	ctx := context.Background()
	b, _ := signIn(t, a, a.AdminKey)
	if err := bSrv.SyncKeys(ctx); err != nil {
		t.Fatal(err)
	}
	// Replica b serves the session (and caches it).
	for range 2 {
		if r := b.send(bSrv, "GET", "/v1/creators", nil, true); r.status != http.StatusOK {
			t.Fatalf("replica b with a's session: %d %s", r.status, r.body)
		}
	}
	if r := b.send(a, "DELETE", "/dashboard/api/session", nil, true); r.status != http.StatusNoContent {
		t.Fatalf("sign-out on a: %d %s", r.status, r.body)
	}
	if err := bSrv.SyncKeys(ctx); err != nil {
		t.Fatal(err)
	}
	if r := b.send(bSrv, "GET", "/v1/creators", nil, true); r.status != http.StatusUnauthorized {
		t.Fatalf("replica b after its poll: %d, want 401", r.status)
	}
}

// Every /dashboard response carries the security headers: the app, its
// client-side routes, the session API and its errors.
func TestDashboardResponses(t *testing.T) {
	srv := testserver.Start(t, testserver.Options{NoWorkers: true})
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	for _, c := range []struct {
		method, path string
		body         string
		status       int
		html         bool
	}{
		{"GET", "/dashboard/", "", 200, true},
		{"GET", "/dashboard/keys/key_01abc", "", 200, true},
		{"GET", "/dashboard/assets/index-gone.js", "", 404, false},
		{"GET", "/dashboard", "", 301, true},
		{"GET", "/dashboard/api/session", "", 401, false},
		{"POST", "/dashboard/api/session", `{"api_key":"co_live_x"}`, 401, false},
		{"POST", "/dashboard/api/session", strings.Repeat(" ", 2<<20), 413, false},
		{"PUT", "/dashboard/api/session", "", 405, false},
		{"GET", "/dashboard/api/keys", "", 404, false},
		{"DELETE", "/dashboard/api/session", "", 401, false},
	} {
		req, err := http.NewRequest(c.method, srv.URL+c.path, strings.NewReader(c.body))
		if err != nil {
			t.Fatal(err)
		}
		resp, err := noRedirect.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		name := c.method + " " + c.path
		if resp.StatusCode != c.status {
			t.Errorf("%s: %d %.200s, want %d", name, resp.StatusCode, raw, c.status)
		}
		for k, v := range map[string]string{
			"Content-Security-Policy": "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
			"Referrer-Policy":         "no-referrer",
			"X-Content-Type-Options":  "nosniff",
			"X-Frame-Options":         "DENY",
		} {
			if got := resp.Header.Get(k); got != v {
				t.Errorf("%s: %s = %q, want %q", name, k, got, v)
			}
		}
		if isHTML := strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html"); isHTML != c.html {
			t.Errorf("%s: Content-Type %q", name, resp.Header.Get("Content-Type"))
		}
		if strings.HasPrefix(c.path, "/dashboard/api/") {
			if !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") || resp.Header.Get("X-Request-Id") == "" {
				t.Errorf("%s: not an API error: %q %.200s", name, resp.Header.Get("Content-Type"), raw)
			}
		}
	}
	// Outside /dashboard nothing changes.
	if r := srv.Do(t, "GET", "/healthz", "", nil); r.Header.Get("Content-Security-Policy") != "" {
		t.Error("/healthz carries the dashboard's headers")
	}
}

// A session's calls are its key's usage, over REST and Connect; signing
// in and out is not API usage. Its requests are logged and counted under
// fixed route names.
func TestSessionUsageIsTheKeys(t *testing.T) {
	srv := testserver.Start(t, testserver.Options{NoWorkers: true, Configure: noAutoFlush})
	reader := srv.NewKey(t, "acme", "creators:read")
	b, _ := signIn(t, srv, reader)
	for range 2 {
		if r := b.rest("GET", "/v1/creators", nil); r.status != http.StatusOK {
			t.Fatalf("REST: %d", r.status)
		}
	}
	if r := b.connect("CreatorsService/ListCreators", map[string]any{}); r.status != http.StatusOK {
		t.Fatalf("Connect: %d", r.status)
	}
	if r := b.send(srv, "GET", "/dashboard/api/session", nil, false); r.status != http.StatusOK {
		t.Fatalf("get session: %d", r.status)
	}
	if err := srv.FlushAnalytics(context.Background()); err != nil {
		t.Fatal(err)
	}
	r := srv.Do(t, "GET", "/v1/analytics/usage?key_id="+keyID(t, srv, reader), srv.AdminKey, nil)
	totals, _ := r.JSON["totals"].(map[string]any)
	if r.Status != http.StatusOK || totals["requests"] != "3" {
		t.Fatalf("the key's usage after 3 calls with its session: %d %s", r.Status, r.Body)
	}
	metrics := srv.Do(t, "GET", "/metrics", "", nil)
	for _, want := range []string{`route="/dashboard/api/session"`} {
		if !bytes.Contains(metrics.Body, []byte(want)) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
}

// The janitor's clean-up deletes sessions past their idle lifetime.
func TestJanitorPrunesSessions(t *testing.T) {
	srv := testserver.Start(t, testserver.Options{NoWorkers: true, Configure: func(c *server.Config) {
		c.Sessions = auth.SessionPolicy{Idle: 500 * time.Millisecond, Max: time.Hour}
	}})
	b, _ := signIn(t, srv, srv.AdminKey)
	ctx := context.Background()
	if n, _ := srv.Store.Ent.Session.Query().Count(ctx); n != 1 {
		t.Fatalf("%d sessions after sign-in", n)
	}
	time.Sleep(600 * time.Millisecond)
	if r := b.send(srv, "GET", "/dashboard/api/session", nil, false); r.status != http.StatusUnauthorized {
		t.Fatalf("idle session: %d, want 401", r.status)
	}
	if err := srv.CleanUp(ctx); err != nil {
		t.Fatal(err)
	}
	if n, _ := srv.Store.Ent.Session.Query().Count(ctx); n != 0 {
		t.Fatalf("%d sessions after the clean-up, want 0", n)
	}
}

// Signing in and out are audit log entries of the key's organization,
// made by the key, from the browser's address.
func TestSessionAudited(t *testing.T) {
	srv := testserver.Start(t, testserver.Options{NoWorkers: true})
	reader := srv.NewKey(t, "acme", "creators:read")
	b, in := signIn(t, srv, reader)
	keyID := in.json["key_id"].(string)
	if r := b.send(srv, "DELETE", "/dashboard/api/session", nil, true, "User-Agent", "dashboard-test"); r.status != http.StatusNoContent {
		t.Fatalf("sign-out: %d", r.status)
	}
	var sessionID string
	for _, action := range []string{"session.created", "session.ended"} {
		r := srv.Do(t, "GET", "/v1/audit-events?action="+action, srv.AdminKey, nil)
		events, _ := r.JSON["audit_events"].([]any)
		if r.Status != http.StatusOK || len(events) != 1 {
			t.Fatalf("%s: %d %s", action, r.Status, r.Body)
		}
		e := events[0].(map[string]any)
		origin, _ := e["origin"].(map[string]any)
		details, _ := e["details"].(map[string]any)
		if e["actor"] != keyID || e["target_type"] != "session" || e["organization_id"] != srv.OrgID ||
			details["key_id"] != keyID || origin["client_ip"] != "127.0.0.1" || origin["transport"] != "rest" ||
			!strings.HasPrefix(origin["request_id"].(string), "req_") {
			t.Errorf("%s: %s", action, r.Body)
		}
		if sessionID == "" {
			sessionID, _ = e["target_id"].(string)
		} else if e["target_id"] != sessionID {
			t.Errorf("session.ended names %v, session.created %s", e["target_id"], sessionID)
		}
		if action == "session.ended" && origin["user_agent"] != "dashboard-test" {
			t.Errorf("session.ended user agent: %v", origin["user_agent"])
		}
		if bytes.Contains(r.Body, []byte(reader)) || bytes.Contains(r.Body, []byte(b.cookie.Value)) || bytes.Contains(r.Body, []byte(b.csrf)) {
			t.Errorf("%s entry holds a secret: %s", action, r.Body)
		}
	}
	if !strings.HasPrefix(sessionID, "ses_") {
		t.Errorf("session id %q", sessionID)
	}
}

// Another application on the same site may set a cookie that strict
// parsing refuses; the session cookie beside it still works, on REST and
// on Connect (the whole Cookie line used to be dropped for it).
func TestSessionCookieAmongMalformedCookies(t *testing.T) {
	srv := testserver.Start(t, testserver.Options{})
	b, _ := signIn(t, srv, srv.AdminKey)
	line := `other=x\y; ` + b.cookie.Name + "=" + b.cookie.Value
	bare := &browser{t: t, srv: srv, csrf: b.csrf}
	if r := bare.send(srv, "GET", "/v1/keys", nil, true, "Cookie", line); r.status != http.StatusOK {
		t.Fatalf("REST: %d %s", r.status, r.body)
	}
	if r := bare.send(srv, "POST", "/creativeops.v1.KeysService/ListKeys", map[string]any{}, true, "Cookie", line); r.status != http.StatusOK {
		t.Fatalf("Connect: %d %s", r.status, r.body)
	}
}
