package server

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"github.com/grpc-ecosystem/grpc-gateway/v2/runtime"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protojson"

	"github.com/creativeops/creativeops/dashboard"
	creativeopsv1 "github.com/creativeops/creativeops/gen/creativeops/v1"
	"github.com/creativeops/creativeops/internal/rpcrule"
	"github.com/creativeops/creativeops/internal/testdb"
	"github.com/creativeops/creativeops/oauth"
	"github.com/creativeops/creativeops/server/edge"
)

func deepArrays(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }

// A body nested beyond edge.MaxBodyDepth is refused before protojson sees it,
// naming the top-level field; one within it reaches the decoder (and
// edge.CheckText, which bounds JSON values to edge.MaxJSONDepth with the full path).
func TestDeepBodyRefusedBeforeDecoding(t *testing.T) {
	m := jsonBodies{&runtime.JSONPb{UnmarshalOptions: protojson.UnmarshalOptions{}}}
	deep := `{"vertical":"music","workflow":"release-strategy","context":{"a":` + deepArrays(5000) + `}}`
	e := m.decode([]byte(deep), &creativeopsv1.RunWorkflowRequest{})
	if e == nil {
		t.Fatal("5000 levels accepted")
	}
	st := e.GRPCStatus()
	if !strings.Contains(st.Message(), "context") || !strings.Contains(st.Message(), "nested deeper") {
		t.Fatalf("5000 levels: %v", st.Message())
	}
	within := `{"vertical":"music","workflow":"release-strategy","context":{"a":` + deepArrays(edge.MaxBodyDepth-2) + `}}`
	if e := m.decode([]byte(within), &creativeopsv1.RunWorkflowRequest{}); e != nil {
		t.Fatalf("%d levels refused before decoding: %v", edge.MaxBodyDepth, e.GRPCStatus().Message())
	}
}

// What refusing a deeply nested body costs: compare with
// BenchmarkDecodeDeepBody, what decoding it cost before it was refused.
func BenchmarkRefuseDeepBody(b *testing.B) {
	m := jsonBodies{&runtime.JSONPb{}}
	body := []byte(`{"name":"Deep","email":"d@example.com","vertical":"music","metadata":{"a":` + deepArrays(5000) + `}}`)
	b.ReportAllocs()
	for b.Loop() {
		if m.decode(body, &creativeopsv1.CreateCreatorRequest{}) == nil {
			b.Fatal("accepted")
		}
	}
}

func BenchmarkDecodeDeepBody(b *testing.B) {
	body := []byte(`{"name":"Deep","email":"d@example.com","vertical":"music","metadata":{"a":` + deepArrays(5000) + `}}`)
	b.ReportAllocs()
	for b.Loop() {
		_ = protojson.Unmarshal(body, &creativeopsv1.CreateCreatorRequest{})
	}
}

// invokedConn records the method the gateway calls and fails the call.
type invokedConn struct{ method string }

func (c *invokedConn) Invoke(_ context.Context, method string, _, _ any, _ ...grpc.CallOption) error {
	c.method = method
	return status.Error(codes.Unavailable, "recorded")
}

func (c *invokedConn) NewStream(context.Context, *grpc.StreamDesc, string, ...grpc.CallOption) (grpc.ClientStream, error) {
	return nil, status.Error(codes.Unimplemented, "no streams")
}

// The router hands every REST route to its own service's gateway, which
// calls the method the gateway of every service calls for it; other
// requests go to the latter, which answers them as before.
func TestGatewayRouterRoutesEveryMethodToItsService(t *testing.T) {
	conn := &invokedConn{}
	g, err := newGateway(t.Context(), conn)
	if err != nil {
		t.Fatal(err)
	}
	param := regexp.MustCompile(`\{[^}]*\}`)
	var routed int
	for _, m := range rpcrule.All() {
		if m.Template == "" {
			continue
		}
		path := param.ReplaceAllString(m.Template, "x1")
		call := func(h http.Handler, admitted ...route) (string, int) {
			conn.method = ""
			r := httptest.NewRequest(m.HTTPMethod, path, strings.NewReader("{}"))
			r.Header.Set("Content-Type", "application/json")
			for _, rt := range admitted {
				r = r.WithContext(withRequestInfo(r.Context(), &requestInfo{route: rt}))
			}
			w := httptest.NewRecorder()
			h.ServeHTTP(w, r)
			return conn.method, w.Code
		}
		own := g.byService[serviceOf(m.FullMethod)]
		if own == nil {
			t.Errorf("%s: no gateway for its service", m.FullMethod)
			continue
		}
		if got, code := call(own); got != m.FullMethod {
			t.Errorf("%s %s through its service's gateway: called %q (status %d), want %s", m.HTTPMethod, path, got, code, m.FullMethod)
		}
		if got, _ := call(g); got != m.FullMethod {
			t.Errorf("%s %s through the router: called %q, want %s", m.HTTPMethod, path, got, m.FullMethod)
		}
		if got, _ := call(g, route{m.HTTPMethod, m.Template}); got != m.FullMethod {
			t.Errorf("%s %s through the router, its route admitted: called %q, want %s", m.HTTPMethod, path, got, m.FullMethod)
		}
		if got, _ := call(g.all); got != m.FullMethod {
			t.Errorf("%s %s through the gateway of every service: called %q, want %s", m.HTTPMethod, path, got, m.FullMethod)
		}
		routed++
	}
	if routed < 20 {
		t.Fatalf("%d REST routes, expected every API method's", routed)
	}
	for _, r := range []*http.Request{httptest.NewRequest("GET", "/v1/nowhere", nil), httptest.NewRequest("DELETE", "/v1/creators", nil)} {
		w := httptest.NewRecorder()
		g.ServeHTTP(w, r)
		if w.Code != http.StatusNotFound && w.Code != http.StatusNotImplemented && w.Code != http.StatusMethodNotAllowed {
			t.Errorf("%s %s: %d %s, want the gateway's refusal", r.Method, r.URL.Path, w.Code, w.Body)
		}
	}
}

// The gateway passes the services the request headers they read, each
// once and by its metadata key, and no other: the credential, a
// dashboard session's cookie and CSRF token, and the Idempotency-Key.
func TestGatewayForwardsRequestHeaders(t *testing.T) {
	r := httptest.NewRequest("POST", "/v1/creators", nil)
	r.Header.Set("Authorization", "Bearer k")
	r.Header.Set("idempotency-key", "i")
	r.Header.Set("Cookie", "s=c")
	r.Header.Set(dashboard.CSRFHeader, "t")
	r.Header.Set("User-Agent", "ua")
	r.Header.Set("X-Request-Id", "req_1")
	ctx, err := runtime.AnnotateContext(context.Background(), newGatewayMux(), r, "/creativeops.v1.CreatorsService/CreateCreator")
	if err != nil {
		t.Fatal(err)
	}
	md, _ := metadata.FromOutgoingContext(ctx)
	for key, want := range map[string]string{"authorization": "Bearer k", "idempotency-key": "i", "cookie": "s=c", "x-csrf-token": "t"} {
		if got := md.Get(key); len(got) != 1 || got[0] != want {
			t.Errorf("%s: %q, want [%q]", key, got, want)
		}
	}
	for _, key := range []string{"user-agent", "x-request-id"} {
		if got := md.Get(key); len(got) != 0 {
			t.Errorf("%s forwarded: %q", key, got)
		}
	}
}

// The ServeMux of the server's routes leaves every path of an API route to
// the gateway, its catch-all, whatever the route's variables hold (even a
// segment of one of the mux's own routes), and its own routes are none of
// the API's: apiFirst, which hands the requests admission matched to the
// gateway without asking the mux, serves them as the mux would. A path the
// mux would clean is still the mux's to redirect.
func TestServeMuxLeavesAPIRoutesToTheGateway(t *testing.T) {
	s, err := New(t.Context(), Config{DatabaseURL: testdb.SQLiteURL(t), DataDir: t.TempDir(), Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Shutdown(context.Background()) })
	mux := s.serveMux()
	own := []string{"/healthz", "/readyz", "/metrics", "/v1/openapi.json", webhooksOpenAPIPath,
		"/v1/plans/x1/calendar.ics", dashboard.SessionPath, dashboard.Prefix + "x1",
		oauth.TokenPath, oauth.IntrospectPath, oauth.RevokePath, oauth.MetadataPath, oauth.JWKSPath,
		"/v1/ip/log/tile/0/x001/234.p/5", "/v1/ip/logs/x1/checkpoint", "/v1/ip/logs/x1/tile/0/000"}
	values := map[string]bool{"x1": true}
	for _, p := range own {
		for _, seg := range strings.Split(p, "/") {
			values[seg] = seg != "" && seg != "." && seg != ".."
		}
		for _, method := range []string{"GET", "POST", "PUT", "PATCH", "DELETE"} {
			if m, ok := rpcrule.Match(method, p); ok {
				t.Errorf("%s %s, a route of the mux's own, is %s's too", method, p, m.FullMethod)
			}
		}
	}
	param := regexp.MustCompile(`\{[^}]*\}`)
	for _, m := range rpcrule.All() {
		if m.Template == "" {
			continue
		}
		for v, ok := range values {
			if !ok {
				continue
			}
			p := param.ReplaceAllString(m.Template, v)
			if _, pattern := mux.Handler(httptest.NewRequest(m.HTTPMethod, p, nil)); pattern != "/" {
				t.Errorf("%s %s (%s): the mux serves it with %q, not the gateway", m.HTTPMethod, p, m.FullMethod, pattern)
			}
		}
	}

	h := apiFirst{gateway: s.gateway, mux: mux}
	r := httptest.NewRequest("GET", "/v1/creators/..", nil)
	r = r.WithContext(withRequestInfo(r.Context(), &requestInfo{route: route{"GET", "/v1/creators/{id}"}}))
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	if w.Code != http.StatusTemporaryRedirect || w.Header().Get("Location") != "/v1" {
		t.Errorf("GET /v1/creators/..: %d, Location %q; want the mux's redirect to /v1", w.Code, w.Header().Get("Location"))
	}
}
