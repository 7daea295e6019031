package ipreg

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"golang.org/x/mod/sumdb/tlog"
)

// BundleFormat versions the certificate bundle JSON.
const BundleFormat = "creativeops/certificate/v1"

// Bundle is a self-contained certificate: everything needed to check a
// registration offline, with no call back to the service.
//
// The human-readable fields duplicate what is inside Record; Verify checks
// that they agree, so what a person reads is what was signed.
type Bundle struct {
	Format string `json:"format"`
	// Record is the canonical record bytes (base64 in JSON); all hashes and
	// signatures cover exactly these bytes.
	Record []byte `json:"record"`

	ID             string    `json:"id"`
	OrganizationID string    `json:"organization_id"`
	CreatorID      string    `json:"creator_id"`
	Title          string    `json:"title"`
	Type           string    `json:"type"`
	Description    string    `json:"description"`
	Timestamp      time.Time `json:"timestamp"`
	CertificateID  string    `json:"certificate_id"`
	ContentHash    string    `json:"content_hash"`

	// Token is the RFC 3161 TimeStampResp (DER, base64 in JSON) over
	// SHA-256(Record).
	Token []byte `json:"token"`

	LogIndex       int64       `json:"log_index"`
	TreeSize       int64       `json:"tree_size"`
	InclusionProof []tlog.Hash `json:"inclusion_proof"` // each base64
	Checkpoint     string      `json:"checkpoint"`      // signed note text
	LogVerifierKey string      `json:"log_verifier_key"`
	TSARootPEM     string      `json:"tsa_root_pem"`
	TSAPolicyOID   string      `json:"tsa_policy_oid"`

	// ExternalTimestamps are the timestamps of SHA-256(Record) by
	// independent RFC 3161 authorities (VerifyExternal checks them).
	ExternalTimestamps []ExternalTimestamp `json:"external_timestamps,omitempty"`
}

// NewBundle assembles a bundle from the pieces the sequencer produced for
// one record: its timestamp token, its log index, and an inclusion proof
// against the signed checkpoint (whose size must be treeSize).
func NewBundle(keys *Keys, r Record, token []byte, logIndex, treeSize int64, proof tlog.RecordProof, checkpoint []byte) Bundle {
	r.Timestamp = r.Timestamp.UTC()
	return Bundle{
		Format:         BundleFormat,
		Record:         CanonicalBytes(r),
		ID:             r.ID,
		OrganizationID: r.OrganizationID,
		CreatorID:      r.CreatorID,
		Title:          r.Title,
		Type:           r.Type,
		Description:    r.Description,
		Timestamp:      r.Timestamp,
		CertificateID:  r.CertificateID,
		ContentHash:    r.ContentHash,
		Token:          token,
		LogIndex:       logIndex,
		TreeSize:       treeSize,
		InclusionProof: proof,
		Checkpoint:     string(checkpoint),
		LogVerifierKey: keys.VerifierKey(),
		TSARootPEM:     string(keys.RootPEM()),
		TSAPolicyOID:   PolicyOID,
	}
}

// Names of the checks in a Report, in the order Verify runs them.
const (
	CheckFormat              = "bundle_format"
	CheckWorkHash            = "work_hash"
	CheckRecord              = "record"
	CheckContentHash         = "content_hash"
	CheckTimestampToken      = "timestamp_token"
	CheckTimestampImprint    = "timestamp_imprint"
	CheckTimestampTime       = "timestamp_time"
	CheckCheckpointSignature = "checkpoint_signature"
	CheckLogInclusion        = "log_inclusion"
	CheckTrustAnchors        = "trust_anchors"
)

// Check is the outcome of one verification step. Skipped checks (for
// example work_hash when no file was supplied) count as passed.
type Check struct {
	Name    string `json:"name"`
	OK      bool   `json:"ok"`
	Skipped bool   `json:"skipped,omitempty"`
	Detail  string `json:"detail"`
}

// Report lists every check so a user sees exactly which property failed
// rather than a single yes/no.
type Report struct {
	OK     bool    `json:"ok"`
	Checks []Check `json:"checks"`
}

// Failed returns the names of the checks that failed.
func (r Report) Failed() []string {
	var names []string
	for _, c := range r.Checks {
		if !c.OK {
			names = append(names, c.Name)
		}
	}
	return names
}

// Check returns the check with the given name.
func (r Report) Check(name string) (Check, bool) {
	for _, c := range r.Checks {
		if c.Name == name {
			return c, true
		}
	}
	return Check{}, false
}

// TrustAnchors pins the values a verifier obtained out of band (from the
// service's published keys). Without pinning, Verify proves internal
// consistency only: a forger can mint a bundle with their own root and log
// key that is consistent with itself.
type TrustAnchors struct {
	TSARootPEM     string
	LogVerifierKey string
}

// Verify checks a bundle offline against the trust anchors it carries. If
// work is non-nil it must be the registered file. The error is non-nil iff
// some check failed; the Report says which.
func Verify(b Bundle, work []byte) (Report, error) {
	return verify(b, work, nil)
}

// VerifyPinned is Verify plus a trust_anchors check that the bundle's root
// and log key are the pinned ones.
func VerifyPinned(b Bundle, work []byte, pin TrustAnchors) (Report, error) {
	return verify(b, work, &pin)
}

func verify(b Bundle, work []byte, pin *TrustAnchors) (Report, error) {
	var rep Report
	add := func(name string, err error, okDetail string) bool {
		c := Check{Name: name, OK: err == nil, Detail: okDetail}
		if err != nil {
			c.Detail = err.Error()
		}
		rep.Checks = append(rep.Checks, c)
		return c.OK
	}
	notChecked := func(name, because string) {
		rep.Checks = append(rep.Checks, Check{Name: name, Detail: "not checked: " + because + " failed"})
	}

	if b.Format != BundleFormat {
		add(CheckFormat, fmt.Errorf("unsupported bundle format %q, want %q", b.Format, BundleFormat), "")
	} else {
		add(CheckFormat, nil, b.Format)
	}

	rec, recErr := ParseRecord(b.Record)

	// (a) the file in hand is the registered one.
	switch {
	case work == nil:
		rep.Checks = append(rep.Checks, Check{Name: CheckWorkHash, OK: true, Skipped: true, Detail: "skipped: no work supplied"})
	case recErr != nil:
		notChecked(CheckWorkHash, CheckRecord)
	default:
		sum := sha256.Sum256(work)
		got := contentHashPrefix + hex.EncodeToString(sum[:])
		want, err := NormalizeContentHash(rec.ContentHash)
		switch {
		case err != nil:
			add(CheckWorkHash, fmt.Errorf("record content hash unusable: %v", err), "")
		case got != want:
			add(CheckWorkHash, fmt.Errorf("work hashes to %s, record says %s", got, want), "")
		default:
			add(CheckWorkHash, nil, "work matches "+want)
		}
	}

	// The record bytes parse, and the fields shown to people match them.
	if recErr != nil {
		add(CheckRecord, recErr, "")
	} else {
		add(CheckRecord, recordMatchesBundle(rec, b), "record bytes are canonical and match the displayed fields")
	}

	// (b) the advertised content hash is the signed one.
	switch {
	case recErr != nil:
		notChecked(CheckContentHash, CheckRecord)
	case rec.ContentHash != b.ContentHash:
		add(CheckContentHash, fmt.Errorf("record has %q, bundle shows %q", rec.ContentHash, b.ContentHash), "")
	default:
		norm, err := NormalizeContentHash(rec.ContentHash)
		if err == nil && norm != rec.ContentHash {
			err = fmt.Errorf("content hash %q is not in normalized form %q", rec.ContentHash, norm)
		}
		add(CheckContentHash, err, rec.ContentHash)
	}

	// (c) the TSA signed SHA-256(record) at the stated time.
	info, tokErr := verifyTokenSignature(b.Token, []byte(b.TSARootPEM))
	if tokErr == nil && info.Policy != b.TSAPolicyOID {
		tokErr = fmt.Errorf("token policy %s, bundle says %s", info.Policy, b.TSAPolicyOID)
	}
	if add(CheckTimestampToken, tokErr, "") {
		rep.Checks[len(rep.Checks)-1].Detail = fmt.Sprintf("signed by %q under policy %s, serial %s", info.Signer.Subject.CommonName, info.Policy, info.Serial)
		digest := sha256.Sum256(b.Record)
		if !bytes.Equal(info.Digest, digest[:]) {
			add(CheckTimestampImprint, fmt.Errorf("token stamps %x, record hashes to %x", info.Digest, digest), "")
		} else {
			add(CheckTimestampImprint, nil, fmt.Sprintf("token stamps sha256(record) = %x", digest))
		}
		switch {
		case recErr != nil:
			notChecked(CheckTimestampTime, CheckRecord)
		case !info.GenTime.Equal(rec.Timestamp.Truncate(time.Second)):
			add(CheckTimestampTime, fmt.Errorf("token time %s, record time %s", info.GenTime.Format(time.RFC3339), rec.Timestamp.Format(time.RFC3339Nano)), "")
		default:
			add(CheckTimestampTime, nil, "token time "+info.GenTime.Format(time.RFC3339))
		}
	} else {
		notChecked(CheckTimestampImprint, CheckTimestampToken)
		notChecked(CheckTimestampTime, CheckTimestampToken)
	}

	// (d) the log operator signed the tree head.
	_, size, root, cpErr := OpenCheckpoint([]byte(b.Checkpoint), b.LogVerifierKey)
	if add(CheckCheckpointSignature, cpErr, "") {
		rep.Checks[len(rep.Checks)-1].Detail = fmt.Sprintf("tree size %d, root %s", size, root)
		// (e) the record is in that tree.
		var err error
		switch {
		case size != b.TreeSize:
			err = fmt.Errorf("bundle tree_size %d, checkpoint size %d", b.TreeSize, size)
		case b.LogIndex < 0 || b.LogIndex >= size:
			err = fmt.Errorf("log index %d outside tree of size %d", b.LogIndex, size)
		default:
			if e := tlog.CheckRecord(b.InclusionProof, size, root, b.LogIndex, tlog.RecordHash(b.Record)); e != nil {
				err = fmt.Errorf("inclusion proof for index %d: %v", b.LogIndex, e)
			}
		}
		add(CheckLogInclusion, err, fmt.Sprintf("record is entry %d of %d", b.LogIndex, size))
	} else {
		notChecked(CheckLogInclusion, CheckCheckpointSignature)
	}

	if pin != nil {
		var err error
		switch {
		case !samePEMCert(pin.TSARootPEM, b.TSARootPEM):
			err = errors.New("bundle TSA root is not the pinned root")
		case strings.TrimSpace(pin.LogVerifierKey) != strings.TrimSpace(b.LogVerifierKey):
			err = errors.New("bundle log verifier key is not the pinned key")
		}
		add(CheckTrustAnchors, err, "bundle uses the pinned TSA root and log key")
	}

	failed := rep.Failed()
	rep.OK = len(failed) == 0
	if !rep.OK {
		return rep, fmt.Errorf("ipreg: certificate verification failed: %s", strings.Join(failed, ", "))
	}
	return rep, nil
}

func recordMatchesBundle(r Record, b Bundle) error {
	var diffs []string
	cmp := func(name, rec, shown string) {
		if rec != shown {
			diffs = append(diffs, fmt.Sprintf("%s: record %q, bundle %q", name, rec, shown))
		}
	}
	cmp("id", r.ID, b.ID)
	cmp("organization_id", r.OrganizationID, b.OrganizationID)
	cmp("creator_id", r.CreatorID, b.CreatorID)
	cmp("title", r.Title, b.Title)
	cmp("type", r.Type, b.Type)
	cmp("description", r.Description, b.Description)
	cmp("certificate_id", r.CertificateID, b.CertificateID)
	if !r.Timestamp.Equal(b.Timestamp) {
		diffs = append(diffs, fmt.Sprintf("timestamp: record %s, bundle %s", r.Timestamp.Format(time.RFC3339Nano), b.Timestamp.Format(time.RFC3339Nano)))
	}
	if len(diffs) > 0 {
		return errors.New("displayed fields differ from signed record: " + strings.Join(diffs, "; "))
	}
	return nil
}

func samePEMCert(a, b string) bool {
	ca, errA := parseCertPEM([]byte(a))
	cb, errB := parseCertPEM([]byte(b))
	return errA == nil && errB == nil && bytes.Equal(ca.Raw, cb.Raw)
}

// MarshalBundle encodes a bundle as indented JSON for download.
func MarshalBundle(b Bundle) ([]byte, error) { return json.MarshalIndent(b, "", "  ") }

// ParseBundle decodes bundle JSON, rejecting unknown members so a typo in a
// hand-edited bundle is reported rather than silently ignored.
func ParseBundle(data []byte) (Bundle, error) {
	var b Bundle
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&b); err != nil {
		return Bundle{}, fmt.Errorf("ipreg: decoding bundle: %w", err)
	}
	return b, nil
}
