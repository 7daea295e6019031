package ipreg

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/asn1"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"golang.org/x/mod/sumdb/note"
)

// PolicyOID identifies the TSA policy under which this service issues
// RFC 3161 tokens. RFC 3161 requires every token to name a policy so that a
// relying party can tell which issuer's rules apply.
//
// The arc 1.3.6.1.4.1.32473 is the IANA enterprise number reserved for
// documentation and examples (RFC 5612). It is used instead of borrowing a
// real organisation's arc (for example 57264 belongs to Sigstore); an
// operator that registers its own Private Enterprise Number should move the
// policy under that arc. Changing it invalidates nothing already issued:
// each bundle carries the policy OID its token was issued under.
const PolicyOID = "1.3.6.1.4.1.32473.1.1"

var (
	policyOID         = mustParseOID(PolicyOID)
	oidExtKeyUsage    = asn1.ObjectIdentifier{2, 5, 29, 37}
	oidKPTimeStamping = asn1.ObjectIdentifier{1, 3, 6, 1, 5, 5, 7, 3, 8}
)

const keysEncodingVersion = 1

const (
	// Long lifetimes on purpose: certificates are verified offline, possibly
	// decades later, and OpenSSL checks the chain at verification time.
	rootLifetime = 40 * 365 * 24 * time.Hour
	tsaLifetime  = 30 * 365 * 24 * time.Hour
	// Replicas' clocks may disagree; a token stamped by a slightly-behind
	// replica right after key generation must still chain.
	backdate = time.Hour
)

// Keys is the signing material of one registry deployment. It is generated
// once and shared by every replica, because certificates must verify against
// a single published root and a single log key regardless of which replica
// issued them. A Keys is immutable and safe for concurrent use.
type Keys struct {
	origin string

	rootCert *x509.Certificate
	rootKey  *ecdsa.PrivateKey // kept so a successor TSA certificate can be issued under the same root
	tsaCert  *x509.Certificate
	tsaKey   *ecdsa.PrivateKey

	noteSKey string
	noteVKey string
	signer   note.Signer
	verifier note.Verifier
}

// GenerateKeys creates a fresh root CA, a TSA certificate issued by it, and
// an Ed25519 log key named origin (e.g. "creativeops.example/ip-log/1").
// The origin becomes the first line of every checkpoint, so it must be a
// valid signed-note key name: non-empty, no whitespace, no '+'.
func GenerateKeys(origin string, now time.Time) (*Keys, error) {
	if err := checkOrigin(origin); err != nil {
		return nil, err
	}
	now = now.UTC()

	rootKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("ipreg: generating root key: %w", err)
	}
	rootTmpl := &x509.Certificate{
		SerialNumber:          randomSerial(),
		Subject:               pkix.Name{Organization: []string{"creativeops"}, CommonName: "creativeops IP registry root " + origin},
		NotBefore:             now.Add(-backdate),
		NotAfter:              now.Add(rootLifetime),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageCRLSign,
		BasicConstraintsValid: true,
		IsCA:                  true,
		MaxPathLen:            0,
		MaxPathLenZero:        true, // the root only ever issues the TSA leaf
	}
	rootDER, err := x509.CreateCertificate(rand.Reader, rootTmpl, rootTmpl, rootKey.Public(), rootKey)
	if err != nil {
		return nil, fmt.Errorf("ipreg: creating root certificate: %w", err)
	}
	rootCert, err := x509.ParseCertificate(rootDER)
	if err != nil {
		return nil, err
	}

	tsaKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("ipreg: generating TSA key: %w", err)
	}
	tsaCert, err := issueTSACert(rootCert, rootKey, tsaKey, origin, now)
	if err != nil {
		return nil, err
	}

	skey, vkey, err := note.GenerateKey(rand.Reader, origin)
	if err != nil {
		return nil, fmt.Errorf("ipreg: generating log key: %w", err)
	}
	return assembleKeys(origin, rootCert, rootKey, tsaCert, tsaKey, skey, vkey)
}

func issueTSACert(root *x509.Certificate, rootKey *ecdsa.PrivateKey, tsaKey *ecdsa.PrivateKey, origin string, now time.Time) (*x509.Certificate, error) {
	// RFC 3161 §2.3 requires the EKU extension to be critical and to hold
	// only id-kp-timeStamping; OpenSSL enforces this. crypto/x509 never
	// marks EKU critical, so the extension is encoded by hand.
	ekuValue, err := asn1.Marshal([]asn1.ObjectIdentifier{oidKPTimeStamping})
	if err != nil {
		return nil, err
	}
	notAfter := now.Add(tsaLifetime)
	if notAfter.After(root.NotAfter) {
		notAfter = root.NotAfter
	}
	tmpl := &x509.Certificate{
		SerialNumber:          randomSerial(),
		Subject:               pkix.Name{Organization: []string{"creativeops"}, CommonName: "creativeops IP registry TSA " + origin},
		NotBefore:             now.Add(-backdate),
		NotAfter:              notAfter,
		KeyUsage:              x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
		IsCA:                  false,
		ExtraExtensions:       []pkix.Extension{{Id: oidExtKeyUsage, Critical: true, Value: ekuValue}},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, root, tsaKey.Public(), rootKey)
	if err != nil {
		return nil, fmt.Errorf("ipreg: creating TSA certificate: %w", err)
	}
	return x509.ParseCertificate(der)
}

func randomSerial() *big.Int {
	// 127 random bits keeps the DER INTEGER positive and within the
	// 20-octet limit of RFC 5280.
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		panic(err) // crypto/rand never fails on supported platforms
	}
	b[0] &= 0x7f
	b[0] |= 0x40
	return new(big.Int).SetBytes(b)
}

func checkOrigin(origin string) error {
	if origin == "" || !utf8.ValidString(origin) || strings.IndexFunc(origin, unicode.IsSpace) >= 0 || strings.Contains(origin, "+") {
		return fmt.Errorf("ipreg: invalid log origin %q: must be non-empty UTF-8 without spaces or '+'", origin)
	}
	return nil
}

func assembleKeys(origin string, rootCert *x509.Certificate, rootKey *ecdsa.PrivateKey, tsaCert *x509.Certificate, tsaKey *ecdsa.PrivateKey, skey, vkey string) (*Keys, error) {
	if err := checkOrigin(origin); err != nil {
		return nil, err
	}
	if !rootCert.IsCA || rootCert.KeyUsage&x509.KeyUsageCertSign == 0 {
		return nil, errors.New("ipreg: root certificate is not a CA")
	}
	if err := rootCert.CheckSignatureFrom(rootCert); err != nil {
		return nil, fmt.Errorf("ipreg: root certificate is not self-signed: %w", err)
	}
	if !publicKeyMatches(rootCert, rootKey) {
		return nil, errors.New("ipreg: root private key does not match root certificate")
	}
	if err := tsaCert.CheckSignatureFrom(rootCert); err != nil {
		return nil, fmt.Errorf("ipreg: TSA certificate is not issued by the root: %w", err)
	}
	if !publicKeyMatches(tsaCert, tsaKey) {
		return nil, errors.New("ipreg: TSA private key does not match TSA certificate")
	}
	if err := checkTSACertProfile(tsaCert); err != nil {
		return nil, err
	}
	signer, err := note.NewSigner(skey)
	if err != nil {
		return nil, fmt.Errorf("ipreg: log signer key: %w", err)
	}
	verifier, err := note.NewVerifier(vkey)
	if err != nil {
		return nil, fmt.Errorf("ipreg: log verifier key: %w", err)
	}
	if signer.Name() != origin || verifier.Name() != origin {
		return nil, fmt.Errorf("ipreg: log key name %q does not match origin %q", signer.Name(), origin)
	}
	if signer.KeyHash() != verifier.KeyHash() {
		return nil, errors.New("ipreg: log signer and verifier keys are not a pair")
	}
	// Key hashes can collide; only a real signature proves the pair.
	probe := []byte("ipreg key pair probe")
	sig, err := signer.Sign(probe)
	if err != nil || !verifier.Verify(probe, sig) {
		return nil, errors.New("ipreg: log signer and verifier keys are not a pair")
	}
	return &Keys{
		origin:   origin,
		rootCert: rootCert,
		rootKey:  rootKey,
		tsaCert:  tsaCert,
		tsaKey:   tsaKey,
		noteSKey: skey,
		noteVKey: vkey,
		signer:   signer,
		verifier: verifier,
	}, nil
}

func publicKeyMatches(cert *x509.Certificate, key *ecdsa.PrivateKey) bool {
	pub, ok := cert.PublicKey.(*ecdsa.PublicKey)
	return ok && key != nil && pub.Equal(key.Public())
}

// checkTSACertProfile enforces the RFC 3161 §2.3 certificate profile that
// OpenSSL also enforces, so a token that passes the pure-Go verifier does
// not later fail `openssl ts -verify`.
func checkTSACertProfile(cert *x509.Certificate) error {
	var found bool
	for _, ext := range cert.Extensions {
		if !ext.Id.Equal(oidExtKeyUsage) {
			continue
		}
		if !ext.Critical {
			return errors.New("ipreg: TSA certificate extended key usage is not critical")
		}
		found = true
	}
	if !found || len(cert.ExtKeyUsage) != 1 || cert.ExtKeyUsage[0] != x509.ExtKeyUsageTimeStamping || len(cert.UnknownExtKeyUsage) != 0 {
		return errors.New("ipreg: TSA certificate extended key usage must be exactly timeStamping")
	}
	if cert.KeyUsage != 0 && cert.KeyUsage&(x509.KeyUsageDigitalSignature|x509.KeyUsageContentCommitment) == 0 {
		return errors.New("ipreg: TSA certificate key usage does not allow signing")
	}
	return nil
}

// keysJSON is the persisted form. PEM and the signed-note key text are used
// so that an operator can inspect or export the row with standard tools.
type keysJSON struct {
	Version        int    `json:"version"`
	Origin         string `json:"origin"`
	RootCertPEM    string `json:"root_cert_pem"`
	RootKeyPEM     string `json:"root_key_pem"`
	TSACertPEM     string `json:"tsa_cert_pem"`
	TSAKeyPEM      string `json:"tsa_key_pem"`
	LogSignerKey   string `json:"log_signer_key"`
	LogVerifierKey string `json:"log_verifier_key"`
}

// MarshalBinary encodes all key material, including private keys, as JSON
// for storage in a single database row. The result is secret.
func (k *Keys) MarshalBinary() ([]byte, error) {
	rootKey, err := x509.MarshalPKCS8PrivateKey(k.rootKey)
	if err != nil {
		return nil, err
	}
	tsaKey, err := x509.MarshalPKCS8PrivateKey(k.tsaKey)
	if err != nil {
		return nil, err
	}
	return json.Marshal(keysJSON{
		Version:        keysEncodingVersion,
		Origin:         k.origin,
		RootCertPEM:    string(certPEM(k.rootCert)),
		RootKeyPEM:     string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: rootKey})),
		TSACertPEM:     string(certPEM(k.tsaCert)),
		TSAKeyPEM:      string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: tsaKey})),
		LogSignerKey:   k.noteSKey,
		LogVerifierKey: k.noteVKey,
	})
}

// UnmarshalBinary decodes the output of MarshalBinary and re-checks every
// relationship between the parts, so a corrupted or hand-edited row fails at
// start-up instead of producing certificates nobody can verify.
func (k *Keys) UnmarshalBinary(data []byte) error {
	var kj keysJSON
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&kj); err != nil {
		return fmt.Errorf("ipreg: decoding keys: %w", err)
	}
	if kj.Version != keysEncodingVersion {
		return fmt.Errorf("ipreg: unsupported keys encoding version %d", kj.Version)
	}
	rootCert, err := parseCertPEM([]byte(kj.RootCertPEM))
	if err != nil {
		return fmt.Errorf("ipreg: root certificate: %w", err)
	}
	tsaCert, err := parseCertPEM([]byte(kj.TSACertPEM))
	if err != nil {
		return fmt.Errorf("ipreg: TSA certificate: %w", err)
	}
	rootKey, err := parseECKeyPEM([]byte(kj.RootKeyPEM))
	if err != nil {
		return fmt.Errorf("ipreg: root key: %w", err)
	}
	tsaKey, err := parseECKeyPEM([]byte(kj.TSAKeyPEM))
	if err != nil {
		return fmt.Errorf("ipreg: TSA key: %w", err)
	}
	nk, err := assembleKeys(kj.Origin, rootCert, rootKey, tsaCert, tsaKey, kj.LogSignerKey, kj.LogVerifierKey)
	if err != nil {
		return err
	}
	*k = *nk
	return nil
}

// Origin is the log's name: the first line of every checkpoint and the
// name in the verifier key.
func (k *Keys) Origin() string { return k.origin }

// RootPEM is the trust anchor for timestamp tokens; publish it.
func (k *Keys) RootPEM() []byte { return certPEM(k.rootCert) }

// RootFingerprint is the lowercase hex SHA-256 of the root certificate DER,
// short enough to publish out of band so users can pin the root.
func (k *Keys) RootFingerprint() string {
	sum := sha256.Sum256(k.rootCert.Raw)
	return hex.EncodeToString(sum[:])
}

// TSACertPEM is the TSA signing certificate. Tokens embed it, so verifiers
// rarely need it separately.
func (k *Keys) TSACertPEM() []byte { return certPEM(k.tsaCert) }

// VerifierKey is the signed-note verifier key ("<origin>+<hash>+<key>") for
// checkpoints; publish it.
func (k *Keys) VerifierKey() string { return k.noteVKey }

// RootCert returns the parsed root certificate.
func (k *Keys) RootCert() *x509.Certificate { return k.rootCert }

// TSACert returns the parsed TSA certificate.
func (k *Keys) TSACert() *x509.Certificate { return k.tsaCert }

func certPEM(c *x509.Certificate) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: c.Raw})
}

func parseCertPEM(data []byte) (*x509.Certificate, error) {
	block, rest := pem.Decode(data)
	if block == nil || block.Type != "CERTIFICATE" {
		return nil, errors.New("no CERTIFICATE PEM block")
	}
	if len(bytes.TrimSpace(rest)) != 0 {
		return nil, errors.New("trailing data after CERTIFICATE PEM block")
	}
	return x509.ParseCertificate(block.Bytes)
}

func parseECKeyPEM(data []byte) (*ecdsa.PrivateKey, error) {
	block, _ := pem.Decode(data)
	if block == nil || block.Type != "PRIVATE KEY" {
		return nil, errors.New("no PRIVATE KEY PEM block")
	}
	key, err := x509.ParsePKCS8PrivateKey(block.Bytes)
	if err != nil {
		return nil, err
	}
	ec, ok := key.(*ecdsa.PrivateKey)
	if !ok || ec.Curve != elliptic.P256() {
		return nil, errors.New("not an ECDSA P-256 key")
	}
	return ec, nil
}

func mustParseOID(s string) asn1.ObjectIdentifier {
	oid, err := parseOID(s)
	if err != nil {
		panic(err)
	}
	return oid
}

func parseOID(s string) (asn1.ObjectIdentifier, error) {
	parts := strings.Split(s, ".")
	if len(parts) < 2 {
		return nil, fmt.Errorf("invalid OID %q", s)
	}
	oid := make(asn1.ObjectIdentifier, len(parts))
	for i, p := range parts {
		var n int
		if p == "" || (len(p) > 1 && p[0] == '0') {
			return nil, fmt.Errorf("invalid OID %q", s)
		}
		for _, c := range p {
			if c < '0' || c > '9' || n > (1<<31)/10 {
				return nil, fmt.Errorf("invalid OID %q", s)
			}
			n = n*10 + int(c-'0')
		}
		oid[i] = n
	}
	return oid, nil
}
