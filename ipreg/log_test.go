package ipreg

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"
)

func TestLogManyRecordsInBatches(t *testing.T) {
	k, _ := testKeys(t)
	log := newTestLog(t, k)
	rng := rand.New(rand.NewPCG(1, 2))

	const total = 300
	var leafHashes []tlog.Hash
	type cp struct {
		size int64
		root tlog.Hash
		msg  []byte
	}
	var cps []cp
	for log.size() < total {
		// Batch sizes 1..17 exercise every alignment of batch boundaries
		// against subtree boundaries.
		m := min(1+rng.IntN(17), total-int(log.size()))
		batch := make([][]byte, m)
		for i := range batch {
			r := Record{ID: fmt.Sprintf("rec-%d", log.size()+int64(i)), ContentHash: "sha256:" + hexA}
			batch[i] = CanonicalBytes(r)
			leafHashes = append(leafHashes, tlog.RecordHash(batch[i]))
		}

		// The root is computable from the overlay before anything is stored.
		n := log.size()
		pending, err := AppendHashes(n, batch, &log.store)
		if err != nil {
			t.Fatal(err)
		}
		early, err := TreeHash(n+int64(m), Overlay(&log.store, n, pending))
		if err != nil {
			t.Fatal(err)
		}

		log.append(batch...)
		msg := log.checkpoint()
		_, size, root, err := OpenCheckpoint(msg, k.VerifierKey())
		if err != nil {
			t.Fatal(err)
		}
		if want := refRoot(leafHashes); size != log.size() || root != want || early != want {
			t.Fatalf("size %d: checkpoint (%d, %v), overlay root %v, want root %v", log.size(), size, root, early, want)
		}
		cps = append(cps, cp{size, root, msg})
	}
	if len(cps) < 20 {
		t.Fatalf("only %d batches; the test should exercise many", len(cps))
	}

	for _, c := range cps {
		for i := range c.size {
			p, err := InclusionProof(c.size, i, &log.store)
			if err != nil {
				t.Fatalf("InclusionProof(%d, %d): %v", c.size, i, err)
			}
			if err := tlog.CheckRecord(p, c.size, c.root, i, leafHashes[i]); err != nil {
				t.Fatalf("record %d not proven in tree %d: %v", i, c.size, err)
			}
			other := leafHashes[(i+1)%int64(len(leafHashes))]
			if err := tlog.CheckRecord(p, c.size, c.root, i, other); err == nil {
				t.Fatalf("proof for record %d in tree %d also accepts a different leaf", i, c.size)
			}
		}
	}

	for a := range cps {
		for b := a; b < len(cps); b++ {
			old, cur := cps[a], cps[b]
			p, err := ConsistencyProof(old.size, cur.size, &log.store)
			if err != nil {
				t.Fatalf("ConsistencyProof(%d, %d): %v", old.size, cur.size, err)
			}
			if err := tlog.CheckTree(p, cur.size, cur.root, old.size, old.root); err != nil {
				t.Fatalf("tree %d not consistent with %d: %v", cur.size, old.size, err)
			}
			if a != b {
				forked := old.root
				forked[0] ^= 1
				if err := tlog.CheckTree(p, cur.size, cur.root, old.size, forked); err == nil {
					t.Fatalf("consistency proof %d→%d accepts a forked old root", old.size, cur.size)
				}
			}
		}
	}
}

func TestAppendHashesMatchesOneAtATime(t *testing.T) {
	// Batching must be invisible in storage: the same hashes at the same
	// indexes as appending each record on its own.
	var single memStore
	for i := range 40 {
		hs, err := tlog.StoredHashes(int64(i), []byte(fmt.Sprint(i)), &single)
		if err != nil {
			t.Fatal(err)
		}
		single.hashes = append(single.hashes, hs...)
	}
	var batched memStore
	n := 0
	for _, k := range []int{1, 2, 5, 8, 3, 13, 8} {
		batch := make([][]byte, k)
		for i := range batch {
			batch[i] = []byte(fmt.Sprint(n + i))
		}
		hs, err := AppendHashes(int64(n), batch, &batched)
		if err != nil {
			t.Fatal(err)
		}
		batched.hashes = append(batched.hashes, hs...)
		n += k
	}
	if n != 40 || len(batched.hashes) != len(single.hashes) {
		t.Fatalf("batched store has %d hashes for %d records, single has %d", len(batched.hashes), n, len(single.hashes))
	}
	for i := range single.hashes {
		if batched.hashes[i] != single.hashes[i] {
			t.Fatalf("hash at index %d differs", i)
		}
	}
}

func TestAppendHashesErrors(t *testing.T) {
	var empty memStore
	// Record 1 completes a subtree and needs record 0's hash from storage.
	if _, err := AppendHashes(1, [][]byte{[]byte("x")}, &empty); err == nil {
		t.Error("AppendHashes succeeded although the reader lacks earlier hashes")
	}
	if _, err := AppendHashes(-1, nil, &empty); err == nil {
		t.Error("AppendHashes accepted a negative size")
	}
	if hs, err := AppendHashes(0, nil, &empty); err != nil || len(hs) != 0 {
		t.Errorf("empty batch: %v, %v", hs, err)
	}
	ov := Overlay(&empty, 0, []tlog.Hash{{1}})
	if _, err := ov.ReadHashes([]int64{1}); err == nil {
		t.Error("Overlay served an index beyond the pending hashes")
	}
	if _, err := InclusionProof(5, 5, &empty); err == nil {
		t.Error("InclusionProof accepted index == size")
	}
	if _, err := ConsistencyProof(0, 5, &empty); err == nil {
		t.Error("ConsistencyProof accepted from == 0")
	}
	if _, err := ConsistencyProof(6, 5, &empty); err == nil {
		t.Error("ConsistencyProof accepted from > to")
	}
}

func TestCheckpointFormat(t *testing.T) {
	k, _ := testKeys(t)
	root := tlog.RecordHash([]byte("leaf"))
	msg, err := SignCheckpoint(k, 12345, root)
	if err != nil {
		t.Fatal(err)
	}
	text, _, _ := strings.Cut(string(msg), "\n\n")
	want := fmt.Sprintf("%s\n12345\n%s", k.Origin(), root.String())
	if text != want {
		t.Fatalf("checkpoint text = %q, want %q", text, want)
	}
	if !strings.HasPrefix(string(msg[len(text)+2:]), "— "+k.Origin()+" ") {
		t.Fatalf("signature line does not name the origin: %q", msg)
	}
	origin, size, got, err := OpenCheckpoint(msg, k.VerifierKey())
	if err != nil || origin != k.Origin() || size != 12345 || got != root {
		t.Fatalf("OpenCheckpoint = %q, %d, %v, %v", origin, size, got, err)
	}
	if _, err := SignCheckpoint(k, -1, root); err == nil {
		t.Error("SignCheckpoint accepted a negative size")
	}
}

func TestOpenCheckpointRejects(t *testing.T) {
	k, other := testKeys(t)
	root := tlog.RecordHash([]byte("leaf"))
	b64 := root.String()
	good, err := SignCheckpoint(k, 10, root)
	if err != nil {
		t.Fatal(err)
	}
	// signText signs arbitrary text with k's log key, to show that a valid
	// signature does not make malformed contents acceptable.
	signText := func(text string) []byte {
		msg, err := note.Sign(&note.Note{Text: text}, k.signer)
		if err != nil {
			t.Fatal(err)
		}
		return msg
	}
	cases := []struct {
		name string
		msg  []byte
		vkey string
	}{
		{"other log's key", good, other.VerifierKey()},
		{"bad verifier key", good, "not a key"},
		{"size edited", []byte(strings.Replace(string(good), "\n10\n", "\n11\n", 1)), k.VerifierKey()},
		{"root edited", []byte(strings.Replace(string(good), b64, tlog.RecordHash([]byte("x")).String(), 1)), k.VerifierKey()},
		{"signed by other log", mustSign(t, other, 10, root), k.VerifierKey()},
		{"origin differs from key name", signText("creativeops.example/elsewhere\n10\n" + b64 + "\n"), k.VerifierKey()},
		{"leading zero size", signText(k.Origin() + "\n010\n" + b64 + "\n"), k.VerifierKey()},
		{"negative size", signText(k.Origin() + "\n-1\n" + b64 + "\n"), k.VerifierKey()},
		{"short root", signText(k.Origin() + "\n10\nAAAA\n"), k.VerifierKey()},
		{"missing root", signText(k.Origin() + "\n10\n"), k.VerifierKey()},
		{"unsigned", []byte(k.Origin() + "\n10\n" + b64 + "\n"), k.VerifierKey()},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if _, _, _, err := OpenCheckpoint(tc.msg, tc.vkey); err == nil {
				t.Fatal("OpenCheckpoint accepted it")
			}
		})
	}

	// C2SP allows extension lines after the root; they must not break parsing.
	ext := signText(k.Origin() + "\n10\n" + b64 + "\nsome-extension value\n")
	if _, size, got, err := OpenCheckpoint(ext, k.VerifierKey()); err != nil || size != 10 || got != root {
		t.Errorf("checkpoint with extension line: %d, %v, %v", size, got, err)
	}
}

func mustSign(t *testing.T, k *Keys, size int64, root tlog.Hash) []byte {
	t.Helper()
	msg, err := SignCheckpoint(k, size, root)
	if err != nil {
		t.Fatal(err)
	}
	return msg
}
