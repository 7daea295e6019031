package ipreg

import (
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"sync"
	"testing"
	"time"

	"golang.org/x/mod/sumdb/tlog"
)

// memStore stands in for the database table of hashes keyed by storage
// index.
type memStore struct {
	hashes []tlog.Hash
}

func (m *memStore) ReadHashes(indexes []int64) ([]tlog.Hash, error) {
	out := make([]tlog.Hash, len(indexes))
	for i, idx := range indexes {
		if idx < 0 || idx >= int64(len(m.hashes)) {
			return nil, fmt.Errorf("memStore: no hash at index %d (have %d)", idx, len(m.hashes))
		}
		out[i] = m.hashes[idx]
	}
	return out, nil
}

// testLog mimics the caller's sequencer: compute a batch, store it at the
// documented indexes, sign a checkpoint.
type testLog struct {
	t      testing.TB
	keys   *Keys
	store  memStore
	leaves [][]byte
}

func newTestLog(t testing.TB, keys *Keys) *testLog { return &testLog{t: t, keys: keys} }

func (l *testLog) size() int64 { return int64(len(l.leaves)) }

// append adds a batch and returns the index of its first record.
func (l *testLog) append(batch ...[]byte) int64 {
	l.t.Helper()
	n := l.size()
	if got, want := int64(len(l.store.hashes)), tlog.StoredHashIndex(0, n); got != want {
		l.t.Fatalf("before append at %d: store has %d hashes, StoredHashIndex(0,n) = %d", n, got, want)
	}
	hashes, err := AppendHashes(n, batch, &l.store)
	if err != nil {
		l.t.Fatalf("AppendHashes(%d, %d records): %v", n, len(batch), err)
	}
	l.store.hashes = append(l.store.hashes, hashes...)
	l.leaves = append(l.leaves, batch...)
	if got, want := int64(len(l.store.hashes)), tlog.StoredHashCount(l.size()); got != want {
		l.t.Fatalf("after append to %d: store has %d hashes, StoredHashCount = %d", l.size(), got, want)
	}
	return n
}

func (l *testLog) checkpoint() []byte {
	l.t.Helper()
	root, err := TreeHash(l.size(), &l.store)
	if err != nil {
		l.t.Fatal(err)
	}
	cp, err := SignCheckpoint(l.keys, l.size(), root)
	if err != nil {
		l.t.Fatal(err)
	}
	return cp
}

// refRoot is the RFC 6962 §2.1 Merkle tree hash computed from scratch, as an
// independent oracle for the incremental hashes.
func refRoot(leaves []tlog.Hash) tlog.Hash {
	switch len(leaves) {
	case 0:
		return sha256.Sum256(nil)
	case 1:
		return leaves[0]
	}
	k := 1
	for k*2 < len(leaves) {
		k *= 2
	}
	return tlog.NodeHash(refRoot(leaves[:k]), refRoot(leaves[k:]))
}

var (
	sharedKeysOnce sync.Once
	sharedKeys     [2]*Keys
	sharedKeysErr  error
)

// testKeys returns two independent deployments' keys, generated once: the
// second plays the forger or the other log.
func testKeys(t testing.TB) (*Keys, *Keys) {
	t.Helper()
	sharedKeysOnce.Do(func() {
		now := time.Now()
		for i := range sharedKeys {
			sharedKeys[i], sharedKeysErr = GenerateKeys(fmt.Sprintf("creativeops.example/ip-log/%d", i+1), now)
			if sharedKeysErr != nil {
				return
			}
		}
	})
	if sharedKeysErr != nil {
		t.Fatal(sharedKeysErr)
	}
	return sharedKeys[0], sharedKeys[1]
}

func encodeStd(b []byte) string { return base64.StdEncoding.EncodeToString(b) }
