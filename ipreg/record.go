package ipreg

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"
	"unicode/utf8"
)

// RecordFormat is the value of the "format" member of every canonical
// record. It separates these bytes from any other JSON the service signs and
// lets a future format coexist in the same log.
const RecordFormat = "creativeops/record/v1"

// Record is one registration: who claimed which content, when.
type Record struct {
	ID             string
	OrganizationID string
	CreatorID      string
	Title          string
	Type           string
	ContentHash    string // "sha256:<64 lowercase hex>", see NormalizeContentHash
	Description    string
	Timestamp      time.Time
	CertificateID  string
}

func (r Record) members() map[string]string {
	return map[string]string{
		"certificate_id":  r.CertificateID,
		"content_hash":    r.ContentHash,
		"creator_id":      r.CreatorID,
		"description":     r.Description,
		"format":          RecordFormat,
		"id":              r.ID,
		"organization_id": r.OrganizationID,
		"timestamp":       r.Timestamp.UTC().Format(time.RFC3339Nano),
		"title":           r.Title,
		"type":            r.Type,
	}
}

// CanonicalBytes returns the bytes that are timestamped and logged.
//
// They are the RFC 8785 (JCS) serialisation of a JSON object whose members
// are all strings: keys sorted, no whitespace, only '"', '\\' and control
// characters escaped (\b \t \n \f \r, else \u00xx lowercase), everything
// else literal UTF-8. The timestamp is RFC 3339 in UTC with trailing
// fractional zeros removed (Go's time.RFC3339Nano). Invalid UTF-8 in a field
// is replaced by U+FFFD, so callers should reject it before building a
// Record if they need the stored field to match byte for byte.
//
// Every member is always present, even when empty, so that the encoding of a
// record is a pure function of its fields.
func CanonicalBytes(r Record) []byte {
	m := r.members()
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys) // keys are ASCII, so byte order equals JCS's UTF-16 order
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range keys {
		if i > 0 {
			b.WriteByte(',')
		}
		writeJCSString(&b, k)
		b.WriteByte(':')
		writeJCSString(&b, m[k])
	}
	b.WriteByte('}')
	return b.Bytes()
}

func writeJCSString(b *bytes.Buffer, s string) {
	const hexdigits = "0123456789abcdef"
	s = strings.ToValidUTF8(s, "\uFFFD")
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"':
			b.WriteString(`\"`)
		case c == '\\':
			b.WriteString(`\\`)
		case c == '\b':
			b.WriteString(`\b`)
		case c == '\t':
			b.WriteString(`\t`)
		case c == '\n':
			b.WriteString(`\n`)
		case c == '\f':
			b.WriteString(`\f`)
		case c == '\r':
			b.WriteString(`\r`)
		case c < 0x20:
			b.WriteString(`\u00`)
			b.WriteByte(hexdigits[c>>4])
			b.WriteByte(hexdigits[c&0xf])
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
}

type recordJSON struct {
	CertificateID  *string `json:"certificate_id"`
	ContentHash    *string `json:"content_hash"`
	CreatorID      *string `json:"creator_id"`
	Description    *string `json:"description"`
	Format         *string `json:"format"`
	ID             *string `json:"id"`
	OrganizationID *string `json:"organization_id"`
	Timestamp      *string `json:"timestamp"`
	Title          *string `json:"title"`
	Type           *string `json:"type"`
}

// ParseRecord decodes canonical record bytes. It accepts only the exact
// output of CanonicalBytes: the hashes cover bytes, not meaning, so any
// alternative spelling (whitespace, key order, duplicate keys, escapes) of a
// record would let two parties read different fields out of one signature.
func ParseRecord(data []byte) (Record, error) {
	if !utf8.Valid(data) {
		return Record{}, errors.New("ipreg: record is not valid UTF-8")
	}
	var rj recordJSON
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&rj); err != nil {
		return Record{}, fmt.Errorf("ipreg: decoding record: %w", err)
	}
	if dec.More() {
		return Record{}, errors.New("ipreg: trailing data after record")
	}
	for name, p := range map[string]*string{
		"certificate_id": rj.CertificateID, "content_hash": rj.ContentHash, "creator_id": rj.CreatorID,
		"description": rj.Description, "format": rj.Format, "id": rj.ID, "organization_id": rj.OrganizationID,
		"timestamp": rj.Timestamp, "title": rj.Title, "type": rj.Type,
	} {
		if p == nil {
			return Record{}, fmt.Errorf("ipreg: record lacks %q", name)
		}
	}
	if *rj.Format != RecordFormat {
		return Record{}, fmt.Errorf("ipreg: unsupported record format %q", *rj.Format)
	}
	ts, err := time.Parse(time.RFC3339Nano, *rj.Timestamp)
	if err != nil {
		return Record{}, fmt.Errorf("ipreg: record timestamp: %w", err)
	}
	r := Record{
		ID:             *rj.ID,
		OrganizationID: *rj.OrganizationID,
		CreatorID:      *rj.CreatorID,
		Title:          *rj.Title,
		Type:           *rj.Type,
		ContentHash:    *rj.ContentHash,
		Description:    *rj.Description,
		Timestamp:      ts.UTC(),
		CertificateID:  *rj.CertificateID,
	}
	if !bytes.Equal(CanonicalBytes(r), data) {
		return Record{}, errors.New("ipreg: record bytes are not in canonical form")
	}
	return r, nil
}

const contentHashPrefix = "sha256:"

// NormalizeContentHash accepts "sha256:<64 hex>" or bare 64 hex digits in
// any letter case and returns "sha256:<lowercase hex>", the only spelling
// that may enter a record; otherwise identical works would get different
// canonical bytes depending on how the client typed the hash.
func NormalizeContentHash(s string) (string, error) {
	if s == "" {
		return "", errors.New("ipreg: content hash is empty")
	}
	h := s
	if i := strings.IndexByte(s, ':'); i >= 0 {
		alg := s[:i]
		if !strings.EqualFold(alg, "sha256") {
			return "", fmt.Errorf("ipreg: content hash algorithm %q is not supported; use sha256", alg)
		}
		h = s[i+1:]
	}
	if len(h) != 64 {
		return "", fmt.Errorf("ipreg: content hash must be 64 hex digits (SHA-256), got %d characters", len(h))
	}
	if _, err := hex.DecodeString(h); err != nil {
		return "", fmt.Errorf("ipreg: content hash is not hexadecimal: %q", h)
	}
	return contentHashPrefix + strings.ToLower(h), nil
}
