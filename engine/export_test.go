package engine

import "time"

// ResultBothWays runs w on in as Run does and returns the plan's result
// made plain the way Result makes it and by a JSON round trip, which
// Result must match exactly.
func ResultBothWays(w *Workflow, in *Input, asOf time.Time) (direct, roundTrip any, err error) {
	in.setAsOf(asOf.UTC().Truncate(24 * time.Hour))
	p := &Plan{asOf: in.AsOf()}
	for _, s := range w.Steps {
		if err := runStep(s, in, p); err != nil {
			return nil, nil, err
		}
	}
	out := p.value()
	if direct, err = plain(out); err != nil {
		return nil, nil, err
	}
	roundTrip, err = viaJSON(out)
	return direct, roundTrip, err
}
