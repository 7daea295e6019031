package server

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"log/slog"
	"math"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-redis/redis_rate/v10"
	"github.com/redis/go-redis/v9"
	"golang.org/x/time/rate"
	spb "google.golang.org/genproto/googleapis/rpc/status"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"

	"github.com/creativeops/creativeops/apierror"
	"github.com/creativeops/creativeops/auth"
	"github.com/creativeops/creativeops/ent"
	"github.com/creativeops/creativeops/ent/idempotencykey"
	"github.com/creativeops/creativeops/ent/usageminute"
)

// Default per-key rate limit (SPEC §2); a key's own limit overrides it.
const (
	DefaultRateLimitRPS   = 100
	DefaultRateLimitBurst = 200
)

// ---------------------------------------------------------------------------
// Rate limits

// rateLimiter is a token bucket per API key: in this process
// (golang.org/x/time/rate), or in Redis shared by every replica (GCRA,
// github.com/go-redis/redis_rate) when a Redis URL is configured.
type rateLimiter struct {
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

// decision is the outcome of one request against its key's bucket.
type decision struct {
	allowed    bool
	limit      auth.RateLimit
	remaining  int
	reset      time.Duration // until the bucket is full again
	retryAfter time.Duration // until the next request may pass (refused only)
}

// bucketIdle is how long an unused bucket is kept; it is only dropped once
// full again, so forgetting it changes nothing.
const bucketIdle = 10 * time.Minute

// redisTimeout bounds the shared limiter's round trip; past it the request
// is limited by this replica alone rather than kept waiting.
const redisTimeout = 250 * time.Millisecond

func newRateLimiter(def auth.RateLimit, redisURL string, log *slog.Logger) (*rateLimiter, error) {
	l := &rateLimiter{def: def, log: log, stop: make(chan struct{}), done: make(chan struct{})}
	if redisURL != "" {
		opts, err := redis.ParseURL(redisURL)
		if err != nil {
			return nil, fmt.Errorf("redis url: %w", err)
		}
		l.rdb = redis.NewClient(opts)
		l.redis = redis_rate.NewLimiter(l.rdb)
	}
	go l.evictIdle()
	return l, nil
}

func (l *rateLimiter) close() error {
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

func (l *rateLimiter) evictIdle() {
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

func (l *rateLimiter) take(ctx context.Context, keyID string, lim auth.RateLimit) decision {
	if l.redis != nil {
		if d, err := l.takeShared(ctx, keyID, lim); err == nil {
			return d
		} else if last := l.lastRedisWarning.Load(); time.Since(time.Unix(0, last)) > time.Minute && l.lastRedisWarning.CompareAndSwap(last, time.Now().UnixNano()) {
			l.log.WarnContext(ctx, "shared rate limit unavailable; limiting per replica", "error", err)
		}
	}
	return l.takeLocal(keyID, lim)
}

func (l *rateLimiter) takeLocal(keyID string, lim auth.RateLimit) decision {
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
	allowed := b.lim.AllowN(now, 1)
	tokens := b.lim.TokensAt(now)
	b.mu.Unlock()
	d := decision{allowed: allowed, limit: lim, remaining: max(0, int(math.Floor(tokens)))}
	d.reset = secondsToDuration((float64(lim.Burst) - tokens) / lim.RequestsPerSecond)
	if !allowed {
		d.retryAfter = secondsToDuration((1 - tokens) / lim.RequestsPerSecond)
	}
	return d
}

func (l *rateLimiter) takeShared(ctx context.Context, keyID string, lim auth.RateLimit) (decision, error) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), redisTimeout)
	defer cancel()
	res, err := l.redis.Allow(ctx, "creativeops:"+keyID, gcraLimit(lim))
	if err != nil {
		return decision{}, err
	}
	d := decision{allowed: res.Allowed > 0, limit: lim, remaining: res.Remaining, reset: max(res.ResetAfter, 0)}
	if !d.allowed {
		d.retryAfter = max(res.RetryAfter, 0)
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

func ceilSeconds(d time.Duration) int {
	return int(math.Ceil(min(max(d, 0), maxWait).Seconds()))
}

// policyHeader is RateLimit-Policy (draft-ietf-httpapi-ratelimit-headers-07,
// section 5): the quota per window in seconds, and the bucket size as the
// burst extension parameter, e.g. "100;w=1;burst=200". A fractional rate is
// written as a whole quota over a longer window ("1;w=2" for 0.5/s).
func policyHeader(lim auth.RateLimit) string {
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

// rateLimitHeader is RateLimit (draft-07, section 4): limit is the bucket
// size, remaining the requests that may be sent now, reset the seconds
// until the bucket is full again.
func rateLimitHeader(d decision) string {
	return fmt.Sprintf("limit=%d, remaining=%d, reset=%d", d.limit.Burst, d.remaining, ceilSeconds(d.reset))
}

// limitRate runs after authentication: every authenticated call spends a
// token of its key, and every response says how many are left.
func (s *Server) limitRate(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
	p, ok := auth.FromContext(ctx)
	if !ok {
		return handler(ctx, req)
	}
	lim := s.cfg.RateLimit
	if p.RateLimit != nil && p.RateLimit.RequestsPerSecond > 0 && p.RateLimit.Burst > 0 {
		lim = *p.RateLimit
	}
	d := s.limiter.take(ctx, p.KeyID, lim)
	md := metadata.Pairs("ratelimit-policy", policyHeader(lim), "ratelimit", rateLimitHeader(d))
	if d.allowed {
		_ = grpc.SetHeader(ctx, md)
		return handler(ctx, req)
	}
	retry := max(1, ceilSeconds(d.retryAfter))
	md.Set("retry-after", strconv.Itoa(retry))
	_ = grpc.SetHeader(ctx, md)
	s.metrics.rateLimited.Inc()
	e := apierror.New(codes.ResourceExhausted, "RATE_LIMITED", fmt.Sprintf(
		"rate limit exceeded: this API key may make %s requests per second (bursts of %d); retry after %d s",
		strconv.FormatFloat(lim.RequestsPerSecond, 'f', -1, 64), lim.Burst, retry))
	e.Metadata = map[string]string{"retry_after_seconds": strconv.Itoa(retry), "key_id": p.KeyID}
	return nil, e
}

// ---------------------------------------------------------------------------
// Idempotency keys

const (
	idempotencyKeyHeader = "idempotency-key"
	maxIdempotencyKeyLen = 255
	// IdempotencyTTL is how long a key's first response is kept.
	IdempotencyTTL = 24 * time.Hour
	// idempotencyLockTimeout is when a request still marked in progress is
	// assumed lost with its replica, and a retry may run it again.
	idempotencyLockTimeout = 5 * time.Minute

	stateInProgress = "in_progress"
	stateDone       = "done"
)

// idempotent makes every POST with an Idempotency-Key header (gRPC
// metadata idempotency-key) run at most once per organization and key:
// the insert of an in_progress row decides, across replicas, which request
// runs; the others get its stored response, or 409 while it runs.
func (s *Server) idempotent(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
	if s.routes[info.FullMethod].Method != http.MethodPost {
		return handler(ctx, req)
	}
	md, _ := metadata.FromIncomingContext(ctx)
	vals := md.Get(idempotencyKeyHeader)
	if len(vals) == 0 {
		return handler(ctx, req)
	}
	key := vals[0]
	if problem := checkIdempotencyKey(key); problem != "" {
		return nil, apierror.Invalid("INVALID_IDEMPOTENCY_KEY", "Idempotency-Key", "Idempotency-Key "+problem)
	}
	p, ok := auth.FromContext(ctx)
	msg, isMsg := req.(proto.Message)
	if !ok || !isMsg {
		return handler(ctx, req)
	}
	fp, err := fingerprint(info.FullMethod, msg)
	if err != nil {
		return nil, err
	}
	client := s.store.Ent
	for range 3 {
		now := time.Now().UTC().Truncate(time.Microsecond)
		row, err := client.IdempotencyKey.Create().
			SetOrganizationID(p.OrganizationID).SetKey(key).SetMethod(info.FullMethod).SetFingerprint(fp).
			SetState(stateInProgress).SetCreatedAt(now).SetLockedAt(now).SetExpiresAt(now.Add(IdempotencyTTL)).
			Save(ctx)
		if err == nil {
			return s.runIdempotent(ctx, req, info, handler, row.ID)
		}
		if !ent.IsConstraintError(err) {
			return nil, err
		}
		prev, err := client.IdempotencyKey.Query().
			Where(idempotencykey.OrganizationID(p.OrganizationID), idempotencykey.Key(key)).Only(ctx)
		if ent.IsNotFound(err) {
			continue // dropped meanwhile (a failed first request): try again
		}
		if err != nil {
			return nil, err
		}
		switch {
		case prev.ExpiresAt.Before(now):
			// Expired but not yet cleaned up: it no longer counts.
			if _, err := client.IdempotencyKey.Delete().Where(idempotencykey.ID(prev.ID), idempotencykey.ExpiresAtLT(now)).Exec(ctx); err != nil {
				return nil, err
			}
			continue
		case prev.Fingerprint != fp:
			e := apierror.New(codes.FailedPrecondition, "IDEMPOTENCY_KEY_MISMATCH",
				"this Idempotency-Key was used with a different request; use a new key for a new request")
			e.Metadata = map[string]string{"idempotency_key": key}
			return nil, e
		case prev.State == stateDone:
			return s.replay(ctx, info, prev)
		case prev.LockedAt.Before(now.Add(-idempotencyLockTimeout)):
			// The first request's replica died mid-way; this one takes over.
			n, err := client.IdempotencyKey.Update().
				Where(idempotencykey.ID(prev.ID), idempotencykey.State(stateInProgress), idempotencykey.LockedAtLT(now.Add(-idempotencyLockTimeout))).
				SetLockedAt(now).Save(ctx)
			if err != nil {
				return nil, err
			}
			if n == 1 {
				return s.runIdempotent(ctx, req, info, handler, prev.ID)
			}
			continue
		}
		return nil, errInProgress(key)
	}
	return nil, errInProgress(key)
}

func errInProgress(key string) error {
	e := apierror.New(codes.Aborted, "IDEMPOTENCY_REQUEST_IN_PROGRESS",
		"a request with this Idempotency-Key is still in progress; retry once it has finished")
	e.Metadata = map[string]string{"idempotency_key": key, "retry_after_seconds": "1"}
	return e
}

func checkIdempotencyKey(key string) string {
	if key == "" {
		return "must not be empty"
	}
	if len(key) > maxIdempotencyKeyLen {
		return fmt.Sprintf("must be at most %d characters", maxIdempotencyKeyLen)
	}
	for i := 0; i < len(key); i++ {
		if key[i] < 0x20 || key[i] > 0x7e {
			return "must be printable ASCII"
		}
	}
	return ""
}

// fingerprint identifies a request by its method and content: the
// deterministic proto encoding does not depend on JSON key order or
// spacing, so the same request sent twice has the same fingerprint.
func fingerprint(method string, msg proto.Message) (string, error) {
	b, err := proto.MarshalOptions{Deterministic: true}.Marshal(msg)
	if err != nil {
		return "", err
	}
	h := sha256.New()
	h.Write([]byte(method))
	h.Write([]byte{0})
	h.Write(b)
	return hex.EncodeToString(h.Sum(nil)), nil
}

// runIdempotent runs the request that won the key and stores its outcome.
// Client errors (4xx) are stored and replayed like successes: the same
// request would fail the same way. Server errors and cancellations drop
// the key, so a retry runs the request again.
func (s *Server) runIdempotent(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler, id int) (any, error) {
	ctx, hc := captureHeaders(ctx)
	resp, err := handler(ctx, req)
	err = toStatusError(ctx, s.log, err)

	saveCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	update := s.store.Ent.IdempotencyKey.Update().Where(idempotencykey.ID(id), idempotencykey.State(stateInProgress)).SetState(stateDone)
	if err != nil {
		st := status.Convert(err)
		code := httpStatus(st)
		if code >= 500 || code == http.StatusTooManyRequests || st.Code() == codes.Canceled || st.Code() == codes.DeadlineExceeded {
			if _, derr := s.store.Ent.IdempotencyKey.Delete().Where(idempotencykey.ID(id)).Exec(saveCtx); derr != nil {
				s.log.WarnContext(ctx, "idempotency key not released", "request_id", requestIDFrom(ctx), "error", derr)
			}
			return nil, err
		}
		b, merr := proto.Marshal(st.Proto())
		if merr == nil {
			_, merr = update.SetFailed(true).SetResponse(b).SetHTTPStatus(code).Save(saveCtx)
		}
		if merr != nil {
			s.log.WarnContext(ctx, "idempotent response not stored", "request_id", requestIDFrom(ctx), "error", merr)
		}
		return nil, err
	}
	// Secrets are never stored: a replay says what was done, without them,
	// and names what it left out.
	msg, _ := resp.(proto.Message)
	msg, redacted := redactSecrets(msg)
	b, merr := proto.MarshalOptions{Deterministic: true}.Marshal(msg)
	if merr == nil {
		code := hc.status()
		if code == 0 {
			code = http.StatusOK
		}
		headers := map[string]string{}
		if loc := hc.locationHeader(); loc != "" {
			headers[headerLocation] = loc
		}
		if len(redacted) > 0 {
			headers[headerRedacted] = redactedHeader(redacted)
		}
		_, merr = update.SetResponse(b).SetHTTPStatus(code).SetHeaders(headers).Save(saveCtx)
	}
	if merr != nil {
		// The key stays in progress until the lock timeout; the response
		// itself is fine, so the client still gets it.
		s.log.WarnContext(ctx, "idempotent response not stored", "request_id", requestIDFrom(ctx), "error", merr)
	}
	return resp, nil
}

// replay answers with a stored outcome: same HTTP status, headers and body,
// marked Idempotent-Replayed.
func (s *Server) replay(ctx context.Context, info *grpc.UnaryServerInfo, row *ent.IdempotencyKey) (any, error) {
	md := metadata.Pairs("idempotent-replayed", "true")
	if row.HTTPStatus != 0 && row.HTTPStatus != http.StatusOK && !row.Failed {
		md.Set(headerHTTPCode, strconv.Itoa(row.HTTPStatus))
	}
	for k, v := range row.Headers {
		md.Set(k, v)
	}
	_ = grpc.SetHeader(ctx, md)
	s.metrics.replays.Inc()
	var stored []byte
	if row.Response != nil {
		stored = *row.Response
	}
	if row.Failed {
		var sp spb.Status
		if err := proto.Unmarshal(stored, &sp); err != nil {
			return nil, fmt.Errorf("stored idempotent response: %w", err)
		}
		return nil, status.FromProto(&sp).Err()
	}
	mt, err := replyType(info.FullMethod)
	if err != nil {
		return nil, err
	}
	msg := mt.New().Interface()
	if err := proto.Unmarshal(stored, msg); err != nil {
		return nil, fmt.Errorf("stored idempotent response: %w", err)
	}
	return msg, nil
}

// replyType finds the Go type of a method's response message.
func replyType(fullMethod string) (protoreflect.MessageType, error) {
	svc, method, ok := strings.Cut(strings.TrimPrefix(fullMethod, "/"), "/")
	if !ok {
		return nil, fmt.Errorf("bad method name %q", fullMethod)
	}
	d, err := protoregistry.GlobalFiles.FindDescriptorByName(protoreflect.FullName(svc))
	if err != nil {
		return nil, err
	}
	sd, ok := d.(protoreflect.ServiceDescriptor)
	if !ok {
		return nil, fmt.Errorf("%s is not a service", svc)
	}
	md := sd.Methods().ByName(protoreflect.Name(method))
	if md == nil {
		return nil, fmt.Errorf("no method %s", fullMethod)
	}
	return protoregistry.GlobalTypes.FindMessageByName(md.Output().FullName())
}

// startLimits sets up the rate limiter and the periodic clean-up (expired
// idempotency keys, usage past its retention).
func (s *Server) startLimits() error {
	l, err := newRateLimiter(s.cfg.RateLimit, s.cfg.RedisURL, s.log)
	if err != nil {
		return err
	}
	s.limiter = l
	stop, done := make(chan struct{}), make(chan struct{})
	go s.cleanUpEvery(cleanupEvery, stop, done)
	s.stopCleanup = sync.OnceFunc(func() { close(stop); <-done })
	return nil
}

func (s *Server) stopLimits() error {
	if s.stopCleanup != nil {
		s.stopCleanup()
	}
	if s.limiter != nil {
		return s.limiter.close()
	}
	return nil
}

// cleanupEvery is how often expired idempotency keys and usage past its
// retention are deleted. Every replica does it; the deletes are
// idempotent. An expired key still in the table is ignored by requests.
const cleanupEvery = 10 * time.Minute

// cleanUpEvery runs CleanUp every interval until stop.
func (s *Server) cleanUpEvery(interval time.Duration, stop <-chan struct{}, done chan<- struct{}) {
	defer close(done)
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			if err := s.CleanUp(ctx); err != nil {
				s.log.Warn("clean-up failed", "error", err)
			}
			cancel()
		}
	}
}

// CleanUp deletes expired idempotency keys and usage aggregates older than
// the analytics retention (the server does it every 10 minutes).
func (s *Server) CleanUp(ctx context.Context) error {
	now := time.Now().UTC()
	keys, err := s.store.Ent.IdempotencyKey.Delete().Where(idempotencykey.ExpiresAtLT(now)).Exec(ctx)
	if err != nil {
		return fmt.Errorf("delete expired idempotency keys: %w", err)
	}
	var minutes int
	if s.cfg.AnalyticsRetention > 0 {
		cutoff := now.Add(-s.cfg.AnalyticsRetention).Unix()
		if minutes, err = s.store.Ent.UsageMinute.Delete().Where(usageminute.MinuteLT(cutoff)).Exec(ctx); err != nil {
			return fmt.Errorf("delete usage past retention: %w", err)
		}
	}
	if keys > 0 || minutes > 0 {
		s.log.Debug("cleaned up", "idempotency_keys", keys, "usage_rows", minutes)
	}
	return nil
}
