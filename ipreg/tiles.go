package ipreg

import (
	"context"
	"errors"
	"fmt"
	"path"
	"strings"

	"golang.org/x/mod/sumdb/tlog"

	"github.com/creativeops/creativeops/ent"
	"github.com/creativeops/creativeops/ent/loghash"
	"github.com/creativeops/creativeops/ent/logstate"
	"github.com/creativeops/creativeops/ent/signingkey"
)

// The log is published as C2SP tlog-tiles (https://c2sp.org/tlog-tiles):
// the tree's hashes in tiles of 256, which any tiles client can fetch and
// check against a signed checkpoint. Tiles are read from the stored hashes
// (tlog stored-hash indexing, see AppendHashes), one query per tile.

// TileHeight is the height of the log's tiles: 2^8 = 256 hashes each, as
// C2SP tlog-tiles fixes it.
const TileHeight = 8

// ErrNoTile is the error of a tile that is not part of the tree, or not
// published.
var ErrNoTile = errors.New("ipreg: no such tile")

// ErrNoLog is the error of a log origin or id the registry never had.
var ErrNoLog = errors.New("ipreg: no such log")

// TilePath is the C2SP tlog-tiles path of a tile relative to the log's
// base URL: "tile/<L>/<N>[.p/<W>]" for hash tiles, the index N written in
// 3-digit elements ("tile/0/x001/234.p/5"), and "tile/entries/<N>[.p/<W>]"
// for entry bundles (L = -1). t.H must be TileHeight.
func TilePath(t tlog.Tile) string {
	if t.L == -1 {
		return "tile/entries/" + strings.TrimPrefix(t.Path(), fmt.Sprintf("tile/%d/data/", t.H))
	}
	return "tile/" + strings.TrimPrefix(t.Path(), fmt.Sprintf("tile/%d/", t.H))
}

// ParseTilePath parses a C2SP tlog-tiles path (TilePath). Only the
// canonical spelling of a tile is accepted, so each tile has one URL.
func ParseTilePath(p string) (tlog.Tile, error) {
	var t tlog.Tile
	var err error
	switch {
	case strings.HasPrefix(p, "tile/entries/"):
		t, err = tlog.ParseTilePath(fmt.Sprintf("tile/%d/data/", TileHeight) + strings.TrimPrefix(p, "tile/entries/"))
	case strings.HasPrefix(p, "tile/") && !strings.HasPrefix(p, "tile/data/"):
		t, err = tlog.ParseTilePath(fmt.Sprintf("tile/%d/", TileHeight) + strings.TrimPrefix(p, "tile/"))
	default:
		err = errors.New("not a tile path")
	}
	if err != nil || TilePath(t) != p {
		return tlog.Tile{}, fmt.Errorf("ipreg: malformed tile path %q", p)
	}
	return t, nil
}

// TileInTree reports whether the hash tile t is part of the tree of the
// given size: whether each of its W hashes is the hash of a complete
// subtree of it. Such a tile never changes as the log grows (a partial
// tile of width W stays the first W hashes of the full one), and every
// other is not served: a client cannot learn of entries beyond the
// checkpoint it was shown.
func TileInTree(t tlog.Tile, size int64) bool {
	if t.H != TileHeight || t.L < 0 || t.N < 0 || t.W < 1 || t.W > 1<<TileHeight || size < 0 {
		return false
	}
	level := t.L * TileHeight
	if level >= 63 {
		return false
	}
	hashes := size >> level // complete subtrees of height level
	return t.N <= hashes>>TileHeight && t.N<<TileHeight+int64(t.W) <= hashes
}

// LogID is the short name of a log in URLs: the last element of its
// origin ("creativeops.dev/ip-log/01k..." → "01k...").
func LogID(origin string) string { return path.Base(origin) }

// LogOrigin finds the origin of the log whose LogID is id, current or
// retired; ErrNoLog if there is none.
func (r *Registry) LogOrigin(ctx context.Context, id string) (string, error) {
	if id == "" || strings.ContainsFunc(id, func(c rune) bool {
		return !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.')
	}) {
		return "", ErrNoLog
	}
	origins, err := r.store.Read.SigningKey.Query().Where(signingkey.OriginHasSuffix("/" + id)).Select(signingkey.FieldOrigin).Strings(ctx)
	if err != nil {
		return "", err
	}
	for _, o := range origins {
		if LogID(o) == id {
			return o, nil
		}
	}
	return "", ErrNoLog
}

// LogHead returns the latest signed checkpoint of the log of origin,
// current or retired; ErrNoLog if there is no such log. The current log,
// before its first registration, has no checkpoint stored: it is signed
// here for the empty tree (Ed25519 signatures are deterministic, so it is
// the same note each time). A retired log that never held a record has
// none: ErrNoLog.
func (r *Registry) LogHead(ctx context.Context, origin string) (Head, error) {
	st, err := r.store.Read.LogState.Query().Where(logstate.Origin(origin)).Only(ctx)
	if ent.IsNotFound(err) {
		return Head{}, ErrNoLog
	}
	if err != nil {
		return Head{}, err
	}
	h := Head{Origin: st.Origin, Size: st.Size, Root: st.RootHash, Checkpoint: st.Checkpoint}
	if h.Checkpoint == "" && h.Size == 0 {
		if origin != r.keys.Origin() {
			return Head{}, ErrNoLog
		}
		empty, err := tlog.TreeHash(0, nil)
		if err != nil {
			return Head{}, err
		}
		cp, err := SignCheckpoint(r.keys, 0, empty)
		if err != nil {
			return Head{}, err
		}
		h.Root, h.Checkpoint = empty[:], string(cp)
	}
	return h, nil
}

// ReadTile returns the data of the hash tile t of the log of origin, as
// C2SP tlog-tiles serves it (its W hashes, 32 bytes each), if it is part
// of the tree of the given size (TileInTree), and ErrNoTile otherwise.
// size must be a size the log reached: its hashes are then all stored.
// It reads the W stored hashes in one query: for a level-0 tile, the
// range of stored indexes they span (its leaves and the hashes above them
// inside the tile, under 2W rows), which an index range scan reads far
// faster than W lookups; for a higher level, whose hashes are spread
// across the storage, the W indexes.
func (r *Registry) ReadTile(ctx context.Context, origin string, size int64, t tlog.Tile) ([]byte, error) {
	if !TileInTree(t, size) {
		return nil, ErrNoTile
	}
	hashes := tlog.HashReader(&dbHashes{ctx: ctx, client: r.store.Read, origin: origin})
	if t.L == 0 {
		first := t.N << TileHeight
		hashes = &hashRange{ctx: ctx, client: r.store.Read, origin: origin,
			lo: tlog.StoredHashIndex(0, first), hi: tlog.StoredHashIndex(0, first+int64(t.W)-1)}
	}
	return tlog.ReadTileData(t, hashes)
}

// hashRange reads stored hashes whose indexes are all in [lo, hi] with one
// range query.
type hashRange struct {
	ctx    context.Context
	client *ent.Client
	origin string
	lo, hi int64
}

func (h *hashRange) ReadHashes(indexes []int64) ([]tlog.Hash, error) {
	rows, err := h.client.LogHash.Query().
		Where(loghash.Origin(h.origin), loghash.IdxGTE(h.lo), loghash.IdxLTE(h.hi)).
		Select(loghash.FieldIdx, loghash.FieldHash).
		All(h.ctx)
	if err != nil {
		return nil, err
	}
	byIdx := make(map[int64][]byte, len(rows))
	for _, row := range rows {
		byIdx[row.Idx] = row.Hash
	}
	out := make([]tlog.Hash, len(indexes))
	for i, idx := range indexes {
		b, ok := byIdx[idx]
		if !ok || len(b) != tlog.HashSize {
			return nil, fmt.Errorf("log %s: hash %d missing", h.origin, idx)
		}
		copy(out[i][:], b)
	}
	return out, nil
}
