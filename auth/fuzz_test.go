package auth

import (
	"strings"
	"testing"
)

// A key is well formed only with the prefix, 38 base62 characters and the
// right checksum: changing any one byte of a well-formed key makes it
// malformed, so typos are caught before a database lookup.
func FuzzWellFormed(f *testing.F) {
	for range 4 {
		k, err := NewKey()
		if err != nil {
			f.Fatal(err)
		}
		f.Add(k, uint(0), byte('x'))
	}
	f.Add("co_live_", uint(3), byte(0))
	f.Add("co_live_"+strings.Repeat("0", 38), uint(10), byte('1'))
	f.Add("Bearer co_live_abc", uint(100), byte(0xff))
	f.Add("co_live_\xff\xfe", uint(8), byte('A'))
	f.Fuzz(func(t *testing.T, key string, pos uint, b byte) {
		if !WellFormed(key) {
			return
		}
		if len(key) != keyLen || !strings.HasPrefix(key, KeyPrefix) {
			t.Fatalf("%q accepted with the wrong shape", key)
		}
		if p := DisplayPrefix(key); !strings.HasPrefix(key, p) || len(p) >= len(key)-checksumLen {
			t.Fatalf("display prefix %q shows too much of %q", p, key)
		}
		if len(Hash(key)) != 64 {
			t.Fatalf("hash %q", Hash(key))
		}
		i := int(pos % uint(len(key)))
		if key[i] == b {
			return
		}
		changed := key[:i] + string([]byte{b}) + key[i+1:]
		if WellFormed(changed) {
			t.Fatalf("%q and %q, one byte apart, are both well formed", key, changed)
		}
	})
}

// Every fresh key is well formed (a few at each fuzz input, so the
// generator's randomness is exercised alongside the checker).
func FuzzNewKeyWellFormed(f *testing.F) {
	f.Add(uint8(1))
	f.Fuzz(func(t *testing.T, n uint8) {
		for range n%4 + 1 {
			k, err := NewKey()
			if err != nil {
				t.Fatal(err)
			}
			if !WellFormed(k) {
				t.Fatalf("fresh key %q is not well formed", k)
			}
		}
	})
}
