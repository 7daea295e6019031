// Package docs holds the test that runs the documentation's runnable
// samples (make test-docs): see internal/docsamples and the section
// "Runnable samples" of docs/architecture.md.
package docs

import (
	"bytes"
	"context"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/creativeops/creativeops/internal/docsamples"
)

// TestSamples starts a server for each document with runnable samples, as a
// reader's first start would (a fresh ./data, the key in
// data/bootstrap-key), and runs its samples against it.
func TestSamples(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and starts the server")
	}
	files, err := filepath.Glob("*.md")
	if err != nil {
		t.Fatal(err)
	}
	files = append([]string{"../README.md"}, files...)
	docs := map[string][]docsamples.Sample{}
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		name := strings.TrimPrefix(filepath.ToSlash(filepath.Join("docs", f)), "docs/../")
		samples, err := docsamples.Parse(name, src)
		if err != nil {
			t.Fatal(err)
		}
		if len(samples) > 0 {
			docs[f] = samples
		}
	}
	if len(docs) == 0 {
		t.Fatal("no runnable samples found: the markers are gone")
	}

	// The samples call the creativeops command by name: bin goes first on
	// their PATH. CREATIVEOPS_TEST_BINARY names one already built (make
	// test-docs), as for the clients' tests.
	bin := t.TempDir()
	if prebuilt := os.Getenv("CREATIVEOPS_TEST_BINARY"); prebuilt != "" {
		abs, err := filepath.Abs(prebuilt)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(abs, filepath.Join(bin, "creativeops")); err != nil {
			t.Fatal(err)
		}
	} else {
		build := exec.Command("go", "build", "-o", filepath.Join(bin, "creativeops"), "../cmd/creativeops")
		if out, err := build.CombinedOutput(); err != nil {
			t.Fatalf("go build: %v\n%s", err, out)
		}
	}
	tsClient, _ := filepath.Abs("../clients/typescript")
	pyClient, _ := filepath.Abs("../clients/python")
	for _, f := range files {
		samples := docs[f]
		if samples == nil {
			continue
		}
		t.Run(samples[0].File, func(t *testing.T) {
			// Each language's samples have a server of their own, as each
			// would have a reader of its own: the TypeScript and the Python
			// quick starts both create Nova Reyes.
			var langs []string
			byLang := map[string][]docsamples.Sample{}
			for _, s := range samples {
				if byLang[s.Lang] == nil {
					langs = append(langs, s.Lang)
				}
				byLang[s.Lang] = append(byLang[s.Lang], s)
			}
			for _, lang := range langs {
				t.Run(lang, func(t *testing.T) {
					if reason := runtimeMissing(lang, tsClient); reason != "" {
						if os.Getenv("CI") != "" {
							t.Fatalf("%s samples: %s (CI has every runtime: .ci/run installs them)", lang, reason)
						}
						t.Skipf("%s samples: %s", lang, reason)
					}
					dir := t.TempDir()
					url, key := serve(t, filepath.Join(bin, "creativeops"), dir)
					env := docsamples.Env{
						Dir: dir, Path: bin, TypeScriptClient: tsClient, PythonClient: pyClient,
						Values: docsamples.Values{URL: url, Key: key},
					}
					for _, r := range docsamples.RunDocument(context.Background(), env, byLang[lang]) {
						switch {
						case r.Err != nil:
							t.Fatal(r.Failure())
						case r.Skipped != "":
							t.Fatalf("%s: %s", r.Sample, r.Skipped)
						case testing.Verbose():
							t.Logf("ok %s\n%s", r.Sample, r.Output)
						}
					}
				})
			}
		})
	}
}

// runtimeMissing says why a language's samples cannot run here.
func runtimeMissing(lang, tsClient string) string {
	need := map[string][]string{"sh": {"bash", "curl", "jq", "openssl"}, "python": {"python3"}, "js": {"node"}, "ts": {"node"}}[lang]
	for _, c := range need {
		if _, err := exec.LookPath(c); err != nil {
			return c + " is not installed"
		}
	}
	if lang == "js" || lang == "ts" {
		if _, err := os.Stat(filepath.Join(tsClient, "dist", "esm", "index.js")); err != nil {
			return "the TypeScript client is not built (make test-docs builds it)"
		}
	}
	return ""
}

var keyPattern = regexp.MustCompile(`co_live_[0-9A-Za-z]+`)

// serve runs "creativeops serve" in dir on a free port, with the defaults
// a reader's first start has, and returns its URL and first key.
func serve(t *testing.T, bin, dir string) (url, key string) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	var logs bytes.Buffer
	cmd := exec.Command(bin, "serve", "--http-addr", addr)
	cmd.Dir = dir
	cmd.Env = os.Environ()
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		select {
		case <-done:
		case <-time.After(15 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
		if t.Failed() {
			t.Logf("server log:\n%s", logs.String())
		}
	})
	url = "http://" + addr
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if resp, err := http.Get(url + "/readyz"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				break
			}
		}
		select {
		case <-done:
			t.Fatalf("server exited:\n%s", logs.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("server not ready after 60 s:\n%s", logs.String())
		}
	}
	raw, err := os.ReadFile(filepath.Join(dir, "data", "bootstrap-key"))
	if err != nil {
		t.Fatalf("first key: %v", err)
	}
	key = keyPattern.FindString(string(raw))
	if key == "" {
		t.Fatalf("no key in data/bootstrap-key: %q", raw)
	}
	return url, key
}
