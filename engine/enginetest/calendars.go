package enginetest

import (
	"encoding/json"
	"errors"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/creativeops/creativeops/engine"
)

// ReplanAfterDays is how long after a plan CheckCalendars re-plans it: the
// same context run again as of a later day, as plans/ does when a plan is
// re-planned (by hand or automatically once a milestone is overdue).
const ReplanAfterDays = 45

// CheckCalendars runs workflow id on every calendar the engine knows: for a
// workflow that takes `country`, with each of the countries of
// engine.Regions(), the example context and a generated one on two plan
// dates (the day in the dead week, and in turn DefaultAsOf, the Monday
// after Easter Monday or a day inside the Chinese New Year closure), each
// planned and then re-planned ReplanAfterDays later (with go test -short,
// the example only). Every result must keep the invariants
// (CheckInvariants), in particular that no hand-over is on a closed day of
// that country's calendar unless it is labelled deliberate, and that every
// declared precedence holds. A workflow without `country` plans on the US
// calendar, which CheckWorkflow covers.
func CheckCalendars(t *testing.T, id string) {
	t.Helper()
	w, ok := engine.LookupWorkflow(id)
	if !ok {
		t.Fatalf("workflow %q not registered", id)
	}
	if !slices.ContainsFunc(w.Fields, func(f engine.Field) bool { return f.Name == engine.RegionFieldName }) {
		return
	}
	rng := rand.New(rand.NewPCG(7, 0xca1))
	failures := map[string]int{}
	for ri, r := range engine.Regions() {
		for _, i := range []int{1, []int{0, 2, 3}[ri%3]} {
			asOf := asOfDates[i]
			ctxs := []map[string]any{Example(w, asOf)}
			if !testing.Short() {
				generated := GenerateContexts(w, asOf, 8, int64(i)+11)
				ctxs = append(ctxs, generated[rng.IntN(len(generated))])
			}
			for _, ctx := range ctxs {
				ctx = Clone(ctx)
				ctx[engine.RegionFieldName] = string(r)
				for _, when := range []time.Time{asOf, engine.AddDays(asOf, ReplanAfterDays)} {
					c := Clone(ctx)
					c[engine.AsOfField] = engine.FormatDate(when)
					res, err := Run(w, c, when)
					var ce *engine.ContextError
					if errors.As(err, &ce) {
						continue
					}
					if err != nil {
						t.Errorf("%s (%s): run failed: %v", id, r, err)
						continue
					}
					for _, p := range Violations(w, c, res) {
						// One report per rule and country keeps a broken
						// rule readable.
						key := p.Rule + " " + string(r)
						if failures[key]++; failures[key] == 1 {
							b, _ := json.Marshal(c)
							t.Errorf("%s (%s): %s: %s\ncontext: %s", id, r, p.Rule, p.Detail, b)
						}
					}
				}
			}
		}
	}
}
