// Package ratelimit is the per-key token bucket every authenticated call
// spends from: in this process (golang.org/x/time/rate), or in Redis
// shared by every replica (GCRA, github.com/go-redis/redis_rate) when a
// Redis URL is configured.
package ratelimit

import (
	"context"
	"fmt"
	"log/slog"
	"math"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-redis/redis_rate/v10"
	"github.com/redis/go-redis/v9"
	"golang.org/x/time/rate"

	"github.com/creativeops/creativeops/auth"
)

// Default per-key rate limit (SPEC §2); a key's own limit overrides it.
const (
	DefaultRPS   = 100
	DefaultBurst = 200
)

// Limiter holds the buckets.
type Limiter struct {
	def   auth.RateLimit
	log   *slog.Logger
	rdb   *redis.Client
	redis *redis_rate.Limiter

	buckets   sync.Map // key id → *bucket
	stop      chan struct{}
	done      chan struct{}
	closeOnce sync.Once
	// lastRedisWarning rate-limits the log line of a failing Redis.
	lastRedisWarning atomic.Int64
}

type bucket struct {
	mu       sync.Mutex
	lim      *rate.Limiter
	rps      float64
	burst    int
	lastUsed atomic.Int64 // Unix nanoseconds
}

// Decision is the outcome of one request against its key's bucket.
type Decision struct {
	Allowed    bool
	Limit      auth.RateLimit
	Remaining  int
	Reset      time.Duration // until the bucket is full again
	RetryAfter time.Duration // until the next request may pass (refused only)
}

// bucketIdle is how long an unused bucket is kept; it is only dropped once
// full again, so forgetting it changes nothing.
const bucketIdle = 10 * time.Minute

// redisTimeout bounds the shared limiter's round trip; past it the request
// is limited by this replica alone rather than kept waiting.
const redisTimeout = 250 * time.Millisecond

// New returns a limiter applying def to keys without a limit of their
// own; with a Redis URL the buckets are shared through Redis.
func New(def auth.RateLimit, redisURL string, log *slog.Logger) (*Limiter, error) {
	l := &Limiter{def: def, log: log, stop: make(chan struct{}), done: make(chan struct{})}
	if redisURL != "" {
		opts, err := redis.ParseURL(redisURL)
		if err != nil {
			return nil, fmt.Errorf("redis url: %w", err)
		}
		if log != nil {
			redis.SetLogger(redisLog{log})
		}
		l.rdb = redis.NewClient(opts)
		l.redis = redis_rate.NewLimiter(l.rdb)
		// Said at the start rather than at the first request: a replica
		// that cannot reach Redis still serves, each key limited by this
		// replica alone, until Redis answers.
		ctx, cancel := context.WithTimeout(context.Background(), redisStartCheck)
		err = l.rdb.Ping(ctx).Err()
		cancel()
		if err != nil && log != nil {
			log.Warn("Redis is unreachable: rate limits are kept by this replica alone until it answers",
				"redis_addr", opts.Addr, "error", err.Error())
		}
	}
	go l.evictIdle()
	return l, nil
}

// redisStartCheck bounds New's check that Redis answers.
const redisStartCheck = 2 * time.Second

// redisLog routes go-redis's own messages (a pool that cannot dial, a
// dropped connection) into the service's log: by default go-redis writes
// them to stderr as plain text, breaking a JSON log stream. The library's
// logger is process-wide; the newest limiter's log receives them.
type redisLog struct{ log *slog.Logger }

func (r redisLog) Printf(ctx context.Context, format string, v ...any) {
	r.log.WarnContext(ctx, strings.TrimPrefix(fmt.Sprintf(format, v...), "redis: "), "component", "redis")
}

// Close stops the limiter and its Redis client.
func (l *Limiter) Close() error {
	var err error
	l.closeOnce.Do(func() {
		close(l.stop)
		<-l.done
		if l.rdb != nil {
			err = l.rdb.Close()
		}
	})
	return err
}

func (l *Limiter) evictIdle() {
	defer close(l.done)
	t := time.NewTicker(time.Minute)
	defer t.Stop()
	for {
		select {
		case <-l.stop:
			return
		case now := <-t.C:
			l.buckets.Range(func(k, v any) bool {
				b := v.(*bucket)
				if now.Sub(time.Unix(0, b.lastUsed.Load())) > bucketIdle && b.lim.TokensAt(now) >= float64(b.lim.Burst()) {
					l.buckets.Delete(k)
				}
				return true
			})
		}
	}
}

// Take spends a token of the key's bucket.
func (l *Limiter) Take(ctx context.Context, keyID string, lim auth.RateLimit) Decision {
	return l.TakeN(ctx, keyID, lim, 1)
}

// TakeN spends n tokens of the key's bucket at once, for a call that costs
// n requests' worth of work: all of them, or none when the bucket holds
// fewer (the call is refused and its Retry-After says when n will be
// there). A cost above the burst is charged as the burst, which a full
// bucket can pay: no call is refused forever.
func (l *Limiter) TakeN(ctx context.Context, keyID string, lim auth.RateLimit, n int) Decision {
	n = max(1, min(n, lim.Burst))
	if l.redis != nil {
		if d, err := l.takeShared(ctx, keyID, lim, n); err == nil {
			return d
		} else if last := l.lastRedisWarning.Load(); time.Since(time.Unix(0, last)) > time.Minute && l.lastRedisWarning.CompareAndSwap(last, time.Now().UnixNano()) {
			l.log.WarnContext(ctx, "shared rate limit unavailable; limiting per replica", "error", err)
		}
	}
	return l.takeLocal(keyID, lim, n)
}

// Refund gives back a token Take spent from the key's bucket, for a
// request that turned out not to count against it (a sign-in that
// succeeded). Taking first and refunding after keeps the bucket exact under
// concurrency: no number of attempts in flight at once gets past it.
func (l *Limiter) Refund(ctx context.Context, keyID string, lim auth.RateLimit) {
	if l.redis != nil {
		if err := l.refundShared(ctx, keyID, lim); err == nil {
			return
		}
		// Take fell back to this replica's bucket, or will: refund there.
	}
	v, ok := l.buckets.Load(keyID)
	if !ok {
		return // never spent here, or evicted once full
	}
	b := v.(*bucket)
	b.mu.Lock()
	// A negative count adds a token; the bucket is capped at its burst the
	// next time it is read (TestRefund checks both).
	b.lim.AllowN(time.Now(), -1)
	b.mu.Unlock()
}

func (l *Limiter) refundShared(ctx context.Context, keyID string, lim auth.RateLimit) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), redisTimeout)
	defer cancel()
	key := "creativeops:" + keyID
	res, err := l.redis.AllowN(ctx, key, gcraLimit(lim), -1)
	if err != nil {
		return err
	}
	if res.ResetAfter <= 0 {
		// Full again: the GCRA script writes a state only while the bucket
		// is short of full, so the last spent token is given back by
		// forgetting the bucket.
		return l.redis.Reset(ctx, key)
	}
	return nil
}

func (l *Limiter) takeLocal(keyID string, lim auth.RateLimit, n int) Decision {
	now := time.Now()
	v, ok := l.buckets.Load(keyID)
	if !ok {
		v, _ = l.buckets.LoadOrStore(keyID, &bucket{lim: rate.NewLimiter(rate.Limit(lim.RequestsPerSecond), lim.Burst), rps: lim.RequestsPerSecond, burst: lim.Burst})
	}
	b := v.(*bucket)
	b.lastUsed.Store(now.UnixNano())
	b.mu.Lock()
	if b.rps != lim.RequestsPerSecond || b.burst != lim.Burst {
		// The key's limit changed: keep the tokens, apply the new rates.
		b.lim.SetLimitAt(now, rate.Limit(lim.RequestsPerSecond))
		b.lim.SetBurstAt(now, lim.Burst)
		b.rps, b.burst = lim.RequestsPerSecond, lim.Burst
	}
	allowed := b.lim.AllowN(now, n)
	tokens := b.lim.TokensAt(now)
	b.mu.Unlock()
	d := Decision{Allowed: allowed, Limit: lim, Remaining: max(0, int(math.Floor(tokens)))}
	d.Reset = secondsToDuration((float64(lim.Burst) - tokens) / lim.RequestsPerSecond)
	if !allowed {
		d.RetryAfter = secondsToDuration((float64(n) - tokens) / lim.RequestsPerSecond)
	}
	return d
}

func (l *Limiter) takeShared(ctx context.Context, keyID string, lim auth.RateLimit, n int) (Decision, error) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), redisTimeout)
	defer cancel()
	res, err := l.redis.AllowN(ctx, "creativeops:"+keyID, gcraLimit(lim), n)
	if err != nil {
		return Decision{}, err
	}
	d := Decision{Allowed: res.Allowed > 0, Limit: lim, Remaining: res.Remaining, Reset: max(res.ResetAfter, 0)}
	if !d.Allowed {
		d.RetryAfter = max(res.RetryAfter, 0)
	}
	return d, nil
}

// gcraLimit expresses requests per second as redis_rate's integer rate per
// period: 100/s stays 100 per second, 0.5/s becomes 1 per 2 s.
func gcraLimit(lim auth.RateLimit) redis_rate.Limit {
	if r := lim.RequestsPerSecond; r >= 1 && r == math.Trunc(r) {
		return redis_rate.Limit{Rate: int(r), Burst: lim.Burst, Period: time.Second}
	}
	return redis_rate.Limit{Rate: 1, Burst: lim.Burst, Period: secondsToDuration(1 / lim.RequestsPerSecond)}
}

// maxWait caps the waits the limiter reports. The API accepts rates from
// 0.01/s and bursts up to 1e6 (a full bucket in 1e8 s); keys stored before
// that range was enforced can hold any rate, and a conversion of a float
// beyond time.Duration's range to an integer is not defined (it read
// reset=-9223372036 for 1e-300/s), so the arithmetic saturates instead.
const maxWait = 1 << 30 * time.Second

func secondsToDuration(s float64) time.Duration {
	switch {
	case s <= 0 || math.IsNaN(s):
		return 0
	case s >= maxWait.Seconds():
		return maxWait
	}
	return time.Duration(s * float64(time.Second))
}

// CeilSeconds rounds a duration up to whole seconds.
func CeilSeconds(d time.Duration) int {
	return int(math.Ceil(min(max(d, 0), maxWait).Seconds()))
}

// PolicyHeader is RateLimit-Policy (draft-ietf-httpapi-ratelimit-headers-07,
// section 5): the quota per window in seconds, and the bucket size as the
// burst extension parameter, e.g. "100;w=1;burst=200". A fractional rate is
// written as a whole quota over a longer window ("1;w=2" for 0.5/s).
func PolicyHeader(lim auth.RateLimit) string {
	if v, ok := policyHeaders.Load(lim); ok {
		return v.(string)
	}
	h := formatPolicy(lim)
	policyHeaders.Store(lim, h)
	return h
}

// policyHeaders caches the header of each limit in use (the default and
// the few per-key overrides).
var policyHeaders sync.Map

func formatPolicy(lim auth.RateLimit) string {
	r := lim.RequestsPerSecond
	for w := 1; w <= 3600; w++ {
		if q := r * float64(w); q >= 1 && math.Abs(q-math.Round(q)) < 1e-9 {
			return fmt.Sprintf("%d;w=%d;burst=%d", int64(math.Round(q)), w, lim.Burst)
		}
	}
	return fmt.Sprintf("%d;w=1;burst=%d", max(1, int64(math.Round(r))), lim.Burst)
}

// Header is RateLimit (draft-07, section 4): limit is the bucket
// size, remaining the requests that may be sent now, reset the seconds
// until the bucket is full again.
func Header(d Decision) string {
	// Every response carries one: appended, at a third of what
	// fmt.Sprintf took (120 ns, not 310).
	b := make([]byte, 0, 48)
	b = append(b, "limit="...)
	b = strconv.AppendInt(b, int64(d.Limit.Burst), 10)
	b = append(b, ", remaining="...)
	b = strconv.AppendInt(b, int64(d.Remaining), 10)
	b = append(b, ", reset="...)
	b = strconv.AppendInt(b, int64(CeilSeconds(d.Reset)), 10)
	return string(b)
}
