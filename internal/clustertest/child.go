package clustertest

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/metrics"
	"syscall"
	"time"

	"github.com/creativeops/creativeops/server"
	"github.com/creativeops/creativeops/webhooks"
)

// childEnv carries a child's "serve ..." arguments (JSON) when a test
// binary re-executes itself as a server.
const childEnv = "CREATIVEOPS_CLUSTERTEST_SERVE"

// RuntimeStatsFile is written in a child's data directory every
// RuntimeStatsInterval: the Go runtime's view of the server process, which
// /proc cannot give (goroutines, live heap). Only test children write it;
// the real binary exposes nothing of the kind.
const (
	RuntimeStatsFile     = "runtime-stats.json"
	RuntimeStatsInterval = 500 * time.Millisecond
)

// RuntimeStats is the content of RuntimeStatsFile.
type RuntimeStats struct {
	At         time.Time `json:"at"`
	Goroutines int64     `json:"goroutines"`
	HeapBytes  int64     `json:"heap_bytes"` // live and unswept heap objects
}

// RunChildIfRequested turns the process into a creativeops server when it
// was started by a Launcher without a binary, and never returns in that
// case. Call it first in TestMain.
func RunChildIfRequested() {
	enc := os.Getenv(childEnv)
	if enc == "" {
		return
	}
	var args []string
	if err := json.Unmarshal([]byte(enc), &args); err != nil || len(args) == 0 || args[0] != "serve" {
		fmt.Fprintf(os.Stderr, "clustertest child: bad %s: %q\n", childEnv, enc)
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	if err := serveChild(ctx, args[1:], os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "clustertest child:", err)
		os.Exit(1)
	}
	os.Exit(0)
}

// serveChild accepts the subset of "creativeops serve" flags that Replica
// passes, with the same meaning, and runs server.Run as the binary does.
func serveChild(ctx context.Context, args []string, stderr io.Writer) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	httpAddr := fs.String("http-addr", "", "")
	dbURL := fs.String("database-url", "", "")
	dataDir := fs.String("data-dir", "", "")
	masterKey := fs.String("master-key-file", "", "")
	fs.String("log-format", "text", "")
	jobTimeout := fs.Duration("job-timeout", time.Minute, "")
	insecure := fs.Bool("allow-insecure-webhooks", false, "")
	schedule := fs.String("webhook-retry-schedule", "", "")
	workers := fs.Int("workers", 8, "")
	debugAddr := fs.String("debug-addr", "", "")
	if err := fs.Parse(args); err != nil {
		return err
	}
	cfg := server.Config{
		HTTPAddr:              *httpAddr,
		DebugAddr:             *debugAddr,
		DatabaseURL:           *dbURL,
		DataDir:               *dataDir,
		MasterKeyFiles:        []string{*masterKey},
		AllowInsecureWebhooks: *insecure,
		Logger:                slog.New(slog.NewTextHandler(stderr, nil)),
		Console:               stderr,
		Workers:               *workers,
		JobTimeout:            *jobTimeout,
		RescueAfter:           2 * *jobTimeout,
	}
	if *schedule != "" {
		s, err := webhooks.ParseSchedule(*schedule)
		if err != nil {
			return err
		}
		cfg.WebhookSchedule = s
	}
	go writeRuntimeStats(ctx, filepath.Join(*dataDir, RuntimeStatsFile))
	return server.Run(ctx, cfg)
}

func writeRuntimeStats(ctx context.Context, path string) {
	samples := []metrics.Sample{
		{Name: "/sched/goroutines:goroutines"},
		{Name: "/memory/classes/heap/objects:bytes"},
	}
	t := time.NewTicker(RuntimeStatsInterval)
	defer t.Stop()
	for {
		metrics.Read(samples)
		st := RuntimeStats{At: time.Now(), Goroutines: int64(samples[0].Value.Uint64()), HeapBytes: int64(samples[1].Value.Uint64())}
		b, _ := json.Marshal(st)
		tmp := path + ".tmp"
		if os.WriteFile(tmp, b, 0o640) == nil {
			_ = os.Rename(tmp, path)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// ReadRuntimeStats reads a test child's latest RuntimeStats.
func (r *Replica) ReadRuntimeStats() (RuntimeStats, error) {
	var st RuntimeStats
	b, err := os.ReadFile(filepath.Join(r.DataDir, RuntimeStatsFile))
	if err != nil {
		return st, err
	}
	err = json.Unmarshal(b, &st)
	return st, err
}
