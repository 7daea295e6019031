package engine_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/creativeops/creativeops/engine"
	_ "github.com/creativeops/creativeops/engine/workflows" // registers every workflow
)

// Workflow contexts, as a client's JSON: Prepare either rejects one with
// violations that each name a field under "context", or accepts it; an
// accepted context prepares again after the JSON round trip an
// asynchronous run's storage gives it, and running it never panics.
func FuzzWorkflowContext(f *testing.F) {
	all := engine.Workflows("")
	for i, w := range all {
		example, err := json.Marshal(w.ExampleContext)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(uint16(i), example)
	}
	f.Add(uint16(0), []byte(`{}`))
	f.Add(uint16(1), []byte(`{"releaseDate":"2027-02-30","release_date":"2027-03-03"}`))
	f.Add(uint16(2), []byte(`{"as_of":"9999-12-31","deadline":"0001-01-01"}`))
	f.Add(uint16(3), []byte(`{"a":{"b":{"c":[{"d":[1e308,-1e308,null,true,"\u0000"]}]}}}`))
	f.Add(uint16(4), []byte(`{"runtime_seconds":1e300,"budget":-1e-300,"tags":[]}`))
	asOf := time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, which uint16, raw []byte) {
		var ctx map[string]any
		if json.Unmarshal(raw, &ctx) != nil || ctx == nil {
			return
		}
		w := all[int(which)%len(all)]
		in, err := w.Prepare(ctx)
		if err != nil {
			var ce *engine.ContextError
			if !errors.As(err, &ce) || len(ce.Violations) == 0 {
				t.Fatalf("%s: %v is not a list of violations", w.ID, err)
			}
			for _, v := range ce.Violations {
				if !strings.HasPrefix(v.Field, "context") || v.Description == "" {
					t.Fatalf("%s: violation %+v does not name a context field", w.ID, v)
				}
			}
			return
		}
		stored, err := json.Marshal(in.Values())
		if err != nil {
			t.Fatalf("%s: a prepared context cannot be stored: %v", w.ID, err)
		}
		var reloaded map[string]any
		if err := json.Unmarshal(stored, &reloaded); err != nil {
			t.Fatal(err)
		}
		again, err := w.Prepare(reloaded)
		if err != nil {
			t.Fatalf("%s: a prepared context %s is refused once stored: %v", w.ID, stored, err)
		}
		_, err = w.Run(context.Background(), again, asOf, nil)
		var se *engine.StepError
		if errors.As(err, &se) && se.Code == "STEP_PANIC" {
			t.Fatalf("%s on %s: %v", w.ID, stored, err)
		}
		if err == nil {
			in, _ := w.Prepare(reloaded)
			checkResultIsRoundTrip(t, w, in, asOf)
		}
	})
}
