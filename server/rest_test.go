package server_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/structpb"

	creativeopsv1 "github.com/creativeops/creativeops/gen/creativeops/v1"
	"github.com/creativeops/creativeops/internal/testserver"
	"github.com/creativeops/creativeops/server"
	"github.com/creativeops/creativeops/server/edge"
)

func jsonUnmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }

// The gateway must run the same interceptors as gRPC: a request without a
// key is refused by the auth interceptor, and an invalid body by the
// validation interceptor, even though REST never touches the network stack
// of the gRPC server.
func TestRESTRunsInterceptorChain(t *testing.T) {
	s := testserver.Start(t, testserver.Options{})
	r := s.Do(t, "POST", "/v1/creators", "", map[string]any{"name": "A", "email": "a@example.com", "vertical": "music"})
	if r.Status != http.StatusUnauthorized || r.ErrorReason() != "UNAUTHENTICATED" {
		t.Fatalf("unauthenticated REST call got %d %s", r.Status, r.Body)
	}
	n, err := s.Store.Ent.Creator.Query().Count(context.Background())
	if err != nil || n != 0 {
		t.Fatalf("creator was stored without auth: %d %v", n, err)
	}
	r = s.Do(t, "POST", "/v1/creators", s.AdminKey, map[string]any{"name": strings.Repeat("x", 201), "email": "a@example.com", "vertical": "music"})
	if r.Status != http.StatusBadRequest || len(r.ViolatedFields()) != 1 || r.ViolatedFields()[0] != "name" {
		t.Fatalf("over-long name got %d %s", r.Status, r.Body)
	}
}

func TestRESTBodies(t *testing.T) {
	s := testserver.Start(t, testserver.Options{})
	cases := []struct {
		name       string
		method     string
		body       string
		wantStatus int
		wantInMsg  string
		wantReason string
		wantField  string
	}{
		{"malformed JSON", "POST", `{"name": "A", "email": }`, 400, "line 1, column", "MALFORMED_BODY", ""},
		{"truncated JSON", "POST", `{"name": "A",`, 400, "ends unexpectedly", "MALFORMED_BODY", ""},
		{"not an object", "POST", `[1,2]`, 400, "must be a JSON object", "MALFORMED_BODY", ""},
		{"unknown field", "POST", `{"name":"A","email":"a@example.com","vertical":"music","nickname":"x"}`, 400, `unknown field "nickname"`, "UNKNOWN_FIELD", "nickname"},
		{"wrong type", "POST", `{"name":"A","email":5,"vertical":"music"}`, 400, "email", "INVALID_ARGUMENT", "email"},
		{"oversized body", "POST", `{"name":"A","email":"a@example.com","vertical":"music","metadata":{"blob":"` + strings.Repeat("x", 1<<20) + `"}}`, 413, "1 MiB", "PAYLOAD_TOO_LARGE", ""},
		{"lowerCamelCase accepted", "POST", `{"name":"A","email":"camel@example.com","vertical":"music"}`, 201, "", "", ""},
		{"metadata over 16 KiB", "POST", `{"name":"A","email":"big@example.com","vertical":"music","metadata":{"blob":"` + strings.Repeat("x", 17<<10) + `"}}`, 400, "metadata", "", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := s.Do(t, c.method, "/v1/creators", s.AdminKey, c.body)
			if r.Status != c.wantStatus {
				t.Fatalf("status %d, want %d: %.300s", r.Status, c.wantStatus, r.Body)
			}
			if c.wantStatus >= 400 {
				msg, _ := r.JSON["error"].(map[string]any)["message"].(string)
				if !strings.Contains(msg, c.wantInMsg) {
					t.Errorf("message %q does not mention %q", msg, c.wantInMsg)
				}
				if c.wantReason != "" && r.ErrorReason() != c.wantReason {
					t.Errorf("reason %q, want %q", r.ErrorReason(), c.wantReason)
				}
				if c.wantField != "" && !slices.Equal(r.ViolatedFields(), []string{c.wantField}) {
					t.Errorf("field violations %v, want %s", r.ViolatedFields(), c.wantField)
				}
			}
		})
	}
	// Nothing of the rejected requests was stored.
	n, _ := s.Store.Ent.Creator.Query().Count(context.Background())
	if n != 1 {
		t.Fatalf("%d creators stored, want only the valid one", n)
	}
}

func TestGRPCOversizedMessage(t *testing.T) {
	s := testserver.Start(t, testserver.Options{})
	meta, _ := structpb.NewStruct(map[string]any{"blob": strings.Repeat("x", 1<<20)})
	ctx := metadata.AppendToOutgoingContext(context.Background(), "authorization", "Bearer "+s.AdminKey)
	_, err := creativeopsv1.NewCreatorsServiceClient(s.Conn(t)).CreateCreator(ctx, &creativeopsv1.CreateCreatorRequest{Name: "A", Email: "a@example.com", Vertical: "music", Metadata: meta})
	if status.Code(err) != codes.ResourceExhausted {
		t.Fatalf("got %v, want ResourceExhausted", err)
	}
}

func TestRequestIDAndRouting(t *testing.T) {
	s := testserver.Start(t, testserver.Options{})
	r := s.Do(t, "GET", "/v1/creators", s.AdminKey, nil, "X-Request-Id", "client-abc.123")
	if got := r.Header.Get("X-Request-Id"); got != "client-abc.123" {
		t.Errorf("X-Request-Id %q, want the client's id echoed", got)
	}
	r = s.Do(t, "GET", "/v1/creators", s.AdminKey, nil, "X-Request-Id", "bad id\twith spaces")
	if got := r.Header.Get("X-Request-Id"); !strings.HasPrefix(got, "req_") {
		t.Errorf("invalid incoming id should be replaced, got %q", got)
	}
	r = s.Do(t, "GET", "/v1/nothing-here", s.AdminKey, nil)
	if r.Status != 404 || r.ErrorReason() != "ROUTE_NOT_FOUND" {
		t.Errorf("unknown route: %d %s", r.Status, r.Body)
	}
	for _, path := range []string{"/healthz", "/readyz", "/v1/openapi.json", "/v1/openapi/webhooks.json"} {
		if r := s.Do(t, "GET", path, "", nil); r.Status != 200 {
			t.Errorf("%s without auth: %d", path, r.Status)
		}
	}
	doc := s.Do(t, "GET", "/v1/openapi.json", "", nil).JSON
	paths := doc["paths"].(map[string]any)
	for _, p := range []string{"/v1/engine/run", "/v1/engine/workflows", "/v1/engine/status/{id}", "/v1/creators", "/v1/creators/{id}", "/v1/ip/register", "/v1/ip/catalog", "/v1/webhooks", "/v1/webhooks/{id}", "/v1/analytics/usage", "/v1/keys"} {
		if _, ok := paths[p]; !ok {
			t.Errorf("OpenAPI document lacks %s", p)
		}
	}
	create := paths["/v1/creators"].(map[string]any)["post"].(map[string]any)["responses"].(map[string]any)
	if _, ok := create["201"]; !ok {
		t.Errorf("POST /v1/creators documents no 201: %v", create)
	}
	committed, err := os.ReadFile("../gen/openapi/openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	if served := s.Do(t, "GET", "/v1/openapi.json", "", nil).Body; string(served) != string(committed) {
		t.Error("the served OpenAPI document differs from the committed gen/openapi/openapi.json")
	}
	committed, err = os.ReadFile("../gen/openapi/webhooks.json")
	if err != nil {
		t.Fatal(err)
	}
	if served := s.Do(t, "GET", "/v1/openapi/webhooks.json", "", nil).Body; string(served) != string(committed) {
		t.Error("the served webhooks document differs from the committed gen/openapi/webhooks.json")
	}
}

// levelRecorder keeps the level of every "request" log record by route.
type levelRecorder struct {
	mu     sync.Mutex
	levels map[string]slog.Level
}

func (h *levelRecorder) Enabled(context.Context, slog.Level) bool { return true }
func (h *levelRecorder) WithAttrs([]slog.Attr) slog.Handler       { return h }
func (h *levelRecorder) WithGroup(string) slog.Handler            { return h }
func (h *levelRecorder) Handle(_ context.Context, r slog.Record) error {
	if r.Message != "request" {
		return nil
	}
	r.Attrs(func(a slog.Attr) bool {
		if a.Key == "route" {
			h.mu.Lock()
			h.levels[a.Value.String()] = r.Level
			h.mu.Unlock()
		}
		return true
	})
	return nil
}

func (h *levelRecorder) level(route string) (slog.Level, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	l, ok := h.levels[route]
	return l, ok
}

// Probes are logged at DEBUG, API requests at INFO.
func TestProbesLoggedAtDebug(t *testing.T) {
	rec := &levelRecorder{levels: map[string]slog.Level{}}
	s := testserver.Start(t, testserver.Options{Configure: func(c *server.Config) {
		c.Logger = slog.New(rec)
		c.LogRequests = edge.LogRequestsAll // sampling would leave out the successful lines
	}})
	for _, path := range []string{"/healthz", "/readyz", "/v1/creators"} {
		if r := s.Do(t, "GET", path, s.AdminKey, nil); r.Status != 200 {
			t.Fatalf("%s: %d", path, r.Status)
		}
	}
	for route, want := range map[string]slog.Level{"/healthz": slog.LevelDebug, "/readyz": slog.LevelDebug, "/v1/creators": slog.LevelInfo} {
		// The line is written once the response is sent: wait for it.
		var got slog.Level
		ok := false
		for deadline := time.Now().Add(10 * time.Second); !ok && time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
			got, ok = rec.level(route)
		}
		if !ok || got != want {
			t.Errorf("%s logged at %v (found %v), want %v", route, got, ok, want)
		}
	}
}
