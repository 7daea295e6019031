package jsondoc

import (
	"bytes"
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
	if b := c.([]byte); b[0] != compressed || len(b) >= len(js)/3 {
		t.Errorf("a %d-byte document is stored in %d bytes", len(js), len(b))
	}
	if small, _ := Compact(Doc{"a": 1.0}); !bytes.Equal(small.([]byte), []byte(`{"a":1}`)) {
		t.Errorf("a small document is stored as %q, want its JSON", small)
	}
	var got Doc
	if err := got.Scan(nil); err != nil || got != nil {
		t.Errorf("SQL NULL reads as %v, %v", got, err)
	}
	if err := got.Scan([]byte{compressed, 0xff, 0x00}); err == nil {
		t.Error("a corrupt compressed document reads without an error")
	}
}
