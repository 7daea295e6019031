package server

import (
	"cmp"
	"io"
	"log/slog"
	"net"
	"os"
	"time"

	"go.opentelemetry.io/otel/trace"

	"github.com/creativeops/creativeops/audit"
	"github.com/creativeops/creativeops/auth"
	"github.com/creativeops/creativeops/dashboard"
	"github.com/creativeops/creativeops/events"
	"github.com/creativeops/creativeops/internal/clock"
	"github.com/creativeops/creativeops/ipreg"
	"github.com/creativeops/creativeops/oauth"
	"github.com/creativeops/creativeops/plans"
	"github.com/creativeops/creativeops/ratelimit"
	"github.com/creativeops/creativeops/server/edge"
	"github.com/creativeops/creativeops/webhooks"
)

// Config is what `creativeops serve` is started with.
type Config struct {
	// HTTPAddr serves REST and gRPC on one port.
	HTTPAddr string
	// GRPCAddr optionally serves gRPC alone on a second port.
	GRPCAddr string
	// DebugAddr, when set, serves the Go profiler (/debug/pprof/) on its
	// own listener; keep it on loopback or a private network.
	DebugAddr             string
	DatabaseURL           string
	DataDir               string
	AllowInsecureWebhooks bool
	Logger                *slog.Logger
	// TracerProvider, when set, traces requests on every transport and
	// what they cause: statements, queued jobs, webhook deliveries, IP
	// sealing batches (docs/tracing.md). nil: no tracing, at no cost.
	TracerProvider trace.TracerProvider
	// ShutdownTimeout bounds how long in-flight requests may take to finish.
	ShutdownTimeout time.Duration
	// ReadHeaderTimeout bounds how long a new connection may take to send
	// its first request's headers (and an HTTP request its headers);
	// ReadTimeout bounds reading one whole request, body included, on
	// every transport (per stream on HTTP/2 and gRPC); WriteTimeout bounds
	// a request from its headers to the end of its response; IdleTimeout is
	// how long a connection with no request in flight is kept open.
	ReadHeaderTimeout, ReadTimeout, WriteTimeout, IdleTimeout time.Duration
	// BodyMemory bounds the request bodies (REST, Connect, gRPC-Web) held in
	// memory at once across all requests, in bytes (default 64 MiB).
	BodyMemory int64
	// Console receives the one-time bootstrap key (default os.Stderr).
	Console io.Writer
	// Workers is the number of concurrent asynchronous engine runs per
	// instance (default 8).
	Workers int
	// JobTimeout bounds one attempt of an asynchronous run (default 1 min);
	// RescueAfter is when a run whose worker died is retried elsewhere
	// (default 2 min, must exceed JobTimeout).
	JobTimeout, RescueAfter time.Duration
	// WebhookSchedule is the delay before each delivery attempt
	// (default webhooks.DefaultSchedule, the Svix schedule).
	WebhookSchedule webhooks.Schedule
	// WebhookWorkers is the number of concurrent delivery attempts per
	// instance (default 20).
	WebhookWorkers int
	// WebhookTimeout bounds one delivery attempt (default 15 s).
	WebhookTimeout time.Duration
	// WebhookSecretGrace is how long a webhook secret replaced by
	// :rotateSecret keeps signing deliveries beside the new one
	// (DefaultConfig: webhooks.DefaultSecretGrace, 24 h). Zero: not at all.
	WebhookSecretGrace time.Duration
	// WebhookDisableAfter disables a webhook once that many of its
	// deliveries in a row failed after every retry (DefaultConfig:
	// webhooks.DefaultDisableAfter, 10). Zero never does.
	WebhookDisableAfter int
	// RateLimit is the default per-key rate (default 100 requests/s, burst
	// 200); a key's own limit overrides it.
	RateLimit auth.RateLimit
	// LogReadLimit bounds the requests of one client address to the
	// public transparency log (its checkpoints and tiles, read without a
	// key): default DefaultLogReadLimit.
	LogReadLimit auth.RateLimit
	// RedisURL, when set, shares the rate limits across replicas.
	RedisURL string
	// DisableAnalytics turns usage recording off (the usage endpoint still
	// reports what was stored before).
	DisableAnalytics bool
	// AnalyticsFlushInterval is how often usage aggregates are written to
	// the database (default 5 s).
	AnalyticsFlushInterval time.Duration
	// AnalyticsRetention is how long usage aggregates are kept; older
	// minutes are deleted every 10 minutes. Zero keeps them forever.
	AnalyticsRetention time.Duration
	// AuditRetention is how long audit events are kept (DefaultConfig:
	// audit.DefaultRetention, 365 days); older ones are deleted every 10
	// minutes. Zero keeps them forever.
	AuditRetention time.Duration
	// EventRetention is how long events are kept for GET /v1/events and
	// redelivery (DefaultConfig: events.DefaultRetention, 30 days); older
	// ones are deleted every 10 minutes. Zero keeps them forever.
	EventRetention time.Duration

	// MasterKeyFiles seal secrets at rest (webhook secrets, the IP
	// registry's private keys), newest first: the first seals, the others
	// only open what they sealed until it is sealed again under the first.
	// Empty: <DataDir>/master.key, created on the first start.
	MasterKeyFiles []string
	// TLSCertFile and TLSKeyFile, when set, serve TLS on HTTPAddr and
	// GRPCAddr; both files are read again when they change.
	TLSCertFile, TLSKeyFile string
	// LogRequests chooses which requests get a log line: edge.LogRequestsAll,
	// edge.LogRequestsSampled (default) or edge.LogRequestsErrors.
	LogRequests string
	// LogSlow is the latency from which a request is always logged
	// (default 500 ms).
	LogSlow time.Duration
	// Sessions is how long dashboard sessions live (default 12 h idle,
	// 7 days at most).
	Sessions auth.SessionPolicy
	// SignInLimit bounds failed dashboard sign-in attempts per client
	// address and per credential tried (default dashboard.DefaultSignInLimit).
	SignInLimit auth.RateLimit
	// CORSAllowedOrigins are the origins whose pages may call REST,
	// Connect and gRPC-Web from a browser ("*" alone: any; empty: none,
	// the same-origin rule). See edge.CheckCORSOrigins.
	CORSAllowedOrigins []string
	// PublicURL is the URL clients reach the service at: the issuer of
	// OAuth access tokens and the audience they are issued for. Every
	// replica must have the same. Empty: http://localhost:<port of
	// HTTPAddr>, fit for one machine only.
	PublicURL string
	// TrustedProxies are the peers (CIDR prefixes or addresses, see
	// edge.ParseTrustedProxies) whose ClientIPHeader names the client;
	// from any other peer it is ignored. Empty: the client is the TCP peer.
	TrustedProxies []string
	// ClientIPHeader is the header the trusted proxies write:
	// "x-forwarded-for" (the default when empty) or "forwarded" (RFC
	// 7239). The other one is never read.
	ClientIPHeader string
	// OAuthTokenLifetime is the lifetime of access tokens of clients that
	// do not set their own (default 1 h).
	OAuthTokenLifetime time.Duration
	// OAuthTokenLimits budget POST /oauth/token (default
	// oauth.DefaultTokenLimits).
	OAuthTokenLimits oauth.TokenLimits
	// Clock is "now" for tracked plans: the as_of of their runs, their
	// reminders and automatic re-plans (default the system clock; tests
	// move a clock.Test).
	Clock clock.Clock
	// PlanScanInterval is how often due reminders and slipped deliverables
	// are looked for (default plans.DefaultScanInterval, a minute).
	PlanScanInterval time.Duration
	// Witnesses cosign the IP log's checkpoints (c2sp.org/tlog-witness):
	// each new checkpoint is submitted to every one, and certificates
	// carry their cosignatures (ipreg.ParseWitness makes them from
	// --witness VKEY@URL).
	Witnesses []ipreg.Witness
	// WitnessPoll is how often the IP log head is read for checkpoints
	// other replicas signed, to submit them to the witnesses (default 5 s).
	WitnessPoll time.Duration
	// TimestampAuthorities are RFC 3161 authorities that also timestamp
	// every IP registration, in the background (ipreg.External).
	TimestampAuthorities []string
	// TimestampAuthorityTimeout bounds one request to an authority
	// (default ipreg.DefaultTSATimeout).
	TimestampAuthorityTimeout time.Duration
}

// DefaultConfig is the configuration `creativeops serve` starts from: the
// one place its defaults are written. Flags and environment variables
// override it.
func DefaultConfig() Config {
	return Config{
		HTTPAddr:               ":8080",
		DatabaseURL:            "sqlite://./data/creativeops.db",
		DataDir:                "./data",
		ShutdownTimeout:        20 * time.Second,
		ReadHeaderTimeout:      10 * time.Second,
		ReadTimeout:            30 * time.Second,
		WriteTimeout:           time.Minute,
		IdleTimeout:            2 * time.Minute,
		BodyMemory:             64 << 20,
		Workers:                8,
		JobTimeout:             time.Minute,
		RescueAfter:            2 * time.Minute,
		WebhookSchedule:        webhooks.DefaultSchedule,
		WebhookWorkers:         20,
		WebhookTimeout:         webhooks.DefaultTimeout,
		RateLimit:              auth.RateLimit{RequestsPerSecond: ratelimit.DefaultRPS, Burst: ratelimit.DefaultBurst},
		AnalyticsFlushInterval: 5 * time.Second,
		AnalyticsRetention:     90 * 24 * time.Hour,
		AuditRetention:         audit.DefaultRetention,
		EventRetention:         events.DefaultRetention,
		WebhookSecretGrace:     webhooks.DefaultSecretGrace,
		WebhookDisableAfter:    webhooks.DefaultDisableAfter,
		LogRequests:            edge.LogRequestsSampled,
		LogSlow:                500 * time.Millisecond,
		Sessions:               auth.SessionPolicy{Idle: auth.DefaultSessionIdle, Max: auth.DefaultSessionMax},
		SignInLimit:            dashboard.DefaultSignInLimit,
		LogReadLimit:           DefaultLogReadLimit,
		OAuthTokenLifetime:     oauth.DefaultTokenLifetime,
		OAuthTokenLimits:       oauth.DefaultTokenLimits,
		Clock:                  clock.Real{},
		PlanScanInterval:       plans.DefaultScanInterval,
		ClientIPHeader:         edge.HeaderXForwardedFor,
	}
}

// withDefaults fills what a caller (usually a test) left zero.
func (cfg Config) withDefaults() Config {
	def := DefaultConfig()
	cfg.Logger = cmp.Or(cfg.Logger, slog.Default())
	if cfg.Console == nil {
		cfg.Console = io.Writer(os.Stderr)
	}
	cfg.Workers = cmp.Or(cfg.Workers, def.Workers)
	cfg.JobTimeout = cmp.Or(cfg.JobTimeout, def.JobTimeout)
	cfg.RescueAfter = cmp.Or(cfg.RescueAfter, def.RescueAfter)
	cfg.WebhookWorkers = cmp.Or(cfg.WebhookWorkers, def.WebhookWorkers)
	cfg.WebhookTimeout = cmp.Or(cfg.WebhookTimeout, def.WebhookTimeout)
	cfg.ShutdownTimeout = cmp.Or(cfg.ShutdownTimeout, def.ShutdownTimeout)
	cfg.LogRequests = cmp.Or(cfg.LogRequests, def.LogRequests)
	cfg.LogSlow = cmp.Or(cfg.LogSlow, def.LogSlow)
	cfg.OAuthTokenLifetime = cmp.Or(cfg.OAuthTokenLifetime, def.OAuthTokenLifetime)
	if cfg.PublicURL == "" {
		_, port, err := net.SplitHostPort(cfg.HTTPAddr)
		if err != nil || port == "" || port == "0" {
			port = "8080"
		}
		cfg.PublicURL = "http://localhost:" + port
	}
	cfg.ReadHeaderTimeout = cmp.Or(cfg.ReadHeaderTimeout, def.ReadHeaderTimeout)
	cfg.ReadTimeout = cmp.Or(cfg.ReadTimeout, def.ReadTimeout)
	cfg.WriteTimeout = cmp.Or(cfg.WriteTimeout, def.WriteTimeout)
	cfg.IdleTimeout = cmp.Or(cfg.IdleTimeout, def.IdleTimeout)
	cfg.BodyMemory = cmp.Or(cfg.BodyMemory, def.BodyMemory)
	if cfg.AnalyticsFlushInterval <= 0 {
		cfg.AnalyticsFlushInterval = def.AnalyticsFlushInterval
	}
	if len(cfg.WebhookSchedule) == 0 {
		cfg.WebhookSchedule = def.WebhookSchedule
	}
	if cfg.RateLimit.RequestsPerSecond <= 0 || cfg.RateLimit.Burst <= 0 {
		cfg.RateLimit = def.RateLimit
	}
	cfg.Sessions.Idle = cmp.Or(cfg.Sessions.Idle, def.Sessions.Idle)
	cfg.Sessions.Max = cmp.Or(cfg.Sessions.Max, def.Sessions.Max)
	if cfg.SignInLimit.RequestsPerSecond <= 0 || cfg.SignInLimit.Burst <= 0 {
		cfg.SignInLimit = def.SignInLimit
	}
	if cfg.LogReadLimit.RequestsPerSecond <= 0 || cfg.LogReadLimit.Burst <= 0 {
		cfg.LogReadLimit = def.LogReadLimit
	}
	cfg.OAuthTokenLimits = cfg.OAuthTokenLimits.WithDefaults()
	if cfg.Clock == nil {
		cfg.Clock = def.Clock
	}
	if cfg.PlanScanInterval <= 0 {
		cfg.PlanScanInterval = def.PlanScanInterval
	}
	cfg.TimestampAuthorityTimeout = cmp.Or(cfg.TimestampAuthorityTimeout, ipreg.DefaultTSATimeout)
	return cfg
}

// timeouts are the port's time limits, for the edge; streaming tells the
// gRPC methods the limits leave to keepalive (nil for a server with none).
func (cfg Config) timeouts(streaming func(fullMethod string) bool) edge.Timeouts {
	return edge.Timeouts{ReadHeader: cfg.ReadHeaderTimeout, Read: cfg.ReadTimeout, Write: cfg.WriteTimeout, Idle: cfg.IdleTimeout, Streaming: streaming}
}
