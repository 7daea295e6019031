package clustertest

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/creativeops/creativeops/bench"
)

// Op is one kind of request in the mix.
type Op string

// The operations of the realistic mix. Poll is not scheduled by itself: each
// accepted asynchronous run is polled until it completes.
const (
	CreateCreator Op = "create creator"
	GetCreator    Op = "read creator"
	SyncRun       Op = "sync run"
	AsyncRun      Op = "async run"
	Poll          Op = "poll job status"
	RegisterIP    Op = "register IP"
	Catalog       Op = "catalog query"
	ListCreators  Op = "list creators"
)

// Endpoint names the REST route or gRPC method of op.
func (o Op) Endpoint(tr Transport) string {
	rest := map[Op]string{
		CreateCreator: "POST /v1/creators", GetCreator: "GET /v1/creators/{id}",
		SyncRun: "POST /v1/engine/run", AsyncRun: "POST /v1/engine/run async",
		Poll: "GET /v1/engine/status/{id}", RegisterIP: "POST /v1/ip/register",
		Catalog: "GET /v1/ip/catalog", ListCreators: "GET /v1/creators",
	}
	rpc := map[Op]string{
		CreateCreator: "CreatorsService/CreateCreator", GetCreator: "CreatorsService/GetCreator",
		SyncRun: "EngineService/RunWorkflow", AsyncRun: "EngineService/RunWorkflow async",
		Poll: "EngineService/GetJob", RegisterIP: "IPService/RegisterWork",
		Catalog: "IPService/ListCatalog", ListCreators: "CreatorsService/ListCreators",
	}
	if tr == GRPC {
		return rpc[o]
	}
	return rest[o]
}

// Share is one operation's part of a mix, on one transport.
type Share struct {
	Op        Op
	Transport Transport
	Weight    int
}

// Split gives each operation's weight to REST and gRPC in equal halves.
func Split(weights map[Op]int) []Share {
	var out []Share
	for _, op := range []Op{CreateCreator, GetCreator, ListCreators, SyncRun, AsyncRun, RegisterIP, Catalog} {
		if w := weights[op]; w > 0 {
			out = append(out, Share{op, REST, w}, Share{op, GRPC, w})
		}
	}
	return out
}

// RealisticMix is a platform's day: mostly reads, a steady stream of new
// creators and registrations, plans run both ways.
var RealisticMix = Split(map[Op]int{
	GetCreator: 30, Catalog: 15, SyncRun: 15, RegisterIP: 15, CreateCreator: 15, AsyncRun: 10,
})

// Load drives the mix against one endpoint and keeps what it learns: per
// operation latency and errors for the current phase, and every accepted
// job and IP record for checks afterwards.
type Load struct {
	Client *Client
	// RunID keeps emails and content hashes unique across runs.
	RunID string
	// PollInterval is the first wait before polling an asynchronous run's
	// status (default 100 ms; later waits grow to 1 s); PollTimeout gives
	// up on a run (default 60 s).
	PollInterval, PollTimeout time.Duration
	// MaxPollers bounds concurrent pollers (default 1024); runs submitted
	// beyond it are counted as not polled.
	MaxPollers int
	// AsyncWorkflow, when set, is the music workflow that asynchronous runs
	// use, with AsyncContext (default: release-strategy, like sync runs).
	AsyncWorkflow string
	AsyncContext  map[string]any

	seq       atomic.Int64
	pollers   sync.WaitGroup
	sem       chan struct{}
	once      sync.Once
	pollCtx   context.Context
	stopPolls context.CancelFunc
	pollCtxMu sync.Mutex

	mu        sync.Mutex
	creators  []string
	stats     map[statKey]*recorder
	async     asyncRecorder
	errs      []*CallError
	errCount  int
	jobs      []string
	records   []Registered
	phaseFrom time.Time
}

type statKey struct {
	op Op
	tr Transport
}

type recorder struct {
	count, errors, serverErrors int
	lat                         []time.Duration
}

type asyncRecorder struct {
	submitted, completed, failed, unfinished, unpolled int
	lat                                                []time.Duration
}

func (l *Load) init() {
	l.once.Do(func() {
		if l.PollInterval == 0 {
			l.PollInterval = 100 * time.Millisecond
		}
		if l.PollTimeout == 0 {
			l.PollTimeout = 60 * time.Second
		}
		if l.MaxPollers == 0 {
			l.MaxPollers = 1024
		}
		l.sem = make(chan struct{}, l.MaxPollers)
		l.pollCtx, l.stopPolls = context.WithCancel(context.Background())
		l.mu.Lock()
		l.stats = map[statKey]*recorder{}
		l.phaseFrom = time.Now()
		l.mu.Unlock()
	})
}

// Seed creates n creators (over REST) for reads and registrations to use.
func (l *Load) Seed(ctx context.Context, n int) error {
	l.init()
	for i := 0; i < n; i++ {
		id, err := l.Client.CreateCreator(ctx, REST, fmt.Sprintf("Seed %d", i), l.email())
		if err != nil {
			return fmt.Errorf("seed creator %d: %w", i, err)
		}
		l.addCreator(id)
	}
	return nil
}

func (l *Load) email() string {
	return fmt.Sprintf("load-%s-%d@example.com", l.RunID, l.seq.Add(1))
}

const maxCreatorPool = 5000

func (l *Load) addCreator(id string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.creators) < maxCreatorPool {
		l.creators = append(l.creators, id)
	} else {
		l.creators[rand.IntN(maxCreatorPool)] = id
	}
}

func (l *Load) creator() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.creators) == 0 {
		return "cr_none"
	}
	return l.creators[rand.IntN(len(l.creators))]
}

// Do performs one operation and records it.
func (l *Load) Do(ctx context.Context, op Op, tr Transport) error {
	l.init()
	start := time.Now()
	var err error
	switch op {
	case CreateCreator:
		var id string
		id, err = l.Client.CreateCreator(ctx, tr, "Load Creator", l.email())
		if err == nil {
			l.addCreator(id)
		}
	case GetCreator:
		err = l.Client.GetCreator(ctx, tr, l.creator())
	case SyncRun:
		_, err = l.Client.Run(ctx, tr, "Artist", false)
	case AsyncRun:
		var id string
		if l.AsyncWorkflow != "" {
			id, err = l.Client.RunWorkflow(ctx, tr, l.AsyncWorkflow, l.AsyncContext, true)
		} else {
			id, err = l.Client.Run(ctx, tr, "Artist", true)
		}
		if err == nil {
			l.mu.Lock()
			l.jobs = append(l.jobs, id)
			l.async.submitted++
			l.mu.Unlock()
			l.poll(ctx, tr, id, start)
		}
	case RegisterIP:
		n := l.seq.Add(1)
		sum := sha256.Sum256(fmt.Appendf(nil, "%s/%d", l.RunID, n))
		var r Registered
		r, err = l.Client.Register(ctx, tr, l.creator(), fmt.Sprintf("Track %d", n), hex.EncodeToString(sum[:]))
		if err == nil {
			l.mu.Lock()
			l.records = append(l.records, r)
			l.mu.Unlock()
		}
	case Catalog:
		_, err = l.Client.Catalog(ctx, tr, l.creator())
	case ListCreators:
		_, err = l.Client.ListCreators(ctx, tr)
	default:
		err = fmt.Errorf("unknown op %q", op)
	}
	l.record(op, tr, time.Since(start), err)
	return err
}

func (l *Load) record(op Op, tr Transport, d time.Duration, err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	k := statKey{op, tr}
	r := l.stats[k]
	if r == nil {
		r = &recorder{}
		l.stats[k] = r
	}
	r.count++
	r.lat = append(r.lat, d)
	if err != nil {
		r.errors++
		ce, ok := AsCallError(err)
		if !ok {
			ce = &CallError{At: time.Now(), Op: string(op), Transport: tr, Msg: err.Error()}
		}
		if ce.ServerError() {
			r.serverErrors++
		}
		l.errCount++
		if len(l.errs) < 10000 {
			l.errs = append(l.errs, ce)
		}
	}
}

// poll follows an accepted run in the background until it ends.
func (l *Load) poll(ctx context.Context, tr Transport, id string, submitted time.Time) {
	select {
	case l.sem <- struct{}{}:
	default:
		l.mu.Lock()
		l.async.unpolled++
		l.mu.Unlock()
		return
	}
	l.pollers.Add(1)
	go func() {
		defer l.pollers.Done()
		defer func() { <-l.sem }()
		// Polling outlives the request that submitted the run, but not the
		// poll timeout or StopPollers.
		l.pollCtxMu.Lock()
		parent := l.pollCtx
		l.pollCtxMu.Unlock()
		ctx, cancel := context.WithTimeout(parent, l.PollTimeout)
		defer cancel()
		// Back off as a well-behaved client does: PollInterval, then 1.5×
		// longer each time, at most a second.
		wait := l.PollInterval
		for {
			select {
			case <-ctx.Done():
				l.mu.Lock()
				l.async.unfinished++
				l.mu.Unlock()
				return
			case <-time.After(wait):
			}
			wait = min(wait*3/2, time.Second)
			start := time.Now()
			st, err := l.Client.JobStatus(ctx, tr, id)
			if ctx.Err() != nil {
				continue // the timeout, not the server: counted above
			}
			l.record(Poll, tr, time.Since(start), err)
			if err != nil {
				continue
			}
			l.mu.Lock()
			switch st {
			case "completed":
				l.async.completed++
				l.async.lat = append(l.async.lat, time.Since(submitted))
			case "failed", "canceled":
				l.async.failed++
			}
			l.mu.Unlock()
			if st == "completed" || st == "failed" || st == "canceled" {
				return
			}
		}
	}()
}

// WaitPollers waits (at most timeout) for the pollers of submitted runs.
// It gives up early, returning false, when ctx ends.
func (l *Load) WaitPollers(ctx context.Context, timeout time.Duration) bool {
	done := make(chan struct{})
	go func() { l.pollers.Wait(); close(done) }()
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case <-done:
		return true
	case <-t.C:
		return false
	case <-ctx.Done():
		return false
	}
}

// StopPollers abandons the runs still being polled (they count as
// unfinished) and waits for their pollers to return, so that no request
// of this phase lands in the next one.
func (l *Load) StopPollers() {
	l.init()
	l.pollCtxMu.Lock()
	l.stopPolls()
	l.pollCtx, l.stopPolls = context.WithCancel(context.Background())
	l.pollCtxMu.Unlock()
	l.pollers.Wait()
}

// OpStats is one operation's figures in a phase.
type OpStats struct {
	Op                          Op
	Transport                   Transport
	Count, Errors, ServerErrors int
	P50, P95, P99, Max          time.Duration
}

// AsyncStats follows asynchronous runs from 202 to completed.
type AsyncStats struct {
	Submitted, Completed, Failed, Unfinished, Unpolled int
	// P50 and P99 of submit → completed seen by a poll.
	P50, P99 time.Duration
}

// PhaseResult is what one load phase measured.
type PhaseResult struct {
	Name    string
	Elapsed time.Duration
	// Requests counts every call, polls included.
	Requests, Errors, ServerErrors int
	Ops                            []OpStats
	// MixP50 and MixP99 are over every request of the mix, polls left
	// out (an open-loop phase does not schedule them).
	MixP50, MixP99 time.Duration
	Async          AsyncStats
	// OpenLoop phases measure latency from when each request was due.
	OpenLoop  bool
	TargetRPS int
}

// Throughput is requests per second.
func (p PhaseResult) Throughput() float64 {
	if p.Elapsed <= 0 {
		return 0
	}
	return float64(p.Requests) / p.Elapsed.Seconds()
}

// Reset starts a new phase: per-operation figures restart from zero.
// Accepted jobs and records are kept.
func (l *Load) Reset() {
	l.init()
	l.mu.Lock()
	defer l.mu.Unlock()
	l.stats = map[statKey]*recorder{}
	l.async = asyncRecorder{}
	l.phaseFrom = time.Now()
}

// Snapshot summarises the phase so far.
func (l *Load) Snapshot(name string) PhaseResult {
	l.init()
	l.mu.Lock()
	defer l.mu.Unlock()
	p := PhaseResult{Name: name, Elapsed: time.Since(l.phaseFrom)}
	var mix []time.Duration
	for k, r := range l.stats {
		s := OpStats{Op: k.op, Transport: k.tr, Count: r.count, Errors: r.errors, ServerErrors: r.serverErrors}
		s.P50, s.P95, s.P99, s.Max = percentiles(r.lat)
		if k.op != Poll {
			mix = append(mix, r.lat...)
		}
		p.Ops = append(p.Ops, s)
		p.Requests += r.count
		p.Errors += r.errors
		p.ServerErrors += r.serverErrors
	}
	sortOps(p.Ops)
	p.MixP50, _, p.MixP99, _ = percentiles(mix)
	a := l.async
	p.Async = AsyncStats{Submitted: a.submitted, Completed: a.completed, Failed: a.failed, Unfinished: a.unfinished, Unpolled: a.unpolled}
	p.Async.P50, _, p.Async.P99, _ = percentiles(a.lat)
	return p
}

func sortOps(ops []OpStats) {
	order := map[Op]int{CreateCreator: 0, GetCreator: 1, ListCreators: 2, SyncRun: 3, AsyncRun: 4, Poll: 5, RegisterIP: 6, Catalog: 7}
	sort.Slice(ops, func(i, j int) bool {
		if ops[i].Op != ops[j].Op {
			return order[ops[i].Op] < order[ops[j].Op]
		}
		return ops[i].Transport > ops[j].Transport // REST before gRPC
	})
}

func percentiles(lat []time.Duration) (p50, p95, p99, mx time.Duration) {
	if len(lat) == 0 {
		return
	}
	s := slices.Clone(lat)
	slices.Sort(s)
	n := len(s)
	return s[n*50/100], s[n*95/100], s[min(n-1, n*99/100)], s[n-1]
}

// Errors returns the failed calls recorded so far (up to 10,000) and how
// many there were in all.
func (l *Load) Errors() ([]*CallError, int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.errs), l.errCount
}

// Jobs returns the ids of every accepted asynchronous run.
func (l *Load) Jobs() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.jobs)
}

// Records returns every IP registration answered 201.
func (l *Load) Records() []Registered {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.records)
}

// RunRate sends the mix open-loop at rps requests per second for d, each
// share as its own fixed-rate stream (bench.Rate), so that every operation
// keeps its latency measured from when it was due.
func (l *Load) RunRate(ctx context.Context, name string, mix []Share, rps int, d time.Duration) PhaseResult {
	l.Reset()
	// An overloaded server gets 15 s past the phase to answer what it
	// queued (the client's own timeout); later answers count as errors.
	ctx, cancel := context.WithTimeout(ctx, d+15*time.Second)
	defer cancel()
	total := 0
	for _, s := range mix {
		total += s.Weight
	}
	type streamResult struct {
		s Share
		r bench.Result
	}
	results := make(chan streamResult, len(mix))
	var wg sync.WaitGroup
	for _, s := range mix {
		share := max(1, (rps*s.Weight+total/2)/total)
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := bench.Rate(ctx, share, d, 64, func(ctx context.Context) error { return l.Do(ctx, s.Op, s.Transport) })
			results <- streamResult{s, r}
		}()
	}
	wg.Wait()
	close(results)
	p := l.Snapshot(name)
	p.OpenLoop, p.TargetRPS = true, rps
	// Open-loop percentiles replace the service times recorded by Do.
	for sr := range results {
		for i := range p.Ops {
			if p.Ops[i].Op == sr.s.Op && p.Ops[i].Transport == sr.s.Transport {
				p.Ops[i].P50, p.Ops[i].P95, p.Ops[i].P99, p.Ops[i].Max = sr.r.P50, sr.r.P95, sr.r.P99, sr.r.Max
			}
		}
	}
	return p
}

// RunClosed runs the mix with concurrency clients back to back for d (at
// most limit operations): the most the cluster sustains.
func (l *Load) RunClosed(ctx context.Context, name string, mix []Share, concurrency int, d time.Duration, limit int) PhaseResult {
	l.Reset()
	var table []Share
	for _, s := range mix {
		for i := 0; i < s.Weight; i++ {
			table = append(table, s)
		}
	}
	rand.New(rand.NewPCG(1, 2)).Shuffle(len(table), func(i, j int) { table[i], table[j] = table[j], table[i] })
	bench.Closed(ctx, concurrency, d, limit, func(ctx context.Context, i int) error {
		s := table[i%len(table)]
		return l.Do(ctx, s.Op, s.Transport)
	})
	return l.Snapshot(name)
}
