package server

import (
	"context"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/creativeops/creativeops/analytics"
	"github.com/creativeops/creativeops/internal/buildinfo"
	"github.com/creativeops/creativeops/jobs"
	"github.com/creativeops/creativeops/plans"
	"github.com/creativeops/creativeops/storage"
	"github.com/creativeops/creativeops/webhooks"
)

// metrics is what GET /metrics exposes, on a registry of its own so that
// nothing registered globally by a dependency leaks into it.
type metrics struct {
	registry    *prometheus.Registry
	requests    *prometheus.CounterVec
	latency     *prometheus.HistogramVec
	observers   sync.Map // requestLabels → requestObservers
	rateLimited prometheus.Counter
	replays     prometheus.Counter
	panics      prometheus.Counter
	jobs        *prometheus.CounterVec
	attempts    *prometheus.CounterVec
	// planScanFailures counts the reminder scan's failures by stage.
	planScanFailures *prometheus.CounterVec
	// witnessFailures counts failed submissions to the IP log's witnesses.
	witnessFailures *prometheus.CounterVec
	// tsaFailures counts failed fetches from timestamp authorities.
	tsaFailures *prometheus.CounterVec
}

// latencyBuckets suit an API whose reads take about a millisecond and
// whose synchronous runs may take seconds.
var latencyBuckets = []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10}

// newMetrics builds the registry; flusher is nil when analytics is off.
func newMetrics(store *storage.Store, flusher *analytics.Flusher) *metrics {
	m := &metrics{registry: prometheus.NewRegistry()}
	labels := []string{"transport", "method", "route", "code"}
	m.requests = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "creativeops_requests_total",
		Help: "Requests served, by transport (rest or grpc), HTTP method and route template of the API method, and HTTP status (gRPC codes mapped to theirs).",
	}, labels)
	m.latency = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "creativeops_request_duration_seconds",
		Help:    "Server-side request latency, by transport, method, route and HTTP status.",
		Buckets: latencyBuckets,
	}, labels)
	m.rateLimited = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "creativeops_rate_limited_requests_total",
		Help: "Requests refused with 429 because their API key exceeded its rate limit.",
	})
	m.replays = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "creativeops_idempotent_replays_total",
		Help: "POST requests answered from a stored response because their Idempotency-Key was seen before.",
	})
	m.panics = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "creativeops_panics_total",
		Help: "Requests whose handler panicked (answered 500 Internal, logged with their request id), over either transport.",
	})
	m.jobs = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "creativeops_jobs_finished_total",
		Help: "Engine jobs this replica finished, by status (completed, failed) and async (true, false).",
	}, []string{"status", "async"})
	m.attempts = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "creativeops_webhook_delivery_attempts_total",
		Help: "Webhook delivery attempts this replica made, by result: succeeded, retrying (another attempt is scheduled) or failed (gave up, or the endpoint answered 410).",
	}, []string{"result"})
	m.planScanFailures = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "creativeops_plan_scan_failures_total",
		Help: "Failures of the plans' reminder scan on this replica, by stage: scan (the due plans could not be read or handed out), batch (a batch could not read its plans; retried), plan (one plan's re-plan or reminders failed; retried when its claim lapses, the others went on). Each is also logged at ERROR.",
	}, []string{"stage"})
	for _, stage := range []string{plans.StageScan, plans.StageBatch, plans.StagePlan} {
		m.planScanFailures.WithLabelValues(stage) // exported at 0 before the first failure
	}
	m.tsaFailures = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "creativeops_ip_timestamp_fetch_failures_total",
		Help: "Failed requests of this replica to the independent timestamp authorities (serve --timestamp-authority), by authority URL; the timestamp stays pending and is retried. Each is also logged at WARN.",
	}, []string{"authority"})
	m.registry.MustRegister(m.tsaFailures)
	m.witnessFailures = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "creativeops_ip_witness_failures_total",
		Help: "Checkpoint submissions to an IP log witness (--witness) that failed on this replica, by witness name and reason: unreachable (no answer or a server error; retried with backoff), refused (400, 403, 404: the witness is not configured for the log; retried with backoff), bad_cosignature (its answer does not verify under its key), fork (the witness holds a tree the log does not extend: an alert, the witness is not contacted again until restart). Each is also logged (fork at ERROR).",
	}, []string{"witness", "reason"})
	m.registry.MustRegister(m.requests, m.latency, m.rateLimited, m.replays, m.panics, m.jobs, m.attempts, m.planScanFailures, m.witnessFailures,
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		collectors.NewBuildInfoCollector(),
		collectors.NewDBStatsCollector(store.DB, store.Dialect),
		buildInfo(),
		&tableCollector{store: store},
	)
	if store.Pool != nil {
		m.registry.MustRegister(newPoolCollector(store.Pool, "main"))
	}
	if bg := store.Background; bg != nil && bg != store {
		m.registry.MustRegister(collectors.NewDBStatsCollector(bg.DB, store.Dialect+"_background"))
		if bg.Pool != nil {
			m.registry.MustRegister(newPoolCollector(bg.Pool, "background"))
		}
	}
	if f := flusher; f != nil {
		m.registry.MustRegister(
			prometheus.NewCounterFunc(prometheus.CounterOpts{
				Name: "creativeops_analytics_flushed_aggregates_total",
				Help: "Usage aggregates (minute, organization, key, route, status) written to the database.",
			}, func() float64 { return float64(f.Rows.Load()) }),
			prometheus.NewCounterFunc(prometheus.CounterOpts{
				Name: "creativeops_analytics_flush_failures_total",
				Help: "Usage flushes that failed; their data is retried with the next flush.",
			}, func() float64 { return float64(f.Failures.Load()) }),
		)
	}
	return m
}

// observe counts one request. Every label comes from a closed set, so
// that requests cannot add series at will: the method is one HTTP defines
// (or "other"), the route an API template or one of the few fixed paths
// (the callers' business), the code a status this server wrote.
func (m *metrics) observe(transport, method, route string, code int, d time.Duration) {
	o := m.observersOf(requestLabels{transport, methodLabel(method), route, code})
	o.requests.Inc()
	o.latency.Observe(d.Seconds())
}

// requestLabels are a request's labels in creativeops_requests_total and
// creativeops_request_duration_seconds.
type requestLabels struct {
	transport, method, route string
	code                     int
}

// requestObservers are the series of one set of requestLabels.
type requestObservers struct {
	requests prometheus.Counter
	latency  prometheus.Observer
}

// observersOf finds the series of a request's labels. The vectors' own
// lookup (WithLabelValues) formats the code, checks every label and hashes
// them under a lock, twice per request; the labels come from closed sets
// (see observe), so the series found once are kept, as many as the vectors
// hold.
func (m *metrics) observersOf(l requestLabels) requestObservers {
	if o, ok := m.observers.Load(l); ok {
		return o.(requestObservers)
	}
	c := strconv.Itoa(l.code)
	o, _ := m.observers.LoadOrStore(l, requestObservers{
		requests: m.requests.WithLabelValues(l.transport, l.method, l.route, c),
		latency:  m.latency.WithLabelValues(l.transport, l.method, l.route, c),
	})
	return o.(requestObservers)
}

// methodLabel names the HTTP methods of RFC 9110 (and PATCH); any other
// method a client sends is "other".
func methodLabel(method string) string {
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch,
		http.MethodDelete, http.MethodOptions, http.MethodConnect, http.MethodTrace:
		return method
	}
	return "other"
}

func (m *metrics) handler() http.Handler {
	return promhttp.HandlerFor(m.registry, promhttp.HandlerOpts{ErrorHandling: promhttp.ContinueOnError})
}

// buildInfo is creativeops_build_info{version, commit, go_version} = 1.
func buildInfo() prometheus.Collector {
	bi := buildinfo.Read()
	g := prometheus.NewGauge(prometheus.GaugeOpts{
		Name:        "creativeops_build_info",
		Help:        "Always 1; the labels say which build is running.",
		ConstLabels: prometheus.Labels{"version": bi.Version, "commit": bi.Commit, "go_version": bi.GoVersion},
	})
	g.Set(1)
	return g
}

// tableCollector reports state kept in the database: jobs and webhook
// deliveries by status, and the background queue's depth. Every replica
// reports the same totals (sum them with max(), not sum()). Scrapes are
// answered from a cache at most tableCacheFor old, so frequent scrapes
// cost the database nothing more.
type tableCollector struct {
	store *storage.Store

	mu      sync.Mutex
	at      time.Time
	cached  []prometheus.Metric
	lastErr error
}

const tableCacheFor = 5 * time.Second

var (
	jobsDesc = prometheus.NewDesc("creativeops_jobs",
		"Engine jobs in the database by status (queued, processing, completed, failed, canceled), all organizations.", []string{"status"}, nil)
	deliveriesDesc = prometheus.NewDesc("creativeops_webhook_deliveries",
		"Webhook deliveries in the database by status (pending, succeeded, failed), all organizations.", []string{"status"}, nil)
	queueDesc = prometheus.NewDesc("creativeops_queue_jobs",
		"Background queue jobs waiting or running, by queue (engine, webhooks) and state (available, scheduled, retryable, running).", []string{"queue", "state"}, nil)
	scrapeErrDesc = prometheus.NewDesc("creativeops_table_scrape_error",
		"1 when the last read of the database counts failed.", nil, nil)
)

func (c *tableCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- jobsDesc
	ch <- deliveriesDesc
	ch <- queueDesc
	ch <- scrapeErrDesc
}

func (c *tableCollector) Collect(ch chan<- prometheus.Metric) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if time.Since(c.at) > tableCacheFor {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		c.cached, c.lastErr = c.read(ctx)
		cancel()
		c.at = time.Now()
	}
	for _, m := range c.cached {
		ch <- m
	}
	failed := 0.0
	if c.lastErr != nil {
		failed = 1
	}
	ch <- prometheus.MustNewConstMetric(scrapeErrDesc, prometheus.GaugeValue, failed)
}

func (c *tableCollector) read(ctx context.Context) ([]prometheus.Metric, error) {
	var out []prometheus.Metric
	js, err := jobs.CountByStatus(ctx, c.store)
	if err != nil {
		return nil, err
	}
	for status, n := range js {
		out = append(out, prometheus.MustNewConstMetric(jobsDesc, prometheus.GaugeValue, float64(n), status))
	}
	ds, err := webhooks.CountDeliveriesByStatus(ctx, c.store)
	if err != nil {
		return nil, err
	}
	for status, n := range ds {
		out = append(out, prometheus.MustNewConstMetric(deliveriesDesc, prometheus.GaugeValue, float64(n), status))
	}
	qs, err := c.store.QueueDepth(ctx)
	if err != nil {
		return nil, err
	}
	for k, n := range qs {
		out = append(out, prometheus.MustNewConstMetric(queueDesc, prometheus.GaugeValue, float64(n), k[0], k[1]))
	}
	return out, nil
}
