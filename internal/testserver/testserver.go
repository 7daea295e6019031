// Package testserver starts a real creativeops server on 127.0.0.1:0 for
// end-to-end tests, on SQLite and, when CREATIVEOPS_TEST_POSTGRES_URL is set,
// on a fresh PostgreSQL database.
package testserver

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/creativeops/creativeops/auth"
	"github.com/creativeops/creativeops/internal/testdb"
	"github.com/creativeops/creativeops/secrets"
	"github.com/creativeops/creativeops/server"
	"github.com/creativeops/creativeops/storage"
)

// Server is a running test server.
type Server struct {
	*server.Server
	URL      string // http://127.0.0.1:port
	Addr     string
	Store    *storage.Store
	Keys     *auth.Store
	conn     *grpc.ClientConn
	OrgID    string
	AdminKey string
}

// masterKey is the master key of every test server, so that a test may
// restart servers on one database, each with its own data directory.
var masterKey = bytes.Repeat([]byte{0x5e}, secrets.KeySize)

// MasterKeyFile writes the test servers' master key to a file for
// --master-key-file.
func MasterKeyFile(t testing.TB) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "master.key")
	if err := os.WriteFile(path, secrets.EncodeKey(masterKey), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// Options tune a test server.
type Options struct {
	DatabaseURL string
	Configure   func(*server.Config)
	// NoWorkers leaves background workers stopped (jobs stay queued).
	NoWorkers bool
}

// Start runs a server until the test ends. It creates an organization "acme"
// with an all-scopes key (AdminKey).
func Start(t testing.TB, opts Options) *Server {
	t.Helper()
	if opts.DatabaseURL == "" {
		opts.DatabaseURL = testdb.SQLiteURL(t)
	}
	ctx := context.Background()
	cfg := server.Config{
		HTTPAddr:              "127.0.0.1:0",
		DatabaseURL:           opts.DatabaseURL,
		DataDir:               t.TempDir(),
		MasterKeyFiles:        []string{MasterKeyFile(t)},
		AllowInsecureWebhooks: true,
		Logger:                slog.New(slog.NewTextHandler(io.Discard, nil)),
		ShutdownTimeout:       5 * time.Second,
		// Tests send bursts far beyond the product default (100/s, burst
		// 200); tests of the limits configure their own.
		RateLimit: auth.RateLimit{RequestsPerSecond: 1e6, Burst: 1e6},
	}
	if testing.Verbose() {
		cfg.Logger = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	}
	if opts.Configure != nil {
		opts.Configure(&cfg)
	}
	srv, err := server.New(ctx, cfg)
	if err != nil {
		t.Fatalf("start server: %v", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	if !opts.NoWorkers {
		if err := srv.StartWorkers(ctx); err != nil {
			t.Fatalf("start workers: %v", err)
		}
	}
	go func() { _ = srv.Serve(ln) }()
	s := &Server{Server: srv, Addr: ln.Addr().String(), URL: "http://" + ln.Addr().String(), Store: srv.Store()}
	s.Keys = &auth.Store{Ent: s.Store.Ent}
	t.Cleanup(func() {
		if s.conn != nil {
			s.conn.Close()
		}
		_ = srv.Shutdown(context.Background())
	})
	org, err := s.Keys.EnsureOrganization(ctx, "acme")
	if err != nil {
		t.Fatal(err)
	}
	s.OrgID = org.ID
	s.AdminKey = s.NewKey(t, "acme", auth.ScopeAll)
	return s
}

// NewKey creates a key in the named organization (created if missing).
func (s *Server) NewKey(t testing.TB, org string, scopes ...string) string {
	t.Helper()
	o, err := s.Keys.EnsureOrganization(context.Background(), org)
	if err != nil {
		t.Fatal(err)
	}
	_, secret, err := s.Keys.CreateKey(context.Background(), auth.NewKeyParams{OrganizationID: o.ID, Name: "test", Scopes: scopes})
	if err != nil {
		t.Fatal(err)
	}
	return secret
}

// Conn is a gRPC connection to the server's shared port.
func (s *Server) Conn(t testing.TB) *grpc.ClientConn {
	t.Helper()
	if s.conn == nil {
		conn, err := grpc.NewClient(s.Addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
		if err != nil {
			t.Fatal(err)
		}
		s.conn = conn
	}
	return s.conn
}

// Response is a REST response with its JSON body decoded.
type Response struct {
	Status int
	Header http.Header
	Body   []byte
	JSON   map[string]any
}

// Do sends a REST request. body may be nil, a string (sent as is) or any
// value (JSON-encoded).
func (s *Server) Do(t testing.TB, method, path, key string, body any, headers ...string) Response {
	t.Helper()
	var r io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		r = strings.NewReader(b)
	case []byte:
		r = bytes.NewReader(b)
	default:
		buf, err := json.Marshal(b)
		if err != nil {
			t.Fatal(err)
		}
		r = bytes.NewReader(buf)
	}
	req, err := http.NewRequest(method, s.URL+path, r)
	if err != nil {
		t.Fatal(err)
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	out := Response{Status: resp.StatusCode, Header: resp.Header, Body: raw}
	if len(raw) > 0 && strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") {
		if err := json.Unmarshal(raw, &out.JSON); err != nil {
			t.Fatalf("%s %s: response is not JSON: %v: %s", method, path, err, raw)
		}
	}
	return out
}

// ErrorReason returns the ErrorInfo reason of an error response.
func (r Response) ErrorReason() string {
	e, _ := r.JSON["error"].(map[string]any)
	details, _ := e["details"].([]any)
	for _, d := range details {
		if m, ok := d.(map[string]any); ok && m["@type"] == "type.googleapis.com/google.rpc.ErrorInfo" {
			s, _ := m["reason"].(string)
			return s
		}
	}
	return ""
}

// ViolatedFields lists the BadRequest field violations of an error response.
func (r Response) ViolatedFields() []string {
	e, _ := r.JSON["error"].(map[string]any)
	details, _ := e["details"].([]any)
	var out []string
	for _, d := range details {
		m, _ := d.(map[string]any)
		if m["@type"] != "type.googleapis.com/google.rpc.BadRequest" {
			continue
		}
		fvs, _ := m["fieldViolations"].([]any)
		for _, fv := range fvs {
			f, _ := fv.(map[string]any)
			s, _ := f["field"].(string)
			out = append(out, s)
		}
	}
	return out
}
