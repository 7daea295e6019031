package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/mod/sumdb/tlog"

	"github.com/creativeops/creativeops/ipreg"
)

// verify --monitor follows a transparency log served as C2SP tlog-tiles
// (the service's /v1/ip/logs/{log_id}/, or any tiles server): it fetches
// the log's checkpoint, checks its signature with the pinned key, proves
// it consistent with the last checkpoint it verified (kept in a file),
// reading the hashes it needs from the log's tiles, and saves it. A log
// that shows a tree that does not extend the one verified before, with
// both checkpoints signed by the log's key, is a fork: the operator shows
// different histories to different people. It is reported as FORK, the
// conflicting checkpoint saved beside the file as evidence, and the
// command exits non-zero.

const monitorSynopsis = "verify --monitor URL --log-key KEY [--checkpoint FILE] [--interval D] [--once]"

// verifyCommand is verify: a certificate bundle, or with --monitor a log.
func verifyCommand(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	for _, a := range args {
		if a == "--" {
			break
		}
		name, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if strings.HasPrefix(a, "-") && name == "monitor" {
			return monitorLog(ctx, args, stdout, stderr)
		}
	}
	return verify(args, stdout, stderr)
}

func monitorLog(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet(monitorSynopsis, 0)
	base := fs.String("monitor", "", "base URL of the log's tiles: http://HOST/v1/ip/logs/LOG_ID/ (or /v1/ip/log/ for whichever log is current)")
	logKey := fs.String("log-key", "", "the log's verifier key, e.g. from GET /v1/ip/keys (required: the key is what is trusted)")
	file := fs.String("checkpoint", "", "file of the last checkpoint verified: followed from, and replaced by each newer checkpoint proven consistent with it")
	interval := fs.Duration("interval", time.Minute, "time between two checks")
	once := fs.Bool("once", false, "check once and exit")
	if err := fs.parse(args, stdout); err != nil {
		return err
	}
	u, err := url.Parse(*base)
	if *base == "" || err != nil || u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return usagef("--monitor needs the log's base URL (http:// or https://), got %q", *base)
	}
	if *logKey == "" {
		return usagef("--monitor needs --log-key: the log's verifier key, from GET /v1/ip/keys")
	}
	if *interval <= 0 {
		return usagef("--interval must be positive")
	}
	// A transport of its own, whose connections are closed on the way
	// out, interrupted or not.
	transport := http.DefaultTransport.(*http.Transport).Clone()
	defer transport.CloseIdleConnections()
	m := &logMonitor{
		base: strings.TrimSuffix(*base, "/") + "/", key: strings.TrimSpace(*logKey), file: *file,
		client: &http.Client{Transport: transport, Timeout: 30 * time.Second}, out: stdout,
	}
	if err := m.load(); err != nil {
		return err
	}
	for {
		err := m.check(ctx)
		var fetch fetchError
		switch {
		case err == nil:
		case errors.As(err, &fetch) && !*once && ctx.Err() == nil:
			// The log may be briefly unreachable; what it serves is what
			// matters.
			fmt.Fprintf(stderr, "creativeops: %v (trying again in %s)\n", err, *interval)
		case ctx.Err() != nil:
			return nil
		default:
			return err
		}
		if *once {
			return nil
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(*interval):
		}
	}
}

// verifiedCheckpoint is a checkpoint whose signature was checked.
type verifiedCheckpoint struct {
	note   []byte
	origin string
	size   int64
	root   tlog.Hash
}

func (c *verifiedCheckpoint) String() string {
	return fmt.Sprintf("size %d, root %s", c.size, base64.StdEncoding.EncodeToString(c.root[:]))
}

type logMonitor struct {
	base, key, file string
	client          *http.Client
	out             io.Writer
	// trusted is the last checkpoint verified, nil before the first.
	trusted *verifiedCheckpoint
}

// fetchError is a failure to reach the log, which a monitor that keeps
// running retries; every other failure is about what the log serves.
type fetchError struct{ error }

func (e fetchError) Unwrap() error { return e.error }

// forkError is two checkpoints of one log, both signed by its key, of
// trees neither of which extends the other.
type forkError struct{ old, latest *verifiedCheckpoint }

func (e *forkError) Error() string {
	return fmt.Sprintf("FORK: log %s now shows the tree of %s, which is not consistent with the tree of %s verified before; both checkpoints are signed by the log's key",
		e.latest.origin, e.latest, e.old)
}

func (m *logMonitor) open(note []byte, what string) (*verifiedCheckpoint, error) {
	origin, size, root, err := ipreg.OpenCheckpoint(note, m.key)
	if err != nil {
		return nil, fmt.Errorf("%s does not verify with --log-key (if the log's keys were rotated, follow the retired log at its own base URL, /v1/ip/logs/LOG_ID/, and the new one with its key): %w", what, err)
	}
	return &verifiedCheckpoint{note: note, origin: origin, size: size, root: root}, nil
}

// load reads the checkpoint file, if there is one.
func (m *logMonitor) load() error {
	if m.file == "" {
		return nil
	}
	note, err := os.ReadFile(m.file)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	m.trusted, err = m.open(note, "the checkpoint in "+m.file)
	return err
}

// save makes c the trusted checkpoint, in the file too (written whole,
// then renamed over the old one).
func (m *logMonitor) save(c *verifiedCheckpoint) error {
	m.trusted = c
	if m.file == "" {
		return nil
	}
	return writeFileAtomic(m.file, c.note)
}

func writeFileAtomic(path string, data []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.Chmod(f.Name(), 0o644); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}

// check fetches the latest checkpoint and proves it consistent with the
// trusted one.
func (m *logMonitor) check(ctx context.Context) error {
	note, err := m.get(ctx, "checkpoint")
	if err != nil {
		return err
	}
	latest, err := m.open(note, "the checkpoint served at "+m.base+"checkpoint")
	if err != nil {
		return err
	}
	old := m.trusted
	tiles := &tileFetcher{m: m, ctx: ctx}
	switch {
	case old == nil || old.size == 0:
		// Nothing to be consistent with yet (the empty tree is a prefix
		// of every tree): check that the tiles hash to the signed root.
		if latest.size > 0 {
			got, err := tlog.TreeHash(latest.size, tlog.TileHashReader(tlog.Tree{N: latest.size, Hash: latest.root}, tiles))
			if err = tiles.failed(err); err != nil {
				return err
			}
			if got != latest.root {
				return fmt.Errorf("the tiles of %s hash to %x, not to the signed root", latest, got)
			}
		}
		what := "first checkpoint"
		if old != nil {
			what = "extends the empty tree"
		}
		fmt.Fprintf(m.out, "ok    %s  %s: %s, tree hash checked through %d tiles\n", latest.origin, latest, what, tiles.n)
		return m.save(latest)
	case latest.size == old.size:
		if latest.root != old.root {
			return m.fork(old, latest)
		}
		fmt.Fprintf(m.out, "ok    %s  %s: unchanged\n", latest.origin, latest)
		return nil
	case latest.size > old.size:
		proof, err := tlog.ProveTree(latest.size, old.size, tlog.TileHashReader(tlog.Tree{N: latest.size, Hash: latest.root}, tiles))
		if err = tiles.failed(err); err != nil {
			return err
		}
		if tlog.CheckTree(proof, latest.size, latest.root, old.size, old.root) != nil {
			return m.fork(old, latest)
		}
		fmt.Fprintf(m.out, "ok    %s  %s: consistent with size %d (%d tiles read)\n", latest.origin, latest, old.size, tiles.n)
		return m.save(latest)
	default:
		// Behind the trusted checkpoint: a cache or a lagging replica, or
		// a log rolled back. The older tree must be a prefix of the
		// trusted one; the trusted one is kept either way.
		if latest.size == 0 {
			fmt.Fprintf(m.out, "behind %s  the log shows the empty tree; %s verified before\n", latest.origin, old)
			return nil
		}
		proof, err := tlog.ProveTree(old.size, latest.size, tlog.TileHashReader(tlog.Tree{N: old.size, Hash: old.root}, tiles))
		if err = tiles.failed(err); err != nil {
			var fetch fetchError
			if errors.As(err, &fetch) {
				return fetchError{fmt.Errorf("the log shows %s, behind the %s verified before, and its tiles of that tree cannot be read to check it: %w", latest, old, err)}
			}
			return err
		}
		if tlog.CheckTree(proof, old.size, old.root, latest.size, latest.root) != nil {
			return m.fork(old, latest)
		}
		fmt.Fprintf(m.out, "behind %s  %s: a prefix of the %s verified before\n", latest.origin, latest, old)
		return nil
	}
}

// fork reports a fork, saving the conflicting checkpoint beside the
// trusted one: the two signed notes are the evidence.
func (m *logMonitor) fork(old, latest *verifiedCheckpoint) error {
	err := &forkError{old: old, latest: latest}
	fmt.Fprintf(m.out, "FORK  %s  %s does not extend %s\n--- verified before\n%s--- served now\n%s", latest.origin, latest, old, old.note, latest.note)
	if m.file != "" {
		evidence := m.file + ".fork"
		if werr := writeFileAtomic(evidence, latest.note); werr != nil {
			return errors.Join(err, werr)
		}
		return fmt.Errorf("%w (the conflicting checkpoint is saved in %s, the one verified before stays in %s)", err, evidence, m.file)
	}
	return err
}

// get fetches a path under the log's base URL.
func (m *logMonitor) get(ctx context.Context, path string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, m.base+path, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "text/plain, application/octet-stream")
	resp, err := m.client.Do(req)
	if err != nil {
		return nil, fetchError{err}
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return nil, fetchError{fmt.Errorf("GET %s: %w", req.URL, err)}
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fetchError{&statusError{url: req.URL.String(), code: resp.StatusCode, body: bytes.TrimSpace(data)}}
	}
	return data, nil
}

type statusError struct {
	url  string
	code int
	body []byte
}

func (e *statusError) Error() string {
	body := string(e.body)
	if len(body) > 200 {
		body = body[:200] + "..."
	}
	return fmt.Sprintf("GET %s: %d %s", e.url, e.code, body)
}

// tileFetcher reads tiles over HTTP for tlog.TileHashReader, which checks
// each against the tree it was given.
type tileFetcher struct {
	m   *logMonitor
	ctx context.Context
	n   int
	// err is the first fetch error: TileHashReader wraps what ReadTiles
	// returns in its own text.
	err error
}

func (f *tileFetcher) Height() int { return ipreg.TileHeight }

func (f *tileFetcher) ReadTiles(tiles []tlog.Tile) ([][]byte, error) {
	out := make([][]byte, len(tiles))
	for i, t := range tiles {
		data, err := f.m.get(f.ctx, ipreg.TilePath(t))
		var st *statusError
		if errors.As(err, &st) && st.code == http.StatusNotFound && t.W < 1<<t.H {
			// C2SP lets a log drop a partial tile once the full one
			// exists: its first W hashes are the partial tile.
			full := t
			full.W = 1 << t.H
			if fd, ferr := f.m.get(f.ctx, ipreg.TilePath(full)); ferr == nil && len(fd) == full.W*tlog.HashSize {
				data, err = fd[:t.W*tlog.HashSize], nil
			}
		}
		if err == nil && len(data) != t.W*tlog.HashSize {
			err = fmt.Errorf("tile %s: %d bytes, want %d", ipreg.TilePath(t), len(data), t.W*tlog.HashSize)
		}
		if err != nil {
			if f.err == nil {
				f.err = err
			}
			return nil, err
		}
		f.n++
		out[i] = data
	}
	return out, nil
}

func (f *tileFetcher) SaveTiles([]tlog.Tile, [][]byte) {}

// failed turns an error of reading through TileHashReader into the
// monitor's: a fetch error as it was, anything else a log whose tiles do
// not match its own signed checkpoint.
func (f *tileFetcher) failed(err error) error {
	if err == nil {
		return nil
	}
	var fetch fetchError
	if f.err != nil && errors.As(f.err, &fetch) {
		return f.err
	}
	return fmt.Errorf("the log's tiles do not match its signed checkpoint: %w", err)
}
