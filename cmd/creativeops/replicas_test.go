package main

import (
	"bytes"
	"context"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creativeops/creativeops/internal/testdb"
	"github.com/creativeops/creativeops/secrets"
	"github.com/creativeops/creativeops/server"
	"github.com/creativeops/creativeops/storage"
)

// lockedBuffer collects a child's output while the test reads it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string { l.mu.Lock(); defer l.mu.Unlock(); return l.b.String() }

// Two replicas started at the same moment on an empty database: both
// migrate it and serve, exactly one creates the default organization and
// its key (in its own data directory's key file), and neither reports an
// error.
func TestReplicasStartTogetherOnAnEmptyDatabase(t *testing.T) {
	if testing.Short() {
		t.Skip("starts server processes")
	}
	for _, b := range testdb.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			// Replicas share one master key (docs/security.md); each
			// would otherwise make its own and refuse the other's seals.
			masterKey := filepath.Join(t.TempDir(), "master.key")
			if err := secrets.CreateKeyFile(masterKey); err != nil {
				t.Fatal(err)
			}
			for round := range 2 {
				dbURL := b.URL(t)
				type replica struct {
					addr, dataDir string
					logs          *lockedBuffer
					cmd           *exec.Cmd
				}
				var rs []*replica
				for range 2 {
					r := &replica{addr: freeAddr(t), dataDir: t.TempDir(), logs: &lockedBuffer{}}
					r.cmd = exec.Command(os.Args[0], "-test.run=^$")
					r.cmd.Env = append(os.Environ(), childArgsEnv+"=serve --http-addr "+r.addr+" --database-url "+dbURL+" --data-dir "+r.dataDir+" --master-key-file "+masterKey)
					r.cmd.Stdout, r.cmd.Stderr = r.logs, r.logs
					rs = append(rs, r)
				}
				for _, r := range rs {
					if err := r.cmd.Start(); err != nil {
						t.Fatal(err)
					}
					t.Cleanup(func() {
						_ = r.cmd.Process.Kill()
						_ = r.cmd.Wait()
						if t.Failed() {
							t.Logf("replica %s:\n%s", r.addr, r.logs.String())
						}
					})
				}
				keyFiles := 0
				for _, r := range rs {
					for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(50 * time.Millisecond) {
						if resp, err := http.Get("http://" + r.addr + "/readyz"); err == nil {
							resp.Body.Close()
							if resp.StatusCode == 200 {
								break
							}
						}
						if r.cmd.ProcessState != nil || time.Now().After(deadline) {
							t.Fatalf("round %d: replica %s did not become ready", round, r.addr)
						}
					}
					if _, err := os.Stat(filepath.Join(r.dataDir, server.BootstrapKeyFile)); err == nil {
						keyFiles++
					}
				}
				for _, r := range rs {
					if err := r.cmd.Process.Signal(os.Interrupt); err != nil {
						t.Fatal(err)
					}
					if err := r.cmd.Wait(); err != nil {
						t.Errorf("round %d: replica %s exited with %v", round, r.addr, err)
					}
					if logs := r.logs.String(); strings.Contains(logs, `"level":"ERROR"`) || keyRe.MatchString(logs) {
						t.Errorf("round %d: replica %s logged an error or a key", round, r.addr)
					}
				}
				if keyFiles != 1 {
					t.Errorf("round %d: %d replicas wrote a bootstrap key, want 1", round, keyFiles)
				}
				st, err := storage.Open(context.Background(), dbURL)
				if err != nil {
					t.Fatal(err)
				}
				orgs, _ := st.Ent.Organization.Query().Count(context.Background())
				keys, _ := st.Ent.APIKey.Query().Count(context.Background())
				st.Close()
				if orgs != 1 || keys != 1 {
					t.Errorf("round %d: %d organizations and %d keys, want 1 and 1", round, orgs, keys)
				}
			}
		})
	}
}
