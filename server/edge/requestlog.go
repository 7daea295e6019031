package edge

import (
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/time/rate"
)

// Request logging modes (--log-requests).
const (
	// LogRequestsAll logs one line per request.
	LogRequestsAll = "all"
	// LogRequestsSampled logs every failed or slow request and one in
	// RequestLogSampleEvery of the others.
	LogRequestsSampled = "sampled"
	// LogRequestsErrors logs failed and slow requests only.
	LogRequestsErrors = "errors"
)

// RequestLogSampleEvery is N of "1 in N": in sampled mode, the share of
// successful, fast requests that are logged. Metrics and usage analytics
// count every request whatever is logged.
const RequestLogSampleEvery = 100

// Failed requests are logged in the sampled and errors modes at up to
// ErrorLinesPerSecond lines a second per organization and outcome (client
// errors, HTTP 4xx and the gRPC codes that map to them; server errors,
// 5xx), after a burst of ErrorLineBurst; unauthenticated requests share
// one organization's budget. A client sending bad requests as fast as it
// can, or one request that fails the server each time it is sent, would
// otherwise write a line for each, filling the disk and taking the CPU the
// log's serialized writes cost. The next line logged for the organization
// and outcome says how many were not ("unlogged_client_errors",
// "unlogged_server_errors"). Slow requests are always logged.
const (
	ErrorLinesPerSecond = 10
	ErrorLineBurst      = 100
)

// RequestLog decides which requests get a log line. Writing one JSON line
// per request is a synchronous, serialized write and an allocation-heavy
// encoding; successful reads are the bulk of traffic and the least
// informative, so by default only a sample of them is logged.
type RequestLog struct {
	mode string
	slow time.Duration
	n    atomic.Uint64

	mu     sync.Mutex
	failed map[failureKey]*errorLines
}

// failureKey is an organization ("" for none) and the outcome its budget
// is of.
type failureKey struct {
	org string
	o   Outcome
}

// errorLines is one organization's budget of lines of one outcome.
type errorLines struct {
	limit    *rate.Limiter
	unlogged int
}

func NewRequestLog(mode string, slow time.Duration) (*RequestLog, error) {
	switch mode {
	case LogRequestsAll, LogRequestsSampled, LogRequestsErrors:
	default:
		return nil, fmt.Errorf("log requests: want %s, %s or %s, not %q", LogRequestsAll, LogRequestsSampled, LogRequestsErrors, mode)
	}
	if slow <= 0 {
		return nil, fmt.Errorf("log slow: must be positive, not %v", slow)
	}
	return &RequestLog{mode: mode, slow: slow, failed: map[failureKey]*errorLines{}}, nil
}

// Outcome is how a request ended, for the log's choice.
type Outcome int

const (
	succeeded Outcome = iota
	clientError
	serverError
)

// OutcomeOf classifies a request by its HTTP status (for gRPC, the
// status its code maps to).
func OutcomeOf(httpStatus int) Outcome {
	switch {
	case httpStatus >= 500:
		return serverError
	case httpStatus >= 400:
		return clientError
	}
	return succeeded
}

// Wants reports whether a request of organization org that ended so and
// took latency is logged, and, for a failure, how many of the
// organization's failures of the same outcome were not logged since its
// last one.
func (l *RequestLog) Wants(org string, o Outcome, latency time.Duration) (bool, int) {
	return l.wantsAt(org, o, latency, time.Now())
}

func (l *RequestLog) wantsAt(org string, o Outcome, latency time.Duration, now time.Time) (bool, int) {
	switch {
	case l.mode == LogRequestsAll, latency >= l.slow:
		return true, 0
	case o != succeeded:
		return l.failure(org, o, now)
	}
	return l.mode == LogRequestsSampled && l.n.Add(1)%RequestLogSampleEvery == 1, 0
}

// failure spends one of org's lines for outcome o at now, if it has one
// left.
func (l *RequestLog) failure(org string, o Outcome, now time.Time) (bool, int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	k := failureKey{org, o}
	b := l.failed[k]
	if b == nil {
		b = &errorLines{limit: rate.NewLimiter(ErrorLinesPerSecond, ErrorLineBurst)}
		l.failed[k] = b
	}
	if !b.limit.AllowN(now, 1) {
		b.unlogged++
		return false, 0
	}
	n := b.unlogged
	b.unlogged = 0
	return true, n
}

// UnloggedAttr names the count of failures of outcome o a line reports
// as left out.
func UnloggedAttr(o Outcome) string {
	if o == serverError {
		return "unlogged_server_errors"
	}
	return "unlogged_client_errors"
}
