package server_test

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"golang.org/x/mod/sumdb/tlog"

	"github.com/creativeops/creativeops/auth"
	"github.com/creativeops/creativeops/internal/testserver"
	"github.com/creativeops/creativeops/ipreg"
	"github.com/creativeops/creativeops/server"
)

// c2spTilePath is a tile's path as the C2SP tlog-tiles specification
// writes it, spelled out here rather than taken from the service's code:
// tile/<L>/<N>[.p/<W>], N in 3-digit elements, all but the last prefixed
// with x.
func c2spTilePath(t tlog.Tile) string {
	n := t.N
	elems := []string{fmt.Sprintf("%03d", n%1000)}
	for n /= 1000; n > 0; n /= 1000 {
		elems = append([]string{fmt.Sprintf("x%03d", n%1000)}, elems...)
	}
	p := fmt.Sprintf("tile/%d/%s", t.L, strings.Join(elems, "/"))
	if t.W < 1<<t.H {
		p += fmt.Sprintf(".p/%d", t.W)
	}
	return p
}

// httpTiles is a tiles client: a tlog.TileReader that fetches tiles from
// a base URL over plain HTTP, without any credential, and keeps those it
// fetched (tlog.TileHashReader checks each before it is kept).
type httpTiles struct {
	base    string
	mu      sync.Mutex
	fetched []string
	saved   map[tlog.Tile][]byte
}

func (h *httpTiles) Height() int { return 8 }

func (h *httpTiles) ReadTiles(tiles []tlog.Tile) ([][]byte, error) {
	out := make([][]byte, len(tiles))
	for i, t := range tiles {
		h.mu.Lock()
		data, ok := h.saved[t]
		h.mu.Unlock()
		if ok {
			out[i] = data
			continue
		}
		p := c2spTilePath(t)
		resp, err := http.Get(h.base + p)
		if err != nil {
			return nil, err
		}
		data, err = io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			return nil, err
		}
		if resp.StatusCode != http.StatusOK {
			return nil, fmt.Errorf("GET %s: %d %s", p, resp.StatusCode, data)
		}
		if len(data) != t.W*tlog.HashSize {
			return nil, fmt.Errorf("GET %s: %d bytes for %d hashes", p, len(data), t.W)
		}
		h.mu.Lock()
		h.fetched = append(h.fetched, p)
		h.mu.Unlock()
		out[i] = data
	}
	return out, nil
}

func (h *httpTiles) SaveTiles(tiles []tlog.Tile, data [][]byte) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.saved == nil {
		h.saved = map[tlog.Tile][]byte{}
	}
	for i, t := range tiles {
		h.saved[t] = data[i]
	}
}

// TestPublicLogTiles registers more than a tile's worth of works and
// audits the whole tree through the public tile endpoints, without a key,
// with tlog's own tiles client (tlog.TileHashReader checks every tile it
// reads against the signed checkpoint): the tree hash, and every record's
// inclusion, from the record bytes of its certificate. The API's JSON
// checkpoint keeps answering keys as before, and nothing beyond the
// signed tree is served.
func TestPublicLogTiles(t *testing.T) {
	s := testserver.Start(t, testserver.Options{})
	creator := s.Do(t, "POST", "/v1/creators", s.AdminKey, map[string]any{"name": "T", "email": "t@example.com", "vertical": "music"}).JSON["id"].(string)

	const works = 300 // a full tile and a partial one at level 0, a partial one at level 1
	certs := make([]string, works)
	var wg sync.WaitGroup
	errs := make(chan string, works)
	for w := range 8 {
		wg.Go(func() {
			for i := w; i < works; i += 8 {
				sum := sha256.Sum256(fmt.Appendf(nil, "work %d", i))
				r := s.Do(t, "POST", "/v1/ip/register", s.AdminKey, map[string]any{"creator_id": creator, "title": fmt.Sprint("Work ", i), "type": "song", "content_hash": hex.EncodeToString(sum[:])})
				if r.Status != 201 {
					errs <- fmt.Sprintf("register %d: %d %s", i, r.Status, r.Body)
					return
				}
				certs[i] = r.JSON["certificate_id"].(string)
			}
		})
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Fatal(e)
	}

	keys := s.Do(t, "GET", "/v1/ip/keys", s.AdminKey, nil).JSON["log_keys"].([]any)[0].(map[string]any)
	logKey, origin := keys["verifier_key"].(string), keys["origin"].(string)
	logID := ipreg.LogID(origin)
	anon := func(path string, headers ...string) testserver.Response {
		return s.Do(t, "GET", path, "", nil, headers...)
	}

	// The checkpoint, without a key, as a signed note, at both bases.
	cp := anon("/v1/ip/log/checkpoint")
	if cp.Status != 200 || !strings.HasPrefix(cp.Header.Get("Content-Type"), "text/plain") {
		t.Fatalf("checkpoint without a key: %d %s %s", cp.Status, cp.Header.Get("Content-Type"), cp.Body)
	}
	if got := cp.Header.Get("Cache-Control"); got != "public, max-age=5" {
		t.Errorf("checkpoint Cache-Control %q", got)
	}
	_, size, root, err := ipreg.OpenCheckpoint(cp.Body, logKey)
	if err != nil || size != works {
		t.Fatalf("checkpoint: size %d, %v:\n%s", size, err, cp.Body)
	}
	for _, headers := range [][]string{{"Accept", "text/plain"}, {"Accept", "application/json, text/plain;q=0.5"}, {"Accept", "text/html,*/*;q=0.8"}} {
		if r := anon("/v1/ip/log/checkpoint", headers...); r.Status != 200 || string(r.Body) != string(cp.Body) {
			t.Errorf("checkpoint without a key, %v: %d %s", headers, r.Status, r.Body)
		}
	}
	if r := anon("/v1/ip/logs/" + logID + "/checkpoint"); r.Status != 200 || string(r.Body) != string(cp.Body) {
		t.Errorf("checkpoint by log id: %d %s", r.Status, r.Body)
	}
	// With a key it is GetCheckpoint, JSON, as it always was; asking for
	// JSON alone without one is refused as before.
	j := s.Do(t, "GET", "/v1/ip/log/checkpoint", s.AdminKey, nil)
	if j.Status != 200 || j.JSON["checkpoint"] != string(cp.Body) || j.JSON["origin"] != origin {
		t.Errorf("GetCheckpoint with a key: %d %s", j.Status, j.Body)
	}
	if r := anon("/v1/ip/log/checkpoint", "Accept", "application/json"); r.Status != 401 {
		t.Errorf("JSON checkpoint without a key: %d %s", r.Status, r.Body)
	}

	// The record bytes and positions, from the certificates.
	type leaf struct {
		index int64
		data  []byte
	}
	leaves := make([]leaf, works)
	for i, c := range certs {
		b := s.Do(t, "GET", "/v1/ip/certificates/"+c, s.AdminKey, nil).JSON
		data, err := base64.StdEncoding.DecodeString(b["record"].(string))
		if err != nil {
			t.Fatal(err)
		}
		var idx int64
		fmt.Sscan(b["log_index"].(string), &idx)
		leaves[i] = leaf{idx, data}
	}

	for _, base := range []string{"/v1/ip/log/", "/v1/ip/logs/" + logID + "/"} {
		tiles := &httpTiles{base: s.URL + base}
		hr := tlog.TileHashReader(tlog.Tree{N: size, Hash: root}, tiles)
		if got, err := tlog.TreeHash(size, hr); err != nil || got != root {
			t.Fatalf("%s: tree hash from the tiles %v, %v; the checkpoint signs %v", base, got, err, root)
		}
		seen := map[int64]bool{}
		for _, l := range leaves {
			proof, err := tlog.ProveRecord(size, l.index, hr)
			if err == nil {
				err = tlog.CheckRecord(proof, size, root, l.index, tlog.RecordHash(l.data))
			}
			if err != nil {
				t.Fatalf("%s: record %d: %v", base, l.index, err)
			}
			seen[l.index] = true
		}
		if len(seen) != works {
			t.Fatalf("%d distinct log positions for %d records", len(seen), works)
		}
		fetched := strings.Join(tiles.fetched, " ")
		for _, want := range []string{"tile/0/000", "tile/0/001.p/44", "tile/1/000.p/1"} {
			if !strings.Contains(fetched+" ", want+" ") {
				t.Errorf("%s: the client never fetched %s (fetched %s)", base, want, fetched)
			}
		}
	}

	// Caching: a log's tiles by id forever; the current log's base names
	// another log after a key rotation.
	for _, c := range []struct{ path, cache string }{
		{"/v1/ip/logs/" + logID + "/tile/0/000", "public, max-age=31536000, immutable"},
		{"/v1/ip/logs/" + logID + "/tile/0/001.p/44", "public, max-age=31536000, immutable"},
		{"/v1/ip/logs/" + logID + "/tile/0/001.p/3", "public, max-age=31536000, immutable"},
		{"/v1/ip/log/tile/0/000", "public, max-age=300"},
	} {
		r := anon(c.path)
		if r.Status != 200 || r.Header.Get("Cache-Control") != c.cache || r.Header.Get("Content-Type") != "application/octet-stream" {
			t.Errorf("%s: %d, Cache-Control %q, Content-Type %q", c.path, r.Status, r.Header.Get("Cache-Control"), r.Header.Get("Content-Type"))
		}
		if etag := r.Header.Get("ETag"); etag == "" {
			t.Errorf("%s: no ETag", c.path)
		} else if again := anon(c.path, "If-None-Match", etag); again.Status != http.StatusNotModified {
			t.Errorf("%s with its ETag: %d", c.path, again.Status)
		}
	}
	// No credential whatever the request: a GET carrying a body too.
	if r := s.Do(t, "GET", "/v1/ip/logs/"+logID+"/tile/0/000", "", "{}"); r.Status != 200 {
		t.Errorf("tile GET with a body, no key: %d %s", r.Status, r.Body)
	}
	full := anon("/v1/ip/log/tile/0/000").Body
	if partial := anon("/v1/ip/log/tile/0/000.p/7").Body; string(partial) != string(full[:7*32]) {
		t.Errorf("a partial tile is not the start of the full one")
	}

	// Nothing beyond the tree of the checkpoint, no entries, no unknown log.
	for _, c := range []struct {
		path   string
		status int
	}{
		{"/v1/ip/log/tile/0/001.p/45", 404},
		{"/v1/ip/log/tile/0/001", 404},
		{"/v1/ip/log/tile/0/002.p/1", 404},
		{"/v1/ip/log/tile/1/000.p/2", 404},
		{"/v1/ip/log/tile/2/000.p/1", 404},
		{"/v1/ip/logs/" + logID + "/tile/0/001", 404},
		{"/v1/ip/log/tile/entries/000", 404},
		{"/v1/ip/log/tile/entries/001.p/44", 404},
		{"/v1/ip/logs/" + logID + "/tile/entries/000", 404},
		{"/v1/ip/logs/01nosuchlog/checkpoint", 404},
		{"/v1/ip/logs/01nosuchlog/tile/0/000", 404},
		{"/v1/ip/log/tile/0/1", 400},
		{"/v1/ip/log/tile/0/000.p/256", 400},
		{"/v1/ip/log/tile/8/0/000", 400},
		{"/v1/ip/log/tile/data/000", 400},
	} {
		if r := anon(c.path); r.Status != c.status {
			t.Errorf("GET %s: %d, want %d: %s", c.path, r.Status, c.status, r.Body)
		}
	}
}

// TestPublicLogRateLimit: the public log is read without a key, so each
// client address has a budget of its own.
func TestPublicLogRateLimit(t *testing.T) {
	s := testserver.Start(t, testserver.Options{Configure: func(c *server.Config) {
		c.LogReadLimit = auth.RateLimit{RequestsPerSecond: 0.01, Burst: 3}
	}})
	for i, path := range []string{"/v1/ip/log/checkpoint", "/v1/ip/log/tile/0/000", "/v1/ip/logs/x/checkpoint", "/v1/ip/log/tile/0/000"} {
		r := s.Do(t, "GET", path, "", nil)
		want := []int{200, 404, 404, 429}[i]
		if r.Status != want {
			t.Fatalf("request %d, GET %s: %d, want %d: %s", i+1, path, r.Status, want, r.Body)
		}
		if want == 429 && r.Header.Get("Retry-After") == "" {
			t.Errorf("429 without Retry-After")
		}
	}
	// Keys keep their own budget.
	if r := s.Do(t, "GET", "/v1/ip/log/checkpoint", s.AdminKey, nil); r.Status != 200 || r.JSON["origin"] == nil {
		t.Errorf("GetCheckpoint with a key after the address's budget: %d %s", r.Status, r.Body)
	}
}
