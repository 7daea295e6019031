// Package server wires the service together: one listener serving REST
// (grpc-gateway) and gRPC, the interceptor chain both run through, and a
// graceful shutdown.
package server

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"strconv"
	"strings"
	"sync"
	"time"

	"buf.build/go/protovalidate"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"google.golang.org/grpc"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/reflection"

	"github.com/creativeops/creativeops/analytics"
	"github.com/creativeops/creativeops/auth"
	"github.com/creativeops/creativeops/events"
	creativeopsv1 "github.com/creativeops/creativeops/gen/creativeops/v1"
	"github.com/creativeops/creativeops/ipreg"
	"github.com/creativeops/creativeops/jobs"
	"github.com/creativeops/creativeops/storage"
	"github.com/creativeops/creativeops/webhooks"
)

// queueWorkers is the River client that works jobs.
type queueWorkers interface {
	Start(ctx context.Context) error
	Stop(ctx context.Context) error
	StopAndCancel(ctx context.Context) error
}

// Server is a running service instance.
type Server struct {
	cfg       Config
	log       *slog.Logger
	store     *storage.Store
	keys      *auth.Store
	validator protovalidate.Validator
	routes    map[string]route
	// river inserts jobs (inside ent transactions); workers works them:
	// the same client on SQLite, a LISTENing pgx one on PostgreSQL.
	river    *river.Client[*sql.Tx]
	workers  queueWorkers
	runner   *jobs.Runner
	registry *ipreg.Registry
	events   *events.Emitter

	metrics     *metrics
	usage       *analytics.Recorder // nil when analytics is disabled
	flusher     *analytics.Flusher
	limiter     *rateLimiter
	stopCleanup func()

	grpc    *grpc.Server
	health  *health.Server
	gateway http.Handler
	http    *http.Server

	// streaming names the gRPC methods with streams (streamingMethods).
	streaming     map[string]bool
	streamingOnce sync.Once
}

// New opens the database, migrates it and builds the service.
func New(ctx context.Context, cfg Config) (*Server, error) {
	cfg = cfg.withDefaults()
	store, err := storage.Open(ctx, cfg.DatabaseURL)
	if err != nil {
		return nil, err
	}
	if err := store.Migrate(ctx); err != nil {
		store.Close()
		return nil, err
	}
	validator, err := protovalidate.New()
	if err != nil {
		store.Close()
		return nil, err
	}
	s := &Server{
		cfg:       cfg,
		log:       cfg.Logger,
		store:     store,
		keys:      &auth.Store{Ent: store.Ent, Read: store.Read},
		validator: validator,
		routes:    routesFromDescriptors(),
	}
	s.events = &events.Emitter{}
	s.runner = &jobs.Runner{Store: store, Events: s.events, Log: s.log}
	workers := river.NewWorkers()
	river.AddWorker(workers, &jobs.Worker{Runner: s.runner})
	dispatcher := &webhooks.Dispatcher{Schedule: cfg.WebhookSchedule}
	s.events.FanOut = dispatcher.FanOut
	webhookWorker := &webhooks.Worker{
		Store:      store,
		Dispatcher: dispatcher,
		Client:     webhooks.NewClient(cfg.AllowInsecureWebhooks, cfg.WebhookTimeout),
		Log:        s.log,
	}
	river.AddWorker(workers, webhookWorker)
	queues := map[string]river.QueueConfig{
		jobs.Queue:     {MaxWorkers: cfg.Workers},
		webhooks.Queue: {MaxWorkers: cfg.WebhookWorkers},
	}
	riverLog := slog.New(discardBelow{s.log.Handler(), slog.LevelWarn})
	work := &river.Config{
		Queues: queues, Workers: workers,
		JobTimeout: cfg.JobTimeout, RescueStuckJobsAfter: cfg.RescueAfter,
		// SQLite: one client inserts and works. It cannot be told of
		// inserts made in other transactions, so workers poll; a short
		// interval keeps the queue-to-start delay low.
		FetchPollInterval: 50 * time.Millisecond, FetchCooldown: 10 * time.Millisecond,
		Logger: riverLog,
	}
	if store.Pool == nil {
		s.river, err = river.NewClient(store.River, work)
		s.workers = s.river
	} else {
		// PostgreSQL: jobs are inserted inside ent's database/sql
		// transactions, which River's database/sql driver does, sending a
		// NOTIFY with each; they are worked by a client on River's pgx
		// driver, which LISTENs for those on every replica, so workers
		// start at once and poll only as a fallback.
		work.FetchPollInterval = 500 * time.Millisecond
		s.river, err = river.NewClient(store.River, &river.Config{
			Workers: workers, FetchCooldown: work.FetchCooldown, Logger: riverLog,
		})
		if err == nil {
			s.workers, err = river.NewClient(riverpgxv5.New(store.Pool), work)
		}
	}
	if err != nil {
		store.Close()
		return nil, err
	}
	s.runner.River = s.river
	dispatcher.River = s.river
	s.registry, err = ipreg.OpenRegistry(ctx, store, s.events, s.log)
	if err != nil {
		store.Close()
		return nil, err
	}
	if err := s.startLimits(); err != nil {
		store.Close()
		return nil, err
	}
	s.startAnalytics()
	s.metrics = newMetrics(s)
	s.runner.Finished = func(status string, async bool) {
		s.metrics.jobs.WithLabelValues(status, strconv.FormatBool(async)).Inc()
	}
	webhookWorker.Attempted = func(result string) { s.metrics.attempts.WithLabelValues(result).Inc() }

	chain := s.interceptorChain()
	s.grpc = grpc.NewServer(append(s.grpcLimits(),
		grpc.ChainUnaryInterceptor(chain...),
		grpc.MaxRecvMsgSize(MaxBodyBytes),
	)...)
	inproc := newInProcess(chainUnary(chain...))
	for _, reg := range []grpc.ServiceRegistrar{s.grpc, inproc} {
		creativeopsv1.RegisterCreatorsServiceServer(reg, &creatorsService{store: store, events: s.events})
		creativeopsv1.RegisterKeysServiceServer(reg, &keysService{keys: s.keys})
		creativeopsv1.RegisterEngineServiceServer(reg, &engineService{store: store, runner: s.runner})
		creativeopsv1.RegisterIPServiceServer(reg, &ipService{store: store, registry: s.registry})
		creativeopsv1.RegisterWebhooksServiceServer(reg, &webhooksService{store: store, events: s.events, dispatcher: dispatcher, allowInsecure: cfg.AllowInsecureWebhooks})
		creativeopsv1.RegisterAnalyticsServiceServer(reg, &analyticsService{store: store})
	}
	s.health = health.NewServer()
	healthpb.RegisterHealthServer(s.grpc, s.health)
	reflection.Register(s.grpc)

	gw := newGatewayMux()
	for _, register := range []func(context.Context, *runtimeMux, grpc.ClientConnInterface) error{
		func(ctx context.Context, m *runtimeMux, c grpc.ClientConnInterface) error {
			return creativeopsv1.RegisterCreatorsServiceHandlerClient(ctx, m, creativeopsv1.NewCreatorsServiceClient(c))
		},
		func(ctx context.Context, m *runtimeMux, c grpc.ClientConnInterface) error {
			return creativeopsv1.RegisterKeysServiceHandlerClient(ctx, m, creativeopsv1.NewKeysServiceClient(c))
		},
		func(ctx context.Context, m *runtimeMux, c grpc.ClientConnInterface) error {
			return creativeopsv1.RegisterEngineServiceHandlerClient(ctx, m, creativeopsv1.NewEngineServiceClient(c))
		},
		func(ctx context.Context, m *runtimeMux, c grpc.ClientConnInterface) error {
			return creativeopsv1.RegisterIPServiceHandlerClient(ctx, m, creativeopsv1.NewIPServiceClient(c))
		},
		func(ctx context.Context, m *runtimeMux, c grpc.ClientConnInterface) error {
			return creativeopsv1.RegisterWebhooksServiceHandlerClient(ctx, m, creativeopsv1.NewWebhooksServiceClient(c))
		},
		func(ctx context.Context, m *runtimeMux, c grpc.ClientConnInterface) error {
			return creativeopsv1.RegisterAnalyticsServiceHandlerClient(ctx, m, creativeopsv1.NewAnalyticsServiceClient(c))
		},
	} {
		if err := register(ctx, gw, inproc); err != nil {
			store.Close()
			return nil, err
		}
	}
	s.gateway = gw
	s.http = cfg.httpServer(s.Handler())
	return s, nil
}

// Handler is the single HTTP handler: gRPC requests (HTTP/2 with an
// application/grpc content type) go to the gRPC server, everything else to
// the REST routes.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"status":"ok"}`))
	})
	mux.HandleFunc("GET /readyz", s.ready)
	mux.HandleFunc("GET /v1/openapi.json", serveOpenAPI)
	mux.Handle("GET /metrics", s.metrics.handler())
	mux.Handle("/", s.gateway)
	rest := s.restMiddleware(mux)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.ProtoMajor == 2 && strings.HasPrefix(r.Header.Get("Content-Type"), "application/grpc") {
			s.grpc.ServeHTTP(w, r)
			return
		}
		rest.ServeHTTP(w, r)
	})
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

// StartWorkers starts the background workers (asynchronous runs).
func (s *Server) StartWorkers(ctx context.Context) error {
	return s.workers.Start(context.WithoutCancel(ctx))
}

// Serve serves REST and gRPC on ln until Shutdown: gRPC connections on
// the gRPC server's own transport, the rest on the HTTP server (connMux).
func (s *Server) Serve(ln net.Listener) error {
	m := newConnMux(ln, s.cfg.ReadHeaderTimeout, s.log)
	go m.serve()
	// The gRPC side can only stop with the mux (its listener's one error
	// is net.ErrClosed), which the HTTP server's shutdown closes.
	go func() { _ = s.grpc.Serve(m.grpc) }()
	err := s.http.Serve(m.http)
	m.close()
	if errors.Is(err, http.ErrServerClosed) {
		return nil
	}
	return err
}

// ServeGRPC serves gRPC alone on ln until Shutdown.
func (s *Server) ServeGRPC(ln net.Listener) error { return s.grpc.Serve(ln) }

// Shutdown stops accepting, lets in-flight requests finish within the
// configured deadline, then closes the database.
func (s *Server) Shutdown(ctx context.Context) error {
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
	// Requests have finished: what they recorded is written now, before
	// the workers take the rest of the deadline.
	analyticsErr := s.stopAnalytics(ctx)
	// Workers get the rest of the deadline to finish their runs; whatever
	// is still running is canceled and retried by the next instance.
	var riverErr error
	if err := s.workers.Stop(ctx); err != nil {
		stopCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		riverErr = s.workers.StopAndCancel(stopCtx)
		cancel()
	}
	s.registry.Close()
	limitsErr := s.stopLimits()
	return errors.Join(httpErr, riverErr, analyticsErr, limitsErr, s.store.Close())
}

// Run serves until ctx is canceled (SIGTERM), then shuts down gracefully.
func Run(ctx context.Context, cfg Config) error {
	s, err := New(ctx, cfg)
	if err != nil {
		return err
	}
	if err := s.Bootstrap(ctx); err != nil {
		s.store.Close()
		return err
	}
	if err := s.StartWorkers(ctx); err != nil {
		s.store.Close()
		return err
	}
	ln, err := net.Listen("tcp", cfg.HTTPAddr)
	if err != nil {
		s.store.Close()
		return fmt.Errorf("listen on %s: %w", cfg.HTTPAddr, err)
	}
	errc := make(chan error, 2)
	go func() { errc <- s.Serve(ln) }()
	s.log.Info("serving REST and gRPC", "addr", ln.Addr().String())
	if cfg.GRPCAddr != "" {
		gln, err := net.Listen("tcp", cfg.GRPCAddr)
		if err != nil {
			_ = s.Shutdown(context.Background())
			return fmt.Errorf("listen on %s: %w", cfg.GRPCAddr, err)
		}
		go func() { errc <- s.ServeGRPC(gln) }()
		s.log.Info("serving gRPC", "addr", gln.Addr().String())
	}
	if cfg.DebugAddr != "" {
		dln, err := net.Listen("tcp", cfg.DebugAddr)
		if err != nil {
			_ = s.Shutdown(context.Background())
			return fmt.Errorf("listen on %s: %w", cfg.DebugAddr, err)
		}
		debug := s.cfg.httpServer(debugHandler())
		defer debug.Close()
		go func() { _ = debug.Serve(dln) }()
		s.log.Info("serving the profiler", "addr", dln.Addr().String())
	}
	select {
	case <-ctx.Done():
		s.log.Info("shutting down")
	case err := <-errc:
		if err != nil {
			_ = s.Shutdown(context.Background())
			return err
		}
	}
	return s.Shutdown(context.Background())
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

func (d discardBelow) WithAttrs(attrs []slog.Attr) slog.Handler {
	return discardBelow{d.Handler.WithAttrs(attrs), d.min}
}

func (d discardBelow) WithGroup(name string) slog.Handler {
	return discardBelow{d.Handler.WithGroup(name), d.min}
}

// debugHandler serves the Go runtime profiles, for --debug-addr.
func debugHandler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	return mux
}
