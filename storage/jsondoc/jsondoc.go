// Package jsondoc is the type of the large JSON documents the service
// stores (a job's context and result): a JSON object in a column, which
// on SQLite is kept compressed. PostgreSQL compresses large values itself
// (TOAST); SQLite stores every byte, and a workflow's result, a few
// kilobytes of JSON with the same keys and phrases over and over, shrinks
// to a third or less with DEFLATE.
//
// On PostgreSQL a Doc is written as JSON (driver.Valuer) into a jsonb
// column. On SQLite the connection's NamedValueChecker turns it into
// Compact's bytes instead (storage's SQLite connector calls Compact). Scan
// reads either form, so rows written before compression read back as
// they were, and a database holds both without a migration.
package jsondoc

import (
	"bytes"
	"compress/flate"
	"database/sql/driver"
	_ "embed"
	"encoding/json"
	"fmt"
	"io"
	"sync"
)

// Doc is a JSON object as the service handles it. A nil Doc is written as
// JSON's null, as a JSON field writes a nil map (a column cleared is SQL
// NULL); both read back as nil.
type Doc map[string]any

// A compressed document starts with a byte no JSON text starts with,
// which says how the rest is compressed:
const (
	// compressed: the DEFLATE stream (RFC 1951) of the document's JSON.
	compressed = 0x01
	// compressedDict1: the same with dict1 as DEFLATE's preset dictionary.
	compressedDict1 = 0x02
)

// dict1 is a tracked release plan's context and result, the documents
// stored most: with it as DEFLATE's preset dictionary, a release plan's
// result (6 KB of JSON) is stored in a few hundred bytes rather than
// 1.9 KB, small enough for two jobs to share one of SQLite's 4 KB pages,
// and every other workflow's documents share its keys and many phrases.
// Documents stored with it need it to be read: it must never change (a
// better dictionary is dict2, with its own leading byte).
//
//go:embed dict1.json
var dict1 []byte

// minCompress: smaller documents are stored as JSON, which DEFLATE would
// hardly shrink.
const minCompress = 128

// Value is the document as JSON, for databases that store it as such.
func (d Doc) Value() (driver.Value, error) {
	return json.Marshal(map[string]any(d))
}

var writers = sync.Pool{New: func() any {
	w, _ := flate.NewWriterDict(nil, flate.BestCompression, dict1)
	return w
}}

// Compact is the document as SQLite stores it: its JSON, compressed when
// that is smaller.
func Compact(d Doc) (driver.Value, error) {
	data, err := json.Marshal(map[string]any(d))
	if err != nil {
		return nil, err
	}
	if len(data) < minCompress {
		return data, nil
	}
	var buf bytes.Buffer
	buf.Grow(len(data) / 3)
	buf.WriteByte(compressedDict1)
	w := writers.Get().(*flate.Writer)
	defer writers.Put(w)
	w.Reset(&buf)
	if _, err := w.Write(data); err != nil {
		return nil, err
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	if buf.Len() >= len(data) {
		return data, nil
	}
	return buf.Bytes(), nil
}

// Scan reads a document in either form: JSON (text or bytes) or Compact's.
func (d *Doc) Scan(src any) error {
	var data []byte
	switch v := src.(type) {
	case nil:
		*d = nil
		return nil
	case []byte:
		data = v
	case string:
		data = []byte(v)
	default:
		return fmt.Errorf("jsondoc: cannot read a document from %T", src)
	}
	m, err := Decode(data)
	if err != nil {
		return err
	}
	*d = m
	return nil
}

// Decode reads a stored document, JSON or compressed; no bytes, or JSON's
// null, is a nil document (as a JSON column reads).
func Decode(data []byte) (Doc, error) {
	if len(data) == 0 {
		return nil, nil
	}
	if data[0] == compressed || data[0] == compressedDict1 {
		var r io.ReadCloser
		if data[0] == compressed {
			r = flate.NewReader(bytes.NewReader(data[1:]))
		} else {
			r = flate.NewReaderDict(bytes.NewReader(data[1:]), dict1)
		}
		raw, err := io.ReadAll(r)
		if err != nil {
			return nil, fmt.Errorf("jsondoc: a compressed document does not decompress: %w", err)
		}
		data = raw
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("jsondoc: %w", err)
	}
	return m, nil
}
