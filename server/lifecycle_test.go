package server_test

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/creativeops/creativeops/internal/testdb"
	"github.com/creativeops/creativeops/server"
)

// A start that fails at any step returns an error that says why, leaves
// no goroutine behind, and prints no key.
func TestFailedStartReleasesEverything(t *testing.T) {
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	// A regular file where the database's directory should be.
	blocker := filepath.Join(t.TempDir(), "blocker")
	if err := os.WriteFile(blocker, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name      string
		configure func(*server.Config)
		want      string
	}{
		{"bad database URL", func(c *server.Config) { c.DatabaseURL = "mysql://nowhere/db" }, "database"},
		{"unusable database path", func(c *server.Config) { c.DatabaseURL = "sqlite://" + filepath.Join(blocker, "x.db") }, ""},
		{"bad Redis URL", func(c *server.Config) { c.RedisURL = "redis://bad host:port:6379" }, "redis"},
		{"port in use", func(c *server.Config) { c.HTTPAddr = busy.Addr().String() }, "listen on"},
		{"debug port in use", func(c *server.Config) { c.DebugAddr = busy.Addr().String() }, "listen on"},
	} {
		t.Run(c.name, func(t *testing.T) {
			defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
			var console bytes.Buffer
			cfg := server.Config{
				HTTPAddr:    "127.0.0.1:0",
				DatabaseURL: testdb.SQLiteURL(t),
				DataDir:     t.TempDir(),
				Logger:      slog.New(slog.NewTextHandler(io.Discard, nil)),
				Console:     &console,
			}
			c.configure(&cfg)
			err := server.Run(context.Background(), cfg)
			if err == nil {
				t.Fatal("Run succeeded")
			}
			if !strings.Contains(strings.ToLower(err.Error()), c.want) {
				t.Errorf("error %q does not mention %q", err, c.want)
			}
			if console.Len() > 0 {
				t.Errorf("a failed start printed %q", console.String())
			}
		})
	}
}

// A server that served and stops leaves nothing running either.
func TestShutdownReleasesEverything(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	free, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := free.Addr().String()
	free.Close()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- server.Run(ctx, server.Config{
			HTTPAddr:    addr,
			DatabaseURL: testdb.SQLiteURL(t),
			DataDir:     t.TempDir(),
			Logger:      slog.New(slog.NewTextHandler(io.Discard, nil)),
			Console:     io.Discard,
		})
	}()
	client := &http.Client{Timeout: time.Second}
	for i := 0; ; i++ {
		resp, err := client.Get("http://" + addr + "/healthz")
		if err == nil {
			resp.Body.Close()
			break
		}
		if i == 100 {
			t.Fatalf("server not serving: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	client.CloseIdleConnections()
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}
