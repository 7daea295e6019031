package engine

import (
	"context"
	"fmt"
	"time"
)

// StepError is a failure inside a workflow step; the job records the step.
type StepError struct {
	Step string
	Code string
	Err  error
}

func (e *StepError) Error() string { return fmt.Sprintf("step %s: %v", e.Step, e.Err) }
func (e *StepError) Unwrap() error { return e.Err }

// Progress is told after each step completes.
type Progress func(step string, done, total int) error

// Run executes the workflow's steps on a prepared input. When the context
// does not carry as_of, the plan is dated asOf's calendar date in the
// context's time_zone (UTC by default).
func (w *Workflow) Run(ctx context.Context, in *Input, asOf time.Time, progress Progress) (map[string]any, error) {
	in.setAsOf(asOf)
	p := &Plan{asOf: in.AsOf(), region: in.Region(), pins: in.pins}
	for i, s := range w.Steps {
		if err := ctx.Err(); err != nil {
			return nil, &StepError{Step: s.Name, Code: "CANCELED", Err: err}
		}
		if err := runStep(s, in, p); err != nil {
			return nil, err
		}
		if progress != nil {
			if err := progress(s.Name, i+1, len(w.Steps)); err != nil {
				return nil, &StepError{Step: s.Name, Code: "PROGRESS", Err: err}
			}
		}
	}
	res, err := p.Result()
	if err != nil {
		return nil, &StepError{Step: "result", Code: "RESULT", Err: err}
	}
	return res, nil
}

func runStep(s Step, in *Input, p *Plan) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = &StepError{Step: s.Name, Code: "STEP_PANIC", Err: fmt.Errorf("%v", r)}
		}
	}()
	if err := s.Run(in, p); err != nil {
		return &StepError{Step: s.Name, Code: "STEP_FAILED", Err: err}
	}
	return nil
}
