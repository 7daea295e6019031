// Package testwitness runs litewitness (filippo.io/torchwood/cmd/litewitness),
// the reference c2sp.org/tlog-witness, for tests: built once with the Go
// toolchain into the user cache (or taken from $CREATIVEOPS_LITEWITNESS,
// which CI sets after building it), holding its key in an ssh-agent of its
// own, with a log registered in its SQLite tables as witnessctl's add-log
// and add-key would.
package testwitness

import (
	"bytes"
	"crypto/ed25519"
	"crypto/sha256"
	"database/sql"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"filippo.io/torchwood"
	_ "modernc.org/sqlite" // litewitness's database
)

// Version is the litewitness the tests run.
const Version = "v0.10.0"

// EnvBinary names a litewitness binary to use instead of building one.
const EnvBinary = "CREATIVEOPS_LITEWITNESS"

// Litewitness is a running litewitness.
type Litewitness struct {
	// URL is its submission prefix (POST URL/add-checkpoint).
	URL string
	// VerifierKey is its cosignature/v1 verifier key.
	VerifierKey string
	// Name is its name.
	Name string
	db   string
	out  *syncBuffer
}

var buildOnce struct {
	sync.Once
	path string
	err  error
}

// Binary returns the path of a litewitness binary: $CREATIVEOPS_LITEWITNESS,
// or one built with `go install filippo.io/torchwood/cmd/litewitness@v0.10.0`
// into the user cache directory. The test is skipped, saying why, only if
// that build fails without $CREATIVEOPS_LITEWITNESS set (no module proxy
// offline); CI sets it, so there the test runs or fails.
func Binary(t testing.TB) string {
	t.Helper()
	if p := os.Getenv(EnvBinary); p != "" {
		if _, err := os.Stat(p); err != nil {
			t.Fatalf("%s=%s: %v", EnvBinary, p, err)
		}
		return p
	}
	buildOnce.Do(func() { buildOnce.path, buildOnce.err = build() })
	if buildOnce.err != nil {
		t.Skipf("litewitness %s could not be built here (set %s to a litewitness binary to run this test): %v", Version, EnvBinary, buildOnce.err)
	}
	return buildOnce.path
}

func build() (string, error) {
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	dir := filepath.Join(cache, "creativeops-test", "litewitness-"+Version)
	bin := filepath.Join(dir, "litewitness")
	if _, err := os.Stat(bin); err == nil {
		return bin, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	tmp, err := os.MkdirTemp(dir, "build-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	goBin := "go"
	if root := runtime.GOROOT(); root != "" { //nolint:staticcheck // the toolchain that built the test
		goBin = filepath.Join(root, "bin", "go")
	}
	cmd := exec.Command(goBin, "install", "filippo.io/torchwood/cmd/litewitness@"+Version)
	cmd.Env = append(os.Environ(), "GOBIN="+tmp, "GOFLAGS=-buildvcs=false", "GOTOOLCHAIN=local")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go install filippo.io/torchwood/cmd/litewitness@%s: %v\n%s", Version, err, out)
	}
	// Renamed into place, so tests building it side by side never run a
	// half-written binary.
	if err := os.Rename(filepath.Join(tmp, "litewitness"), bin); err != nil {
		return "", err
	}
	return bin, nil
}

// Start runs a litewitness named name until the test ends. ssh-keygen,
// ssh-agent and ssh-add (Debian's openssh-client) must be installed.
func Start(t testing.TB, name string) *Litewitness {
	t.Helper()
	bin := Binary(t)
	for _, tool := range []string{"ssh-keygen", "ssh-agent", "ssh-add"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("litewitness needs %s (openssh-client): %v", tool, err)
		}
	}
	dir := t.TempDir()
	// A short socket path: Unix socket paths are limited to ~100 bytes.
	sockDir, err := os.MkdirTemp("", "lw")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(sockDir) })
	sock := filepath.Join(sockDir, "agent")
	key := filepath.Join(dir, "witness_key")
	run(t, nil, "ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "litewitness test", "-f", key)
	agent := exec.Command("ssh-agent", "-D", "-a", sock)
	if err := agent.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = agent.Process.Kill(); _ = agent.Wait() })
	waitFor(t, "ssh-agent socket", func() error { _, err := os.Stat(sock); return err })
	run(t, []string{"SSH_AUTH_SOCK=" + sock}, "ssh-add", "-q", key)
	pub, err := readSSHEd25519(key + ".pub")
	if err != nil {
		t.Fatal(err)
	}
	v, err := torchwood.NewCosignatureVerifierFromKey(name, pub)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(pub)

	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	w := &Litewitness{URL: "http://" + addr, VerifierKey: v.String(), Name: name, db: filepath.Join(dir, "litewitness.db"), out: &syncBuffer{}}
	cmd := exec.Command(bin, "-db", w.db, "-name", name, "-key", hex.EncodeToString(sum[:]), "-ssh-agent", sock, "-listen", addr)
	cmd.Stdout, cmd.Stderr = w.out, w.out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
		}
		if t.Failed() {
			t.Logf("litewitness output:\n%s", w.out.String())
		}
	})
	waitFor(t, "litewitness at "+w.URL, func() error {
		select {
		case <-exited:
			t.Fatalf("litewitness exited:\n%s", w.out.String())
		default:
		}
		resp, err := http.Get(w.URL + "/")
		if err != nil {
			return err
		}
		resp.Body.Close()
		return nil
	})
	return w
}

// AddLog lets the witness cosign the log of origin signed by logKey (its
// signed-note verifier key), starting from the empty tree: what witnessctl
// add-log and add-key write.
func (w *Litewitness) AddLog(t testing.TB, origin, logKey string) {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+w.db+"?_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	empty := sha256.Sum256(nil)
	if _, err := db.Exec("INSERT INTO log (origin, tree_size, tree_hash) VALUES (?, 0, ?)", origin, base64.StdEncoding.EncodeToString(empty[:])); err != nil {
		t.Fatalf("litewitness add-log: %v", err)
	}
	if _, err := db.Exec("INSERT INTO key (origin, key) VALUES (?, ?)", origin, logKey); err != nil {
		t.Fatalf("litewitness add-key: %v", err)
	}
}

// TreeSize is the size of the latest tree of origin the witness cosigned.
func (w *Litewitness) TreeSize(t testing.TB, origin string) int64 {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+w.db+"?_pragma=busy_timeout(10000)&mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int64
	if err := db.QueryRow("SELECT tree_size FROM log WHERE origin = ?", origin).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// Output is what litewitness logged so far.
func (w *Litewitness) Output() string { return w.out.String() }

func run(t testing.TB, env []string, name string, args ...string) {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Env = append(os.Environ(), env...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
}

func waitFor(t testing.TB, what string, ready func() error) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		err := ready()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("waiting for %s: %v", what, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// readSSHEd25519 reads an OpenSSH ssh-ed25519 public key file.
func readSSHEd25519(path string) (ed25519.PublicKey, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	fields := strings.Fields(string(data))
	if len(fields) < 2 || fields[0] != "ssh-ed25519" {
		return nil, fmt.Errorf("%s: not an ssh-ed25519 public key", path)
	}
	blob, err := base64.StdEncoding.DecodeString(fields[1])
	if err != nil {
		return nil, err
	}
	var parts [][]byte
	for len(blob) >= 4 {
		n := binary.BigEndian.Uint32(blob)
		if uint64(len(blob)-4) < uint64(n) {
			break
		}
		parts = append(parts, blob[4:4+n])
		blob = blob[4+n:]
	}
	if len(parts) != 2 || string(parts[0]) != "ssh-ed25519" || len(parts[1]) != ed25519.PublicKeySize || len(blob) != 0 {
		return nil, errors.New(path + ": malformed ssh-ed25519 public key")
	}
	return ed25519.PublicKey(parts[1]), nil
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}
