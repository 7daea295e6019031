package ipreg

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/big"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/mod/sumdb/tlog"
)

// issued is one registration as the service would produce it.
type issued struct {
	rec    Record
	work   []byte
	token  []byte
	index  int64
	bundle Bundle
}

// issueAll runs the whole pipeline for several works on log: timestamp each
// canonical record, append them as one batch, sign one checkpoint, prove
// each record against it.
func issueAll(t *testing.T, keys *Keys, log *testLog, at time.Time, works ...string) []issued {
	t.Helper()
	var out []issued
	var batch [][]byte
	for i, w := range works {
		sum := sha256.Sum256([]byte(w))
		rec := Record{
			ID:             fmt.Sprintf("rec-%d-%d", log.size(), i),
			OrganizationID: "org-1",
			CreatorID:      "user-7",
			Title:          "Work " + w,
			Type:           "text",
			ContentHash:    "sha256:" + hex.EncodeToString(sum[:]),
			Description:    "registered in a test",
			Timestamp:      at,
			CertificateID:  fmt.Sprintf("cert-%d-%d", log.size(), i),
		}
		data := CanonicalBytes(rec)
		tok, err := keys.Timestamp(sha256.Sum256(data), big.NewInt(log.size()+int64(i)+1), rec.Timestamp)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, issued{rec: rec, work: []byte(w), token: tok})
		batch = append(batch, data)
	}
	first := log.append(batch...)
	cp := log.checkpoint()
	for i := range out {
		out[i].index = first + int64(i)
		proof, err := InclusionProof(log.size(), out[i].index, &log.store)
		if err != nil {
			t.Fatal(err)
		}
		out[i].bundle = NewBundle(keys, out[i].rec, out[i].token, out[i].index, log.size(), proof, cp)
	}
	return out
}

func TestVerifyBundle(t *testing.T) {
	k, other := testKeys(t)
	at := stampAt()

	log := newTestLog(t, k)
	issueAll(t, k, log, at, "a", "b", "c") // earlier history
	regs := issueAll(t, k, log, at, "subject", "neighbour", "third")
	issueAll(t, k, log, at, "later") // the subject's checkpoint is not the latest
	subject, neighbour := regs[0], regs[1]
	good := subject.bundle

	// A complete, self-consistent deployment run by someone else.
	otherLog := newTestLog(t, other)
	forged := issueAll(t, other, otherLog, at, "subject")[0]

	otherTSAToken, err := other.Timestamp(sha256.Sum256(good.Record), big.NewInt(1), at)
	if err != nil {
		t.Fatal(err)
	}
	lateToken, err := k.Timestamp(sha256.Sum256(good.Record), big.NewInt(1), at.Add(time.Minute))
	if err != nil {
		t.Fatal(err)
	}

	edited := subject.rec
	edited.Title = "Stolen title"
	editedBytes := CanonicalBytes(edited)

	allTimestamp := []string{CheckTimestampToken, CheckTimestampImprint, CheckTimestampTime}
	cases := []struct {
		name   string
		mutate func(b *Bundle)
		work   []byte
		failed []string
	}{
		{name: "valid with work", work: subject.work},
		{name: "valid without work"},
		{name: "wrong work file", work: []byte("something else"), failed: []string{CheckWorkHash}},
		{name: "neighbour's work file", work: neighbour.work, failed: []string{CheckWorkHash}},
		{name: "title changed in record bytes", work: subject.work,
			mutate: func(b *Bundle) { b.Record = editedBytes },
			failed: []string{CheckRecord, CheckTimestampImprint, CheckLogInclusion}},
		{name: "title changed in record bytes and display",
			mutate: func(b *Bundle) { b.Record = editedBytes; b.Title = edited.Title },
			failed: []string{CheckTimestampImprint, CheckLogInclusion}},
		{name: "displayed title changed",
			mutate: func(b *Bundle) { b.Title = edited.Title },
			failed: []string{CheckRecord}},
		{name: "displayed timestamp changed",
			mutate: func(b *Bundle) { b.Timestamp = b.Timestamp.Add(-24 * time.Hour) },
			failed: []string{CheckRecord}},
		{name: "record bytes not canonical",
			mutate: func(b *Bundle) { b.Record = append([]byte(" "), b.Record...) },
			failed: []string{CheckRecord, CheckContentHash, CheckTimestampImprint, CheckTimestampTime, CheckLogInclusion}},
		{name: "displayed content hash changed", work: subject.work,
			mutate: func(b *Bundle) { b.ContentHash = neighbour.rec.ContentHash },
			failed: []string{CheckContentHash}},
		{name: "flipped inclusion proof byte",
			mutate: func(b *Bundle) { b.InclusionProof = slices.Clone(b.InclusionProof); b.InclusionProof[0][7] ^= 0x10 },
			failed: []string{CheckLogInclusion}},
		{name: "truncated inclusion proof",
			mutate: func(b *Bundle) { b.InclusionProof = b.InclusionProof[:len(b.InclusionProof)-1] },
			failed: []string{CheckLogInclusion}},
		{name: "neighbour's log index",
			mutate: func(b *Bundle) { b.LogIndex = neighbour.index },
			failed: []string{CheckLogInclusion}},
		{name: "neighbour's proof",
			mutate: func(b *Bundle) { b.InclusionProof = neighbour.bundle.InclusionProof },
			failed: []string{CheckLogInclusion}},
		{name: "tree size disagrees with checkpoint",
			mutate: func(b *Bundle) { b.TreeSize++ },
			failed: []string{CheckLogInclusion}},
		{name: "wrong verifier key",
			mutate: func(b *Bundle) { b.LogVerifierKey = other.VerifierKey() },
			failed: []string{CheckCheckpointSignature, CheckLogInclusion}},
		{name: "checkpoint size edited",
			mutate: func(b *Bundle) {
				b.Checkpoint = strings.Replace(b.Checkpoint, fmt.Sprintf("\n%d\n", b.TreeSize), fmt.Sprintf("\n%d\n", b.TreeSize+1), 1)
			},
			failed: []string{CheckCheckpointSignature, CheckLogInclusion}},
		{name: "other log's checkpoint and key",
			mutate: func(b *Bundle) { b.Checkpoint, b.LogVerifierKey = forged.bundle.Checkpoint, other.VerifierKey() },
			failed: []string{CheckLogInclusion}},
		{name: "swapped token",
			mutate: func(b *Bundle) { b.Token = neighbour.token },
			failed: []string{CheckTimestampImprint}},
		{name: "token for a different time",
			mutate: func(b *Bundle) { b.Token = lateToken },
			failed: []string{CheckTimestampTime}},
		{name: "token from another TSA",
			mutate: func(b *Bundle) { b.Token = otherTSAToken },
			failed: allTimestamp},
		{name: "other TSA root",
			mutate: func(b *Bundle) { b.TSARootPEM = string(other.RootPEM()) },
			failed: allTimestamp},
		{name: "garbage token",
			mutate: func(b *Bundle) { b.Token = []byte("garbage") },
			failed: allTimestamp},
		{name: "policy OID changed",
			mutate: func(b *Bundle) { b.TSAPolicyOID = "1.2.3.4" },
			failed: allTimestamp},
		{name: "unknown format",
			mutate: func(b *Bundle) { b.Format = "creativeops/certificate/v0" },
			failed: []string{CheckFormat}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			b := good
			if tc.mutate != nil {
				tc.mutate(&b)
			}
			rep, err := Verify(b, tc.work)
			assertFailed(t, rep, err, tc.failed)

			// The same must survive the JSON the user actually downloads.
			data, err := MarshalBundle(b)
			if err != nil {
				t.Fatal(err)
			}
			b2, err := ParseBundle(data)
			if err != nil {
				t.Fatal(err)
			}
			rep2, err2 := Verify(b2, tc.work)
			assertFailed(t, rep2, err2, tc.failed)
		})
	}

	// Every registration in the log verifies, and the full set of checks runs.
	rep, err := Verify(neighbour.bundle, neighbour.work)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, c := range rep.Checks {
		names = append(names, c.Name)
	}
	want := []string{CheckFormat, CheckWorkHash, CheckRecord, CheckContentHash, CheckTimestampToken,
		CheckTimestampImprint, CheckTimestampTime, CheckCheckpointSignature, CheckLogInclusion}
	if !slices.Equal(names, want) {
		t.Errorf("checks = %v, want %v", names, want)
	}
	if c, _ := rep.Check(CheckWorkHash); c.Skipped {
		t.Error("work_hash skipped although work was given")
	}
	rep, _ = Verify(good, nil)
	if c, ok := rep.Check(CheckWorkHash); !ok || !c.Skipped || !c.OK {
		t.Errorf("work_hash without work = %+v", c)
	}
}

func TestVerifyPinned(t *testing.T) {
	k, other := testKeys(t)
	at := stampAt()
	mine := issueAll(t, k, newTestLog(t, k), at, "work")[0]
	forged := issueAll(t, other, newTestLog(t, other), at, "work")[0]
	pin := TrustAnchors{TSARootPEM: string(k.RootPEM()), LogVerifierKey: k.VerifierKey()}

	// A forger's self-consistent bundle passes the unpinned checks: that is
	// exactly why pinning exists.
	rep, err := Verify(forged.bundle, forged.work)
	assertFailed(t, rep, err, nil)

	rep, err = VerifyPinned(mine.bundle, mine.work, pin)
	assertFailed(t, rep, err, nil)
	if _, ok := rep.Check(CheckTrustAnchors); !ok {
		t.Error("VerifyPinned did not report trust_anchors")
	}
	rep, err = VerifyPinned(forged.bundle, forged.work, pin)
	assertFailed(t, rep, err, []string{CheckTrustAnchors})

	// Another log's genuine checkpoint does not contain this record, and
	// pinning independently flags the foreign key.
	otherTree := issueAll(t, other, newTestLog(t, other), at, "x", "y")[0]
	mixed := mine.bundle
	mixed.LogVerifierKey = other.VerifierKey()
	mixed.Checkpoint = otherTree.bundle.Checkpoint
	mixed.TreeSize = otherTree.bundle.TreeSize
	rep, err = VerifyPinned(mixed, nil, TrustAnchors{TSARootPEM: pin.TSARootPEM + "\n", LogVerifierKey: pin.LogVerifierKey})
	assertFailed(t, rep, err, []string{CheckLogInclusion, CheckTrustAnchors})
}

func assertFailed(t *testing.T, rep Report, err error, want []string) {
	t.Helper()
	got := rep.Failed()
	if !slices.Equal(got, want) {
		t.Errorf("failed checks = %v, want %v\nreport: %s", got, want, reportText(rep))
	}
	if (err == nil) != (len(want) == 0) || rep.OK != (len(want) == 0) {
		t.Errorf("err = %v, OK = %v with failed %v", err, rep.OK, got)
	}
	for _, name := range want {
		if err != nil && !strings.Contains(err.Error(), name) {
			t.Errorf("error %q does not name %s", err, name)
		}
		if c, _ := rep.Check(name); c.Detail == "" {
			t.Errorf("failed check %s has no detail", name)
		}
	}
}

func reportText(rep Report) string {
	var sb strings.Builder
	for _, c := range rep.Checks {
		fmt.Fprintf(&sb, "  %-22s ok=%-5v %s\n", c.Name, c.OK, c.Detail)
	}
	return sb.String()
}

func TestBundleJSONShape(t *testing.T) {
	k, _ := testKeys(t)
	reg := issueAll(t, k, newTestLog(t, k), stampAt(), "w1", "w2", "w3")[2]
	data, err := MarshalBundle(reg.bundle)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{"format", "record", "id", "organization_id", "creator_id", "title", "type",
		"description", "timestamp", "certificate_id", "content_hash", "token", "log_index", "tree_size",
		"inclusion_proof", "checkpoint", "log_verifier_key", "tsa_root_pem", "tsa_policy_oid"} {
		if _, ok := m[key]; !ok {
			t.Errorf("bundle JSON lacks %q", key)
		}
	}
	if len(m) != 19 {
		t.Errorf("bundle JSON has %d members, want 19", len(m))
	}
	var proof []string
	if err := json.Unmarshal(m["inclusion_proof"], &proof); err != nil || len(proof) != len(reg.bundle.InclusionProof) {
		t.Fatalf("inclusion_proof is not an array of strings: %s", m["inclusion_proof"])
	}
	for i, s := range proof {
		h, err := tlog.ParseHash(s)
		if err != nil || h != reg.bundle.InclusionProof[i] {
			t.Errorf("inclusion_proof[%d] = %q is not the base64 hash", i, s)
		}
	}
	var rec string
	if err := json.Unmarshal(m["record"], &rec); err != nil || rec != encodeStd(reg.bundle.Record) {
		t.Errorf("record is not base64 of the canonical bytes: %s", m["record"])
	}
	if _, err := ParseBundle(append(data[:len(data)-1], []byte(`,"surprise":1}`)...)); err == nil {
		t.Error("ParseBundle accepted an unknown member")
	}
}
