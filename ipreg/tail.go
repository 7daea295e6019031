package ipreg

import (
	"bytes"
	"fmt"
	"sync"

	"golang.org/x/mod/sumdb/tlog"

	"github.com/creativeops/creativeops/ent"
)

// tailCacheSize bounds how many stored hashes a logTail remembers in each
// of its two generations. Appending to a log of n records reads about
// 2·log2(n) of them (the right edge of the tree), so a few thousand hold
// every log this service will keep.
const tailCacheSize = 2048

// logTail is what this process knows of the current log without asking
// the database: the head as its sequencer last committed it, and stored
// tree hashes it wrote or read. A stored hash never changes once committed
// (the log is append-only, each origin its own), so a remembered hash is
// always right; only committed ones are remembered. The head may be behind
// when another replica appended since: a plan made on it is then found
// stale under the lock and placed again (Registry.commit), as any plan
// made outside the lock can be.
//
// With both, the sequencer plans a batch with one query (the duplicate
// check) instead of reading the head and the tree's right edge each time.
type logTail struct {
	mu   sync.Mutex
	head *ent.LogState
	// cur and prev are two generations of remembered hashes by stored
	// index: a hash found in prev moves to cur, and when cur fills up it
	// becomes prev, so the right edge, read by every append, stays.
	cur, prev map[int64]tlog.Hash
}

// lastHead returns the head as last committed by this process, or nil.
func (t *logTail) lastHead() *ent.LogState {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.head
}

// committed records a batch's plan once its transaction committed: the
// new head, and the hashes it stored. Batches may report out of order; a
// head smaller than the one known is older and left out.
func (t *logTail) committed(p *sealPlan) {
	t.mu.Lock()
	defer t.mu.Unlock()
	size, root := p.from, p.fromRoot
	if len(p.accepted) > 0 {
		size, root = p.size, p.root[:]
		first := tlog.StoredHashIndex(0, p.from)
		for i, h := range p.hashes {
			t.put(first+int64(i), h)
		}
	}
	if t.head == nil || size > t.head.Size {
		t.head = &ent.LogState{Size: size, RootHash: bytes.Clone(root)}
	}
}

// reader serves stored hashes from memory, reading the others from base
// (committed data only: the database outside any write) and remembering
// them.
func (t *logTail) reader(base tlog.HashReader) tlog.HashReader {
	return tlog.HashReaderFunc(func(indexes []int64) ([]tlog.Hash, error) {
		out := make([]tlog.Hash, len(indexes))
		var missIdx []int64
		var missPos []int
		t.mu.Lock()
		for i, idx := range indexes {
			if h, ok := t.get(idx); ok {
				out[i] = h
				continue
			}
			missIdx = append(missIdx, idx)
			missPos = append(missPos, i)
		}
		t.mu.Unlock()
		if len(missIdx) == 0 {
			return out, nil
		}
		hs, err := base.ReadHashes(missIdx)
		if err != nil {
			return nil, err
		}
		if len(hs) != len(missIdx) {
			return nil, fmt.Errorf("ipreg: ReadHashes returned %d hashes for %d indexes", len(hs), len(missIdx))
		}
		t.mu.Lock()
		for j, pos := range missPos {
			out[pos] = hs[j]
			t.put(missIdx[j], hs[j])
		}
		t.mu.Unlock()
		return out, nil
	})
}

func (t *logTail) get(idx int64) (tlog.Hash, bool) {
	if h, ok := t.cur[idx]; ok {
		return h, true
	}
	h, ok := t.prev[idx]
	if ok {
		t.put(idx, h)
	}
	return h, ok
}

func (t *logTail) put(idx int64, h tlog.Hash) {
	if t.cur == nil {
		t.cur = make(map[int64]tlog.Hash, tailCacheSize)
	}
	if len(t.cur) >= tailCacheSize {
		t.prev, t.cur = t.cur, make(map[int64]tlog.Hash, tailCacheSize)
	}
	t.cur[idx] = h
}
