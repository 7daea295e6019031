package ipreg

import (
	"bytes"
	"crypto/sha256"
	"crypto/x509"
	"encoding/hex"
	"encoding/json"
	"math/big"
	"strings"
	"testing"
	"time"

	"golang.org/x/mod/sumdb/tlog"
)

func TestGenerateKeysRejectsBadOrigin(t *testing.T) {
	for _, origin := range []string{"", "has space", "a+b", "tab\there", "bad\xffutf8"} {
		if _, err := GenerateKeys(origin, time.Now()); err == nil || !strings.Contains(err.Error(), "invalid log origin") {
			t.Errorf("GenerateKeys(%q) = %v, want the origin refused", origin, err)
		}
	}
	if _, err := GenerateKeys("creativeops.dev/ip-log/1", time.Now()); err != nil {
		t.Errorf("a valid origin: %v", err)
	}
}

func TestKeysCertificateProfile(t *testing.T) {
	k, _ := testKeys(t)
	root, tsa := k.RootCert(), k.TSACert()

	if !root.IsCA || !root.BasicConstraintsValid || root.KeyUsage&x509.KeyUsageCertSign == 0 {
		t.Errorf("root: IsCA=%v BasicConstraintsValid=%v KeyUsage=%v", root.IsCA, root.BasicConstraintsValid, root.KeyUsage)
	}
	if tsa.IsCA {
		t.Error("TSA certificate is a CA")
	}
	if tsa.KeyUsage != x509.KeyUsageDigitalSignature {
		t.Errorf("TSA KeyUsage = %v, want digitalSignature only", tsa.KeyUsage)
	}
	if len(tsa.ExtKeyUsage) != 1 || tsa.ExtKeyUsage[0] != x509.ExtKeyUsageTimeStamping {
		t.Errorf("TSA ExtKeyUsage = %v, want [timeStamping]", tsa.ExtKeyUsage)
	}
	var ekuCritical, ekuSeen int
	for _, ext := range tsa.Extensions {
		if ext.Id.Equal(oidExtKeyUsage) {
			ekuSeen++
			if ext.Critical {
				ekuCritical++
			}
		}
	}
	if ekuSeen != 1 || ekuCritical != 1 {
		t.Errorf("TSA EKU extension: %d present, %d critical; want exactly one, critical", ekuSeen, ekuCritical)
	}
	roots := x509.NewCertPool()
	roots.AddCert(root)
	if _, err := tsa.Verify(x509.VerifyOptions{Roots: roots, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageTimeStamping}}); err != nil {
		t.Errorf("TSA certificate does not chain to root for timeStamping: %v", err)
	}
	if got := k.VerifierKey(); !strings.HasPrefix(got, k.Origin()+"+") {
		t.Errorf("VerifierKey %q is not named after origin %q", got, k.Origin())
	}
	sum := sha256.Sum256(root.Raw)
	if got, want := k.RootFingerprint(), hex.EncodeToString(sum[:]); got != want {
		t.Errorf("RootFingerprint = %s, want %s", got, want)
	}
}

func TestKeysMarshalRoundTrip(t *testing.T) {
	k1, err := GenerateKeys("creativeops.example/ip-log/roundtrip", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	data, err := k1.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	var k2 Keys
	if err := k2.UnmarshalBinary(data); err != nil {
		t.Fatalf("UnmarshalBinary: %v", err)
	}
	if k2.Origin() != k1.Origin() || k2.VerifierKey() != k1.VerifierKey() ||
		!bytes.Equal(k2.RootPEM(), k1.RootPEM()) || !bytes.Equal(k2.TSACertPEM(), k1.TSACertPEM()) {
		t.Fatal("public parts changed across Marshal/Unmarshal")
	}
	again, err := k2.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(again, data) {
		t.Error("re-marshalling restored keys gave different bytes")
	}

	// The restored keys must still sign things the original public parts verify.
	digest := sha256.Sum256([]byte("work"))
	tok, err := k2.Timestamp(digest, big.NewInt(7), time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := VerifyToken(tok, digest[:], k1.RootPEM()); err != nil {
		t.Errorf("token from restored keys does not verify against original root: %v", err)
	}
	root := tlog.RecordHash([]byte("x"))
	cp, err := SignCheckpoint(&k2, 1, root)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, got, err := OpenCheckpoint(cp, k1.VerifierKey()); err != nil || got != root {
		t.Errorf("checkpoint from restored keys: root %v, err %v", got, err)
	}
}

func TestKeysUnmarshalRejectsInconsistentMaterial(t *testing.T) {
	k, other := testKeys(t)
	good := marshalMap(t, k)
	alien := marshalMap(t, other)

	cases := []struct {
		name   string
		mutate func(m map[string]any)
	}{
		{"foreign TSA key", func(m map[string]any) { m["tsa_key_pem"] = alien["tsa_key_pem"] }},
		{"foreign root key", func(m map[string]any) { m["root_key_pem"] = alien["root_key_pem"] }},
		{"foreign root cert", func(m map[string]any) { m["root_cert_pem"] = alien["root_cert_pem"] }},
		{"foreign TSA cert", func(m map[string]any) { m["tsa_cert_pem"] = alien["tsa_cert_pem"] }},
		{"TSA cert as root", func(m map[string]any) { m["root_cert_pem"] = m["tsa_cert_pem"]; m["root_key_pem"] = m["tsa_key_pem"] }},
		{"foreign log signer", func(m map[string]any) { m["log_signer_key"] = alien["log_signer_key"] }},
		{"foreign log verifier", func(m map[string]any) { m["log_verifier_key"] = alien["log_verifier_key"] }},
		{"origin changed", func(m map[string]any) { m["origin"] = "creativeops.example/other" }},
		{"unknown version", func(m map[string]any) { m["version"] = 2 }},
		{"unknown field", func(m map[string]any) { m["extra"] = "x" }},
		{"missing TSA key", func(m map[string]any) { delete(m, "tsa_key_pem") }},
		{"garbage cert", func(m map[string]any) {
			m["root_cert_pem"] = "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n"
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m := map[string]any{}
			for key, v := range good {
				m[key] = v
			}
			tc.mutate(m)
			data, err := json.Marshal(m)
			if err != nil {
				t.Fatal(err)
			}
			var got Keys
			if err := got.UnmarshalBinary(data); err == nil {
				t.Fatal("UnmarshalBinary accepted inconsistent key material")
			}
		})
	}
	var got Keys
	if err := got.UnmarshalBinary([]byte("not json")); err == nil {
		t.Error("UnmarshalBinary accepted garbage")
	}
}

func marshalMap(t *testing.T, k *Keys) map[string]any {
	t.Helper()
	data, err := k.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]any{}
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	return m
}
