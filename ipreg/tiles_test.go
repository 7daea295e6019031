package ipreg

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"testing"

	"golang.org/x/mod/sumdb/tlog"

	"github.com/creativeops/creativeops/ent"
	"github.com/creativeops/creativeops/events"
	"github.com/creativeops/creativeops/internal/testdb"
	"github.com/creativeops/creativeops/secrets"
	"github.com/creativeops/creativeops/storage"
)

// The paths are those of the C2SP tlog-tiles specification's examples.
func TestTilePath(t *testing.T) {
	for _, c := range []struct {
		tile tlog.Tile
		path string
	}{
		{tlog.Tile{H: 8, L: 0, N: 0, W: 256}, "tile/0/000"},
		{tlog.Tile{H: 8, L: 0, N: 1234067, W: 256}, "tile/0/x001/x234/067"},
		{tlog.Tile{H: 8, L: 0, N: 1234067, W: 8}, "tile/0/x001/x234/067.p/8"},
		{tlog.Tile{H: 8, L: 2, N: 1, W: 3}, "tile/2/001.p/3"},
		{tlog.Tile{H: 8, L: -1, N: 1234067, W: 256}, "tile/entries/x001/x234/067"},
		{tlog.Tile{H: 8, L: -1, N: 5, W: 7}, "tile/entries/005.p/7"},
	} {
		if got := TilePath(c.tile); got != c.path {
			t.Errorf("TilePath(%+v) = %q, want %q", c.tile, got, c.path)
		}
		got, err := ParseTilePath(c.path)
		if err != nil || got != c.tile {
			t.Errorf("ParseTilePath(%q) = %+v, %v; want %+v", c.path, got, err, c.tile)
		}
	}
	for _, bad := range []string{
		"", "tile", "tile/0", "tile/0/1", "tile/0/0001", "tile/0/x000/001", "tile/0/000.p/0",
		"tile/0/000.p/256", "tile/0/000.p/", "tile/8/0/000", "tile/data/000", "tile/entries/",
		"tile/-1/000", "tile/0/000/", "checkpoint", "tile/0/x001", "tile/0/0x1",
	} {
		if tile, err := ParseTilePath(bad); err == nil {
			t.Errorf("ParseTilePath(%q) = %+v, want an error", bad, tile)
		}
	}
}

func TestTileInTree(t *testing.T) {
	for _, c := range []struct {
		size int64
		tile tlog.Tile
		want bool
	}{
		{0, tlog.Tile{H: 8, L: 0, N: 0, W: 1}, false},
		{1, tlog.Tile{H: 8, L: 0, N: 0, W: 1}, true},
		{1, tlog.Tile{H: 8, L: 0, N: 0, W: 2}, false},
		{300, tlog.Tile{H: 8, L: 0, N: 0, W: 256}, true},
		{300, tlog.Tile{H: 8, L: 0, N: 0, W: 10}, true}, // a partial tile of an older tree
		{300, tlog.Tile{H: 8, L: 0, N: 1, W: 44}, true},
		{300, tlog.Tile{H: 8, L: 0, N: 1, W: 45}, false},
		{300, tlog.Tile{H: 8, L: 0, N: 1, W: 256}, false},
		{300, tlog.Tile{H: 8, L: 0, N: 2, W: 1}, false},
		{300, tlog.Tile{H: 8, L: 1, N: 0, W: 1}, true},
		{300, tlog.Tile{H: 8, L: 1, N: 0, W: 2}, false},
		{300, tlog.Tile{H: 8, L: 2, N: 0, W: 1}, false},
		{300, tlog.Tile{H: 8, L: -1, N: 0, W: 1}, false}, // entry bundles are not hash tiles
		{300, tlog.Tile{H: 4, L: 0, N: 0, W: 1}, false},
		{1 << 16, tlog.Tile{H: 8, L: 1, N: 0, W: 256}, true},
		{1 << 16, tlog.Tile{H: 8, L: 2, N: 0, W: 1}, true},
		{1 << 62, tlog.Tile{H: 8, L: 0, N: 1 << 55, W: 256}, false},
		{1 << 62, tlog.Tile{H: 8, L: 8, N: 0, W: 1}, false},
	} {
		if got := TileInTree(c.tile, c.size); got != c.want {
			t.Errorf("TileInTree(%+v, %d) = %v, want %v", c.tile, c.size, got, c.want)
		}
	}
}

// registryTiles reads a registry's log through ReadTile, as a tiles
// client reads it over HTTP.
type registryTiles struct {
	ctx    context.Context
	r      *Registry
	origin string
	size   int64
}

func (rt registryTiles) Height() int { return TileHeight }

func (rt registryTiles) ReadTiles(tiles []tlog.Tile) ([][]byte, error) {
	out := make([][]byte, len(tiles))
	for i, tile := range tiles {
		data, err := rt.r.ReadTile(rt.ctx, rt.origin, rt.size, tile)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", TilePath(tile), err)
		}
		out[i] = data
	}
	return out, nil
}

func (registryTiles) SaveTiles([]tlog.Tile, [][]byte) {}

// TestReadTile seals more than a tile of records and reads the whole tree
// back through its tiles with tlog.TileHashReader, which checks every tile
// against the signed checkpoint: the tree hash and every record's
// inclusion proof come out of the tiles alone.
func TestReadTile(t *testing.T) {
	for _, b := range testdb.Backends(t) {
		t.Run(b.Name, func(t *testing.T) { testReadTile(t, b) })
	}
}

func testReadTile(t *testing.T, b testdb.Backend) {
	ctx := context.Background()
	r, _ := openSealTest(t, b, func([]*ent.Event) error { return nil })

	origin := r.Keys().Origin()
	head, err := r.LogHead(ctx, origin)
	if err != nil {
		t.Fatal(err)
	}
	if _, size, root, err := OpenCheckpoint([]byte(head.Checkpoint), r.Keys().VerifierKey()); err != nil || size != 0 || !bytes.Equal(root[:], head.Root) {
		t.Fatalf("empty log's checkpoint: size %d, %v", size, err)
	}

	var leaves [][]byte
	for batch := range 2 {
		var ps []*pending
		for i := range 150 {
			ps = append(ps, r.testWork(t, "org_a", fmt.Sprint(batch, i), fmt.Sprintf("%064x", batch*1000+i+1)))
		}
		<-r.seal(ctx, ps, nil).done
		for _, p := range ps {
			if p.err != nil {
				t.Fatal(p.err)
			}
			leaves = append(leaves, p.leaf)
		}
	}
	head, err = r.LogHead(ctx, origin)
	if err != nil {
		t.Fatal(err)
	}
	_, size, root, err := OpenCheckpoint([]byte(head.Checkpoint), r.Keys().VerifierKey())
	if err != nil || size != 300 {
		t.Fatalf("checkpoint: size %d, %v", size, err)
	}
	tiles := registryTiles{ctx: ctx, r: r, origin: origin, size: size}
	hr := tlog.TileHashReader(tlog.Tree{N: size, Hash: root}, tiles)
	if got, err := tlog.TreeHash(size, hr); err != nil || got != root {
		t.Fatalf("tree hash from the tiles: %v, %v; checkpoint says %v", got, err, root)
	}
	for i, leaf := range leaves {
		proof, err := tlog.ProveRecord(size, int64(i), hr)
		if err != nil {
			t.Fatalf("record %d: %v", i, err)
		}
		if err := tlog.CheckRecord(proof, size, root, int64(i), tlog.RecordHash(leaf)); err != nil {
			t.Fatalf("record %d: %v", i, err)
		}
	}

	for _, beyond := range []tlog.Tile{
		{H: 8, L: 0, N: 1, W: 45}, {H: 8, L: 0, N: 1, W: 256}, {H: 8, L: 0, N: 2, W: 1}, {H: 8, L: 1, N: 0, W: 2}, {H: 8, L: -1, N: 0, W: 256},
	} {
		if _, err := r.ReadTile(ctx, origin, size, beyond); !errors.Is(err, ErrNoTile) {
			t.Errorf("ReadTile(%s) = %v, want ErrNoTile", TilePath(beyond), err)
		}
	}

	if got, err := r.LogOrigin(ctx, LogID(origin)); err != nil || got != origin {
		t.Errorf("LogOrigin(%q) = %q, %v", LogID(origin), got, err)
	}
	for _, id := range []string{"", "nope", "%", LogID(origin)[1:]} {
		if _, err := r.LogOrigin(ctx, id); !errors.Is(err, ErrNoLog) {
			t.Errorf("LogOrigin(%q) = %v, want ErrNoLog", id, err)
		}
	}
	if _, err := r.LogHead(ctx, "creativeops.dev/ip-log/none"); !errors.Is(err, ErrNoLog) {
		t.Errorf("LogHead of an unknown log = %v, want ErrNoLog", err)
	}
}

// BenchmarkReadTile reads a full level-0 tile (256 stored hashes, one
// query) and the level-1 tile above it from a log of 1,024 records.
func BenchmarkReadTile(b *testing.B) {
	for _, backend := range testdb.Backends(b) {
		b.Run(backend.Name, func(b *testing.B) {
			ctx := context.Background()
			st, err := storage.Open(ctx, backend.URL(b))
			if err != nil {
				b.Fatal(err)
			}
			defer st.Close()
			if err := st.Migrate(ctx); err != nil {
				b.Fatal(err)
			}
			keyring, err := secrets.NewKeyring(secrets.GenerateKey())
			if err != nil {
				b.Fatal(err)
			}
			emitter := events.NewEmitter(func(any) ([]byte, error) { return []byte("{}"), nil },
				func(context.Context, *ent.Client, *sql.Tx, []*ent.Event) error { return nil })
			r, err := OpenRegistry(ctx, st, keyring, emitter, slog.New(slog.DiscardHandler))
			if err != nil {
				b.Fatal(err)
			}
			defer r.Close()
			for batch := range 4 {
				var ps []*pending
				for i := range maxBatch {
					p, err := r.newPending(Registration{OrganizationID: "org_a", CreatorID: "cr_a", Title: fmt.Sprint(batch, i), Type: "song",
						ContentHash: fmt.Sprintf("sha256:%064x", batch*1000+i+1)})
					if err != nil {
						b.Fatal(err)
					}
					ps = append(ps, p)
				}
				<-r.seal(ctx, ps, nil).done
				if ps[0].err != nil {
					b.Fatal(ps[0].err)
				}
			}
			origin := r.Keys().Origin()
			for _, tile := range []tlog.Tile{{H: 8, L: 0, N: 1, W: 256}, {H: 8, L: 1, N: 0, W: 4}} {
				b.Run(TilePath(tile), func(b *testing.B) {
					for b.Loop() {
						if _, err := r.ReadTile(ctx, origin, 1024, tile); err != nil {
							b.Fatal(err)
						}
					}
				})
			}
		})
	}
}
