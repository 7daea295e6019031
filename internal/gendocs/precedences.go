package main

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/creativeops/creativeops/engine"
)

// writePrecedences lists the milestones of the workflow's example plan by
// kind (the hand-overs the calendar keeps off closed days, the fixed
// events, one's own work) and the precedences it declares, with their
// minimum gaps in working days. The example context carries its own as_of,
// so the list is the same on every run.
func writePrecedences(b *bytes.Buffer, w *engine.Workflow) {
	in, err := w.Prepare(clone(w.ExampleContext))
	if err != nil {
		return
	}
	res, err := w.Run(context.Background(), in, time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC), nil)
	if err != nil {
		return
	}
	tl, _ := res["timeline"].(map[string]any)
	ms, _ := tl["milestones"].([]any)
	if len(ms) == 0 {
		return
	}
	byKind := map[string][]string{}
	for _, x := range ms {
		m, _ := x.(map[string]any)
		k, _ := m["kind"].(string)
		key, _ := m["key"].(string)
		byKind[k] = append(byKind[k], "`"+key+"`")
	}
	var kinds []string
	for _, k := range engine.StepKinds {
		if keys := byKind[string(k)]; len(keys) > 0 {
			kinds = append(kinds, fmt.Sprintf("%s: %s", k, strings.Join(keys, ", ")))
		}
	}
	fmt.Fprintf(b, "Milestones of the example plan by kind — %s.\n\n", strings.Join(kinds, "; "))
	ps, _ := tl["precedences"].([]any)
	if len(ps) == 0 {
		b.WriteString("Precedences: none declared.\n\n")
		return
	}
	list := make([]string, 0, len(ps))
	for _, x := range ps {
		p, _ := x.(map[string]any)
		gap, _ := p["min_working_days"].(float64)
		s := fmt.Sprintf("`%s` → `%s`", p["before"], p["after"])
		if gap > 0 {
			s += fmt.Sprintf(" (%s)", engine.Plural(int(gap), "working day", "working days"))
		}
		list = append(list, s)
	}
	fmt.Fprintf(b, "Precedences (predecessor → successor, minimum gap): %s.\n\n", strings.Join(list, ", "))
}

// clone copies a context so preparing it leaves the registry's example
// alone.
func clone(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}
