package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/creativeops/creativeops/auth"
	"github.com/creativeops/creativeops/internal/testdb"
	"github.com/creativeops/creativeops/internal/testlock"
	"github.com/creativeops/creativeops/internal/testserver"
	"github.com/creativeops/creativeops/storage"
)

// A child process of the test binary runs "creativeops serve" when this
// variable holds its arguments (space-separated).
const childArgsEnv = "CREATIVEOPS_TEST_CHILD_ARGS"

func TestMain(m *testing.M) {
	if args := os.Getenv(childArgsEnv); args != "" {
		// Like main, stop gracefully on SIGINT and SIGTERM.
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		defer stop()
		if err := run(ctx, strings.Fields(args), os.Stdout, os.Stderr); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	// Packages that start server processes under load take turns.
	os.Exit(testlock.Run(m.Run))
}

func freeAddr(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

func startChild(t *testing.T, dbURL, addr string, hold bool) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childArgsEnv+"=serve --http-addr "+addr+" --database-url "+dbURL+" --data-dir "+t.TempDir()+" --master-key-file "+testserver.MasterKeyFile(t)+" --job-timeout 1s --log-format text")
	if hold {
		cmd.Env = append(cmd.Env, "CREATIVEOPS_TEST_HOLD=1")
	}
	var logs bytes.Buffer
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		if t.Failed() {
			t.Logf("child logs:\n%s", logs.String())
		}
	})
	// Generous bounds: CI machines are small and may be busy.
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if resp, err := http.Get("http://" + addr + "/readyz"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return cmd
			}
		}
	}
	t.Fatalf("child server did not become ready:\n%s", logs.String())
	return nil
}

func call(t *testing.T, method, url, key string, body any) (int, map[string]any) {
	t.Helper()
	var b bytes.Buffer
	if body != nil {
		_ = json.NewEncoder(&b).Encode(body)
	}
	req, _ := http.NewRequest(method, url, &b)
	req.Header.Set("Authorization", "Bearer "+key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	_ = json.NewDecoder(resp.Body).Decode(&out)
	return resp.StatusCode, out
}

// A server killed with SIGKILL while asynchronous jobs run: after a restart
// every job ends completed, none stays processing.
func TestAsyncJobsSurviveKill(t *testing.T) {
	if testing.Short() {
		t.Skip("starts and kills server processes")
	}
	for _, b := range testdb.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			dbURL := b.URL(t)
			st, err := storage.Open(context.Background(), dbURL)
			if err != nil {
				t.Fatal(err)
			}
			if err := st.Migrate(context.Background()); err != nil {
				t.Fatal(err)
			}
			ks := &auth.Store{Ent: st.Ent}
			org, _ := ks.EnsureOrganization(context.Background(), "acme")
			_, key, err := ks.CreateKey(context.Background(), auth.NewKeyParams{OrganizationID: org.ID, Name: "t", Scopes: []string{"*"}})
			if err != nil {
				t.Fatal(err)
			}
			st.Close()

			addr := freeAddr(t)
			first := startChild(t, dbURL, addr, true)
			var ids []string
			for i := 0; i < 5; i++ {
				code, j := call(t, "POST", "http://"+addr+"/v1/engine/run", key, map[string]any{
					"vertical": "music", "workflow": testserver.GatedWorkflow, "context": map[string]any{"label": fmt.Sprint(i)}, "async": true})
				if code != 202 {
					t.Fatalf("async run: %d %v", code, j)
				}
				ids = append(ids, j["id"].(string))
			}
			// Wait until the workers hold runs mid-flight, then kill -9.
			for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(50 * time.Millisecond) {
				_, j := call(t, "GET", "http://"+addr+"/v1/engine/status/"+ids[0], key, nil)
				if j["status"] == "processing" {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("job never started: %v", j)
				}
			}
			if err := first.Process.Kill(); err != nil {
				t.Fatal(err)
			}
			_ = first.Wait()
			// Restart without holding; the stuck runs are rescued and finish.
			startChild(t, dbURL, addr, false)
			deadline := time.Now().Add(150 * time.Second)
			for _, id := range ids {
				for {
					_, j := call(t, "GET", "http://"+addr+"/v1/engine/status/"+id, key, nil)
					if j["status"] == "completed" {
						if j["progress"] != 100.0 || j["result"] == nil {
							t.Fatalf("job %s completed without result: %v", id, j)
						}
						break
					}
					if j["status"] == "failed" || j["status"] == "canceled" {
						t.Fatalf("job %s ended %v", id, j)
					}
					if time.Now().After(deadline) {
						t.Fatalf("job %s still %v after restart", id, j["status"])
					}
					time.Sleep(200 * time.Millisecond)
				}
			}
			// Each job emitted exactly one completion event.
			st, err = storage.Open(context.Background(), dbURL)
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			evs, err := st.Ent.Event.Query().All(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if len(evs) != len(ids) {
				t.Fatalf("%d events for %d jobs", len(evs), len(ids))
			}
		})
	}
}
