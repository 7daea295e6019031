package engine

import "time"

// NewPlanForTest is an empty plan dated in's as_of (today when absent).
func NewPlanForTest(in *Input) *Plan {
	d := in.AsOf()
	if d.IsZero() {
		d = time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC)
	}
	return &Plan{asOf: d}
}
