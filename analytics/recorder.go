package analytics

import (
	"math/rand/v2"
	"runtime"
	"sync"
	"time"
)

// Key identifies one aggregate: a minute of one organization's requests
// made with one key to one route, answered with one HTTP status.
type Key struct {
	Minute int64 // Unix seconds of the minute's start (UTC)
	Org    string
	KeyID  string
	Method string // HTTP method of the route
	Route  string // route template, e.g. /v1/creators/{id}
	Status int    // HTTP status
}

// Aggregate is what is known of the requests of one Key.
type Aggregate struct {
	Requests     int64
	LatencySumUS int64
	Latency      Histogram
}

func (a *Aggregate) merge(o *Aggregate) {
	a.Requests += o.Requests
	a.LatencySumUS += o.LatencySumUS
	a.Latency.Merge(&o.Latency)
}

// Recorder collects requests in memory. Record takes one of many shard
// locks, picked at random, so concurrent requests rarely wait on each
// other; the same Key may live in several shards until Drain merges them.
type Recorder struct {
	shards []shard
}

type shard struct {
	mu   sync.Mutex
	aggs map[Key]*Aggregate
	_    [40]byte // keeps neighbouring shard locks off one cache line
}

// NewRecorder returns an empty recorder.
func NewRecorder() *Recorder {
	n := 4 * runtime.GOMAXPROCS(0)
	r := &Recorder{shards: make([]shard, n)}
	for i := range r.shards {
		r.shards[i].aggs = map[Key]*Aggregate{}
	}
	return r
}

// Record counts one request. It does no I/O.
func (r *Recorder) Record(at time.Time, org, keyID, method, route string, status int, latency time.Duration) {
	k := Key{Minute: at.Unix() - at.Unix()%60, Org: org, KeyID: keyID, Method: method, Route: route, Status: status}
	s := &r.shards[rand.N(len(r.shards))]
	s.mu.Lock()
	a := s.aggs[k]
	if a == nil {
		a = &Aggregate{}
		s.aggs[k] = a
	}
	a.Requests++
	a.LatencySumUS += latency.Microseconds()
	a.Latency.Observe(latency)
	s.mu.Unlock()
}

// Drain takes everything recorded so far, leaving the recorder empty.
func (r *Recorder) Drain() map[Key]*Aggregate {
	out := map[Key]*Aggregate{}
	for i := range r.shards {
		s := &r.shards[i]
		s.mu.Lock()
		aggs := s.aggs
		if len(aggs) == 0 {
			// An empty map stays the shard's: Record may write to it as
			// soon as the lock is released, so it is not read here.
			s.mu.Unlock()
			continue
		}
		s.aggs = make(map[Key]*Aggregate, len(aggs))
		s.mu.Unlock()
		Merge(out, aggs)
	}
	return out
}

// Merge adds the aggregates of src into dst.
func Merge(dst, src map[Key]*Aggregate) {
	for k, a := range src {
		if d := dst[k]; d != nil {
			d.merge(a)
		} else {
			dst[k] = a
		}
	}
}
