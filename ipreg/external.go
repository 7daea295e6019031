package ipreg

import (
	"bytes"
	"context"
	"crypto"
	"crypto/rand"
	"crypto/sha1" //nolint:gosec // ESS signing-certificate v1 names certificates by SHA-1 (RFC 2634)
	"crypto/sha256"
	"crypto/x509"
	"encoding/asn1"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/digitorus/pkcs7"
	"github.com/digitorus/timestamp"
)

// Statuses of an external timestamp.
const (
	// ExternalPending: the authority's token has not been fetched yet.
	ExternalPending = "pending"
	// ExternalOK: the token is in the certificate.
	ExternalOK = "ok"
	// ExternalFailed: every retry failed; the certificate has no token
	// from that authority.
	ExternalFailed = "failed"
)

// MaxAuthorities bounds --timestamp-authority: each registration costs a
// row and a request per authority.
const MaxAuthorities = 8

// ExternalTimeTolerance is how far an external token's genTime may be from
// the record's own time and still corroborate it. The token is fetched
// after the registration commits, normally within seconds; a token later
// than this proves only that the record existed at its own, later, time.
// A token earlier than the record by more than this contradicts the
// record's time and fails verification.
const ExternalTimeTolerance = 5 * time.Minute

// ExternalTimestamp is one independent authority's timestamp of a
// certificate's record bytes.
type ExternalTimestamp struct {
	AuthorityURL string `json:"authority_url"`
	Status       string `json:"status"`
	// Token is the authority's TimeStampResp (DER, base64 in JSON) over
	// SHA-256(Record).
	Token    []byte     `json:"token,omitempty"`
	GenTime  *time.Time `json:"gen_time,omitempty"`
	Error    string     `json:"error,omitempty"`
	Attempts int        `json:"attempts,omitempty"`
}

// CheckAuthorityURL refuses a --timestamp-authority URL that is not an
// absolute http or https URL. The URL is published in every certificate,
// so it must not carry credentials.
func CheckAuthorityURL(s string) error {
	u, err := url.Parse(s)
	switch {
	case err != nil:
		return fmt.Errorf("timestamp authority %q: %v", s, err)
	case u.Scheme != "http" && u.Scheme != "https":
		return fmt.Errorf("timestamp authority %q: must be an http:// or https:// URL", s)
	case u.Host == "":
		return fmt.Errorf("timestamp authority %q: has no host", s)
	case u.User != nil:
		return fmt.Errorf("timestamp authority %q: must not contain credentials: the URL is published in every certificate", s)
	case u.Fragment != "":
		return fmt.Errorf("timestamp authority %q: must not have a fragment", s)
	}
	return nil
}

// CheckAuthorities validates a list of authority URLs: each one valid,
// none twice, at most MaxAuthorities.
func CheckAuthorities(urls []string) error {
	if len(urls) > MaxAuthorities {
		return fmt.Errorf("at most %d timestamp authorities, got %d", MaxAuthorities, len(urls))
	}
	seen := map[string]bool{}
	for _, u := range urls {
		if err := CheckAuthorityURL(u); err != nil {
			return err
		}
		if seen[u] {
			return fmt.Errorf("timestamp authority %q is listed twice", u)
		}
		seen[u] = true
	}
	return nil
}

// Limits of a fetch from an authority.
const (
	// DefaultTSATimeout bounds one request to an authority.
	DefaultTSATimeout = 15 * time.Second
	// maxTSAResponse bounds the body read: a TimeStampResp with a
	// certificate chain is a few KiB.
	maxTSAResponse = 256 << 10
)

// TSAClient asks RFC 3161 authorities for timestamps over HTTP (RFC 3161
// §3.4). The authorities are the operator's own configuration, so unlike
// webhook endpoints they may be on private or loopback addresses.
type TSAClient struct {
	HTTP *http.Client
}

// NewTSAClient returns a client whose requests time out after timeout and
// follow no redirect.
func NewTSAClient(timeout time.Duration) *TSAClient {
	return &TSAClient{HTTP: &http.Client{
		Timeout: timeout,
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return errors.New("timestamp authorities must answer without redirecting")
		},
	}}
}

// Fetch asks authority for a timestamp over a SHA-256 digest, with a
// random nonce and certReq set (so the token carries the TSA certificate),
// and returns the TimeStampResp once it is granted, stamps that digest,
// echoes the nonce and verifies against the certificate it carries.
// Whether that certificate is trusted is the verifier's question (it pins
// the authority's CA).
func (c *TSAClient) Fetch(ctx context.Context, authority string, digest [32]byte) ([]byte, TokenInfo, error) {
	nonce, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 64))
	if err != nil {
		return nil, TokenInfo{}, err
	}
	req := timestamp.Request{HashAlgorithm: crypto.SHA256, HashedMessage: digest[:], Certificates: true, Nonce: nonce}
	body, err := req.Marshal()
	if err != nil {
		return nil, TokenInfo{}, err
	}
	hr, err := http.NewRequestWithContext(ctx, http.MethodPost, authority, bytes.NewReader(body))
	if err != nil {
		return nil, TokenInfo{}, err
	}
	hr.Header.Set("Content-Type", "application/timestamp-query")
	hr.Header.Set("Accept", "application/timestamp-reply")
	resp, err := c.HTTP.Do(hr)
	if err != nil {
		return nil, TokenInfo{}, err
	}
	defer resp.Body.Close()
	der, err := io.ReadAll(io.LimitReader(resp.Body, maxTSAResponse+1))
	if err != nil {
		return nil, TokenInfo{}, fmt.Errorf("reading the answer: %w", err)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, TokenInfo{}, fmt.Errorf("HTTP %d", resp.StatusCode)
	}
	if len(der) > maxTSAResponse {
		return nil, TokenInfo{}, fmt.Errorf("answer larger than %d bytes", maxTSAResponse)
	}
	info, gotNonce, err := verifyExternalToken(der, nil)
	if err != nil {
		return nil, TokenInfo{}, err
	}
	if gotNonce == nil || gotNonce.Cmp(nonce) != 0 {
		return nil, TokenInfo{}, errors.New("the token does not echo the request's nonce")
	}
	if !bytes.Equal(info.Digest, digest[:]) {
		return nil, TokenInfo{}, fmt.Errorf("the token stamps %x, not the requested %x", info.Digest, digest)
	}
	return der, info, nil
}

var oidSigningCertificate = asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 9, 16, 2, 12}

// essCertIDv1 is RFC 2634's ESSCertID: SHA-1 of the certificate.
type essCertIDv1 struct {
	CertHash     []byte
	IssuerSerial essIssuerSerial `asn1:"optional"`
}

type signingCertificateV1 struct {
	Certs []essCertIDv1
}

// verifyExternalToken checks a TimeStampResp from another authority: it is
// granted, stamps a SHA-256 imprint, has one signer whose certificate is
// embedded, bound by an ESS signing-certificate attribute (v2, or v1 which
// many authorities and OpenSSL's default configuration still issue), and
// has the RFC 3161 profile (critical timeStamping EKU only). The signature
// chains to roots, checked at the token's genTime; with nil roots it is
// checked against the embedded certificates only, which proves the token
// is intact but not who made it.
func verifyExternalToken(der []byte, roots *x509.CertPool) (TokenInfo, *big.Int, error) {
	ts, err := timestamp.ParseResponse(der)
	if err != nil {
		return TokenInfo{}, nil, fmt.Errorf("not a granted timestamp response: %w", err)
	}
	if ts.HashAlgorithm != crypto.SHA256 || len(ts.HashedMessage) != sha256.Size {
		return TokenInfo{}, nil, errors.New("token imprint is not SHA-256")
	}
	p7, err := pkcs7.Parse(ts.RawToken)
	if err != nil {
		return TokenInfo{}, nil, fmt.Errorf("parsing token: %w", err)
	}
	signer := p7.GetOnlySigner()
	if signer == nil {
		return TokenInfo{}, nil, errors.New("token must have exactly one signer with an embedded certificate")
	}
	var ct asn1.ObjectIdentifier
	if err := p7.UnmarshalSignedAttribute(pkcs7.OIDAttributeContentType, &ct); err != nil || !ct.Equal(oidContentTypeTSTInfo) {
		return TokenInfo{}, nil, errors.New("token signed content type is not TSTInfo")
	}
	if err := checkESSAny(p7, signer); err != nil {
		return TokenInfo{}, nil, err
	}
	if err := checkTSACertProfile(signer); err != nil {
		return TokenInfo{}, nil, errors.New(strings.TrimPrefix(err.Error(), "ipreg: "))
	}
	intermediates := x509.NewCertPool()
	for _, c := range p7.Certificates {
		intermediates.AddCert(c)
	}
	if roots == nil {
		roots = intermediates
	}
	if err := p7.VerifyWithOpts(x509.VerifyOptions{
		Roots:         roots,
		Intermediates: intermediates,
		KeyUsages:     []x509.ExtKeyUsage{x509.ExtKeyUsageTimeStamping},
		CurrentTime:   ts.Time,
	}); err != nil {
		return TokenInfo{}, nil, fmt.Errorf("token signature: %w", err)
	}
	return TokenInfo{
		GenTime: ts.Time.UTC(),
		Serial:  ts.SerialNumber,
		Policy:  ts.Policy.String(),
		Digest:  ts.HashedMessage,
		Signer:  signer,
	}, ts.Nonce, nil
}

// checkESSAny accepts ESS signing-certificate v2 (SHA-256) or v1 (SHA-1).
func checkESSAny(p7 *pkcs7.PKCS7, signer *x509.Certificate) error {
	var v2 signingCertificateV2
	if p7.UnmarshalSignedAttribute(oidSigningCertificateV2, &v2) == nil {
		if err := checkESS(p7, signer); err != nil {
			return errors.New(strings.TrimPrefix(err.Error(), "ipreg: timestamp "))
		}
		return nil
	}
	var v1 signingCertificateV1
	if err := p7.UnmarshalSignedAttribute(oidSigningCertificate, &v1); err != nil {
		return errors.New("token has no ESS signing-certificate attribute matching its signer")
	}
	if len(v1.Certs) == 0 {
		return errors.New("token ESS attribute names no certificate")
	}
	sum := sha1.Sum(signer.Raw) //nolint:gosec // RFC 2634 ESSCertID
	if !bytes.Equal(v1.Certs[0].CertHash, sum[:]) {
		return errors.New("token ESS attribute does not match the signing certificate")
	}
	return nil
}
