package ipreg

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"math/big"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// stampAt is a fixed, whole-second time inside the test keys' validity and
// distinct from the moment of signing, so its encoding is easy to find.
func stampAt() time.Time { return time.Now().UTC().Add(-10 * time.Minute).Truncate(time.Second) }

func TestTimestampVerifyToken(t *testing.T) {
	k, _ := testKeys(t)
	digest := sha256.Sum256([]byte("a creative work"))
	at := stampAt().Add(789 * time.Millisecond) // sub-second part must be dropped
	serial := new(big.Int).Lsh(big.NewInt(1), 150)
	tok, err := k.Timestamp(digest, serial, at)
	if err != nil {
		t.Fatal(err)
	}

	info, err := VerifyToken(tok, digest[:], k.RootPEM())
	if err != nil {
		t.Fatalf("VerifyToken: %v", err)
	}
	if want := at.Truncate(time.Second); !info.GenTime.Equal(want) || info.GenTime.Location() != time.UTC {
		t.Errorf("GenTime = %v, want %v UTC", info.GenTime, want)
	}
	if info.Serial.Cmp(serial) != 0 {
		t.Errorf("Serial = %v, want %v", info.Serial, serial)
	}
	if info.Policy != PolicyOID {
		t.Errorf("Policy = %s, want %s", info.Policy, PolicyOID)
	}
	if !bytes.Equal(info.Signer.Raw, k.TSACert().Raw) {
		t.Error("signer is not the TSA certificate")
	}

	gen, d, err := ParseToken(tok)
	if err != nil {
		t.Fatal(err)
	}
	if !gen.Equal(at.Truncate(time.Second)) || !bytes.Equal(d, digest[:]) {
		t.Errorf("ParseToken = %v, %x", gen, d)
	}
}

func TestTimestampRandomSerial(t *testing.T) {
	k, _ := testKeys(t)
	digest := sha256.Sum256(nil)
	seen := map[string]bool{}
	for range 3 {
		tok, err := k.Timestamp(digest, nil, stampAt())
		if err != nil {
			t.Fatal(err)
		}
		info, err := VerifyToken(tok, digest[:], k.RootPEM())
		if err != nil {
			t.Fatal(err)
		}
		if info.Serial.Sign() <= 0 || info.Serial.BitLen() > 160 {
			t.Errorf("random serial %v out of range", info.Serial)
		}
		seen[info.Serial.String()] = true
	}
	if len(seen) != 3 {
		t.Error("random serials repeated")
	}
}

func TestTimestampRejectsBadInput(t *testing.T) {
	k, _ := testKeys(t)
	digest := sha256.Sum256(nil)
	const badSerial, badTime = "serial must be positive", "outside the TSA certificate validity"
	cases := []struct {
		name   string
		serial *big.Int
		at     time.Time
		want   string // in the error
	}{
		{"zero serial", big.NewInt(0), stampAt(), badSerial},
		{"negative serial", big.NewInt(-5), stampAt(), badSerial},
		{"161-bit serial", new(big.Int).Lsh(big.NewInt(1), 160), stampAt(), badSerial},
		{"before TSA certificate", big.NewInt(1), k.TSACert().NotBefore.Add(-time.Hour), badTime},
		{"after TSA certificate", big.NewInt(1), k.TSACert().NotAfter.Add(time.Hour), badTime},
	}
	for _, tc := range cases {
		if _, err := k.Timestamp(digest, tc.serial, tc.at); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: Timestamp = %v, want an error saying %q", tc.name, err, tc.want)
		}
	}
	// The bounds themselves are accepted.
	if _, err := k.Timestamp(digest, new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 160), big.NewInt(1)), stampAt()); err != nil {
		t.Errorf("160-bit serial: %v", err)
	}
}

// tamperedTokens returns variants of tok that must all be rejected.
func tamperedTokens(t *testing.T, tok []byte, at time.Time) map[string][]byte {
	t.Helper()
	genTime := []byte(at.UTC().Format("20060102150405Z"))
	i := bytes.Index(tok, genTime)
	if i < 0 || bytes.Index(tok[i+1:], genTime) >= 0 {
		t.Fatalf("genTime %s not found exactly once in token", genTime)
	}
	timeShifted := bytes.Clone(tok)
	timeShifted[i+len(genTime)-2] ^= 0x01 // change a seconds digit: still a valid time

	sigFlipped := bytes.Clone(tok)
	sigFlipped[len(sigFlipped)-5] ^= 0x55 // inside the ECDSA signature at the end

	return map[string][]byte{
		"genTime changed":   timeShifted,
		"signature flipped": sigFlipped,
		"truncated":         tok[:len(tok)-10],
	}
}

func TestVerifyTokenRejects(t *testing.T) {
	k, other := testKeys(t)
	digest := sha256.Sum256([]byte("work"))
	at := stampAt()
	tok, err := k.Timestamp(digest, big.NewInt(99), at)
	if err != nil {
		t.Fatal(err)
	}
	otherTok, err := other.Timestamp(digest, big.NewInt(99), at)
	if err != nil {
		t.Fatal(err)
	}
	wrong := sha256.Sum256([]byte("other work"))
	badESS, err := k.timestamp(digest, big.NewInt(99), at, k.RootCert())
	if err != nil {
		t.Fatal(err)
	}

	type tc struct {
		name    string
		tok     []byte
		digest  []byte
		rootPEM []byte
	}
	cases := []tc{
		{"wrong digest", tok, wrong[:], k.RootPEM()},
		{"other TSA's token", otherTok, digest[:], k.RootPEM()},
		{"other root", tok, digest[:], other.RootPEM()},
		{"no trust anchor", tok, digest[:], nil},
		{"garbage", []byte("not a token"), digest[:], k.RootPEM()},
		{"ESS names another certificate", badESS, digest[:], k.RootPEM()},
	}
	for name, bad := range tamperedTokens(t, tok, at) {
		cases = append(cases, tc{name, bad, digest[:], k.RootPEM()})
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if _, err := VerifyToken(c.tok, c.digest, c.rootPEM); err == nil {
				t.Fatal("VerifyToken accepted a bad token")
			}
		})
	}
}

// TestTimestampOpenSSL checks interoperability with the reference
// verifier users are told to use.
func TestTimestampOpenSSL(t *testing.T) {
	openssl, err := exec.LookPath("openssl")
	if err != nil {
		t.Skip("openssl not on PATH")
	}
	k, other := testKeys(t)
	dir := t.TempDir()
	write := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	rootFile := write("root.pem", k.RootPEM())
	otherRootFile := write("other-root.pem", other.RootPEM())

	digest := sha256.Sum256([]byte("registered work"))
	at := stampAt()
	tok, err := k.Timestamp(digest, big.NewInt(0x2a), at)
	if err != nil {
		t.Fatal(err)
	}
	tokFile := write("token.tsr", tok)
	wrong := sha256.Sum256([]byte("another work"))

	run := func(args ...string) (string, error) {
		out, err := exec.Command(openssl, args...).CombinedOutput()
		return string(out), err
	}
	verify := func(tokPath, digestHex, caFile string) (string, error) {
		return run("ts", "-verify", "-digest", digestHex, "-in", tokPath, "-CAfile", caFile)
	}

	out, err := verify(tokFile, hex.EncodeToString(digest[:]), rootFile)
	if err != nil || !strings.Contains(out, "Verification: OK") {
		t.Fatalf("openssl rejected a good token: %v\n%s", err, out)
	}

	text, err := run("ts", "-reply", "-in", tokFile, "-text")
	if err != nil {
		t.Fatalf("openssl ts -reply -text: %v\n%s", err, text)
	}
	for _, want := range []string{"Status: Granted", "Policy OID: " + PolicyOID, "Serial number: 0x2A", "Hash Algorithm: sha256", at.Format("Jan _2 15:04:05 2006 GMT")} {
		if !strings.Contains(text, want) {
			t.Errorf("openssl -text output lacks %q:\n%s", want, text)
		}
	}

	type rejectCase struct{ name, tok, digest, ca string }
	badESS, err := k.timestamp(digest, big.NewInt(0x2a), at, k.RootCert())
	if err != nil {
		t.Fatal(err)
	}
	cases := []rejectCase{
		{"wrong digest", tokFile, hex.EncodeToString(wrong[:]), rootFile},
		{"ESS names another certificate", write("bad-ess.tsr", badESS), hex.EncodeToString(digest[:]), rootFile},
		{"other root", tokFile, hex.EncodeToString(digest[:]), otherRootFile},
	}
	for name, bad := range tamperedTokens(t, tok, at) {
		cases = append(cases, rejectCase{name, write(strings.ReplaceAll(name, " ", "_")+".tsr", bad), hex.EncodeToString(digest[:]), rootFile})
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, err := verify(c.tok, c.digest, c.ca)
			if err == nil || strings.Contains(out, "Verification: OK") {
				t.Fatalf("openssl accepted a bad token:\n%s", out)
			}
		})
	}
}
