package workflows_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/creativeops/creativeops/engine"
)

// A musician in Britain types `EP`, `Digital` and `uk`: the plan is the one
// the canonical spellings give (`ep`, `digital`, `GB`), and a German plan
// avoids German holidays.
func TestReleaseStrategyAcceptsAnyCaseAndCountry(t *testing.T) {
	base := map[string]any{"artist": "A", "genre": "indie", "release_date": "2027-06-04", "as_of": "2026-11-20"}
	with := func(kv ...any) map[string]any {
		ctx := clone(base)
		for i := 0; i < len(kv); i += 2 {
			ctx[kv[i].(string)] = kv[i+1]
		}
		return ctx
	}
	typed := run(t, "release-strategy", with("release_type", "EP", "formats", []any{"Digital", "VINYL"}, "country", "uk"))
	canonical := run(t, "release-strategy", with("release_type", "ep", "formats", []any{"digital", "vinyl"}, "country", "GB"))
	if !reflect.DeepEqual(typed, canonical) {
		t.Errorf("EP/Digital/uk plan differs from ep/digital/GB:\n%v\n%v", typed, canonical)
	}
	// In Germany hand-overs move off German holidays, which a US plan
	// does not know.
	movedForGermany := 0
	for d := mediaDay("2027-04-02"); d.Before(mediaDay("2027-08-01")); d = engine.AddDays(d, 7) {
		res := jsonValue(t, run(t, "release-strategy", with("release_date", engine.FormatDate(d), "country", "de"))).(map[string]any)
		for _, m := range res["timeline"].(map[string]any)["milestones"].([]any) {
			ms := m.(map[string]any)
			if ms["deliverable"] != true {
				continue
			}
			day := mediaDay(ms["date"].(string))
			if name, ok := engine.Holiday(day, "DE"); ok && !day.Equal(mediaDay("2026-11-20")) {
				t.Errorf("release %s: %s on %s, %s", engine.FormatDate(d), ms["key"], ms["date"], name)
			}
			if from, ok := ms["moved_from"].(string); ok {
				_, german := engine.Holiday(mediaDay(from), "DE")
				_, american := engine.Holiday(mediaDay(from), engine.RegionUS)
				if german && !american && strings.Contains(ms["note"].(string), "Karfreitag") {
					movedForGermany++
				}
			}
		}
	}
	if movedForGermany == 0 {
		t.Error("no hand-over moved off a German holiday between April and July 2027 (Karfreitag, 26 March, is a Friday hand-over day)")
	}
}
