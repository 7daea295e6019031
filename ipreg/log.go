package ipreg

import (
	"encoding/base64"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"
)

// LeafHash is the RFC 6962 leaf hash of a record: SHA-256(0x00 ||
// CanonicalBytes(r)). The log commits to records by this value.
func LeafHash(r Record) tlog.Hash { return tlog.RecordHash(CanonicalBytes(r)) }

// SignCheckpoint signs a C2SP tlog-checkpoint for the tree of the given
// size and root hash. The note text is "<origin>\n<size>\n<base64 root>\n"
// and it is signed with the log's Ed25519 note key, whose name is the
// origin, so checkpoints of one log can never be mistaken for another's.
func SignCheckpoint(keys *Keys, size int64, root tlog.Hash) ([]byte, error) {
	if size < 0 {
		return nil, fmt.Errorf("ipreg: negative tree size %d", size)
	}
	text := fmt.Sprintf("%s\n%d\n%s\n", keys.origin, size, base64.StdEncoding.EncodeToString(root[:]))
	return note.Sign(&note.Note{Text: text}, keys.signer)
}

// OpenCheckpoint verifies a signed checkpoint with verifierKey and returns
// its contents. The origin line must equal the key's name: C2SP ties the
// two together, and checking it stops a key from vouching for a tree it
// does not operate. Extension lines after the root hash are permitted by
// the checkpoint format and ignored.
func OpenCheckpoint(msg []byte, verifierKey string) (origin string, size int64, root tlog.Hash, err error) {
	v, err := note.NewVerifier(verifierKey)
	if err != nil {
		return "", 0, tlog.Hash{}, fmt.Errorf("ipreg: log verifier key: %w", err)
	}
	n, err := note.Open(msg, note.VerifierList(v))
	if err != nil {
		var unverified *note.UnverifiedNoteError
		if errors.As(err, &unverified) {
			return "", 0, tlog.Hash{}, fmt.Errorf("ipreg: checkpoint is not signed by %s", v.Name())
		}
		return "", 0, tlog.Hash{}, fmt.Errorf("ipreg: checkpoint signature: %w", err)
	}
	lines := strings.SplitAfter(n.Text, "\n")
	if len(lines) < 4 { // origin, size, root, and the empty remainder after the final newline
		return "", 0, tlog.Hash{}, errors.New("ipreg: malformed checkpoint: too few lines")
	}
	origin = strings.TrimSuffix(lines[0], "\n")
	sizeText := strings.TrimSuffix(lines[1], "\n")
	rootText := strings.TrimSuffix(lines[2], "\n")
	if origin != v.Name() {
		return "", 0, tlog.Hash{}, fmt.Errorf("ipreg: checkpoint origin %q does not match key name %q", origin, v.Name())
	}
	// C2SP: decimal without leading zeros.
	size, err = strconv.ParseInt(sizeText, 10, 64)
	if err != nil || size < 0 || strconv.FormatInt(size, 10) != sizeText {
		return "", 0, tlog.Hash{}, fmt.Errorf("ipreg: malformed checkpoint tree size %q", sizeText)
	}
	rootBytes, err := base64.StdEncoding.Strict().DecodeString(rootText)
	if err != nil || len(rootBytes) != tlog.HashSize {
		return "", 0, tlog.Hash{}, fmt.Errorf("ipreg: malformed checkpoint root hash %q", rootText)
	}
	copy(root[:], rootBytes)
	return origin, size, root, nil
}

// AppendHashes computes the hashes to store when appending leafData (each
// element is a record's canonical bytes) to a log that currently holds n
// records. The result must be stored at consecutive storage indexes starting
// at tlog.StoredHashIndex(0, n); the stored hash count then equals
// tlog.StoredHashCount(n+len(leafData)).
//
// r need only serve the hashes of the first n records; hashes produced for
// earlier records of the same batch are served from memory, so a whole batch
// can be computed before anything is written.
//
// Appends must be serialised (one sequencer, or a lock on the log size):
// two batches computed against the same n would claim the same indexes.
func AppendHashes(n int64, leafData [][]byte, r tlog.HashReader) ([]tlog.Hash, error) {
	if n < 0 {
		return nil, fmt.Errorf("ipreg: negative log size %d", n)
	}
	var out []tlog.Hash
	ov := Overlay(r, n, nil)
	for i, data := range leafData {
		hs, err := tlog.StoredHashes(n+int64(i), data, ov)
		if err != nil {
			return nil, fmt.Errorf("ipreg: hashing record %d: %w", n+int64(i), err)
		}
		out = append(out, hs...)
		ov = Overlay(r, n, out)
	}
	return out, nil
}

// Overlay returns a HashReader that serves pending (the output of
// AppendHashes for a log of n records) from memory and everything below
// tlog.StoredHashIndex(0, n) from base. It lets a sequencer compute the new
// tree hash and proofs before its writes are visible.
func Overlay(base tlog.HashReader, n int64, pending []tlog.Hash) tlog.HashReader {
	start := tlog.StoredHashIndex(0, n)
	return tlog.HashReaderFunc(func(indexes []int64) ([]tlog.Hash, error) {
		out := make([]tlog.Hash, len(indexes))
		var baseIdx []int64
		var basePos []int
		for i, idx := range indexes {
			switch {
			case idx < 0:
				return nil, fmt.Errorf("ipreg: negative hash index %d", idx)
			case idx < start:
				baseIdx = append(baseIdx, idx)
				basePos = append(basePos, i)
			case idx-start < int64(len(pending)):
				out[i] = pending[idx-start]
			default:
				return nil, fmt.Errorf("ipreg: hash index %d not yet stored", idx)
			}
		}
		if len(baseIdx) > 0 {
			hs, err := base.ReadHashes(baseIdx)
			if err != nil {
				return nil, err
			}
			if len(hs) != len(baseIdx) {
				return nil, fmt.Errorf("ipreg: ReadHashes returned %d hashes for %d indexes", len(hs), len(baseIdx))
			}
			for j, p := range basePos {
				out[p] = hs[j]
			}
		}
		return out, nil
	})
}

// TreeHash returns the RFC 6962 root hash of the first size records.
func TreeHash(size int64, r tlog.HashReader) (tlog.Hash, error) {
	if size < 0 {
		return tlog.Hash{}, fmt.Errorf("ipreg: negative tree size %d", size)
	}
	return tlog.TreeHash(size, r)
}

// InclusionProof proves that record index is in the tree of the given size.
func InclusionProof(size, index int64, r tlog.HashReader) (tlog.RecordProof, error) {
	if index < 0 || index >= size {
		return nil, fmt.Errorf("ipreg: record %d is not in a tree of size %d", index, size)
	}
	return tlog.ProveRecord(size, index, r)
}

// ConsistencyProof proves that the tree of size from is a prefix of the
// tree of size to, i.e. that the log only ever appended. Verify it with
// tlog.CheckTree(proof, to, toRoot, from, fromRoot).
func ConsistencyProof(from, to int64, r tlog.HashReader) (tlog.TreeProof, error) {
	if from < 1 || from > to {
		return nil, fmt.Errorf("ipreg: no consistency proof from size %d to %d", from, to)
	}
	return tlog.ProveTree(to, from, r)
}
