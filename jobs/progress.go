package jobs

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/creativeops/creativeops/ent/job"
)

// progressInterval is how often a running job's progress is written. A run
// that finishes sooner costs no progress writes at all (start and finish
// are written anyway); a long one shows each step within the interval.
const progressInterval = 100 * time.Millisecond

// progressReporter receives step completions from a run and writes the
// latest one on a timer. It also notices when the job was canceled.
type progressReporter struct {
	runner *Runner
	id     string

	mu      sync.Mutex
	pct     int
	step    string
	written int

	canceled atomic.Bool
	stop     chan struct{}
	done     chan struct{}
}

func startProgress(ctx context.Context, r *Runner, id string) *progressReporter {
	p := &progressReporter{runner: r, id: id, stop: make(chan struct{}), done: make(chan struct{})}
	go p.loop(ctx)
	return p
}

// report is the engine.Progress callback.
func (p *progressReporter) report(step string, done, total int) error {
	if p.canceled.Load() {
		return errCanceled
	}
	p.mu.Lock()
	p.pct, p.step = done*100/total, step
	p.mu.Unlock()
	return nil
}

func (p *progressReporter) loop(ctx context.Context) {
	defer close(p.done)
	t := time.NewTicker(progressInterval)
	defer t.Stop()
	for {
		select {
		case <-p.stop:
			return
		case <-ctx.Done():
			return
		case <-t.C:
			p.flush(ctx)
		}
	}
}

func (p *progressReporter) flush(ctx context.Context) {
	p.mu.Lock()
	pct, step, written := p.pct, p.step, p.written
	p.mu.Unlock()
	if pct == written || pct >= 100 {
		return
	}
	n, err := p.runner.store.Ent.Job.Update().
		Where(job.ID(p.id), job.Status(Processing)).
		SetProgress(pct).SetCurrentStep(step).SetUpdatedAt(now()).
		Save(ctx)
	switch {
	case err != nil:
		// Progress is advisory; the outcome is written by finish.
		p.runner.log.Debug("writing job progress failed", "job_id", p.id, "error", err)
	case n == 0:
		p.canceled.Store(true)
	default:
		p.mu.Lock()
		p.written = pct
		p.mu.Unlock()
	}
}

// close stops the timer and returns the progress the run reached; the
// run's outcome is written by finish.
func (p *progressReporter) close() int {
	close(p.stop)
	<-p.done
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.pct
}
