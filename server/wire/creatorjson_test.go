package wire

import (
	"math"
	"testing"
	"time"

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
			CreatedAt: created, UpdatedAt: created.Add(1500 * time.Millisecond)},
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
