package engine_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/creativeops/creativeops/engine"
)

// TestEnumsIgnoreCase: an enum value in another case is accepted and
// stored in the workflow's spelling, in plain fields, string lists and the
// fields of list items; a value matching nothing is a violation naming the
// field and the accepted values.
func TestEnumsIgnoreCase(t *testing.T) {
	engine.Register(&engine.Workflow{
		ID: "test-enum-case", Name: "Enum case", Vertical: "music", Description: "d",
		Fields: []engine.Field{
			{Name: "format", Kind: engine.String, Enum: []string{"single", "EP", "album"}},
			{Name: "channels", Kind: engine.StringList, Enum: []string{"digital", "vinyl"}},
			{Name: "tracks", Kind: engine.ObjectList, Items: []engine.Field{{Name: "role", Kind: engine.String, Enum: []string{"focus", "deep-cut"}}}},
		},
		Steps: []engine.Step{{Name: "noop", Run: func(*engine.Input, *engine.Plan) error { return nil }}},
	})
	w, _ := engine.LookupWorkflow("test-enum-case")
	in, err := w.Prepare(map[string]any{
		"format": "ep", "channels": []any{"Digital", "VINYL"},
		"tracks": []any{map[string]any{"role": "Focus"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := in.Str("format"); got != "EP" {
		t.Errorf("format = %q, want EP", got)
	}
	if got := in.Strings("channels"); len(got) != 2 || got[0] != "digital" || got[1] != "vinyl" {
		t.Errorf("channels = %v, want [digital vinyl]", got)
	}
	if got := in.List("tracks")[0].Str("role"); got != "focus" {
		t.Errorf("tracks[0].role = %q, want focus", got)
	}
	_, err = w.Prepare(map[string]any{"format": "LP"})
	var ce *engine.ContextError
	if !errors.As(err, &ce) || ce.Violations[0].Field != "context.format" || !strings.Contains(ce.Violations[0].Description, "'EP'") {
		t.Errorf("format LP: %v; want a violation of context.format naming the accepted values", err)
	}
}
