// Package bench holds the service's load benchmarks: open-loop load at a
// fixed rate against a real server on loopback, reporting throughput and
// latency percentiles. Run them with `make bench` or
// `go test -run '^$' -bench . ./bench/`.
package bench

import (
	"context"
	"math/rand/v2"
	"net/http"
	"slices"
	"sync"
	"time"
)

// Result summarises one load run.
type Result struct {
	Sent, OK, Errors int
	Elapsed          time.Duration
	P50, P95, P99    time.Duration
	Max              time.Duration
}

// Throughput is completed requests per second.
func (r Result) Throughput() float64 { return float64(r.OK+r.Errors) / r.Elapsed.Seconds() }

// Rate sends requests at a fixed rate for a fixed duration (open loop:
// latency is measured from when a request was due, so a stalled server
// cannot hide its queueing). Every loop is bounded by count and time.
//
// The first request is due at a random point of the first interval, so
// that several streams run side by side (one per operation of a mix) are
// independent, as separate clients are, instead of all firing in the same
// instant every interval.
func Rate(ctx context.Context, rps int, d time.Duration, concurrency int, do func(context.Context) error) Result {
	total := int(float64(rps) * d.Seconds())
	interval := time.Second / time.Duration(rps)
	due := make(chan time.Time, total)
	rec := &recorder{lat: make([]time.Duration, 0, total)}
	var wg sync.WaitGroup
	ctx, cancel := context.WithTimeout(ctx, d+30*time.Second)
	defer cancel()
	for w := 0; w < concurrency; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for at := range due {
				err := do(ctx)
				rec.add(time.Since(at), err)
			}
		}()
	}
	begin := time.Now()
	start := begin.Add(rand.N(interval))
	for i := 0; i < total && ctx.Err() == nil; i++ {
		at := start.Add(time.Duration(i) * interval)
		if wait := time.Until(at); wait > 0 {
			time.Sleep(wait)
		}
		due <- at
	}
	close(due)
	wg.Wait()
	r := rec.result(time.Since(begin))
	r.Sent = total
	return r
}

// recorder collects latencies and outcomes from concurrent clients.
type recorder struct {
	mu       sync.Mutex
	lat      []time.Duration
	ok, errs int
}

func (r *recorder) add(l time.Duration, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.lat = append(r.lat, l)
	if err != nil {
		r.errs++
	} else {
		r.ok++
	}
}

func (r *recorder) result(elapsed time.Duration) Result {
	r.mu.Lock()
	defer r.mu.Unlock()
	res := Result{Sent: r.ok + r.errs, OK: r.ok, Errors: r.errs, Elapsed: elapsed}
	lat := slices.Clone(r.lat)
	slices.Sort(lat)
	if n := len(lat); n > 0 {
		res.P50, res.P95, res.P99, res.Max = lat[n*50/100], lat[n*95/100], lat[min(n-1, n*99/100)], lat[n-1]
	}
	return res
}

// Client is an HTTP client sized for loopback load.
func Client() *http.Client {
	return &http.Client{Transport: &http.Transport{MaxIdleConns: 512, MaxIdleConnsPerHost: 512, IdleConnTimeout: 30 * time.Second}, Timeout: 10 * time.Second}
}

// Closed runs `concurrency` clients back to back for a fixed duration (at
// most `limit` requests in all), measuring the most the server sustains.
func Closed(ctx context.Context, concurrency int, d time.Duration, limit int, do func(ctx context.Context, i int) error) Result {
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	rec := &recorder{}
	var mu sync.Mutex
	next := 0
	var wg sync.WaitGroup
	start := time.Now()
	for w := 0; w < concurrency; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				mu.Lock()
				i := next
				next++
				mu.Unlock()
				if i >= limit {
					return
				}
				t := time.Now()
				err := do(context.WithoutCancel(ctx), i)
				rec.add(time.Since(t), err)
			}
		}()
	}
	wg.Wait()
	return rec.result(time.Since(start))
}
