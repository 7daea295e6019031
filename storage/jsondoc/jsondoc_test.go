package jsondoc

import (
	"bytes"
	"compress/flate"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// A document reads back as it was written, from Compact's bytes, from its
// JSON as text or bytes (rows written before compression), and a large one
// is stored smaller than its JSON.
func TestRoundTrip(t *testing.T) {
	large := Doc{"strategy": strings.Repeat("Release on a Friday, deliver three weeks ahead. ", 40),
		"timeline": map[string]any{"milestones": []any{map[string]any{"key": "a", "date": "2027-01-29", "deliverable": true, "days": 3.0}}},
		"ünïcode":  "<&>"}
	for _, d := range []Doc{nil, {}, {"a": 1.0}, large} {
		js, _ := json.Marshal(map[string]any(d))
		c, err := Compact(d)
		if err != nil {
			t.Fatal(err)
		}
		v, _ := d.Value()
		for _, src := range []any{c, string(js), js, v} {
			var got Doc
			if err := got.Scan(src); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, d) && !(len(got) == 0 && len(d) == 0 && (got == nil) == (d == nil)) {
				t.Errorf("%v read back as %v from %T", d, got, src)
			}
		}
	}
	c, _ := Compact(large)
	js, _ := json.Marshal(map[string]any(large))
	if b := c.([]byte); b[0] != compressedDict1 || len(b) >= len(js)/3 {
		t.Errorf("a %d-byte document is stored in %d bytes", len(js), len(b))
	}
	if small, _ := Compact(Doc{"a": 1.0}); !bytes.Equal(small.([]byte), []byte(`{"a":1}`)) {
		t.Errorf("a small document is stored as %q, want its JSON", small)
	}
	// What dict1 is for: a release plan's result.
	var release map[string]any
	if err := json.Unmarshal(dict1[bytes.IndexByte(dict1, '}')+1:], &release); err != nil {
		t.Fatal(err)
	}
	release["artist"], release["release_date"] = "Someone Else", "2027-09-03"
	if c, _ := Compact(release); len(c.([]byte)) > 1000 {
		t.Errorf("a release plan's result is stored in %d bytes", len(c.([]byte)))
	}
	// The first form (no dictionary) still reads.
	var buf bytes.Buffer
	buf.WriteByte(compressed)
	fw, _ := flate.NewWriter(&buf, flate.DefaultCompression)
	fw.Write(js)
	fw.Close()
	var old Doc
	if err := old.Scan(buf.Bytes()); err != nil || !reflect.DeepEqual(old, large) {
		t.Errorf("a document compressed without the dictionary reads as %v, %v", old, err)
	}
	var got Doc
	if err := got.Scan(nil); err != nil || got != nil {
		t.Errorf("SQL NULL reads as %v, %v", got, err)
	}
	if err := got.Scan([]byte{compressed, 0xff, 0x00}); err == nil {
		t.Error("a corrupt compressed document reads without an error")
	}
}
