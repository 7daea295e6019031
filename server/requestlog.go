package server

import (
	"fmt"
	"sync/atomic"
	"time"
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

// requestLog decides which requests get a log line. Writing one JSON line
// per request is a synchronous, serialized write and an allocation-heavy
// encoding; successful reads are the bulk of traffic and the least
// informative, so by default only a sample of them is logged.
type requestLog struct {
	mode string
	slow time.Duration
	n    atomic.Uint64
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
	return &requestLog{mode: mode, slow: slow}, nil
}

// wants reports whether a request that failed or not and took latency is
// logged.
func (l *requestLog) wants(failed bool, latency time.Duration) bool {
	if l.mode == LogRequestsAll || failed || latency >= l.slow {
		return true
	}
	return l.mode == LogRequestsSampled && l.n.Add(1)%RequestLogSampleEvery == 1
}
