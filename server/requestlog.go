package server

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

// Client errors (HTTP 4xx, and gRPC codes that map to them) are logged in
// the sampled and errors modes at up to ClientErrorLinesPerSecond lines a
// second per organization (unauthenticated requests share one budget),
// after a burst of ClientErrorLineBurst: a client sending bad requests as
// fast as it can would otherwise write a line for each, filling the disk
// and taking the CPU the log's serialized writes cost. The next line
// logged for the organization says how many were not
// ("unlogged_client_errors"). Server errors and slow requests are always
// logged.
const (
	ClientErrorLinesPerSecond = 10
	ClientErrorLineBurst      = 100
)

// requestLog decides which requests get a log line. Writing one JSON line
// per request is a synchronous, serialized write and an allocation-heavy
// encoding; successful reads are the bulk of traffic and the least
// informative, so by default only a sample of them is logged.
type requestLog struct {
	mode string
	slow time.Duration
	n    atomic.Uint64

	mu           sync.Mutex
	clientErrors map[string]*errorLines // by organization id, "" for none
}

// errorLines is one organization's budget of client-error lines.
type errorLines struct {
	limit    *rate.Limiter
	unlogged int
}

func newRequestLog(mode string, slow time.Duration) (*requestLog, error) {
	switch mode {
	case LogRequestsAll, LogRequestsSampled, LogRequestsErrors:
	default:
		return nil, fmt.Errorf("log requests: want %s, %s or %s, not %q", LogRequestsAll, LogRequestsSampled, LogRequestsErrors, mode)
	}
	if slow <= 0 {
		return nil, fmt.Errorf("log slow: must be positive, not %v", slow)
	}
	return &requestLog{mode: mode, slow: slow, clientErrors: map[string]*errorLines{}}, nil
}

// outcome is how a request ended, for the log's choice.
type outcome int

const (
	succeeded outcome = iota
	clientError
	serverError
)

// outcomeOf classifies a request by its HTTP status (for gRPC, the
// status its code maps to).
func outcomeOf(httpStatus int) outcome {
	switch {
	case httpStatus >= 500:
		return serverError
	case httpStatus >= 400:
		return clientError
	}
	return succeeded
}

// wants reports whether a request of organization org that ended so and
// took latency is logged, and, for a client error, how many of the
// organization's client errors were not logged since its last one.
func (l *requestLog) wants(org string, o outcome, latency time.Duration) (bool, int) {
	switch {
	case l.mode == LogRequestsAll, o == serverError, latency >= l.slow:
		return true, 0
	case o == clientError:
		return l.clientError(org, time.Now())
	}
	return l.mode == LogRequestsSampled && l.n.Add(1)%RequestLogSampleEvery == 1, 0
}

// clientError spends one of org's client-error lines at now, if it has
// one left.
func (l *requestLog) clientError(org string, now time.Time) (bool, int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	b := l.clientErrors[org]
	if b == nil {
		b = &errorLines{limit: rate.NewLimiter(ClientErrorLinesPerSecond, ClientErrorLineBurst)}
		l.clientErrors[org] = b
	}
	if !b.limit.AllowN(now, 1) {
		b.unlogged++
		return false, 0
	}
	n := b.unlogged
	b.unlogged = 0
	return true, n
}
