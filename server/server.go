// Package server wires the service together: one listener serving REST
// (grpc-gateway) and gRPC, the interceptor chain both run through, and a
// graceful shutdown.
package server

import (
	"cmp"
	"context"
	"crypto/tls"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"runtime"
	"strconv"
	"sync"
	"time"

	"buf.build/go/protovalidate"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivertype"
	"google.golang.org/grpc"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/reflection"
	"google.golang.org/grpc/status"

	"github.com/creativeops/creativeops/analytics"
	"github.com/creativeops/creativeops/auth"
	"github.com/creativeops/creativeops/creators"
	"github.com/creativeops/creativeops/dashboard"
	_ "github.com/creativeops/creativeops/engine/workflows" // registers every workflow
	"github.com/creativeops/creativeops/events"
	creativeopsv1 "github.com/creativeops/creativeops/gen/creativeops/v1"
	"github.com/creativeops/creativeops/idempotency"
	"github.com/creativeops/creativeops/internal/rpcrule"
	"github.com/creativeops/creativeops/ipreg"
	"github.com/creativeops/creativeops/jobs"
	"github.com/creativeops/creativeops/oauth"
	"github.com/creativeops/creativeops/plans"
	"github.com/creativeops/creativeops/ratelimit"
	"github.com/creativeops/creativeops/server/edge"
	"github.com/creativeops/creativeops/server/wire"
	"github.com/creativeops/creativeops/storage"
	"github.com/creativeops/creativeops/webhooks"
)

// queueWorkers is the River client that works jobs.
type queueWorkers interface {
	Start(ctx context.Context) error
	Stop(ctx context.Context) error
	StopAndCancel(ctx context.Context) error
}

// Server is a service instance: its storage, domain services and
// transports, built once by New.
type Server struct {
	cfg    Config
	log    *slog.Logger
	reqLog *edge.RequestLog
	// proxies are --trusted-proxies (see edge.Proxies).
	proxies edge.Proxies

	store       *storage.Store
	keys        *auth.Store
	oauth       *oauth.Service
	validator   protovalidate.Validator
	workers     queueWorkers
	registry    *ipreg.Registry
	plans       *plans.Service
	metrics     *metrics
	usage       *analytics.Recorder // nil when analytics is disabled
	flusher     *analytics.Flusher  // nil when analytics is disabled
	limiter     *ratelimit.Limiter
	idempotency *idempotency.Store
	janitor     *janitor
	planFeeds   *plans.Feeds
	bodies      *edge.Bodies // request bodies held in memory at once

	grpc     *grpc.Server
	health   *health.Server
	gateway  *gatewayRouter
	rpcWeb   http.Handler // Connect and gRPC-Web
	app      http.Handler // the dashboard's single-page app
	sessions *dashboard.Sessions
	http     *http.Server

	// acquired lists, in order, what New and StartWorkers opened or
	// started; Shutdown (or a failed New) releases it in reverse.
	mu       sync.Mutex
	acquired []resource
	stopped  bool

	// isStreaming tells the gRPC methods with streams, which the
	// timeouts leave to keepalive.
	isStreaming func(fullMethod string) bool
}

// resource is something the server holds that must be given back.
type resource struct {
	name    string
	release func(context.Context) error
}

func (s *Server) hold(name string, release func(context.Context) error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.acquired = append(s.acquired, resource{name, release})
}

// releaseAll gives everything back, newest first, and reports what failed.
func (s *Server) releaseAll(ctx context.Context) error {
	s.mu.Lock()
	held := s.acquired
	s.acquired = nil
	s.mu.Unlock()
	var errs []error
	for i := len(held) - 1; i >= 0; i-- {
		if err := held[i].release(ctx); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", held[i].name, err))
		}
	}
	return errors.Join(errs...)
}

// New opens and migrates the database and builds the service: each part
// from the parts it depends on, in one order. If any step fails, what the
// steps before it opened or started is released before New returns.
func New(ctx context.Context, cfg Config) (*Server, error) {
	cfg = cfg.withDefaults()
	if err := edge.CheckCORSOrigins(cfg.CORSAllowedOrigins); err != nil {
		return nil, fmt.Errorf("CORS allowed origins: %w", err)
	}
	// What can be checked before anything is written is checked first: a
	// missing TLS file or a malformed proxy list fails the start before a
	// database or a master key is made.
	if _, err := edge.TLSConfig(cfg.TLSCertFile, cfg.TLSKeyFile, cfg.Logger); err != nil {
		return nil, err
	}
	trusted, err := edge.NewProxies(cfg.TrustedProxies, cfg.ClientIPHeader)
	if err != nil {
		return nil, fmt.Errorf("trusted proxies: %w", err)
	}
	// Every ERROR line of the server is budgeted (see edge.NewErrorLog).
	s := &Server{cfg: cfg, log: slog.New(edge.NewErrorLog(cfg.Logger.Handler(), requestOrg)), bodies: edge.NewBodies(cfg.BodyMemory, trusted), proxies: trusted}
	built := false
	defer func() {
		if !built {
			_ = s.releaseAll(context.Background())
		}
	}()
	if s.reqLog, err = edge.NewRequestLog(cfg.LogRequests, cfg.LogSlow); err != nil {
		return nil, err
	}

	// Storage.
	store, err := storage.Open(ctx, cfg.DatabaseURL, storage.Warm(), storage.Traced(cfg.TracerProvider), storage.CreateWithin(cfg.DataDir), storage.Logger(s.log))
	if err != nil {
		return nil, err
	}
	s.store = store
	s.hold("database", func(context.Context) error { return store.Close() })
	if store.Created {
		// A start that fails leaves no empty database behind to be
		// mistaken for the real one next time.
		defer func() {
			if !built {
				_ = s.releaseAll(context.Background())
				storage.RemoveSQLiteFiles(store.Path())
			}
		}()
		s.log.Warn("created a new, empty database: if this installation has data, --database-url or --data-dir is wrong", "path", store.Path())
	}
	if err := store.Migrate(ctx); err != nil {
		return nil, err
	}
	// Secrets at rest are sealed under the master keys; an upgrade seals
	// what an earlier version stored in the clear before anything reads it.
	keyring, err := openKeyring(ctx, cfg, store)
	if err != nil {
		return nil, err
	}
	if s.validator, err = protovalidate.New(); err != nil {
		return nil, err
	}

	// The queue: River clients share one registry of workers, filled once
	// the domain services that work jobs exist.
	workers := river.NewWorkers()
	queue, jobWorkers, err := newQueue(store, workers, cfg, s.log)
	if err != nil {
		return nil, err
	}
	s.workers = jobWorkers

	// Analytics first: the metrics read the flusher's counters.
	if !cfg.DisableAnalytics {
		s.usage = analytics.NewRecorder()
		s.flusher = &analytics.Flusher{Recorder: s.usage, Store: store.Background, Interval: cfg.AnalyticsFlushInterval, Log: s.log}
	}
	s.metrics = newMetrics(store, s.flusher)

	// Domain services.
	slots := webhooks.NewSlots(cfg.WebhookWorkers)
	budget := webhooks.NewBudget(webhooks.DefaultBudgetPerSecond, webhooks.DefaultBudgetBurst)
	budget.Prompt = webhooks.DefaultBudgetPrompt
	dispatcher := &webhooks.Dispatcher{River: queue, Schedule: cfg.WebhookSchedule, Slots: slots, Budget: budget,
		FanOutBudget: webhooks.NewBudget(webhooks.DefaultFanOutPerSecond, webhooks.DefaultFanOutBurst)}
	emitter := events.NewEmitter(wire.EventData, dispatcher.FanOut).Subscribed(store.Dialect, webhooks.Subscribed)
	s.plans = plans.NewService(store, emitter, cfg.Clock)
	runner := jobs.NewRunner(store, emitter, queue, s.log, func(status string, async bool) {
		s.metrics.jobs.WithLabelValues(status, strconv.FormatBool(async)).Inc()
	}, cfg.Clock, s.plans)
	// Jobs run on the background store: requests and jobs never wait for
	// each other's database connections.
	river.AddWorker(workers, jobs.NewWorker(runner.On(store.Background)))
	scanFailed := func(stage string) { s.metrics.planScanFailures.WithLabelValues(stage).Inc() }
	river.AddWorker(workers, plans.NewScanWorker(s.plans.On(store.Background), queue, s.log, scanFailed))
	river.AddWorker(workers, plans.NewRemindWorker(s.plans.On(store.Background), s.log, scanFailed))
	river.AddWorker(workers, &webhooks.FanOutWorker{Store: store.Background, Dispatcher: dispatcher})
	river.AddWorker(workers, &ipreg.TimestampWorker{
		Store: store.Background, Events: emitter, Client: ipreg.NewTSAClient(cfg.TimestampAuthorityTimeout), Log: s.log,
		Failed: func(authority string) { s.metrics.tsaFailures.WithLabelValues(authority).Inc() },
	})
	river.AddWorker(workers, &webhooks.Worker{
		Store:        store.Background,
		Dispatcher:   dispatcher,
		Client:       webhooks.NewClient(cfg.AllowInsecureWebhooks, cfg.WebhookTimeout),
		Keyring:      keyring,
		Log:          s.log,
		Attempted:    func(result string) { s.metrics.attempts.WithLabelValues(result).Inc() },
		Slots:        slots,
		DisableAfter: cfg.WebhookDisableAfter,
		Events:       emitter,
	})
	// The limiter before the authorization server, which budgets its
	// token endpoint with it.
	s.limiter, err = ratelimit.New(cfg.RateLimit, cfg.RedisURL, s.log)
	if err != nil {
		return nil, err
	}
	s.hold("rate limiter", func(context.Context) error { return s.limiter.Close() })
	if s.oauth, err = newOAuth(ctx, s, store, keyring); err != nil {
		return nil, err
	}
	// Dashboard sessions may be opened with OAuth client credentials.
	s.keys = &auth.Store{Ent: store.Ent, Read: store.Read, Poll: store.Background.Read, Sessions: cfg.Sessions, Clients: s.oauth}
	stopKeyCache := s.keys.StartCache(auth.DefaultKeyPollInterval, s.log)
	s.hold("API key cache", func(context.Context) error { stopKeyCache(); return nil })
	stopOAuth, err := s.oauth.Start(ctx, auth.DefaultKeyPollInterval)
	if err != nil {
		return nil, fmt.Errorf("oauth: %w", err)
	}
	s.hold("OAuth state", func(context.Context) error { stopOAuth(); return nil })
	s.sessions = dashboard.NewSessions(s.keys, s.oauth, s.limiter, s.proxies, dashboardHost{log: s.log},
		cfg.SignInLimit, cfg.TLSCertFile != "")
	creatorsSvc := creators.NewService(store, emitter)
	webhooksSvc := webhooks.NewService(store, emitter, dispatcher, keyring, cfg.AllowInsecureWebhooks, cfg.WebhookSecretGrace)
	s.registry, err = ipreg.OpenRegistry(ctx, store, keyring, emitter, s.log,
		ipreg.WithExternal(ipreg.External{Authorities: cfg.TimestampAuthorities, Queue: queue}))
	if err != nil {
		return nil, err
	}
	for _, authority := range cfg.TimestampAuthorities {
		s.metrics.tsaFailures.WithLabelValues(authority) // exported at 0 before the first failure
	}
	s.hold("ip registry", func(context.Context) error { s.registry.Close(); return nil })
	if err := s.registry.StartWitnesses(ctx, ipreg.WitnessOptions{
		Witnesses: cfg.Witnesses, Poll: cfg.WitnessPoll,
		OnFailure: func(witness, reason string) { s.metrics.witnessFailures.WithLabelValues(witness, reason).Inc() },
	}); err != nil {
		return nil, err
	}
	for _, w := range cfg.Witnesses { // exported at 0 before the first failure
		for _, reason := range []string{ipreg.WitnessUnreachable, ipreg.WitnessRefused, ipreg.WitnessBadCosignature, ipreg.WitnessFork} {
			s.metrics.witnessFailures.WithLabelValues(w.Name(), reason)
		}
	}
	s.idempotency = idempotency.NewStore(store)
	s.planFeeds = plans.NewFeeds(store, cfg.PublicURL)

	// Background work that needs no listener: usage flushes and clean-up.
	if s.flusher != nil {
		s.flusher.Start()
		s.hold("analytics flusher", s.stopAnalytics)
	}
	s.janitor = newJanitor(store, s.idempotency, s.keys, s.oauth, retentions{usage: cfg.AnalyticsRetention, audit: cfg.AuditRetention, events: cfg.EventRetention}, s.log)
	if err := s.janitor.Start(ctx); err != nil {
		return nil, err
	}
	s.hold("clean-up", s.janitor.Stop)

	// Transports: one interceptor chain for gRPC and for REST through the
	// in-process gateway.
	chain := s.interceptorChain()
	// Native gRPC decodes requests before any interceptor runs; the codec
	// remembers what it could not decode (invalid UTF-8) so the first
	// interceptor answers InvalidArgument instead of gRPC's Internal.
	codec := newRequestCodec()
	s.isStreaming = edge.StreamingMethods(func() *grpc.Server { return s.grpc })
	// A call is admitted from its headers (admitStream) before grpc-go
	// reads its message; what a connection may make the server hold is
	// bounded (edge.GRPCConnectionLimits).
	opts := append(cfg.timeouts(s.isStreaming).GRPCOptions(s.admitStream), edge.GRPCConnectionLimits()...)
	s.grpc = grpc.NewServer(append(append(opts, s.grpcTracing()...),
		grpc.ChainUnaryInterceptor(chainUnary(append([]grpc.UnaryServerInterceptor{codec.rejectUndecodable}, chain...)...)),
		grpc.ForceServerCodecV2(codec),
		// Calls run on long-lived workers whose stacks have already grown:
		// a fresh goroutine per call regrew its stack through the chain
		// and the database driver every time (runtime.copystack was a
		// tenth of the gRPC path's CPU). Calls beyond the workers still
		// get a goroutine of their own.
		grpc.NumStreamWorkers(uint32(16*runtime.GOMAXPROCS(0))),
	)...)
	inproc := newInProcess(chainUnary(chain...))
	for _, reg := range []grpc.ServiceRegistrar{s.grpc, inproc} {
		creativeopsv1.RegisterCreatorsServiceServer(reg, &creatorsService{creators: creatorsSvc,
			plans: s.plans, runner: runner, registry: s.registry, webhooks: webhooksSvc})
		creativeopsv1.RegisterKeysServiceServer(reg, &keysService{keys: s.keys})
		creativeopsv1.RegisterOAuthClientsServiceServer(reg, &oauthClientsService{oauth: s.oauth})
		creativeopsv1.RegisterEngineServiceServer(reg, &engineService{runner: runner})
		creativeopsv1.RegisterIPServiceServer(reg, &ipService{creators: creatorsSvc, registry: s.registry})
		creativeopsv1.RegisterWebhooksServiceServer(reg, &webhooksService{webhooks: webhooksSvc})
		creativeopsv1.RegisterEventsServiceServer(reg, &eventsService{log: events.NewLog(store)})
		creativeopsv1.RegisterAnalyticsServiceServer(reg, &analyticsService{store: store})
		creativeopsv1.RegisterAuditServiceServer(reg, &auditService{store: store})
		creativeopsv1.RegisterPlansServiceServer(reg, &plansService{plans: s.plans, feeds: s.planFeeds})
	}
	s.health = health.NewServer()
	healthpb.RegisterHealthServer(s.grpc, s.health)
	reflection.Register(s.grpc)
	if s.gateway, err = newGateway(ctx, inproc); err != nil {
		return nil, err
	}
	if s.rpcWeb, err = newRPCWeb(s.grpc); err != nil {
		return nil, err
	}
	if s.app, err = dashboard.New(); err != nil {
		return nil, err
	}
	s.http = cfg.timeouts(nil).HTTPServer(s.Handler())
	s.http.ConnContext = edge.CountEarlyEnds
	built = true
	return s, nil
}

// River's timing, on both databases. fetchPollInterval bounds how long a
// job waits when no notification told the workers of it (always on
// SQLite; on PostgreSQL when its NOTIFY was coalesced into another's);
// fetchCooldown spaces the fetches notifications trigger; the inserter
// coalesces NOTIFYs per queue within insertNotifyWindow.
const (
	fetchPollInterval  = 50 * time.Millisecond
	fetchCooldown      = 10 * time.Millisecond
	insertNotifyWindow = river.FetchCooldownMin
)

// newQueue builds the River clients: queue inserts jobs inside ent's
// database/sql transactions; workers works them. On SQLite they are one
// client; on PostgreSQL workers is a LISTENing pgx client.
func newQueue(store *storage.Store, workers *river.Workers, cfg Config, log *slog.Logger) (*river.Client[*sql.Tx], queueWorkers, error) {
	riverLog := slog.New(discardBelow{log.Handler(), slog.LevelWarn})
	work, insert := queueConfigs(store.Pool != nil, workers, cfg, riverLog)
	if insert == nil {
		c, err := river.NewClient(store.River, work)
		return c, c, err
	}
	inserter, err := river.NewClient(store.River, insert)
	if err != nil {
		return nil, nil, err
	}
	worker, err := river.NewClient(riverpgxv5.New(store.Background.Pool), work)
	if err != nil {
		return nil, nil, err
	}
	return inserter, worker, nil
}

// queueConfigs is the configuration of the client that works jobs and, on
// PostgreSQL, of the separate one that inserts them (nil on SQLite, where
// one client does both).
func queueConfigs(postgres bool, workers *river.Workers, cfg Config, riverLog *slog.Logger) (work, insert *river.Config) {
	work = &river.Config{
		Queues: map[string]river.QueueConfig{
			jobs.Queue:     {MaxWorkers: cfg.Workers},
			webhooks.Queue: {MaxWorkers: cfg.WebhookWorkers},
			// The leader's scan hands out batches of due plans; every
			// replica works them, two at a time. They are minutes apart,
			// so an idle SQLite server need not poll for them every
			// fetchPollInterval (PostgreSQL's workers are notified).
			plans.Queue: {MaxWorkers: 2, FetchPollInterval: time.Second},
			// Fetches of external timestamps: network-bound, a batch of
			// registrations each.
			ipreg.Queue: {MaxWorkers: 2},
		},
		// Reminders and automatic re-plans: River's leader enqueues a
		// scan every interval, whichever replica it is; the scan reads
		// only the plans due and enqueues them in batches.
		PeriodicJobs: []*river.PeriodicJob{plans.PeriodicScan(cmp.Or(cfg.PlanScanInterval, plans.DefaultScanInterval))},
		Workers:      workers,
		JobTimeout:   cfg.JobTimeout, RescueStuckJobsAfter: cfg.RescueAfter,
		// SQLite: one client inserts and works. It cannot be told of
		// inserts made in other transactions, so workers poll; a short
		// interval keeps the queue-to-start delay low.
		FetchPollInterval: fetchPollInterval, FetchCooldown: fetchCooldown,
		Logger: riverLog,
	}
	if cfg.TracerProvider != nil {
		work.Middleware = []rivertype.Middleware{jobs.NewTracing(cfg.TracerProvider)}
	}
	if !postgres {
		return work, nil
	}
	// PostgreSQL: jobs are inserted inside ent's database/sql
	// transactions, which River's database/sql driver does, sending a
	// NOTIFY with each; they are worked by a client on River's pgx driver,
	// which LISTENs for those on every replica, so workers start at once.
	// But the inserter sends at most one NOTIFY per queue per its
	// FetchCooldown, counted from the insert, not the commit: a job
	// inserted just after another transaction's gets none, and if that
	// other transaction commits and the fetch its NOTIFY triggers runs
	// before this one commits, the job waits for the next NOTIFY or the
	// next poll. While one organization floods the queue with inserts,
	// that could make another's deliveries wait up to the poll interval
	// (it was 500 ms). So the inserter's window is River's minimum, and
	// the workers poll as often as on SQLite, which bounds such a wait.
	insert = &river.Config{Workers: workers, FetchCooldown: insertNotifyWindow, Logger: riverLog, Middleware: work.Middleware}
	return work, insert
}

// newGateway is the REST facade: every service's grpc-gateway handlers,
// calling the services in process through the interceptor chain.
func newGateway(ctx context.Context, conn grpc.ClientConnInterface) (*gatewayRouter, error) {
	g := &gatewayRouter{all: newGatewayMux(), byService: map[string]*runtimeMux{}, byRoute: map[route]*runtimeMux{}}
	for _, svc := range []struct {
		name     string
		register func(context.Context, *runtimeMux, grpc.ClientConnInterface) error
	}{
		{creativeopsv1.CreatorsService_ServiceDesc.ServiceName, func(ctx context.Context, m *runtimeMux, c grpc.ClientConnInterface) error {
			return creativeopsv1.RegisterCreatorsServiceHandlerClient(ctx, m, creativeopsv1.NewCreatorsServiceClient(c))
		}},
		{creativeopsv1.KeysService_ServiceDesc.ServiceName, func(ctx context.Context, m *runtimeMux, c grpc.ClientConnInterface) error {
			return creativeopsv1.RegisterKeysServiceHandlerClient(ctx, m, creativeopsv1.NewKeysServiceClient(c))
		}},
		{creativeopsv1.OAuthClientsService_ServiceDesc.ServiceName, func(ctx context.Context, m *runtimeMux, c grpc.ClientConnInterface) error {
			return creativeopsv1.RegisterOAuthClientsServiceHandlerClient(ctx, m, creativeopsv1.NewOAuthClientsServiceClient(c))
		}},
		{creativeopsv1.EngineService_ServiceDesc.ServiceName, func(ctx context.Context, m *runtimeMux, c grpc.ClientConnInterface) error {
			return creativeopsv1.RegisterEngineServiceHandlerClient(ctx, m, creativeopsv1.NewEngineServiceClient(c))
		}},
		{creativeopsv1.IPService_ServiceDesc.ServiceName, func(ctx context.Context, m *runtimeMux, c grpc.ClientConnInterface) error {
			return creativeopsv1.RegisterIPServiceHandlerClient(ctx, m, creativeopsv1.NewIPServiceClient(c))
		}},
		{creativeopsv1.WebhooksService_ServiceDesc.ServiceName, func(ctx context.Context, m *runtimeMux, c grpc.ClientConnInterface) error {
			return creativeopsv1.RegisterWebhooksServiceHandlerClient(ctx, m, creativeopsv1.NewWebhooksServiceClient(c))
		}},
		{creativeopsv1.EventsService_ServiceDesc.ServiceName, func(ctx context.Context, m *runtimeMux, c grpc.ClientConnInterface) error {
			return creativeopsv1.RegisterEventsServiceHandlerClient(ctx, m, creativeopsv1.NewEventsServiceClient(c))
		}},
		{creativeopsv1.AnalyticsService_ServiceDesc.ServiceName, func(ctx context.Context, m *runtimeMux, c grpc.ClientConnInterface) error {
			return creativeopsv1.RegisterAnalyticsServiceHandlerClient(ctx, m, creativeopsv1.NewAnalyticsServiceClient(c))
		}},
		{creativeopsv1.AuditService_ServiceDesc.ServiceName, func(ctx context.Context, m *runtimeMux, c grpc.ClientConnInterface) error {
			return creativeopsv1.RegisterAuditServiceHandlerClient(ctx, m, creativeopsv1.NewAuditServiceClient(c))
		}},
		{creativeopsv1.PlansService_ServiceDesc.ServiceName, func(ctx context.Context, m *runtimeMux, c grpc.ClientConnInterface) error {
			return creativeopsv1.RegisterPlansServiceHandlerClient(ctx, m, creativeopsv1.NewPlansServiceClient(c))
		}},
	} {
		own := newGatewayMux()
		for _, m := range []*runtimeMux{g.all, own} {
			if err := svc.register(ctx, m, conn); err != nil {
				return nil, err
			}
		}
		g.byService[svc.name] = own
	}
	for _, m := range rpcrule.All() {
		if own := g.byService[serviceOf(m.FullMethod)]; own != nil && m.Template != "" {
			g.byRoute[route{m.HTTPMethod, m.Template}] = own
		}
	}
	return g, nil
}

// SyncKeys makes this instance observe API key changes committed so far
// (its poller does so every auth.DefaultKeyPollInterval).
func (s *Server) SyncKeys(ctx context.Context) error { return s.keys.SyncKeys(ctx) }

// Handler is the single HTTP handler: gRPC requests (HTTP/2 with an
// application/grpc content type) go to the gRPC server, Connect and
// gRPC-Web calls (paths naming an RPC) to the transcoder in front of it,
// everything else to the REST routes.
func (s *Server) Handler() http.Handler {
	api := apiFirst{gateway: s.gateway, mux: s.serveMux()}
	rest := s.restMiddleware(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// The current log's checkpoint as a signed note, for tiles
		// clients; with a credential the path is GetCheckpoint's.
		if publicCheckpoint(r) {
			s.serveCurrentCheckpoint(w, r)
			return
		}
		api.ServeHTTP(w, r)
	}))
	// What a browser may call: REST, Connect and gRPC-Web, cross-origin
	// when --cors-allowed-origins says so.
	web := edge.WithCORS(s.cfg.CORSAllowedOrigins, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if isRPCPath(r.URL.Path) {
			asConnectCall(r)
			if r.Body != nil && r.Body != http.NoBody {
				start, ri := time.Now(), &requestInfo{id: rpcRequestID(r)}
				defer func() { s.traceRPCRoute(r, ri) }()
				refuse := func(st *status.Status) {
					w.Header().Set("X-Request-Id", ri.id)
					writeRPCError(w, r, st)
					s.observeRefusedCall(ri, httpStatus(st), start)
				}
				a, ok := s.admit(w, r, ri, refuse)
				if !ok {
					return
				}
				r = withAdmitted(r, a)
				limit, release, ok := s.bodies.Admit(w, r, a.p, refuse)
				if !ok {
					return
				}
				defer release()
				r.Body = http.MaxBytesReader(w, r.Body, limit)
			}
			s.continueTrace(r)
			s.rpcWeb.ServeHTTP(w, withRPCWebTransport(r))
			return
		}
		if dashboard.IsPath(r.URL.Path) {
			dashboard.SetSecurityHeaders(w.Header())
		}
		rest.ServeHTTP(w, r)
	}))
	return edge.BoundEarlyEnds(s.log, s.traceHTTP(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r = s.sessions.WithCookiePolicy(r)
		if isNativeGRPCRequest(r) {
			s.serveGRPC(w, r)
			return
		}
		web.ServeHTTP(w, r)
	})))
}

// serveMux routes what is not native gRPC, Connect or gRPC-Web: probes,
// the API descriptions, metrics, the dashboard, OAuth, the plan calendar,
// the public transparency log (iplog.go),
// and the REST API through the gateway (see apiFirst).
func (s *Server) serveMux() *http.ServeMux {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"status":"ok"}`))
	})
	mux.HandleFunc("GET /readyz", s.ready)
	mux.HandleFunc("GET /v1/openapi.json", serveOpenAPI)
	mux.HandleFunc("GET "+webhooksOpenAPIPath, serveWebhooksOpenAPI)
	mux.Handle("GET /metrics", s.metrics.handler())
	s.sessions.Mount(mux, s.app)
	s.oauth.Register(mux)
	mux.HandleFunc(calendarRoute.Method+" "+calendarRoute.Template, s.servePlanCalendar)
	s.mountPublicLog(mux)
	mux.Handle("/", s.gateway)
	return mux
}

func (s *Server) ready(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
	defer cancel()
	w.Header().Set("Content-Type", "application/json")
	if err := s.store.Ping(ctx); err != nil {
		w.WriteHeader(http.StatusServiceUnavailable)
		_, _ = w.Write([]byte(`{"status":"unavailable","database":"unreachable"}`))
		return
	}
	_, _ = w.Write([]byte(`{"status":"ok"}`))
}

// StartWorkers starts the background workers (asynchronous runs and
// webhook deliveries). Shutdown stops them.
func (s *Server) StartWorkers(ctx context.Context) error {
	if err := s.workers.Start(context.WithoutCancel(ctx)); err != nil {
		return err
	}
	s.hold("queue workers", func(ctx context.Context) error {
		// Workers get the rest of the deadline to finish their runs;
		// whatever is still running is canceled and retried by the next
		// instance.
		if err := s.workers.Stop(ctx); err != nil {
			stopCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			return s.workers.StopAndCancel(stopCtx)
		}
		return nil
	})
	return nil
}

// Serve serves every protocol on ln until Shutdown, all through the one
// HTTP server: HTTP/1.1, HTTP/2 with prior knowledge (h2c) and, on a TLS
// listener, HTTP/2 chosen by ALPN. Handler sends native gRPC calls to the
// gRPC server's ServeHTTP, so the HTTP/2 connection itself, its settings,
// flow control and limits, is net/http's for every kind of client.
func (s *Server) Serve(ln net.Listener) error {
	err := s.http.Serve(ln)
	if errors.Is(err, http.ErrServerClosed) {
		return nil
	}
	return err
}

// ServeGRPC serves gRPC alone on ln until Shutdown, on the gRPC server's
// own HTTP/2 transport: it answers a call with about half the CPU that
// the HTTP server's ServeHTTP path takes (docs/performance.md), so a
// high-volume gRPC client is better served here than on the API port.
func (s *Server) ServeGRPC(ln net.Listener) error {
	return s.grpc.Serve(edge.ResetBudgetListener(ln, s.log))
}

// Shutdown stops accepting, lets in-flight requests finish within the
// configured deadline, then releases everything New and StartWorkers
// acquired, in reverse order: the workers, the usage flush, the clean-up,
// the limiter, the registry, and last the database.
func (s *Server) Shutdown(ctx context.Context) error {
	s.mu.Lock()
	if s.stopped {
		s.mu.Unlock()
		return nil
	}
	s.stopped = true
	s.mu.Unlock()
	s.health.Shutdown()
	ctx, cancel := context.WithTimeout(ctx, s.cfg.ShutdownTimeout)
	defer cancel()
	httpErr := s.http.Shutdown(ctx)
	stopped := make(chan struct{})
	go func() { s.grpc.GracefulStop(); close(stopped) }()
	select {
	case <-stopped:
	case <-ctx.Done():
		s.grpc.Stop()
	}
	return errors.Join(httpErr, s.releaseAll(ctx))
}

// TLSListener wraps ln in TLS when the configuration names a certificate
// (--tls-cert-file, --tls-key-file), and returns ln as it is otherwise.
// HTTP/1.1, HTTP/2 and gRPC are served over it on the one port, as they
// are in the clear: ALPN offers h2 and http/1.1, and the handshake runs in
// the connection's own goroutine, bounded by the HTTP server's timeouts
// (and on --grpc-addr by the gRPC server's connection timeout). The certificate is read again when its files change.
// When the certificate does not load, ln is closed.
func (s *Server) TLSListener(ln net.Listener) (net.Listener, error) {
	cfg, err := edge.TLSConfig(s.cfg.TLSCertFile, s.cfg.TLSKeyFile, s.log)
	if err != nil {
		_ = ln.Close()
		return nil, err
	}
	if cfg == nil {
		return ln, nil
	}
	// The HTTP server is handed the TLS connections: it offers HTTP/2 by
	// ALPN only with HTTP/2 over TLS on.
	s.http.Protocols.SetHTTP2(true)
	return tls.NewListener(ln, cfg), nil
}

// Run binds its listeners, bootstraps a new installation, starts the
// workers and serves until ctx is canceled (SIGTERM), then shuts down
// gracefully. It binds first, so a busy port fails before anything is
// created or printed; a failure at any step releases what the steps before
// it acquired.
func Run(ctx context.Context, cfg Config) (err error) {
	cfg = cfg.withDefaults()
	listeners, err := listen(cfg)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			for _, l := range listeners {
				_ = l.ln.Close()
			}
		}
	}()
	s, err := New(ctx, cfg)
	if err != nil {
		return err
	}
	for i, l := range listeners {
		if l.kind == "debug" {
			continue
		}
		ln, err := s.TLSListener(l.ln) // closes l.ln when it fails
		if err != nil {
			return errors.Join(err, s.Shutdown(context.Background()))
		}
		listeners[i].ln = ln
	}
	if err := s.Bootstrap(ctx); err != nil {
		return errors.Join(err, s.Shutdown(context.Background()))
	}
	if err := s.StartWorkers(ctx); err != nil {
		return errors.Join(err, s.Shutdown(context.Background()))
	}
	errc := make(chan error, len(listeners))
	var debug *http.Server
	for _, l := range listeners {
		switch l.kind {
		case "http":
			go func() { errc <- s.Serve(l.ln) }()
			s.log.Info("serving REST and gRPC", "addr", l.ln.Addr().String())
		case "grpc":
			go func() { errc <- s.ServeGRPC(l.ln) }()
			s.log.Info("serving gRPC", "addr", l.ln.Addr().String())
		case "debug":
			debug = cfg.timeouts(nil).HTTPServer(edge.DebugHandler(os.Args))
			go func() { _ = debug.Serve(l.ln) }()
			s.log.Info("serving the profiler", "addr", l.ln.Addr().String())
			edge.WarnPublicDebugAddr(s.log, l.ln.Addr())
		}
	}
	if debug != nil {
		defer debug.Close()
	}
	select {
	case <-ctx.Done():
		s.log.Info("shutting down")
		return s.Shutdown(context.Background())
	case err := <-errc:
		return errors.Join(err, s.Shutdown(context.Background()))
	}
}

type listener struct {
	kind string // "http", "grpc" or "debug"
	ln   net.Listener
}

// listen binds every configured address, or none.
func listen(cfg Config) ([]listener, error) {
	var out []listener
	for _, a := range []struct{ kind, addr string }{{"http", cfg.HTTPAddr}, {"grpc", cfg.GRPCAddr}, {"debug", cfg.DebugAddr}} {
		if a.addr == "" {
			continue
		}
		ln, err := net.Listen("tcp", a.addr)
		if err != nil {
			for _, l := range out {
				l.ln.Close()
			}
			return nil, fmt.Errorf("listen on %s: %w", a.addr, err)
		}
		out = append(out, listener{a.kind, ln})
	}
	return out, nil
}

// ScanPlans looks for due reminders and slipped deliverables now, as the
// periodic scan does (for tests and administration).
func (s *Server) ScanPlans(ctx context.Context) error {
	_, err := s.plans.On(s.store.Background).Scan(ctx, s.log, func(stage string) { s.metrics.planScanFailures.WithLabelValues(stage).Inc() })
	return err
}

// Store exposes the database, for tests and administration.
func (s *Server) Store() *storage.Store { return s.store }

// discardBelow keeps River's informational logs out of the service log.
type discardBelow struct {
	slog.Handler
	min slog.Level
}

func (d discardBelow) Enabled(ctx context.Context, l slog.Level) bool {
	return l >= d.min && d.Handler.Enabled(ctx, l)
}

// Handle drops River's records of work a stopping service canceled (its
// periodic-job enqueuer reports the canceled transaction of a shutdown as an
// ERROR): a clean stop logs no error.
func (d discardBelow) Handle(ctx context.Context, r slog.Record) error {
	canceled := false
	r.Attrs(func(a slog.Attr) bool {
		if err, ok := a.Value.Any().(error); ok && errors.Is(err, context.Canceled) {
			canceled = true
		} else if a.Key == "error" && a.Value.Kind() == slog.KindString && a.Value.String() == context.Canceled.Error() {
			canceled = true
		}
		return !canceled
	})
	if canceled {
		return nil
	}
	return d.Handler.Handle(ctx, r)
}

func (d discardBelow) WithAttrs(attrs []slog.Attr) slog.Handler {
	return discardBelow{d.Handler.WithAttrs(attrs), d.min}
}

func (d discardBelow) WithGroup(name string) slog.Handler {
	return discardBelow{d.Handler.WithGroup(name), d.min}
}
