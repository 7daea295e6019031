package wire

import (
	"bytes"
	"encoding/json"
	"math"
	"testing"
	"time"
	"unicode/utf8"

	"google.golang.org/protobuf/types/known/structpb"

	"github.com/creativeops/creativeops/creators"
)

// A creator written directly is the JSON value protojson writes of
// Creator(c): with metadata of every JSON kind, without metadata, with
// text JSON escapes and timestamps of each precision.
func TestCreatorJSONIsProtojson(t *testing.T) {
	created := time.Date(2026, 11, 27, 10, 0, 0, 0, time.FixedZone("CET", 3600))
	cases := []*creators.Creator{
		{ID: "cr_1", Name: "Nova Reyes", Email: "nova@example.com", Vertical: "music", Status: "active",
			Metadata: asDecoded(t, map[string]any{"label": "Night Owl", "plays": 12.5, "n": 1e21, "m": 1e-7, "z": -0.0,
				"l": []any{nil, true, "x", 3.5, map[string]any{"deep": []any{}}}, "empty": map[string]any{}}),
			CreatedAt: created, UpdatedAt: created.Add(1500 * time.Millisecond), Revision: 12},
		{ID: "cr_2", Name: "<b>&</b> \u2028 é \"q\" \\", Email: "a@example.com", Vertical: "film", Status: "active",
			CreatedAt: created.Add(123 * time.Microsecond), UpdatedAt: created.Add(7)},
		{ID: "cr_3", Metadata: map[string]any{}, CreatedAt: created.Add(1234567 * time.Nanosecond), UpdatedAt: created},
	}
	for _, c := range cases {
		want, err := JSON.Marshal(Creator(c))
		if err != nil {
			t.Fatal(err)
		}
		got, ok := CreatorJSON(Creator(c))
		if !ok {
			t.Fatalf("%s: not written directly", c.ID)
		}
		sameJSON(t, c.ID, got, want)
	}
}

// What the direct path cannot write as protojson would is left to
// protojson.
func TestCreatorJSONDeclines(t *testing.T) {
	ok := &creators.Creator{ID: "cr_1", Name: "Nova", CreatedAt: time.Now(), UpdatedAt: time.Now()}
	if _, written := CreatorJSON(Creator(ok)); !written {
		t.Fatal("a plain creator: not written directly")
	}
	for name, change := range map[string]func(c *creators.Creator){
		"invalid UTF-8 name":  func(c *creators.Creator) { c.Name = "a\xffb" },
		"invalid UTF-8 email": func(c *creators.Creator) { c.Email = "a\xff@example.com" },
	} {
		c := *ok
		change(&c)
		if _, written := CreatorJSON(Creator(&c)); written {
			t.Errorf("%s: written directly", name)
		}
	}
	p := Creator(ok)
	p.Metadata = &structpb.Struct{Fields: map[string]*structpb.Value{"n": structpb.NewNumberValue(math.NaN())}}
	if _, written := CreatorJSON(p); written {
		t.Error("NaN in metadata: written directly")
	}
	p = Creator(ok)
	p.UpdatedAt.Seconds = -1 << 40
	if _, written := CreatorJSON(p); written {
		t.Error("a timestamp before year 1: written directly")
	}
	p = Creator(ok)
	p.CreatedAt = nil
	if _, written := CreatorJSON(p); written {
		t.Error("no creation time: written directly")
	}
	if _, written := CreatorJSON(nil); written {
		t.Error("no creator: written directly")
	}
}

// The bytes of a creator are those json.Marshal writes of its
// creatorJSON, whatever its text holds: written directly when nothing in
// it needs escaping, by json.Marshal otherwise.
func TestCreatorJSONIsJSONMarshal(t *testing.T) {
	created := time.Date(2026, 11, 27, 10, 0, 0, 0, time.FixedZone("CET", 3600))
	for _, name := range []string{"Nova Reyes", "", "Zoë Ångström 李", "a<b", "a>b", "a&b", `a"b`, `a\b`, "a\nb", "a\tb", "a\x00b", "a\x1fb", "a\x7fb",
		"a\u2028b", "a\u2029b", "a\ufffdb", "😀", "/slash/", "'single'", "%s %d"} {
		for _, metadata := range []map[string]any{nil, {}, {"label": "<Night & Owl>", "plays": 12.5, "l": []any{nil, true, "\u2028"}}} {
			c := &creators.Creator{ID: "cr_1", Name: name, Email: name + "@example.com", Vertical: "music", Status: "active",
				Metadata: metadata, CreatedAt: created, UpdatedAt: created.Add(1500 * time.Millisecond)}
			checkCreatorBytes(t, c)
		}
	}
}

func FuzzCreatorJSON(f *testing.F) {
	f.Add("Nova Reyes", "nova@example.com", int64(0))
	f.Add("<b>é</b>\u2028", "a\x01@example.com", int64(123456789))
	f.Fuzz(func(t *testing.T, name, email string, ns int64) {
		at := time.Unix(1_800_000_000, 0).Add(time.Duration(ns % 1e12))
		checkCreatorBytes(t, &creators.Creator{ID: "cr_1", Name: name, Email: email, Vertical: "film", Status: "active", CreatedAt: at, UpdatedAt: at})
	})
}

func checkCreatorBytes(t *testing.T, c *creators.Creator) {
	t.Helper()
	p := Creator(c)
	got, ok := CreatorJSON(p)
	if !utf8.ValidString(c.Name) || !utf8.ValidString(c.Email) {
		if ok {
			t.Errorf("%q: invalid UTF-8 written directly", c.Name)
		}
		return
	}
	metadata, _ := structMap(p.Metadata)
	want, err := json.Marshal(creatorJSON{ID: p.GetId(), Name: p.GetName(), Email: p.GetEmail(), Vertical: p.GetVertical(), Status: p.GetStatus(),
		Metadata: metadata, CreatedAt: protoTime(p.CreatedAt.AsTime()), UpdatedAt: protoTime(p.UpdatedAt.AsTime())})
	if err != nil || !ok {
		t.Fatalf("%q: %v, written %v", c.Name, err, ok)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%q:\n got %s\nwant %s", c.Name, got, want)
	}
}

// What writing a creator's JSON costs.
func BenchmarkCreatorJSON(b *testing.B) {
	at := time.Date(2026, 11, 27, 10, 0, 0, 123456000, time.UTC)
	p := Creator(&creators.Creator{ID: "cr_01JDZ8M2VQ6T0X", Name: "Nova Reyes", Email: "nova@example.com", Vertical: "music", Status: "active",
		Metadata: map[string]any{"label": "Night Owl"}, CreatedAt: at, UpdatedAt: at})
	b.ReportAllocs()
	for b.Loop() {
		if _, ok := CreatorJSON(p); !ok {
			b.Fatal("not written")
		}
	}
}
