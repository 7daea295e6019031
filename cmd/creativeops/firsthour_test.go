package main

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/creativeops/creativeops/internal/testdb"
	"github.com/creativeops/creativeops/storage"
)

// docStep is one marked step of the "Your first hour" section of
// docs/operations.md: a fenced shell block, or a stop.
type docStep struct {
	line     int
	serve    bool   // run in the background until the next stop
	stop     bool   // stop the servers running in the background
	postgres bool   // only with a PostgreSQL database for the test
	checkout bool   // run in the repository, not the scratch directory
	requires string // a program the step needs
	script   string
}

var (
	markerRe = regexp.MustCompile(`^<!-- first-hour((?: [a-z=0-9]+)*) -->$`)
	portRe   = regexp.MustCompile(`:(8080|8081)\b`)
	addrRe   = regexp.MustCompile(`--http-addr 127\.0\.0\.1:(\d+)`)
)

// firstHourSteps reads the marked steps of the section. Every shell block
// of the section must be marked, so that no command escapes the test.
func firstHourSteps(t *testing.T) []docStep {
	t.Helper()
	doc, err := os.ReadFile("../../docs/operations.md")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(doc), "\n")
	start := -1
	for i, l := range lines {
		if l == "## Your first hour" {
			start = i
		} else if start >= 0 && strings.HasPrefix(l, "## ") {
			lines = lines[:i]
			break
		}
	}
	if start < 0 {
		t.Fatal(`docs/operations.md has no "## Your first hour" section`)
	}
	var steps []docStep
	var pending *docStep
	for i := start; i < len(lines); i++ {
		l := lines[i]
		if m := markerRe.FindStringSubmatch(l); m != nil {
			if pending != nil {
				t.Fatalf("operations.md:%d: marker without a shell block", pending.line)
			}
			st := docStep{line: i + 1}
			for _, f := range strings.Fields(m[1]) {
				switch {
				case f == "serve":
					st.serve = true
				case f == "stop":
					st.stop = true
				case f == "postgres":
					st.postgres = true
				case f == "in=checkout":
					st.checkout = true
				case strings.HasPrefix(f, "requires="):
					st.requires = strings.TrimPrefix(f, "requires=")
				default:
					t.Fatalf("operations.md:%d: unknown marker word %q", i+1, f)
				}
			}
			if st.stop {
				steps = append(steps, st)
			} else {
				pending = &st
			}
			continue
		}
		if strings.HasPrefix(l, "```") && l != "```" {
			if pending == nil {
				t.Fatalf("operations.md:%d: a code block of the first hour without a <!-- first-hour --> marker: it would not be tested", i+1)
			}
			var body []string
			for i++; i < len(lines) && lines[i] != "```"; i++ {
				body = append(body, lines[i])
			}
			pending.script = strings.Join(body, "\n")
			steps = append(steps, *pending)
			pending = nil
		}
	}
	if pending != nil {
		t.Fatalf("operations.md:%d: marker without a shell block", pending.line)
	}
	return steps
}

// TestFirstHourDoc runs the commands of "Your first hour"
// (docs/operations.md) in order, as an operator would: with the binary
// the section installs, in a scratch directory, on loopback ports.
func TestFirstHourDoc(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	steps := firstHourSteps(t)
	repo, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	work, bin := t.TempDir(), t.TempDir()
	ports := map[string]string{"8080": portOf(t, freeAddr(t)), "8081": portOf(t, freeAddr(t))}
	pgURL := ""
	if os.Getenv(testdb.PostgresEnv) != "" {
		// The doc's URL as an operator has it: without testdb's
		// pool_min_conns, which pg_dump refuses, so its replicas open
		// their pools whole.
		pgURL = storage.WithoutPoolParams(testdb.PostgresURL(t))
	}
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "CREATIVEOPS_") && !strings.HasPrefix(kv, "GOBIN=") && !strings.HasPrefix(kv, "PATH=") {
			env = append(env, kv)
		}
	}
	env = append(env, "GOBIN="+bin, "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"),
		"CREATIVEOPS_HTTP_ADDR=127.0.0.1:"+ports["8080"], "CREATIVEOPS_LOG_FORMAT=text")

	var servers []*exec.Cmd
	stop := func() {
		for _, s := range servers {
			_ = s.Process.Signal(syscall.SIGTERM)
			done := make(chan struct{})
			go func() { _ = s.Wait(); close(done) }()
			select {
			case <-done:
			case <-time.After(30 * time.Second):
				_ = s.Process.Kill()
				<-done
				t.Errorf("a server did not stop within 30 s of SIGTERM")
			}
		}
		servers = nil
	}
	t.Cleanup(stop)

	for _, st := range steps {
		if st.stop {
			stop()
			continue
		}
		where := fmt.Sprintf("operations.md:%d", st.line)
		if st.postgres && pgURL == "" {
			t.Logf("%s: skipped: %s is not set", where, testdb.PostgresEnv)
			continue
		}
		if st.requires != "" {
			if _, err := exec.LookPath(st.requires); err != nil {
				t.Logf("%s: skipped: %s is not installed", where, st.requires)
				continue
			}
		}
		script := strings.ReplaceAll(st.script, "--http-addr :", "--http-addr 127.0.0.1:")
		script = portRe.ReplaceAllStringFunc(script, func(p string) string { return ":" + ports[p[1:]] })
		stepEnv := env
		if st.postgres {
			stepEnv = append(slicesClone(env), "CREATIVEOPS_DATABASE_URL="+pgURL)
		}
		dir := work
		if st.checkout {
			dir = repo
		}
		if st.serve {
			var logs lockedBuffer
			cmd := exec.Command("bash", "-c", "exec "+script)
			cmd.Dir, cmd.Env, cmd.Stdout, cmd.Stderr = dir, stepEnv, &logs, &logs
			if err := cmd.Start(); err != nil {
				t.Fatalf("%s: %v", where, err)
			}
			servers = append(servers, cmd)
			port := ports["8080"]
			if m := addrRe.FindStringSubmatch(script); m != nil {
				port = m[1]
			}
			ready := func() bool {
				resp, err := http.Get("http://127.0.0.1:" + port + "/readyz")
				if err != nil {
					return false
				}
				resp.Body.Close()
				return resp.StatusCode == 200
			}
			for deadline := time.Now().Add(60 * time.Second); !ready(); time.Sleep(50 * time.Millisecond) {
				if time.Now().After(deadline) {
					t.Fatalf("%s: %q not ready after 60 s:\n%s", where, script, logs.String())
				}
			}
			continue
		}
		timeout := time.Minute
		if st.checkout {
			timeout = 5 * time.Minute // it compiles the service
		}
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		cmd := exec.CommandContext(ctx, "bash", "-e", "-c", script)
		var out bytes.Buffer
		cmd.Dir, cmd.Env, cmd.Stdout, cmd.Stderr = dir, stepEnv, &out, &out
		err := cmd.Run()
		cancel()
		if err != nil {
			t.Fatalf("%s: the block failed (%v):\n%s\noutput:\n%s", where, err, script, out.String())
		}
		t.Logf("%s:\n%s", where, out.String())
	}
}

func portOf(t *testing.T, addr string) string {
	t.Helper()
	_, port, ok := strings.Cut(addr, ":")
	if !ok {
		t.Fatalf("address %q has no port", addr)
	}
	return port
}

func slicesClone(s []string) []string { return append([]string(nil), s...) }
