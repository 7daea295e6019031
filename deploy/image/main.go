// Command image writes the creativeops container image as a tarball that
// docker load, podman load and crane push take, without a container daemon
// or a base image from a registry: one layer holding the static binary,
// the CA certificates, a non-root user and the /data volume.
//
//	go run . -binary ../../bin/creativeops-linux-amd64 -out ../../bin/creativeops-image.tar \
//	  -version v1.2.0 -commit $(git rev-parse HEAD)
package main

import (
	"archive/tar"
	"bytes"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"strconv"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// The image's layout. The user is distroless's "nonroot": no name on the
// host to collide with, and not root inside the container.
const (
	binaryPath = "/usr/local/bin/creativeops"
	caPath     = "/etc/ssl/certs/ca-certificates.crt"
	dataDir    = "/data"
	uid        = 65532
	port       = "8080"
	source     = "https://github.com/creativeops/creativeops"
)

// options are what varies between builds of the image.
type options struct {
	binary  string // the creativeops binary: static, for linux/arch
	ca      string // the CA bundle copied to caPath
	arch    string
	version string
	commit  string
	created time.Time
}

func main() {
	var o options
	out := flag.String("out", "bin/creativeops-image.tar", "image tarball to write")
	tag := flag.String("tag", "creativeops:latest", "the name docker load gives the image")
	flag.StringVar(&o.binary, "binary", "", "static creativeops binary for linux/-arch (CGO_ENABLED=0)")
	flag.StringVar(&o.ca, "ca", caPath, "CA certificate bundle (Debian: package ca-certificates)")
	flag.StringVar(&o.arch, "arch", "amd64", "the binary's GOARCH")
	flag.StringVar(&o.version, "version", "", "version for the image's labels (empty: devel)")
	flag.StringVar(&o.commit, "commit", "", "VCS commit for the image's labels")
	flag.Parse()
	// A fixed creation time makes the image reproducible: the same binary
	// gives the same digest (https://reproducible-builds.org/specs/source-date-epoch/).
	if s := os.Getenv("SOURCE_DATE_EPOCH"); s != "" {
		sec, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			log.Fatalf("SOURCE_DATE_EPOCH=%q: want seconds since 1970", s)
		}
		o.created = time.Unix(sec, 0).UTC()
	}
	if o.binary == "" {
		log.Fatal("-binary is required")
	}
	ref, err := name.NewTag(*tag)
	if err != nil {
		log.Fatalf("-tag: %v", err)
	}
	img, err := build(o)
	if err != nil {
		log.Fatal(err)
	}
	if err := tarball.WriteToFile(*out, ref, img); err != nil {
		log.Fatal(err)
	}
	digest, err := img.Digest()
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%s: %s %s\n", *out, ref, digest)
}

// build assembles the image.
func build(o options) (v1.Image, error) {
	bin, err := os.ReadFile(o.binary)
	if err != nil {
		return nil, err
	}
	ca, err := os.ReadFile(o.ca)
	if err != nil {
		return nil, fmt.Errorf("CA certificates: %w", err)
	}
	fs, err := rootfs(bin, ca, o.created)
	if err != nil {
		return nil, err
	}
	layer, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(fs)), nil
	}, tarball.WithMediaType(types.OCILayer))
	if err != nil {
		return nil, err
	}
	img := mutate.MediaType(empty.Image, types.OCIManifestSchema1)
	img = mutate.ConfigMediaType(img, types.OCIConfigJSON)
	img, err = mutate.AppendLayers(img, layer)
	if err != nil {
		return nil, err
	}
	cfg, err := img.ConfigFile()
	if err != nil {
		return nil, err
	}
	cfg = cfg.DeepCopy()
	version := o.version
	if version == "" {
		version = "devel"
	}
	cfg.OS, cfg.Architecture = "linux", o.arch
	cfg.Created = v1.Time{Time: o.created}
	cfg.Config = v1.Config{
		Entrypoint: []string{binaryPath},
		Cmd:        []string{"serve"},
		// serve's defaults for a container: every interface (the
		// port is reached through the container's network, never its
		// loopback), state on the volume, JSON logs for the collector.
		Env: []string{
			"CREATIVEOPS_HTTP_ADDR=0.0.0.0:" + port,
			"CREATIVEOPS_DATA_DIR=" + dataDir,
			"CREATIVEOPS_LOG_FORMAT=json",
			"SSL_CERT_FILE=" + caPath,
		},
		User:         strconv.Itoa(uid) + ":" + strconv.Itoa(uid),
		WorkingDir:   dataDir,
		ExposedPorts: map[string]struct{}{port + "/tcp": {}},
		Volumes:      map[string]struct{}{dataDir: {}},
		// serve drains in-flight requests on SIGTERM, which is what a
		// container runtime sends first.
		StopSignal: "SIGTERM",
		Labels: map[string]string{
			"org.opencontainers.image.title":       "creativeops",
			"org.opencontainers.image.description": "Workflow engine, creator accounts, IP registry, webhooks and analytics",
			"org.opencontainers.image.version":     version,
			"org.opencontainers.image.revision":    o.commit,
			"org.opencontainers.image.source":      source,
			"org.opencontainers.image.url":         source,
			"org.opencontainers.image.created":     o.created.Format(time.RFC3339),
		},
	}
	return mutate.ConfigFile(img, cfg)
}

// rootfs is the layer's tar: the few files a static Go binary needs and
// nothing else (no shell, no libc, no package manager).
func rootfs(bin, ca []byte, mtime time.Time) ([]byte, error) {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	dir := func(path string, mode int64, owner int) error {
		return tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: path + "/", Mode: mode, Uid: owner, Gid: owner, ModTime: mtime, Format: tar.FormatPAX})
	}
	file := func(path string, mode int64, content []byte) error {
		if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: path, Mode: mode, Size: int64(len(content)), ModTime: mtime, Format: tar.FormatPAX}); err != nil {
			return err
		}
		_, err := tw.Write(content)
		return err
	}
	// passwd and group name the user for tools that look it up (ps, id,
	// a runtime resolving USER by name); HOME is the volume.
	passwd := fmt.Sprintf("root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:%d:%d:nonroot:%s:/sbin/nologin\n", uid, uid, dataDir)
	group := fmt.Sprintf("root:x:0:\nnonroot:x:%d:\n", uid)
	steps := []func() error{
		func() error { return dir("etc", 0o755, 0) },
		func() error { return file("etc/passwd", 0o644, []byte(passwd)) },
		func() error { return file("etc/group", 0o644, []byte(group)) },
		func() error { return dir("etc/ssl", 0o755, 0) },
		func() error { return dir("etc/ssl/certs", 0o755, 0) },
		func() error { return file("etc/ssl/certs/ca-certificates.crt", 0o644, ca) },
		func() error { return dir("usr", 0o755, 0) },
		func() error { return dir("usr/local", 0o755, 0) },
		func() error { return dir("usr/local/bin", 0o755, 0) },
		func() error { return file("usr/local/bin/creativeops", 0o755, bin) },
		// The data directory belongs to the user serve runs as; a
		// volume mounted there starts with this ownership.
		func() error { return dir("data", 0o750, uid) },
		// SQLite writes temporary files for large sorts.
		func() error { return dir("tmp", 0o1777, 0) },
	}
	for _, step := range steps {
		if err := step(); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
