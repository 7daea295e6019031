package main

import (
	"archive/tar"
	"bufio"
	"context"
	"debug/elf"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
)

// testCommit is what the image built here is stamped with.
const testCommit = "0123456789abcdef0123456789abcdef01234567"

// image is the image under test: CREATIVEOPS_TEST_IMAGE (what make image wrote,
// with CREATIVEOPS_TEST_IMAGE_COMMIT its commit), or one built here from the
// source tree.
func image(t *testing.T) (img v1.Image, commit string) {
	t.Helper()
	if path := os.Getenv("CREATIVEOPS_TEST_IMAGE"); path != "" {
		img, err := tarball.ImageFromPath(path, nil)
		if err != nil {
			t.Fatal(err)
		}
		return img, os.Getenv("CREATIVEOPS_TEST_IMAGE_COMMIT")
	}
	if _, err := os.Stat(caPath); err != nil {
		t.Skipf("no CA bundle at %s (Debian: ca-certificates) and no CREATIVEOPS_TEST_IMAGE", caPath)
	}
	bin := filepath.Join(t.TempDir(), "creativeops")
	goBuild := exec.Command("go", "build", "-trimpath", "-o", bin,
		"-ldflags", "-X github.com/creativeops/creativeops/internal/buildinfo.commit="+testCommit, "./cmd/creativeops")
	goBuild.Dir = filepath.Join("..", "..")
	goBuild.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux")
	if out, err := goBuild.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	img, err := build(options{binary: bin, ca: caPath, arch: runtimeArch(t, bin), version: "v0.0.0-test", commit: testCommit, created: time.Unix(0, 0).UTC()})
	if err != nil {
		t.Fatal(err)
	}
	return img, testCommit
}

func runtimeArch(t *testing.T, bin string) string {
	f, err := elf.Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	switch f.Machine {
	case elf.EM_X86_64:
		return "amd64"
	case elf.EM_AARCH64:
		return "arm64"
	}
	t.Fatalf("binary for %v", f.Machine)
	return ""
}

func TestImage(t *testing.T) {
	img, commit := image(t)
	cf, err := img.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	cfg := cf.Config
	if cf.OS != "linux" || cf.Architecture == "" {
		t.Errorf("platform %s/%s", cf.OS, cf.Architecture)
	}
	if !slices.Equal(cfg.Entrypoint, []string{binaryPath}) || !slices.Equal(cfg.Cmd, []string{"serve"}) {
		t.Errorf("entrypoint %q, cmd %q; want %q serve", cfg.Entrypoint, cfg.Cmd, binaryPath)
	}
	if cfg.User != "65532:65532" {
		t.Errorf("user %q; want 65532:65532 (non-root)", cfg.User)
	}
	if _, ok := cfg.ExposedPorts["8080/tcp"]; !ok || len(cfg.ExposedPorts) != 1 {
		t.Errorf("exposed ports %v; want 8080/tcp", cfg.ExposedPorts)
	}
	if _, ok := cfg.Volumes["/data"]; !ok {
		t.Errorf("volumes %v; want /data", cfg.Volumes)
	}
	for _, want := range []string{"CREATIVEOPS_HTTP_ADDR=0.0.0.0:8080", "CREATIVEOPS_DATA_DIR=/data"} {
		if !slices.Contains(cfg.Env, want) {
			t.Errorf("environment %q lacks %s", cfg.Env, want)
		}
	}
	for _, label := range []string{"version", "revision", "source", "created", "title"} {
		if cfg.Labels["org.opencontainers.image."+label] == "" {
			t.Errorf("no org.opencontainers.image.%s label in %v", label, cfg.Labels)
		}
	}
	if commit != "" && cfg.Labels["org.opencontainers.image.revision"] != commit {
		t.Errorf("revision label %q; want %q", cfg.Labels["org.opencontainers.image.revision"], commit)
	}

	root := unpack(t, img)
	bin := filepath.Join(root, binaryPath)
	// Nothing in the image to lean on: the binary must be static.
	f, err := elf.Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			t.Error("the binary needs a dynamic loader, which the image does not have (build with CGO_ENABLED=0)")
		}
	}
	f.Close()
	for _, absent := range []string{"bin/sh", "lib", "usr/lib"} {
		if _, err := os.Lstat(filepath.Join(root, absent)); err == nil {
			t.Errorf("the image holds /%s", absent)
		}
	}

	// The version the binary reports is the one the labels carry.
	out, err := exec.Command(bin, "version").Output()
	if err != nil {
		t.Fatalf("%s version: %v", binaryPath, err)
	}
	if commit != "" && !strings.Contains(string(out), "commit "+commit) {
		t.Errorf("version says %q; want commit %s", out, commit)
	}

	serveFromRootfs(t, root, cfg)
}

// serveFromRootfs runs the image's entrypoint as the image configures it,
// but for the listening address and the data directory, and waits for
// /readyz to answer 200.
func serveFromRootfs(t *testing.T, root string, cfg v1.Config) {
	env := []string{}
	for _, kv := range cfg.Env {
		switch name, value, _ := strings.Cut(kv, "="); name {
		case "CREATIVEOPS_HTTP_ADDR":
			env = append(env, name+"=127.0.0.1:0")
		case "CREATIVEOPS_DATA_DIR":
			env = append(env, name+"="+t.TempDir())
		case "SSL_CERT_FILE":
			env = append(env, name+"="+filepath.Join(root, value))
		default:
			env = append(env, kv)
		}
	}
	// A misspelt variable is reported, not ignored.
	env = append(env, "CREATIVEOPS_LOGLEVEL=debug")
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(root, cfg.Entrypoint[0]), cfg.Cmd...)
	cmd.Env = env
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
	cmd.WaitDelay = 30 * time.Second
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		cancel()
		_ = cmd.Wait()
	}()
	addr, warned := "", false
	lines := bufio.NewScanner(stderr)
	for addr == "" && lines.Scan() {
		var line struct{ Msg, Addr, Variable string }
		if json.Unmarshal(lines.Bytes(), &line) != nil {
			continue // the first-start banner is text
		}
		switch {
		case line.Msg == "serving REST and gRPC":
			addr = line.Addr
		case line.Variable == "CREATIVEOPS_LOGLEVEL" && strings.Contains(line.Msg, "CREATIVEOPS_LOG_LEVEL"):
			warned = true
		}
	}
	go io.Copy(io.Discard, stderr)
	if addr == "" {
		t.Fatalf("serve never listened: %v", errors.Join(lines.Err(), cmd.Wait()))
	}
	if !warned {
		t.Error("no warning about CREATIVEOPS_LOGLEVEL")
	}
	for {
		resp, err := http.Get("http://" + addr + "/readyz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
		select {
		case <-ctx.Done():
			t.Fatalf("/readyz never answered 200 (last: %v %v)", resp, err)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// unpack writes the image's filesystem under a temporary directory,
// keeping modes (ownership needs root, and is checked in the tar).
func unpack(t *testing.T, img v1.Image) string {
	root := t.TempDir()
	rc := mutate.Extract(img)
	defer rc.Close()
	tr := tar.NewReader(rc)
	seen := map[string]*tar.Header{}
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		name := strings.TrimSuffix(filepath.Clean(h.Name), "/")
		if !filepath.IsLocal(name) {
			t.Fatalf("entry %q leaves the root", h.Name)
		}
		seen[name] = h
		path := filepath.Join(root, name)
		switch h.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(path, 0o755); err != nil {
				t.Fatal(err)
			}
		case tar.TypeReg:
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, os.FileMode(h.Mode).Perm())
			if err != nil {
				t.Fatal(err)
			}
			if _, err := io.Copy(f, tr); err != nil {
				t.Fatal(err)
			}
			f.Close()
		default:
			t.Errorf("unexpected entry %q of type %c", h.Name, h.Typeflag)
		}
	}
	if h := seen["data"]; h == nil || h.Uid != 65532 || h.Typeflag != tar.TypeDir {
		t.Errorf("/data: %+v; want a directory owned by 65532", h)
	}
	if h := seen[strings.TrimPrefix(caPath, "/")]; h == nil || h.Size == 0 {
		t.Errorf("no CA certificates at %s", caPath)
	}
	if h := seen[strings.TrimPrefix(binaryPath, "/")]; h == nil || h.Mode&0o111 == 0 || h.Uid != 0 {
		t.Errorf("%s: %+v; want an executable owned by root (the service cannot rewrite itself)", binaryPath, h)
	}
	return root
}
