package clustertest

import (
	"bufio"
	"context"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// RuntimeSample is one look at a server process's memory and goroutines.
type RuntimeSample struct {
	At  time.Time
	RSS int64
	// Goroutines and HeapBytes are -1 when no source offered them.
	Goroutines, HeapBytes int64
	// Source says where Goroutines and HeapBytes came from: "metrics"
	// (the server's /metrics), "child" (a test child's stats file) or "".
	Source string
}

// SampleRuntime reads RSS from /proc, and goroutines and heap from the
// server's Prometheus endpoint (go_goroutines, go_memstats_heap_alloc_bytes)
// when it has one, else from a test child's stats file.
func (r *Replica) SampleRuntime(ctx context.Context) RuntimeSample {
	s := RuntimeSample{At: time.Now(), Goroutines: -1, HeapBytes: -1}
	s.RSS = r.Sample().RSS
	if g, h, err := scrapeGoMetrics(ctx, r.URL()+"/metrics"); err == nil {
		s.Goroutines, s.HeapBytes, s.Source = g, h, "metrics"
		return s
	}
	if st, err := r.ReadRuntimeStats(); err == nil && time.Since(st.At) < 5*RuntimeStatsInterval {
		s.Goroutines, s.HeapBytes, s.Source = st.Goroutines, st.HeapBytes, "child"
	}
	return s
}

var errNoMetrics = errors.New("no go metrics")

func scrapeGoMetrics(ctx context.Context, url string) (goroutines, heap int64, err error) {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, "GET", url, nil)
	if err != nil {
		return 0, 0, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, 0, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return 0, 0, errNoMetrics
	}
	goroutines, heap = -1, -1
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		name, val, ok := strings.Cut(sc.Text(), " ")
		if !ok {
			continue
		}
		f, err := strconv.ParseFloat(strings.TrimSpace(val), 64)
		if err != nil {
			continue
		}
		switch name {
		case "go_goroutines":
			goroutines = int64(f)
		case "go_memstats_heap_alloc_bytes":
			heap = int64(f)
		}
	}
	if goroutines < 0 || heap < 0 {
		return 0, 0, errNoMetrics
	}
	return goroutines, heap, sc.Err()
}

// QueueBacklog reads the engine queue's available and running jobs from a
// replica's /metrics (creativeops_queue_jobs; refreshed by the server every
// few seconds).
func (r *Replica) QueueBacklog(ctx context.Context) (int64, error) {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, "GET", r.URL()+"/metrics", nil)
	if err != nil {
		return 0, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return 0, errNoMetrics
	}
	var n int64
	found := false
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "creativeops_table_scrape_error ") {
			// The server reports queue depth; an empty queue has no series.
			found = true
			if strings.HasSuffix(line, " 1") {
				return 0, errors.New("server could not read its queue depth")
			}
		}
		if !strings.HasPrefix(line, "creativeops_queue_jobs{") || !strings.Contains(line, `queue="engine"`) {
			continue
		}
		found = true
		if !strings.Contains(line, `state="available"`) && !strings.Contains(line, `state="running"`) {
			continue
		}
		if i := strings.LastIndexByte(line, ' '); i > 0 {
			f, _ := strconv.ParseFloat(line[i+1:], 64)
			n += int64(f)
		}
	}
	if !found {
		return 0, errNoMetrics
	}
	return n, sc.Err()
}

// WaitQueueIdle waits (at most timeout) until the engine queue has no
// available or running job, so that one phase's backlog does not run
// during the next. It reports whether it saw the queue empty.
func (c *Cluster) WaitQueueIdle(ctx context.Context, timeout time.Duration) bool {
	deadline := time.Now().Add(timeout)
	for {
		for _, r := range c.Replicas {
			if !r.Running() {
				continue
			}
			n, err := r.QueueBacklog(ctx)
			if err != nil {
				return false // no metrics: nothing to wait on
			}
			if n == 0 {
				return true
			}
			break
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return false
		}
		time.Sleep(time.Second)
	}
}
