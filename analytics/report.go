package analytics

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/creativeops/creativeops/ent"
	"github.com/creativeops/creativeops/ent/job"
	"github.com/creativeops/creativeops/jobs"
	"github.com/creativeops/creativeops/storage"
)

// Granularity is the width of a point of the report's time series.
type Granularity string

const (
	Minute Granularity = "minute"
	Hour   Granularity = "hour"
	Day    Granularity = "day"
)

// Step is the granularity in seconds. Hours and days are UTC.
func (g Granularity) Step() int64 {
	switch g {
	case Minute:
		return 60
	case Hour:
		return 3600
	case Day:
		return 86400
	}
	return 0
}

// MaxPoints bounds the time series of one report (7 days of minutes).
const MaxPoints = 7 * 24 * 60

// MaxWindow bounds the window of one report at hour and day granularity:
// every stored minute in it is read.
const MaxWindow = 93 * 24 * time.Hour

// Query asks for one organization's usage.
type Query struct {
	Org   string
	KeyID string // optional: only this key's requests and jobs
	// From and To bound the window [From, To); stored aggregates are per
	// minute, so From is effectively rounded down to its minute.
	From, To    time.Time
	Granularity Granularity
}

// Check reports what is wrong with a query, naming the field.
func (q Query) Check() (field, problem string) {
	switch {
	case q.Granularity.Step() == 0:
		return "granularity", fmt.Sprintf("must be minute, hour or day, not %q", q.Granularity)
	case !q.From.Before(q.To):
		return "from", "must be before to"
	case q.To.Sub(q.From) > MaxWindow:
		return "from", fmt.Sprintf("the window must not exceed %d days", int(MaxWindow/(24*time.Hour)))
	case points(q) > MaxPoints:
		return "granularity", fmt.Sprintf("the window holds more than %d points at %s granularity; use a coarser one or a shorter window", MaxPoints, q.Granularity)
	}
	return "", ""
}

func points(q Query) int64 {
	step := q.Granularity.Step()
	first := floorTo(q.From.Unix(), step)
	return (ceilSeconds(q.To) - first + step - 1) / step
}

// ceilSeconds is t in Unix seconds, rounded up: a minute that starts at
// 10:00:00 is inside a window ending at 10:00:00.5.
func ceilSeconds(t time.Time) int64 {
	if t.Nanosecond() > 0 {
		return t.Unix() + 1
	}
	return t.Unix()
}

func floorTo(t, step int64) int64 {
	r := t % step
	if r < 0 {
		r += step
	}
	return t - r
}

// Counts are the requests of a group, their errors (HTTP status >= 400)
// and their latency distribution.
type Counts struct {
	Requests int64
	Errors   int64
	Latency  Histogram
}

func (c *Counts) add(status int, requests int64, h *Histogram) {
	c.Requests += requests
	if status >= 400 {
		c.Errors += requests
	}
	c.Latency.Merge(h)
}

// ErrorRate is Errors / Requests (0 without requests).
func (c *Counts) ErrorRate() float64 {
	if c.Requests == 0 {
		return 0
	}
	return float64(c.Errors) / float64(c.Requests)
}

// Endpoint is the usage of one route.
type Endpoint struct {
	Method, Route string
	Counts
}

// Point is one step of the time series.
type Point struct {
	Start time.Time
	Counts
}

// JobStats counts the jobs created in the window by their current status.
// AvgDurationMS is the mean run time (started to finished) of those that
// completed or failed.
type JobStats struct {
	Queued, Processing, Completed, Failed, Canceled int64
	AvgDurationMS                                   float64
}

// Report is an organization's usage over a window.
type Report struct {
	Totals    Counts
	Endpoints []Endpoint
	Series    []Point
	Jobs      JobStats
}

// Usage builds a report from the stored aggregates and the jobs table.
// Aggregates still in a replica's memory (at most one flush interval old)
// are not included: every replica answers the same.
func Usage(ctx context.Context, st *storage.Store, q Query) (*Report, error) {
	step := q.Granularity.Step()
	first := floorTo(q.From.Unix(), step)
	end := ceilSeconds(q.To)
	n := int((end - first + step - 1) / step)
	rep := &Report{Series: make([]Point, n)}
	for i := range rep.Series {
		rep.Series[i].Start = time.Unix(first+int64(i)*step, 0).UTC()
	}
	type route struct{ method, route string }
	endpoints := map[route]*Endpoint{}
	err := ReadMinutes(ctx, st.Read, q.Org, q.KeyID, floorTo(q.From.Unix(), 60), end, func(r MinuteRow) error {
		var h Histogram
		if err := h.UnmarshalBinary(r.Histogram); err != nil {
			return err
		}
		rep.Totals.add(r.Status, r.Requests, &h)
		e := endpoints[route{r.Method, r.Route}]
		if e == nil {
			e = &Endpoint{Method: r.Method, Route: r.Route}
			endpoints[route{r.Method, r.Route}] = e
		}
		e.add(r.Status, r.Requests, &h)
		if i := (floorTo(r.Minute, step) - first) / step; i >= 0 && int(i) < n {
			rep.Series[i].add(r.Status, r.Requests, &h)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	for _, e := range endpoints {
		rep.Endpoints = append(rep.Endpoints, *e)
	}
	slices.SortFunc(rep.Endpoints, func(a, b Endpoint) int {
		return cmp.Or(cmp.Compare(b.Requests, a.Requests), cmp.Compare(a.Route, b.Route), cmp.Compare(a.Method, b.Method))
	})
	if rep.Jobs, err = jobStats(ctx, st.Read, q); err != nil {
		return nil, err
	}
	return rep, nil
}

func jobStats(ctx context.Context, client *ent.Client, q Query) (JobStats, error) {
	var out JobStats
	query := func() *ent.JobQuery {
		jq := client.Job.Query().Where(job.OrganizationID(q.Org), job.CreatedAtGTE(q.From), job.CreatedAtLT(q.To))
		if q.KeyID != "" {
			jq = jq.Where(job.KeyID(q.KeyID))
		}
		return jq
	}
	var byStatus []struct {
		Status string `json:"status"`
		Count  int64  `json:"count"`
	}
	if err := query().GroupBy(job.FieldStatus).Aggregate(ent.Count()).Scan(ctx, &byStatus); err != nil {
		return out, fmt.Errorf("job counts: %w", err)
	}
	for _, s := range byStatus {
		switch s.Status {
		case jobs.Queued:
			out.Queued = s.Count
		case jobs.Processing:
			out.Processing = s.Count
		case jobs.Completed:
			out.Completed = s.Count
		case jobs.Failed:
			out.Failed = s.Count
		case jobs.Canceled:
			out.Canceled = s.Count
		}
	}
	// Times are stored in different textual forms by the two databases,
	// so the mean is taken here rather than in SQL.
	var runs []struct {
		StartedAt   *time.Time `json:"started_at"`
		CompletedAt *time.Time `json:"completed_at"`
	}
	err := query().Where(job.StatusIn(jobs.Completed, jobs.Failed), job.StartedAtNotNil(), job.CompletedAtNotNil()).
		Select(job.FieldStartedAt, job.FieldCompletedAt).Scan(ctx, &runs)
	if err != nil {
		return out, fmt.Errorf("job durations: %w", err)
	}
	var sum time.Duration
	var n int
	for _, r := range runs {
		if r.StartedAt != nil && r.CompletedAt != nil && !r.CompletedAt.Before(*r.StartedAt) {
			sum += r.CompletedAt.Sub(*r.StartedAt)
			n++
		}
	}
	if n > 0 {
		out.AvgDurationMS = float64(sum.Microseconds()) / 1000 / float64(n)
	}
	return out, nil
}
