package ipreg

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"filippo.io/torchwood"
	"golang.org/x/mod/sumdb/tlog"

	"github.com/creativeops/creativeops/ent"
	"github.com/creativeops/creativeops/internal/testdb"
	"github.com/creativeops/creativeops/internal/testwitness"
	"github.com/creativeops/creativeops/secrets"
)

// memWitnessLog is an in-memory log for the witness client: the fork a
// test signs with the real log's keys.
type memWitnessLog struct{ l *testLog }

func (m memWitnessLog) head(context.Context) (int64, []byte, error) {
	return m.l.size(), m.l.checkpoint(), nil
}

func (m memWitnessLog) prove(_ context.Context, old, size int64) (tlog.TreeProof, error) {
	return ConsistencyProof(old, size, &m.l.store)
}

func (memWitnessLog) cosigned(context.Context) (map[string]int64, error) { return nil, nil }

func (memWitnessLog) store(context.Context, string, int64, []byte, []byte) error { return nil }

// failures records OnFailure calls.
type failures struct {
	mu  sync.Mutex
	got []string
}

func (f *failures) add(witness, reason string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.got = append(f.got, witness+" "+reason)
}

func (f *failures) list() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.got...)
}

// countingProxy forwards to target and counts the requests.
func countingProxy(t *testing.T, target string) (*httptest.Server, *atomic.Int64) {
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	var n atomic.Int64
	proxy := httputil.NewSingleHostReverseProxy(u)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv, &n
}

func newTestWitnessKey(t *testing.T, name string) string {
	pub, _, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	v, err := torchwood.NewCosignatureVerifierFromKey(name, pub)
	if err != nil {
		t.Fatal(err)
	}
	return v.String()
}

// TestWitnessLitewitness runs the registry against litewitness, the
// reference witness: every checkpoint is cosigned (the second with a
// consistency proof from the first), certificates carry the cosignature,
// and a fork of the log (other entries signed with the same keys) is
// refused by the witness, counted once as a fork, logged at ERROR and
// never submitted again, while the real log goes on being cosigned.
func TestWitnessLitewitness(t *testing.T) {
	lw := testwitness.Start(t, "witness.test/litewitness")
	keyring, err := secrets.NewKeyring(secrets.GenerateKey())
	if err != nil {
		t.Fatal(err)
	}
	r := openRegistryOn(t, testdb.SQLiteURL(t), keyring, func([]*ent.Event) error { return nil })
	lw.AddLog(t, r.keys.Origin(), r.keys.VerifierKey())
	wt, err := ParseWitness(lw.VerifierKey + "@" + lw.URL)
	if err != nil {
		t.Fatal(err)
	}
	var fails failures
	if err := r.StartWitnesses(t.Context(), WitnessOptions{Witnesses: []Witness{wt}, OnFailure: fails.add, Poll: 100 * time.Millisecond}); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	register := func(title string) *Work {
		t.Helper()
		w, err := r.Register(ctx, Registration{OrganizationID: "org_w", CreatorID: "cr_w", Title: title, Type: "song",
			ContentHash: contentOf(title)})
		if err != nil {
			t.Fatal(err)
		}
		return w
	}
	waitCosigned := func(size int64) {
		t.Helper()
		deadline := time.Now().Add(30 * time.Second)
		for {
			st := r.WitnessStatuses()
			if len(st) == 1 && st[0].CosignedSize >= size {
				if st[0].Status != WitnessStatusOK {
					t.Fatalf("status %+v", st[0])
				}
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("witness did not cosign size %d: %+v; failures %v", size, st, fails.list())
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	certificate := func(w *Work) Bundle {
		t.Helper()
		b, err := r.Certificate(ctx, w)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Verify(b, nil); err != nil {
			t.Fatal(err)
		}
		return b
	}

	first := register("one")
	register("two")
	waitCosigned(2)
	b := certificate(first)
	if c := CheckCosignatures(b.Checkpoint, []string{lw.VerifierKey}, 1); !c.OK || b.TreeSize != 2 {
		t.Fatalf("tree size %d, cosignatures: %+v\n%s", b.TreeSize, c, b.Checkpoint)
	}
	third := register("three")
	register("four")
	waitCosigned(4)
	if got := lw.TreeSize(t, r.keys.Origin()); got != 4 {
		t.Fatalf("litewitness has tree size %d, want 4", got)
	}
	for _, w := range []*Work{first, third} {
		b := certificate(w)
		if c := CheckCosignatures(b.Checkpoint, []string{lw.VerifierKey}, 1); !c.OK || b.TreeSize != 4 {
			t.Fatalf("%s: tree size %d, cosignatures: %+v", w.Title, b.TreeSize, c)
		}
		other := newTestWitnessKey(t, "witness.test/other")
		if c := CheckCosignatures(b.Checkpoint, []string{lw.VerifierKey, other}, 2); c.OK {
			t.Fatalf("two witnesses required, one cosigned: %+v", c)
		}
		if c := CheckCosignatures(b.Checkpoint, []string{other}, 1); c.OK {
			t.Fatalf("a witness that did not cosign counted: %+v", c)
		}
		// A cosignature over another checkpoint text does not verify.
		forged := strings.Replace(b.Checkpoint, "\n4\n", "\n5\n", 1)
		if c := CheckCosignatures(forged, []string{lw.VerifierKey}, 1); c.OK {
			t.Fatalf("cosignature verified on an altered checkpoint: %+v", c)
		}
	}
	if got := fails.list(); len(got) != 0 {
		t.Fatalf("failures: %v", got)
	}

	// Forks: logs with the same origin and key but other entries, one
	// larger than the witnessed tree (its proof from size 4 is refused)
	// and one smaller (the witness knows a tree it does not have).
	for _, n := range []int{6, 3} {
		t.Run(fmt.Sprintf("fork of %d entries", n), func(t *testing.T) {
			fork := newTestLog(t, r.keys)
			for i := range n {
				fork.append([]byte(fmt.Sprintf("forged entry %d", i)))
			}
			proxy, requests := countingProxy(t, lw.URL)
			fwt, err := ParseWitness(lw.VerifierKey + "@" + proxy.URL)
			if err != nil {
				t.Fatal(err)
			}
			var logged bytes.Buffer
			var fforks failures
			w := newWitnessing(slog.New(slog.NewTextHandler(&logged, nil)), memWitnessLog{fork}, WitnessOptions{Witnesses: []Witness{fwt}, OnFailure: fforks.add})
			w.round(ctx)
			if got, want := fforks.list(), []string{lw.Name + " fork"}; fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("failures %v, want %v\nlog: %s", got, want, logged.String())
			}
			if st := w.statuses()[0]; st.Status != WitnessStatusFork || st.CosignedSize != 0 {
				t.Fatalf("status %+v", st)
			}
			if !strings.Contains(logged.String(), "level=ERROR") || !strings.Contains(logged.String(), "fork") {
				t.Fatalf("no ERROR log of the fork: %s", logged.String())
			}
			sent := requests.Load()
			if sent == 0 || sent > 2 {
				t.Fatalf("%d requests for one round", sent)
			}
			// More checkpoints of the fork: the witness is not contacted
			// again, nor is the fork counted again.
			for i := range 3 {
				fork.append([]byte(fmt.Sprintf("later forged entry %d", i)))
				w.notify()
				w.round(ctx)
			}
			if requests.Load() != sent || len(fforks.list()) != 1 {
				t.Fatalf("after a fork: %d requests (was %d), failures %v", requests.Load(), sent, fforks.list())
			}
			if got := lw.TreeSize(t, r.keys.Origin()); got != 4 {
				t.Fatalf("litewitness moved to the fork: tree size %d", got)
			}
		})
	}

	// The real log goes on being cosigned.
	fifth := register("five")
	waitCosigned(5)
	if b := certificate(fifth); !CheckCosignatures(b.Checkpoint, []string{lw.VerifierKey}, 1).OK || b.TreeSize != 5 {
		t.Fatalf("tree size %d:\n%s", b.TreeSize, b.Checkpoint)
	}
	if got := fails.list(); len(got) != 0 {
		t.Fatalf("failures: %v", got)
	}
}

// contentOf is the content hash of a text.
func contentOf(text string) string {
	sum := sha256.Sum256([]byte(text))
	return "sha256:" + hex.EncodeToString(sum[:])
}

// TestWitnessUnreachable: a witness that does not answer is counted and
// logged at WARN, and retried only after a backoff, not at every round.
func TestWitnessUnreachable(t *testing.T) {
	keys, _ := testKeys(t)
	l := newTestLog(t, keys)
	l.append([]byte("entry"))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens there now
	wt, err := ParseWitness(newTestWitnessKey(t, "witness.test/down") + "@http://" + addr)
	if err != nil {
		t.Fatal(err)
	}
	var logged bytes.Buffer
	var fails failures
	w := newWitnessing(slog.New(slog.NewTextHandler(&logged, nil)), memWitnessLog{l}, WitnessOptions{Witnesses: []Witness{wt}, OnFailure: fails.add})
	next := w.round(context.Background())
	if got := fails.list(); len(got) != 1 || got[0] != "witness.test/down unreachable" {
		t.Fatalf("failures %v", got)
	}
	if next > time.Second || next <= 0 {
		t.Fatalf("next round in %s, want the 1 s backoff", next)
	}
	if !strings.Contains(logged.String(), "level=WARN") {
		t.Fatalf("not logged at WARN: %s", logged.String())
	}
	w.round(context.Background())
	if got := fails.list(); len(got) != 1 {
		t.Fatalf("retried during the backoff: %v", got)
	}
	if st := w.statuses()[0]; st.Status != WitnessUnreachable || st.Detail == "" {
		t.Fatalf("status %+v", st)
	}
}

func TestParseWitness(t *testing.T) {
	key := newTestWitnessKey(t, "witness.example/w")
	w, err := ParseWitness(key + "@https://witness.example/prefix/")
	if err != nil || w.URL != "https://witness.example/prefix" || w.Name() != "witness.example/w" {
		t.Fatalf("%+v %v", w, err)
	}
	keys, _ := testKeys(t)
	for _, bad := range []string{
		"", key, "@https://witness.example", key + "@", key + "@ftp://witness.example", key + "@https://",
		"nokey@https://witness.example", keys.VerifierKey() + "@https://witness.example", // a log key, not a cosignature key
	} {
		if _, err := ParseWitness(bad); err == nil {
			t.Errorf("ParseWitness(%q) accepted", bad)
		}
	}
}

// TestWitnessTwoReplicas: two registries on one database (replicas) submit
// to one witness; they do not fight: no failure is counted, the witness
// follows the log, and both serve certificates with its cosignature. On
// PostgreSQL too, where replicas append to one log in turn.
func TestWitnessTwoReplicas(t *testing.T) {
	for _, b := range testdb.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			lw := testwitness.Start(t, "witness.test/replicas")
			url := b.URL(t)
			keyring, err := secrets.NewKeyring(secrets.GenerateKey())
			if err != nil {
				t.Fatal(err)
			}
			var regs []*Registry
			var fails failures
			for i := range 2 {
				r := openRegistryOn(t, url, keyring, func([]*ent.Event) error { return nil })
				if i == 0 {
					lw.AddLog(t, r.keys.Origin(), r.keys.VerifierKey())
				}
				wt, err := ParseWitness(lw.VerifierKey + "@" + lw.URL)
				if err != nil {
					t.Fatal(err)
				}
				if err := r.StartWitnesses(t.Context(), WitnessOptions{Witnesses: []Witness{wt}, OnFailure: fails.add, Poll: 50 * time.Millisecond}); err != nil {
					t.Fatal(err)
				}
				regs = append(regs, r)
			}
			const each = 8
			var works []*Work
			for j := range each {
				for i, r := range regs {
					w, err := r.Register(context.Background(), Registration{OrganizationID: "org_r", CreatorID: "cr_r", Title: fmt.Sprintf("r%d-%d", i, j), Type: "song", ContentHash: contentOf(fmt.Sprintf("r%d-%d", i, j))})
					if err != nil {
						t.Fatal(err)
					}
					works = append(works, w)
				}
			}
			origin := regs[0].keys.Origin()
			for deadline := time.Now().Add(30 * time.Second); lw.TreeSize(t, origin) < 2*each; time.Sleep(20 * time.Millisecond) {
				if time.Now().After(deadline) {
					t.Fatalf("witness at %d of %d; failures %v", lw.TreeSize(t, origin), 2*each, fails.list())
				}
			}
			for i, r := range regs {
				// The witness holds the tree before the replica that
				// submitted it has stored the cosignature: wait for that.
				for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
					b, err := r.Certificate(context.Background(), works[0])
					if err != nil {
						t.Fatal(err)
					}
					c := CheckCosignatures(b.Checkpoint, []string{lw.VerifierKey}, 1)
					if c.OK && b.TreeSize == 2*each {
						break
					}
					if time.Now().After(deadline) {
						t.Fatalf("replica %d: tree size %d, %+v", i, b.TreeSize, c)
					}
				}
			}
			if got := fails.list(); len(got) != 0 {
				t.Fatalf("failures: %v", got)
			}
		})
	}
}

// TestCosignedCheckpointChoice: a certificate carries the cosigned
// checkpoint when it covers the record, else the latest one; a stored
// cosignature is never replaced by one of a smaller tree (a replica
// behind another).
func TestCosignedCheckpointChoice(t *testing.T) {
	keyring, err := secrets.NewKeyring(secrets.GenerateKey())
	if err != nil {
		t.Fatal(err)
	}
	r := openRegistryOn(t, testdb.SQLiteURL(t), keyring, func([]*ent.Event) error { return nil })
	ctx := context.Background()
	var works []*Work
	var checkpoints [][]byte
	src := &registryLog{r: r, origin: r.keys.Origin()}
	for i := range 3 {
		w, err := r.Register(ctx, Registration{OrganizationID: "org_c", CreatorID: "cr_c", Title: fmt.Sprint(i), Type: "song", ContentHash: contentOf(fmt.Sprint("c", i))})
		if err != nil {
			t.Fatal(err)
		}
		works = append(works, w)
		_, cp, err := src.head(ctx)
		if err != nil {
			t.Fatal(err)
		}
		checkpoints = append(checkpoints, cp)
	}
	line := []byte("— witness.test/fake AAAAAAAAAAAAAAAA\n")
	if err := src.store(ctx, "witness.test/fake+00000000+AA", 2, checkpoints[1], line); err != nil {
		t.Fatal(err)
	}
	if err := src.store(ctx, "witness.test/fake+00000000+AA", 1, checkpoints[0], line); err != nil {
		t.Fatal(err)
	}
	if got, err := src.cosigned(ctx); err != nil || got["witness.test/fake+00000000+AA"] != 2 {
		t.Fatalf("stored sizes %v, %v: want 2 kept", got, err)
	}
	for i, want := range []int64{2, 2, 3} {
		b, err := r.Certificate(ctx, works[i])
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Verify(b, nil); err != nil {
			t.Fatalf("record %d: %v", i, err)
		}
		if cosigned := strings.HasSuffix(b.Checkpoint, string(line)); b.TreeSize != want || cosigned != (want == 2) {
			t.Fatalf("record %d: tree size %d (want %d), checkpoint:\n%s", i, b.TreeSize, want, b.Checkpoint)
		}
	}
}
