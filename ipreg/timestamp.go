package ipreg

import (
	"bytes"
	"crypto"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/asn1"
	"errors"
	"fmt"
	"math/big"
	"time"

	"github.com/digitorus/pkcs7"
	"github.com/digitorus/timestamp"
)

var (
	oidContentTypeTSTInfo   = asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 9, 16, 1, 4}
	oidSigningCertificateV2 = asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 9, 16, 2, 47}
	oidSHA256               = asn1.ObjectIdentifier{2, 16, 840, 1, 101, 3, 4, 2, 1}
)

// The ASN.1 shapes below mirror RFC 3161 §2.4.2 and RFC 5035. They are
// declared here rather than reused from github.com/digitorus/timestamp
// because its CreateResponseWithOpts always substitutes a random serial
// number for Timestamp.SerialNumber, and the caller must be able to choose
// (and record) the serial of each token.
type tstInfo struct {
	Version        int
	Policy         asn1.ObjectIdentifier
	MessageImprint messageImprint
	SerialNumber   *big.Int
	Time           time.Time        `asn1:"generalized"`
	Accuracy       accuracy         `asn1:"optional"`
	Ordering       bool             `asn1:"optional,default:false"`
	Nonce          *big.Int         `asn1:"optional"`
	TSA            asn1.RawValue    `asn1:"tag:0,optional"`
	Extensions     []pkix.Extension `asn1:"tag:1,optional"`
}

type messageImprint struct {
	HashAlgorithm pkix.AlgorithmIdentifier
	HashedMessage []byte
}

type accuracy struct {
	Seconds      int64 `asn1:"optional"`
	Milliseconds int64 `asn1:"tag:0,optional"`
	Microseconds int64 `asn1:"tag:1,optional"`
}

type timeStampResp struct {
	Status         pkiStatusInfo
	TimeStampToken asn1.RawValue `asn1:"optional"`
}

type pkiStatusInfo struct {
	Status int
}

type signingCertificateV2 struct {
	Certs []essCertIDv2
}

type essCertIDv2 struct {
	HashAlgorithm pkix.AlgorithmIdentifier `asn1:"optional"` // absent means SHA-256
	CertHash      []byte
	IssuerSerial  essIssuerSerial `asn1:"optional"`
}

type essIssuerSerial struct {
	IssuerName   essGeneralNames
	SerialNumber *big.Int
}

type essGeneralNames struct {
	Name asn1.RawValue `asn1:"optional,tag:4"`
}

// maxSerialBits follows RFC 3161 §2.4.2: requesters must cope with serial
// numbers up to 160 bits, so nothing larger is issued.
const maxSerialBits = 160

// Timestamp issues an RFC 3161 TimeStampResp (DER, media type
// application/timestamp-reply) over a SHA-256 digest. The token embeds the
// TSA certificate so that `openssl ts -verify -CAfile root.pem` needs nothing
// else. genTime is at truncated to whole seconds in UTC, with a stated
// accuracy of one second; pass the record's Timestamp as at, because Verify
// requires the two to agree to the second. serial must be unique per TSA
// (RFC 3161 §2.4.2); nil picks a random 159-bit serial.
func (k *Keys) Timestamp(digest [32]byte, serial *big.Int, at time.Time) ([]byte, error) {
	return k.timestamp(digest, serial, at, k.tsaCert)
}

// timestamp takes the certificate named in the ESS attribute separately
// only so tests can forge a token whose ESS binding is wrong.
func (k *Keys) timestamp(digest [32]byte, serial *big.Int, at time.Time, essCert *x509.Certificate) ([]byte, error) {
	if serial == nil {
		b := make([]byte, 20)
		if _, err := rand.Read(b); err != nil {
			return nil, err
		}
		b[0] &= 0x7f
		serial = new(big.Int).SetBytes(b)
	}
	if serial.Sign() <= 0 || serial.BitLen() > maxSerialBits {
		return nil, fmt.Errorf("ipreg: timestamp serial must be positive and at most %d bits", maxSerialBits)
	}
	at = at.UTC().Truncate(time.Second)
	if at.Before(k.tsaCert.NotBefore) || at.After(k.tsaCert.NotAfter) {
		return nil, fmt.Errorf("ipreg: time %s is outside the TSA certificate validity", at.Format(time.RFC3339))
	}

	tsaName, err := asn1.Marshal(asn1.RawValue{Tag: 4, Class: asn1.ClassContextSpecific, IsCompound: true, Bytes: k.tsaCert.RawSubject})
	if err != nil {
		return nil, err
	}
	info, err := asn1.Marshal(tstInfo{
		Version: 1,
		Policy:  policyOID,
		MessageImprint: messageImprint{
			HashAlgorithm: pkix.AlgorithmIdentifier{Algorithm: oidSHA256, Parameters: asn1.NullRawValue},
			HashedMessage: digest[:],
		},
		SerialNumber: serial,
		Time:         at,
		Accuracy:     accuracy{Seconds: 1},
		TSA:          asn1.RawValue{Tag: 0, Class: asn1.ClassContextSpecific, IsCompound: true, Bytes: tsaName},
	})
	if err != nil {
		return nil, fmt.Errorf("ipreg: encoding TSTInfo: %w", err)
	}

	sd, err := pkcs7.NewSignedData(info)
	if err != nil {
		return nil, err
	}
	sd.SetDigestAlgorithm(pkcs7.OIDDigestAlgorithmSHA256)
	sd.SetContentType(oidContentTypeTSTInfo)
	// RFC 5652 §5.1: version 3 whenever eContentType is not id-data.
	sd.GetSignedData().Version = 3

	// ESS signing-certificate-v2 binds the signature to this exact
	// certificate; RFC 3161 requires it and OpenSSL checks it.
	certHash := sha256.Sum256(essCert.Raw)
	essAttr, err := asn1.Marshal(signingCertificateV2{Certs: []essCertIDv2{{
		CertHash: certHash[:],
		IssuerSerial: essIssuerSerial{
			IssuerName:   essGeneralNames{Name: asn1.RawValue{Tag: 4, Class: asn1.ClassContextSpecific, IsCompound: true, Bytes: essCert.RawIssuer}},
			SerialNumber: essCert.SerialNumber,
		},
	}}})
	if err != nil {
		return nil, err
	}
	if err := sd.AddSigner(k.tsaCert, k.tsaKey, pkcs7.SignerInfoConfig{
		ExtraSignedAttributes: []pkcs7.Attribute{{Type: oidSigningCertificateV2, Value: asn1.RawValue{FullBytes: essAttr}}},
	}); err != nil {
		return nil, fmt.Errorf("ipreg: signing timestamp token: %w", err)
	}
	token, err := sd.Finish()
	if err != nil {
		return nil, err
	}
	return asn1.Marshal(timeStampResp{
		Status:         pkiStatusInfo{Status: int(timestamp.Granted)},
		TimeStampToken: asn1.RawValue{FullBytes: token},
	})
}

// ParseToken extracts the time and SHA-256 message imprint from a
// TimeStampResp. It checks the signature against the embedded certificate
// but establishes no trust; use VerifyToken for that.
func ParseToken(der []byte) (genTime time.Time, digest []byte, err error) {
	ts, err := timestamp.ParseResponse(der)
	if err != nil {
		return time.Time{}, nil, fmt.Errorf("ipreg: parsing timestamp response: %w", err)
	}
	if ts.HashAlgorithm != crypto.SHA256 || len(ts.HashedMessage) != sha256.Size {
		return time.Time{}, nil, errors.New("ipreg: timestamp token imprint is not SHA-256")
	}
	return ts.Time.UTC(), ts.HashedMessage, nil
}

// TokenInfo is what a verified timestamp token asserts.
type TokenInfo struct {
	GenTime time.Time
	Serial  *big.Int
	Policy  string
	Digest  []byte // SHA-256 message imprint
	Signer  *x509.Certificate
}

// VerifyToken checks, without network access, that der is a granted
// RFC 3161 response whose TSTInfo is signed by a certificate that chains to
// one of the roots in rootPEM (evaluated at the token's own genTime, so a
// token stays verifiable after the TSA certificate expires), carries the
// timeStamping EKU as RFC 3161 requires, is bound by the ESS signing-certificate attribute, and stamps
// exactly digest.
func VerifyToken(der []byte, digest []byte, rootPEM []byte) (TokenInfo, error) {
	info, err := verifyTokenSignature(der, rootPEM)
	if err != nil {
		return TokenInfo{}, err
	}
	if !bytes.Equal(info.Digest, digest) {
		return info, fmt.Errorf("ipreg: timestamp token stamps digest %x, want %x", info.Digest, digest)
	}
	return info, nil
}

func verifyTokenSignature(der []byte, rootPEM []byte) (TokenInfo, error) {
	roots := x509.NewCertPool()
	if !roots.AppendCertsFromPEM(rootPEM) {
		return TokenInfo{}, errors.New("ipreg: no root certificate in TSA root PEM")
	}
	ts, err := timestamp.ParseResponse(der)
	if err != nil {
		return TokenInfo{}, fmt.Errorf("ipreg: parsing timestamp response: %w", err)
	}
	if ts.HashAlgorithm != crypto.SHA256 || len(ts.HashedMessage) != sha256.Size {
		return TokenInfo{}, errors.New("ipreg: timestamp token imprint is not SHA-256")
	}
	p7, err := pkcs7.Parse(ts.RawToken)
	if err != nil {
		return TokenInfo{}, fmt.Errorf("ipreg: parsing timestamp token: %w", err)
	}
	// timestamp.Parse skips the signature check when no certificate is
	// embedded, so an explicit signer is required here.
	signer := p7.GetOnlySigner()
	if signer == nil {
		return TokenInfo{}, errors.New("ipreg: timestamp token must have exactly one signer with an embedded certificate")
	}
	var ct asn1.ObjectIdentifier
	if err := p7.UnmarshalSignedAttribute(pkcs7.OIDAttributeContentType, &ct); err != nil || !ct.Equal(oidContentTypeTSTInfo) {
		return TokenInfo{}, errors.New("ipreg: timestamp token signed content type is not TSTInfo")
	}
	if err := checkESS(p7, signer); err != nil {
		return TokenInfo{}, err
	}
	if err := checkTSACertProfile(signer); err != nil {
		return TokenInfo{}, err
	}
	intermediates := x509.NewCertPool()
	for _, c := range p7.Certificates {
		intermediates.AddCert(c)
	}
	// Checking at genTime rather than now: the TSA vouched for the time
	// while its certificate was valid, which is what matters later.
	if err := p7.VerifyWithOpts(x509.VerifyOptions{
		Roots:         roots,
		Intermediates: intermediates,
		KeyUsages:     []x509.ExtKeyUsage{x509.ExtKeyUsageTimeStamping},
		CurrentTime:   ts.Time,
	}); err != nil {
		return TokenInfo{}, fmt.Errorf("ipreg: timestamp token signature: %w", err)
	}
	return TokenInfo{
		GenTime: ts.Time.UTC(),
		Serial:  ts.SerialNumber,
		Policy:  ts.Policy.String(),
		Digest:  ts.HashedMessage,
		Signer:  signer,
	}, nil
}

func checkESS(p7 *pkcs7.PKCS7, signer *x509.Certificate) error {
	var scv2 signingCertificateV2
	if err := p7.UnmarshalSignedAttribute(oidSigningCertificateV2, &scv2); err != nil {
		return errors.New("ipreg: timestamp token lacks the ESS signing-certificate-v2 attribute")
	}
	if len(scv2.Certs) == 0 {
		return errors.New("ipreg: timestamp token ESS attribute names no certificate")
	}
	id := scv2.Certs[0]
	if len(id.HashAlgorithm.Algorithm) != 0 && !id.HashAlgorithm.Algorithm.Equal(oidSHA256) {
		return errors.New("ipreg: timestamp token ESS attribute uses an unsupported hash")
	}
	sum := sha256.Sum256(signer.Raw)
	if !bytes.Equal(id.CertHash, sum[:]) {
		return errors.New("ipreg: timestamp token ESS attribute does not match the signing certificate")
	}
	return nil
}
