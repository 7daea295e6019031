package analytics

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"time"

	entsql "entgo.io/ent/dialect/sql"

	"github.com/creativeops/creativeops/ent"
	"github.com/creativeops/creativeops/ent/job"
	"github.com/creativeops/creativeops/ent/jobminute"
	"github.com/creativeops/creativeops/ent/predicate"
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
// completed or failed. The window is whole minutes: those [From, To)
// touches, as for the requests.
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

// Usage builds a report from the stored aggregates: usage minutes, job
// minutes (finished jobs) and the jobs still queued or processing.
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

// jobWindow is the window of the report's job figures in Unix seconds:
// the minutes [From, To) touches, whole, as the rollup counts jobs by their
// creation minute.
func jobWindow(q Query) (from, to int64) {
	return floorTo(q.From.Unix(), 60), floorTo(ceilSeconds(q.To)+59, 60)
}

// activeJobs selects the organization's queued and processing jobs created
// in the report's window.
func activeJobs(q Query) []predicate.Job {
	from, to := jobWindow(q)
	ps := []predicate.Job{job.OrganizationID(q.Org), job.StatusIn(jobs.Queued, jobs.Processing),
		job.CreatedAtGTE(time.Unix(from, 0).UTC()), job.CreatedAtLT(time.Unix(to, 0).UTC())}
	if q.KeyID != "" {
		ps = append(ps, job.KeyID(q.KeyID))
	}
	return ps
}

// jobStats counts the jobs still queued or processing from the jobs table,
// through the index on (organization_id, status, created_at, key_id) that
// only active jobs' entries are read from, and the finished ones, with
// their run time, from the job_minutes rollup: rows of the window's
// minutes. Neither read grows with the jobs that finished in the window.
func jobStats(ctx context.Context, client *ent.Client, q Query) (JobStats, error) {
	var out JobStats
	from, to := jobWindow(q)
	var byStatus []struct {
		Status string `json:"status"`
		Count  int64  `json:"count"`
	}
	if err := client.Job.Query().Where(activeJobs(q)...).GroupBy(job.FieldStatus).Aggregate(ent.Count()).Scan(ctx, &byStatus); err != nil {
		return out, fmt.Errorf("active job counts: %w", err)
	}
	for _, s := range byStatus {
		switch s.Status {
		case jobs.Queued:
			out.Queued = s.Count
		case jobs.Processing:
			out.Processing = s.Count
		}
	}
	finished := client.JobMinute.Query().Where(jobminute.OrganizationID(q.Org), jobminute.MinuteGTE(from), jobminute.MinuteLT(to))
	if q.KeyID != "" {
		finished = finished.Where(jobminute.KeyID(q.KeyID))
	}
	var sums []struct {
		Completed     int64 `json:"completed"`
		Failed        int64 `json:"failed"`
		Canceled      int64 `json:"canceled"`
		DurationSumUS int64 `json:"duration_sum_us"`
		DurationN     int64 `json:"duration_n"`
	}
	err := finished.Modify(func(s *entsql.Selector) {
		var cols []string
		for _, c := range []string{jobminute.FieldCompleted, jobminute.FieldFailed, jobminute.FieldCanceled,
			jobminute.FieldDurationSumUs, jobminute.FieldDurationN} {
			// A bigint on both databases (PostgreSQL's SUM of one is numeric).
			cols = append(cols, entsql.As("CAST(COALESCE(SUM("+s.C(c)+"), 0) AS BIGINT)", c))
		}
		s.Select(cols...)
	}).Scan(ctx, &sums)
	if err != nil {
		return out, fmt.Errorf("finished job counts: %w", err)
	}
	if len(sums) == 1 {
		sum := sums[0]
		out.Completed, out.Failed, out.Canceled = sum.Completed, sum.Failed, sum.Canceled
		if sum.DurationN > 0 {
			out.AvgDurationMS = float64(sum.DurationSumUS) / 1000 / float64(sum.DurationN)
		}
	}
	return out, nil
}
