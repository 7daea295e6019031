package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"connectrpc.com/connect"

	"github.com/creativeops/creativeops/auth"
	creativeopsv1 "github.com/creativeops/creativeops/gen/creativeops/v1"
	"github.com/creativeops/creativeops/gen/creativeops/v1/creativeopsv1connect"
	"github.com/creativeops/creativeops/internal/testdb"
	"github.com/creativeops/creativeops/internal/testserver"
	"github.com/creativeops/creativeops/server"
)

// startServer starts the whole service on a loopback port, on a new SQLite
// database, the way "creativeops serve" does (server.Run): build, bootstrap
// the new installation, start the workers, serve. It returns the base URL
// and the key a new installation writes to its data directory when no
// terminal is there to show it: the key a user would read.
// configure, when given, changes the configuration first.
func startServer(t *testing.T, configure ...func(*server.Config)) (baseURL, key string) {
	t.Helper()
	ctx := context.Background()
	dataDir := t.TempDir()
	cfg := server.Config{
		HTTPAddr:        "127.0.0.1:0",
		DatabaseURL:     testdb.SQLiteURL(t),
		DataDir:         dataDir,
		MasterKeyFiles:  []string{testserver.MasterKeyFile(t)},
		Logger:          slog.New(slog.NewTextHandler(io.Discard, nil)),
		Console:         io.Discard,
		ShutdownTimeout: 5 * time.Second,
	}
	for _, f := range configure {
		f(&cfg)
	}
	srv, err := server.New(ctx, cfg)
	if err != nil {
		t.Fatalf("start server: %v", err)
	}
	t.Cleanup(func() { _ = srv.Shutdown(context.Background()) })
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Bootstrap(ctx); err != nil {
		t.Fatal(err)
	}
	if err := srv.StartWorkers(ctx); err != nil {
		t.Fatal(err)
	}
	go func() { _ = srv.Serve(ln) }()
	raw, err := os.ReadFile(filepath.Join(dataDir, server.BootstrapKeyFile))
	if err != nil {
		t.Fatalf("the bootstrap key: %v", err)
	}
	return "http://" + ln.Addr().String(), strings.TrimSpace(string(raw))
}

// The example runs start to finish against a live server, and what it
// prints is what the API answered: ids, the errors' codes, reasons and
// fields, the job's end, and the pages.
func TestQuickstart(t *testing.T) {
	baseURL, key := startServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var out bytes.Buffer
	if err := run(ctx, baseURL, key, &out); err != nil {
		t.Fatalf("run: %s\noutput so far:\n%s", describe(err), out.String())
	}
	t.Logf("output:\n%s", out.String())
	want := []string{
		`^created creator cr_\w+: Nova Reyes <nova\+\w+@example\.com>, music, active$`,
		`^the same email again: already_exists: a creator with email nova\+\w+@example\.com already exists in this organization \(reason DUPLICATE_EMAIL\) \(request req_\w+\)$`,
		`^an invalid email: invalid_argument: email: .+ \(reason INVALID_ARGUMENT\) \[field email: .+\] \(request req_\w+\)$`,
		`^job job_\w+ queued$`,
		`^job job_\w+ completed \(100%\): Release Nova Reyes's indie pop single on \w+ \d{4}-\d\d-\d\d$`,
		`^created creator cr_\w+: Kai Moreno <kai\.moreno\+\w+@example\.com>, music, active$`,
		`^created creator cr_\w+: Ada Lind <ada\.lind\+\w+@example\.com>, music, active$`,
		`^page 1: Ada Lind, Kai Moreno$`,
		`^page 2: Nova Reyes$`,
		`^3 music creators in 2 pages$`,
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) != len(want) {
		t.Fatalf("%d lines, want %d:\n%s", len(lines), len(want), out.String())
	}
	for i, w := range want {
		if !regexp.MustCompile(w).MatchString(lines[i]) {
			t.Errorf("line %d:\n got %s\nwant %s", i+1, lines[i], w)
		}
	}

	// Run again on the same server: the suffix keeps the emails apart.
	out.Reset()
	if err := run(ctx, baseURL, key, &out); err != nil {
		t.Fatalf("second run: %s\noutput so far:\n%s", describe(err), out.String())
	}
	if !strings.HasSuffix(out.String(), "6 music creators in 3 pages\n") {
		t.Errorf("second run:\n%s", out.String())
	}
}

// A wrong key fails the first call with unauthenticated, and describe
// names the reason.
func TestQuickstartWrongKey(t *testing.T) {
	baseURL, _ := startServer(t)
	var out bytes.Buffer
	err := run(context.Background(), baseURL, "co_live_"+strings.Repeat("0", 38), &out)
	if connect.CodeOf(err) != connect.CodeUnauthenticated {
		t.Fatalf("run with a wrong key: %v, want unauthenticated", err)
	}
	if got := describe(err); !regexp.MustCompile(`^unauthenticated: .+ \(reason [A-Z_]+\)`).MatchString(got) {
		t.Errorf("describe: %s", got)
	}
	if out.Len() != 0 {
		t.Errorf("printed before the first call succeeded:\n%s", out.String())
	}
}

// What createCreator's comment promises: the same create sent again with
// its Idempotency-Key over Connect creates one creator and replays the
// first answer, where a new key would be refused as a duplicate email.
func TestCreateCreatorReplaysWithItsIdempotencyKey(t *testing.T) {
	baseURL, key := startServer(t)
	ctx := context.Background()
	client := creativeopsv1connect.NewCreatorsServiceClient(http.DefaultClient, baseURL, connect.WithInterceptors(bearer(key)))
	create := func(idempotencyKey string) (*connect.Response[creativeopsv1.Creator], error) {
		req := connect.NewRequest(&creativeopsv1.CreateCreatorRequest{Name: "Nova Reyes", Email: "nova@example.com", Vertical: "music"})
		req.Header().Set("Idempotency-Key", idempotencyKey)
		return client.CreateCreator(ctx, req)
	}
	first, err := create("create-nova")
	if err != nil {
		t.Fatal(describe(err))
	}
	again, err := create("create-nova")
	if err != nil {
		t.Fatalf("the same create with the same key: %s", describe(err))
	}
	if again.Msg.GetId() != first.Msg.GetId() {
		t.Errorf("replayed creator %s, want %s", again.Msg.GetId(), first.Msg.GetId())
	}
	if _, err := create("another-key"); connect.CodeOf(err) != connect.CodeAlreadyExists {
		t.Errorf("the same create with a new key: %v, want already_exists", err)
	}
}

// The same stubs over each protocol the server speaks on its one port:
// Connect (the default, HTTP/1.1 or 2), gRPC (HTTP/2: h2c for http://) and
// gRPC-Web. A call succeeds, and a refused one carries its code, reason,
// field violations and request id on each, which is what describe and
// docs/clients.md rely on.
func TestStubsOverEachProtocol(t *testing.T) {
	baseURL, key := startServer(t)
	var h2c http.Protocols
	h2c.SetUnencryptedHTTP2(true)
	for _, tc := range []struct {
		name   string
		client *http.Client
		opts   []connect.ClientOption
	}{
		{"connect", http.DefaultClient, nil},
		{"connect+json", http.DefaultClient, []connect.ClientOption{connect.WithProtoJSON()}},
		{"grpc", &http.Client{Transport: &http.Transport{Protocols: &h2c}}, []connect.ClientOption{connect.WithGRPC()}},
		{"grpc-web", http.DefaultClient, []connect.ClientOption{connect.WithGRPCWeb()}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			opts := append([]connect.ClientOption{connect.WithInterceptors(bearer(key))}, tc.opts...)
			client := creativeopsv1connect.NewCreatorsServiceClient(tc.client, baseURL, opts...)
			res, err := client.ListCreators(ctx, connect.NewRequest(&creativeopsv1.ListCreatorsRequest{PageSize: 1}))
			if err != nil {
				t.Fatalf("list creators: %s", describe(err))
			}
			if res.Msg == nil {
				t.Fatal("no message")
			}
			_, err = client.CreateCreator(ctx, connect.NewRequest(&creativeopsv1.CreateCreatorRequest{Name: "Nova", Email: "nova-at-example.com", Vertical: "music"}))
			if connect.CodeOf(err) != connect.CodeInvalidArgument {
				t.Fatalf("invalid email: %v, want invalid_argument", err)
			}
			if got := describe(err); !regexp.MustCompile(`\(reason INVALID_ARGUMENT\) \[field email: .+\] \(request req_\w+\)$`).MatchString(got) {
				t.Errorf("describe: %s", got)
			}
		})
	}
}

// What docs/clients.md tells a Go program to retry on: a rate-limited call
// is ResourceExhausted, with the server's Retry-After in the metadata.
func TestRateLimitedCallCarriesRetryAfter(t *testing.T) {
	baseURL, key := startServer(t, func(c *server.Config) {
		c.RateLimit = auth.RateLimit{RequestsPerSecond: 0.01, Burst: 1}
	})
	client := creativeopsv1connect.NewCreatorsServiceClient(http.DefaultClient, baseURL, connect.WithInterceptors(bearer(key)))
	var err error
	for range 3 {
		if _, err = client.ListCreators(context.Background(), connect.NewRequest(&creativeopsv1.ListCreatorsRequest{})); err != nil {
			break
		}
	}
	var cerr *connect.Error
	if !errors.As(err, &cerr) || cerr.Code() != connect.CodeResourceExhausted {
		t.Fatalf("past the burst: %v, want resource_exhausted", err)
	}
	if s := cerr.Meta().Get("Retry-After"); !regexp.MustCompile(`^[1-9][0-9]*$`).MatchString(s) {
		t.Errorf("Retry-After %q, want whole seconds", s)
	}
}
