package ipreg

import (
	"crypto/sha256"
	"testing"

	"golang.org/x/mod/sumdb/tlog"
)

// countingHashes serves hashes derived from their index and counts the
// indexes asked for.
type countingHashes struct {
	reads int
	byIdx map[int64]int
}

func (c *countingHashes) ReadHashes(indexes []int64) ([]tlog.Hash, error) {
	c.reads += len(indexes)
	if c.byIdx == nil {
		c.byIdx = map[int64]int{}
	}
	for _, idx := range indexes {
		c.byIdx[idx]++
	}
	out := make([]tlog.Hash, len(indexes))
	for i, idx := range indexes {
		out[i] = sha256.Sum256([]byte{byte(idx), byte(idx >> 8), byte(idx >> 16)})
	}
	return out, nil
}

func TestLogTailRemembersCommittedAndReadHashes(t *testing.T) {
	var tail logTail
	base := &countingHashes{}
	r := tail.reader(base)
	want, _ := base.ReadHashes([]int64{3, 7})
	base.reads = 0

	got, err := r.ReadHashes([]int64{3, 7})
	if err != nil || got[0] != want[0] || got[1] != want[1] || base.reads != 2 {
		t.Fatalf("first read: %v %v, %d read from the database; want both read", got, err, base.reads)
	}
	if got, err = r.ReadHashes([]int64{7, 3}); err != nil || got[0] != want[1] || got[1] != want[0] || base.reads != 2 {
		t.Fatalf("second read: %v %v, %d read from the database; want both remembered", got, err, base.reads)
	}

	// A committed batch's hashes are served without reading them.
	written := []tlog.Hash{{1}, {2}, {3}}
	tail.committed(&sealPlan{from: 2, fromRoot: []byte("r2"), accepted: make([]*draft, 1), hashes: written, size: 3, root: tlog.Hash{9}})
	first := tlog.StoredHashIndex(0, 2)
	got, err = r.ReadHashes([]int64{first, first + 1, first + 2})
	if err != nil || got[0] != written[0] || got[2] != written[2] || base.reads != 2 {
		t.Fatalf("committed hashes: %v %v, %d read from the database", got, err, base.reads)
	}
}

func TestLogTailHeadOnlyMovesForward(t *testing.T) {
	var tail logTail
	if tail.lastHead() != nil {
		t.Fatal("a new tail knows a head")
	}
	later := &sealPlan{from: 4, accepted: make([]*draft, 2), hashes: []tlog.Hash{{4}}, size: 6, root: tlog.Hash{6}}
	earlier := &sealPlan{from: 2, accepted: make([]*draft, 2), hashes: []tlog.Hash{{2}}, size: 4, root: tlog.Hash{4}}
	tail.committed(later)
	tail.committed(earlier) // reported after the batch that built on it
	if h := tail.lastHead(); h.Size != 6 || h.RootHash[0] != 6 {
		t.Fatalf("head %d %x, want the later batch's (6)", h.Size, h.RootHash)
	}
	// A batch of duplicates only leaves the head where it found it.
	tail.committed(&sealPlan{from: 6, fromRoot: []byte{6}})
	if h := tail.lastHead(); h.Size != 6 || h.RootHash[0] != 6 {
		t.Fatalf("head %d %x after a batch of duplicates, want it unchanged", h.Size, h.RootHash)
	}
}

func TestLogTailKeepsWhatIsReadOften(t *testing.T) {
	var tail logTail
	base := &countingHashes{}
	r := tail.reader(base)
	edge := []int64{1, 2}
	if _, err := r.ReadHashes(edge); err != nil {
		t.Fatal(err)
	}
	// Many more hashes than a generation holds pass through, the right
	// edge read between them as every append reads it.
	for i := int64(0); i < 3*tailCacheSize; i++ {
		if _, err := r.ReadHashes([]int64{1000 + i}); err != nil {
			t.Fatal(err)
		}
		if i%(tailCacheSize/2) == 0 {
			if _, err := r.ReadHashes(edge); err != nil {
				t.Fatal(err)
			}
		}
	}
	if _, err := r.ReadHashes(edge); err != nil {
		t.Fatal(err)
	}
	if base.byIdx[1] != 1 || base.byIdx[2] != 1 {
		t.Fatalf("right edge read from the database %d and %d times, want once", base.byIdx[1], base.byIdx[2])
	}
	if len(tail.cur) > tailCacheSize || len(tail.prev) > tailCacheSize {
		t.Fatalf("remembers %d+%d hashes, want at most %d each", len(tail.cur), len(tail.prev), tailCacheSize)
	}
}
