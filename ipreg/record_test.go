package ipreg

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"
)

var hexA = strings.Repeat("a", 64)

func sampleRecord() Record {
	return Record{
		ID:             "rec-1",
		OrganizationID: "org-1",
		CreatorID:      "user-1",
		Title:          "Quote \" back\\slash <b>&é\u2028/",
		Type:           "image",
		ContentHash:    "sha256:" + hexA,
		Description:    "line1\nline2\ttab\x01\x7f",
		Timestamp:      time.Date(2025, 3, 4, 5, 6, 7, 120000000, time.FixedZone("CET", 3600)),
		CertificateID:  "cert-1",
	}
}

func TestCanonicalBytesGolden(t *testing.T) {
	want := `{"certificate_id":"cert-1","content_hash":"sha256:` + hexA + `","creator_id":"user-1",` +
		`"description":"line1\nline2\ttab\u0001` + "\x7f" + `","format":"creativeops/record/v1","id":"rec-1",` +
		`"organization_id":"org-1","timestamp":"2025-03-04T04:06:07.12Z",` +
		`"title":"Quote \" back\\slash <b>&é` + "\u2028" + `/","type":"image"}`
	got := CanonicalBytes(sampleRecord())
	if string(got) != want {
		t.Fatalf("CanonicalBytes:\n got %s\nwant %s", got, want)
	}
	if !json.Valid(got) {
		t.Fatal("canonical bytes are not valid JSON")
	}

	// Same instant in another zone, same bytes.
	r := sampleRecord()
	r.Timestamp = r.Timestamp.UTC()
	if !bytes.Equal(CanonicalBytes(r), got) {
		t.Error("canonical bytes depend on the timestamp's time zone")
	}

	back, err := ParseRecord(got)
	if err != nil {
		t.Fatalf("ParseRecord: %v", err)
	}
	orig := sampleRecord()
	if !back.Timestamp.Equal(orig.Timestamp) {
		t.Errorf("timestamp %v, want %v", back.Timestamp, orig.Timestamp)
	}
	back.Timestamp, orig.Timestamp = time.Time{}, time.Time{}
	if back != orig {
		t.Errorf("ParseRecord round trip:\n got %+v\nwant %+v", back, orig)
	}
}

func TestCanonicalBytesEmptyAndInvalidUTF8(t *testing.T) {
	empty := CanonicalBytes(Record{})
	want := `{"certificate_id":"","content_hash":"","creator_id":"","description":"","format":"creativeops/record/v1","id":"","organization_id":"","timestamp":"0001-01-01T00:00:00Z","title":"","type":""}`
	if string(empty) != want {
		t.Errorf("empty record:\n got %s\nwant %s", empty, want)
	}
	r := Record{Title: "bad\xffbyte"}
	got, err := ParseRecord(CanonicalBytes(r))
	if err != nil {
		t.Fatal(err)
	}
	if got.Title != "bad\uFFFDbyte" {
		t.Errorf("invalid UTF-8 title became %q", got.Title)
	}
}

func TestParseRecordRejectsNonCanonical(t *testing.T) {
	good := string(CanonicalBytes(sampleRecord()))
	cases := map[string]string{
		"leading space":        " " + good,
		"space after colon":    strings.Replace(good, `"id":"rec-1"`, `"id": "rec-1"`, 1),
		"keys reordered":       reorder(good),
		"unknown member":       strings.Replace(good, `{`, `{"extra":"x",`, 1),
		"missing member":       strings.Replace(good, `,"type":"image"`, ``, 1),
		"duplicate key":        strings.Replace(good, `"title":`, `"title":"forged","title":`, 1),
		"key case":             strings.Replace(good, `"title":`, `"Title":`, 1),
		"wrong format":         strings.Replace(good, RecordFormat, "creativeops/record/v2", 1),
		"non-UTC timestamp":    strings.Replace(good, `2025-03-04T04:06:07.12Z`, `2025-03-04T05:06:07.12+01:00`, 1),
		"trailing zero":        strings.Replace(good, `07.12Z`, `07.120Z`, 1),
		"bad timestamp":        strings.Replace(good, `2025-03-04T04:06:07.12Z`, `yesterday`, 1),
		"escaped slash":        strings.Replace(good, `/","type"`, `\/","type"`, 1),
		"needless escape":      strings.Replace(good, `"id":"rec-1"`, `"id":"\u0072ec-1"`, 1),
		"long form of \\n":     strings.Replace(good, `line1\n`, `line1\u000a`, 1),
		"uppercase hex escape": strings.Replace(good, `line1\n`, `line1\u000A`, 1),
		"trailing data":        good + "{}",
		"trailing newline":     good + "\n",
		"invalid UTF-8":        strings.Replace(good, "rec-1", "rec\xff1", 1),
		"not an object":        `["rec-1"]`,
		"empty":                ``,
	}
	for name, in := range cases {
		t.Run(name, func(t *testing.T) {
			if in == good {
				t.Fatal("test case did not change the input")
			}
			if _, err := ParseRecord([]byte(in)); err == nil {
				t.Fatalf("ParseRecord accepted %q", in)
			}
		})
	}
}

// reorder moves the first member to the end.
func reorder(s string) string {
	inner := s[1 : len(s)-1]
	first, rest, _ := strings.Cut(inner, `,"content_hash"`)
	return `{"content_hash"` + rest + "," + first + "}"
}

func TestNormalizeContentHash(t *testing.T) {
	lower := "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	upper := strings.ToUpper(lower)
	cases := []struct {
		in, want string
		errHas   string
	}{
		{in: lower, want: "sha256:" + lower},
		{in: upper, want: "sha256:" + lower},
		{in: "sha256:" + lower, want: "sha256:" + lower},
		{in: "SHA256:" + upper, want: "sha256:" + lower},
		{in: "Sha256:" + "0123456789ABCDEF0123456789abcdef0123456789ABCDEF0123456789abcdef", want: "sha256:" + lower},
		{in: "", errHas: "empty"},
		{in: "sha256:", errHas: "64 hex"},
		{in: lower[:63], errHas: "64 hex"},
		{in: lower + "0", errHas: "64 hex"},
		{in: "sha256:" + lower[:62], errHas: "64 hex"},
		{in: strings.Repeat("g", 64), errHas: "not hexadecimal"},
		{in: "sha256:" + lower[:63] + "z", errHas: "not hexadecimal"},
		{in: "md5:" + lower[:32], errHas: `"md5"`},
		{in: "sha512:" + lower + lower, errHas: `"sha512"`},
		{in: "sha1:" + lower, errHas: `"sha1"`},
		{in: ":" + lower, errHas: "not supported"},
		{in: "sha256:sha256:" + lower, errHas: "64 hex"},
		{in: " " + lower[1:] + " ", errHas: "64 hex"},
		{in: lower[:32] + " " + lower[33:], errHas: "not hexadecimal"},
	}
	for _, tc := range cases {
		got, err := NormalizeContentHash(tc.in)
		if tc.want != "" {
			if err != nil || got != tc.want {
				t.Errorf("NormalizeContentHash(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
			}
			continue
		}
		if err == nil {
			t.Errorf("NormalizeContentHash(%q) = %q, want error", tc.in, got)
		} else if !strings.Contains(err.Error(), tc.errHas) {
			t.Errorf("NormalizeContentHash(%q) error %q lacks %q", tc.in, err, tc.errHas)
		}
	}
}
