package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/mod/sumdb/tlog"

	"github.com/creativeops/creativeops/internal/testdb"
	"github.com/creativeops/creativeops/internal/testserver"
	"github.com/creativeops/creativeops/ipreg"
)

// checkpointSize is the tree size of the signed note in file.
func checkpointSize(t *testing.T, file, key string) int64 {
	t.Helper()
	note, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	_, size, _, err := ipreg.OpenCheckpoint(note, key)
	if err != nil {
		t.Fatal(err)
	}
	return size
}

// TestVerifyMonitorFollowsTheLog follows the service's log through its
// public tiles, without a key, from its empty start across several new
// checkpoints (one crossing a tile boundary), once at a time and then
// running, then across a key rotation: the retired log stays followable at
// its own base URL, and the pinned key refuses the new log's checkpoints.
func TestVerifyMonitorFollowsTheLog(t *testing.T) {
	url := testdb.SQLiteURL(t)
	s := testserver.Start(t, testserver.Options{DatabaseURL: url})
	creator := s.Do(t, "POST", "/v1/creators", s.AdminKey, map[string]any{"name": "M", "email": "m@example.com", "vertical": "music"}).JSON["id"].(string)
	registered := 0
	register := func(s *testserver.Server, n int) {
		t.Helper()
		var wg sync.WaitGroup
		var failed atomic.Value
		first := registered
		for w := range 8 {
			wg.Go(func() {
				for i := first + w; i < first+n; i += 8 {
					sum := sha256.Sum256(fmt.Appendf(nil, "work %d", i))
					r := s.Do(t, "POST", "/v1/ip/register", s.AdminKey, map[string]any{"creator_id": creator, "title": fmt.Sprint("Work ", i), "type": "song", "content_hash": hex.EncodeToString(sum[:])})
					if r.Status != 201 {
						failed.Store(fmt.Sprintf("register: %d %s", r.Status, r.Body))
						return
					}
				}
			})
		}
		wg.Wait()
		if f := failed.Load(); f != nil {
			t.Fatal(f)
		}
		registered += n
	}
	keys := s.Do(t, "GET", "/v1/ip/keys", s.AdminKey, nil).JSON["log_keys"].([]any)[0].(map[string]any)
	logKey, origin := keys["verifier_key"].(string), keys["origin"].(string)
	byID := s.URL + "/v1/ip/logs/" + ipreg.LogID(origin) + "/"
	file := filepath.Join(t.TempDir(), "log.checkpoint")
	monitor := func(base string, extra ...string) (string, error) {
		var out, errOut bytes.Buffer
		args := append([]string{"verify", "--monitor", base, "--log-key", logKey, "--checkpoint", file}, extra...)
		err := run(t.Context(), args, &out, &errOut)
		t.Logf("creativeops %s:\n%s%s", strings.Join(args, " "), out.String(), errOut.String())
		return out.String(), err
	}

	// Before any registration: the empty tree.
	register(s, 0)
	if out, err := monitor(byID, "--once"); err != nil || !strings.Contains(out, "size 0") {
		t.Fatalf("empty log: %v", err)
	}
	for _, n := range []int{3, 260, 5} {
		before := registered
		register(s, n)
		out, err := monitor(byID, "--once")
		if err != nil {
			t.Fatalf("after %d more: %v", n, err)
		}
		if !strings.Contains(out, fmt.Sprintf("size %d, root", registered)) || !strings.Contains(out, fmt.Sprintf("consistent with size %d", before)) && before > 0 {
			t.Fatalf("after %d more: %q", n, out)
		}
		if got := checkpointSize(t, file, logKey); got != int64(registered) {
			t.Fatalf("saved checkpoint of size %d, the log has %d", got, registered)
		}
	}
	// The current log's base, with the same saved checkpoint: unchanged.
	if out, err := monitor(s.URL+"/v1/ip/log", "--once"); err != nil || !strings.Contains(out, "unchanged") {
		t.Fatalf("current log's base: %v %q", err, out)
	}

	// Running: it follows the log until interrupted, then exits 0.
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	var out bytes.Buffer
	go func() {
		done <- run(ctx, []string{"verify", "--monitor", byID, "--log-key", logKey, "--checkpoint", file, "--interval", "20ms"}, &out, &bytes.Buffer{})
	}()
	register(s, 2)
	for deadline := time.Now().Add(30 * time.Second); checkpointSize(t, file, logKey) != int64(registered); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the running monitor never saved the checkpoint of size %d", registered)
		}
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("interrupted monitor: %v", err)
	}

	// A key rotation starts a new log: the retired one is still served at
	// its base URL, and the current log's base now shows a log the pinned
	// key does not sign.
	if err := s.Shutdown(t.Context()); err != nil {
		t.Fatal(err)
	}
	if err := run(t.Context(), []string{"ip", "rotate-keys", "--database-url", url, "--master-key-file", testserver.MasterKeyFile(t)}, &bytes.Buffer{}, &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	s2 := testserver.Start(t, testserver.Options{DatabaseURL: url})
	s2.AdminKey = s.AdminKey
	register(s2, 1)
	retired := s2.URL + "/v1/ip/logs/" + ipreg.LogID(origin) + "/"
	if out, err := monitor(retired, "--once"); err != nil || !strings.Contains(out, "unchanged") {
		t.Fatalf("retired log by id: %v %q", err, out)
	}
	if _, err := monitor(s2.URL+"/v1/ip/log/", "--once"); err == nil || !strings.Contains(err.Error(), "rotated") {
		t.Fatalf("the new log under the old key: %v", err)
	}
}

// memLog is a log built in the test with the registry's keys and hashing:
// the operator's own tools could build another history just as well.
type memLog struct {
	keys   *ipreg.Keys
	hashes []tlog.Hash
	size   int64
}

func (l *memLog) ReadHashes(indexes []int64) ([]tlog.Hash, error) {
	out := make([]tlog.Hash, len(indexes))
	for i, idx := range indexes {
		if idx < 0 || idx >= int64(len(l.hashes)) {
			return nil, fmt.Errorf("no hash %d", idx)
		}
		out[i] = l.hashes[idx]
	}
	return out, nil
}

func newMemLog(t *testing.T, keys *ipreg.Keys, entries ...string) *memLog {
	t.Helper()
	l := &memLog{keys: keys}
	l.add(t, entries...)
	return l
}

func (l *memLog) add(t *testing.T, entries ...string) {
	t.Helper()
	var data [][]byte
	for _, e := range entries {
		data = append(data, []byte(e))
	}
	hs, err := ipreg.AppendHashes(l.size, data, l)
	if err != nil {
		t.Fatal(err)
	}
	l.hashes = append(l.hashes, hs...)
	l.size += int64(len(entries))
}

func (l *memLog) checkpoint(t *testing.T) []byte {
	t.Helper()
	root, err := ipreg.TreeHash(l.size, l)
	if err != nil {
		t.Fatal(err)
	}
	note, err := ipreg.SignCheckpoint(l.keys, l.size, root)
	if err != nil {
		t.Fatal(err)
	}
	return note
}

// tilesServer serves a memLog as C2SP tlog-tiles; which log it serves can
// change, as an operator may show anyone the history it likes.
type tilesServer struct {
	t       *testing.T
	mu      sync.Mutex
	log     *memLog
	corrupt bool // flip a bit of every tile
}

func (s *tilesServer) serve(l *memLog, corrupt bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.log, s.corrupt = l, corrupt
}

func (s *tilesServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := strings.TrimPrefix(r.URL.Path, "/log/")
	if p == "checkpoint" {
		w.Write(s.log.checkpoint(s.t))
		return
	}
	tile, err := ipreg.ParseTilePath(p)
	if err != nil || !ipreg.TileInTree(tile, s.log.size) {
		http.NotFound(w, r)
		return
	}
	data, err := tlog.ReadTileData(tile, s.log)
	if err != nil {
		http.Error(w, err.Error(), 500)
		return
	}
	if s.corrupt {
		data[0] ^= 1
	}
	w.Write(data)
}

func entries(prefix string, from, to int) []string {
	var out []string
	for i := from; i < to; i++ {
		out = append(out, fmt.Sprintf("%s %d", prefix, i))
	}
	return out
}

// TestVerifyMonitorFork shows the monitor a second log with the same
// origin and key as the one it follows but other entries: whether it is
// longer, as long, or a log whose first entry differs, the monitor says
// FORK, exits non-zero, keeps the checkpoint it trusted and saves the
// conflicting one. A log whose tiles do not match its own checkpoint, or
// signed by another key, fails too, without being called a fork.
func TestVerifyMonitorFork(t *testing.T) {
	keys, err := ipreg.GenerateKeys("creativeops.dev/ip-log/01forktest", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	ts := &tilesServer{t: t}
	srv := httptest.NewServer(ts)
	t.Cleanup(srv.Close)

	honest := newMemLog(t, keys, entries("work", 0, 300)...)
	ts.serve(honest, false)
	dir := t.TempDir()
	file := filepath.Join(dir, "log.checkpoint")
	monitor := func(key string) (string, string, error) {
		var out, errOut bytes.Buffer
		err := run(t.Context(), []string{"verify", "--monitor", srv.URL + "/log/", "--log-key", key, "--checkpoint", file, "--once"}, &out, &errOut)
		exitCode(err, &errOut)
		t.Logf("monitor:\n%s%s", out.String(), errOut.String())
		return out.String(), errOut.String(), err
	}
	if _, _, err := monitor(keys.VerifierKey()); err != nil {
		t.Fatal(err)
	}
	honest.add(t, entries("work", 300, 310)...)
	if out, _, err := monitor(keys.VerifierKey()); err != nil || !strings.Contains(out, "consistent with size 300") {
		t.Fatalf("honest growth: %v", err)
	}
	trusted, _ := os.ReadFile(file)

	for _, c := range []struct {
		name string
		log  *memLog
	}{
		{"longer, rewritten after entry 100", newMemLog(t, keys, append(entries("work", 0, 100), entries("forged", 100, 320)...)...)},
		{"as long, last entry rewritten", newMemLog(t, keys, append(entries("work", 0, 309), "forged")...)},
		{"longer, first entry rewritten", newMemLog(t, keys, append([]string{"forged"}, entries("work", 1, 400)...)...)},
	} {
		t.Run(c.name, func(t *testing.T) {
			os.Remove(file + ".fork")
			ts.serve(c.log, false)
			out, stderr, err := monitor(keys.VerifierKey())
			if err == nil {
				t.Fatal("the monitor accepted a forked log")
			}
			if !strings.Contains(err.Error(), "FORK") || !strings.Contains(out, "FORK") || !strings.Contains(stderr, "FORK") {
				t.Fatalf("fork not named: %v\n%s", err, out)
			}
			if code := exitCode(err, &bytes.Buffer{}); code == 0 {
				t.Fatal("exit code 0 on a fork")
			}
			if kept, _ := os.ReadFile(file); !bytes.Equal(kept, trusted) {
				t.Fatal("the trusted checkpoint was replaced by the forked one")
			}
			if evidence, err := os.ReadFile(file + ".fork"); err != nil || !bytes.Equal(evidence, c.log.checkpoint(t)) {
				t.Fatalf("the conflicting checkpoint is not saved: %v", err)
			}
		})
	}

	// The honest log grows, but its tiles do not hash to its checkpoint.
	honest.add(t, entries("work", 310, 315)...)
	ts.serve(honest, true)
	if _, _, err := monitor(keys.VerifierKey()); err == nil || strings.Contains(err.Error(), "FORK") || !strings.Contains(err.Error(), "tiles do not match") {
		t.Fatalf("tiles not matching the checkpoint: %v", err)
	}
	ts.serve(honest, false)
	other, err := ipreg.GenerateKeys("creativeops.dev/ip-log/01other", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := monitor(other.VerifierKey()); err == nil || !strings.Contains(err.Error(), "does not verify with --log-key") {
		t.Fatalf("another key: %v", err)
	}
	if _, _, err := monitor(keys.VerifierKey()); err != nil {
		t.Fatalf("the honest log again: %v", err)
	}
}

// TestVerifyMonitorUsage: help, and command lines the monitor cannot act
// on (exit 2, the flag named).
func TestVerifyMonitorUsage(t *testing.T) {
	for _, c := range []struct {
		args []string
		code int
		out  string
		err  string
	}{
		{[]string{"verify", "--monitor", "http://x/", "-h"}, 0, "-interval", ""},
		{[]string{"verify", "-h"}, 0, "-monitor", ""},
		{[]string{"verify", "--monitor", "http://x/"}, 2, "", "needs --log-key"},
		{[]string{"verify", "--monitor=ftp://x/", "--log-key", "k"}, 2, "", "base URL"},
		{[]string{"verify", "--monitor", "", "--log-key", "k"}, 2, "", "base URL"},
		{[]string{"verify", "--monitor", "http://x/", "--log-key", "k", "--interval", "0s"}, 2, "", "--interval"},
		{[]string{"verify", "--monitor", "http://x/", "--log-key", "k", "extra"}, 2, "", "unexpected argument"},
	} {
		code, out, errOut := cli(t, c.args...)
		if code != c.code || !strings.Contains(out, c.out) || !strings.Contains(errOut, c.err) {
			t.Errorf("creativeops %s: exit %d, stdout %q, stderr %q; want exit %d, %q in stdout, %q in stderr",
				strings.Join(c.args, " "), code, out, errOut, c.code, c.out, c.err)
		}
	}
}
