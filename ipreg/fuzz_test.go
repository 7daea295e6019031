package ipreg

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// Content hashes: accepted spellings normalise to "sha256:" and 64
// lowercase hex digits, normalising is idempotent and ignores letter case;
// anything else is an error and no hash.
func FuzzNormalizeContentHash(f *testing.F) {
	hexHash := "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"
	for _, seed := range []string{
		hexHash, "sha256:" + hexHash, "SHA256:" + strings.ToUpper(hexHash), "md5:" + hexHash,
		"sha256:" + hexHash[:63], "sha256:" + hexHash + "0", ":" + hexHash, "", "sha256:", "sha256:" + strings.Repeat("g", 64),
		"sha256:" + hexHash[:62] + "\xff\xfe", strings.Repeat("\x00", 64),
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := NormalizeContentHash(s)
		if err != nil {
			if got != "" {
				t.Fatalf("%q: error %v with result %q", s, err, got)
			}
			return
		}
		digits, ok := strings.CutPrefix(got, contentHashPrefix)
		if !ok || len(digits) != 64 || strings.Trim(digits, "0123456789abcdef") != "" {
			t.Fatalf("%q normalised to %q", s, got)
		}
		if again, err := NormalizeContentHash(got); err != nil || again != got {
			t.Fatalf("normalising %q again gave %q, %v", got, again, err)
		}
		if upper, err := NormalizeContentHash(strings.ToUpper(s)); err != nil || upper != got {
			t.Fatalf("%q in upper case normalised to %q, %v", s, upper, err)
		}
	})
}

// Certificate bundles: any bytes either fail to parse or verify to a
// report; the error is set exactly when a check failed; a bundle that
// verifies against a work carries that work's hash, verifies the same after
// a JSON round trip, and stops verifying against a different work.
func FuzzVerifyBundle(f *testing.F) {
	// A valid bundle is committed in testdata/fuzz/FuzzVerifyBundle (made
	// by TestWriteBundleSeed); these are shapes around it.
	f.Add([]byte(`{}`), []byte(nil))
	f.Add([]byte(`{"format":"creativeops/certificate/v1","record":"e30=","log_index":-1,"tree_size":0}`), []byte("x"))
	f.Add([]byte(`{"format":"creativeops/certificate/v1","inclusion_proof":["AAAA"],"log_index":5,"tree_size":2}`), []byte(nil))
	f.Add([]byte(`{"checkpoint":"origin\n1\nAAAA\n\n— key sig\n","log_verifier_key":"k+1+AAAA"}`), []byte(nil))
	f.Add([]byte(`not json`), []byte("work"))
	f.Fuzz(func(t *testing.T, data, work []byte) {
		b, err := ParseBundle(data)
		if err != nil {
			return
		}
		rep, err := Verify(b, work)
		if (err == nil) != rep.OK || rep.OK != (len(rep.Failed()) == 0) {
			t.Fatalf("error %v, report ok=%v, failed %v", err, rep.OK, rep.Failed())
		}
		if !rep.OK {
			return
		}
		if work != nil {
			sum := sha256.Sum256(work)
			if want := "sha256:" + hex.EncodeToString(sum[:]); b.ContentHash != want {
				t.Fatalf("verified against a work whose hash %s is not the bundle's %s", want, b.ContentHash)
			}
			if rep, err := Verify(b, append(bytes.Clone(work), 0)); err == nil || rep.OK {
				t.Fatal("verified against a different work")
			}
		}
		again, err := MarshalBundle(b)
		if err != nil {
			t.Fatal(err)
		}
		b2, err := ParseBundle(again)
		if err != nil {
			t.Fatalf("re-parsing a verified bundle: %v", err)
		}
		if rep, err := Verify(b2, work); err != nil || !rep.OK {
			t.Fatalf("a verified bundle fails after a JSON round trip: %v", err)
		}
	})
}

// TestWriteBundleSeed regenerates the valid bundle of FuzzVerifyBundle's
// seed corpus when CREATIVEOPS_WRITE_FUZZ_SEEDS is set.
func TestWriteBundleSeed(t *testing.T) {
	if os.Getenv("CREATIVEOPS_WRITE_FUZZ_SEEDS") == "" {
		t.Skip("set CREATIVEOPS_WRITE_FUZZ_SEEDS=1 to rewrite testdata/fuzz/FuzzVerifyBundle/valid")
	}
	k, _ := testKeys(t)
	reg := issueAll(t, k, newTestLog(t, k), stampAt(), "a", "the work")[1]
	data, err := MarshalBundle(reg.bundle)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Verify(reg.bundle, reg.work); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join("testdata", "fuzz", "FuzzVerifyBundle")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	seed := fmt.Sprintf("go test fuzz v1\n[]byte(%s)\n[]byte(%s)\n", strconv.Quote(string(data)), strconv.Quote(string(reg.work)))
	if err := os.WriteFile(filepath.Join(dir, "valid"), []byte(seed), 0o644); err != nil {
		t.Fatal(err)
	}
}
