// Command creativeops runs the creativeops service and its administration
// commands.
package main

import (
	"context"
	"database/sql"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"math"
	"os"
	"os/signal"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"google.golang.org/protobuf/encoding/protojson"

	"github.com/creativeops/creativeops/audit"
	"github.com/creativeops/creativeops/auth"
	"github.com/creativeops/creativeops/engine"
	"github.com/creativeops/creativeops/ent"
	"github.com/creativeops/creativeops/ent/apikey"
	"github.com/creativeops/creativeops/ent/organization"
	creativeopsv1 "github.com/creativeops/creativeops/gen/creativeops/v1"
	"github.com/creativeops/creativeops/ids"
	"github.com/creativeops/creativeops/internal/buildinfo"
	"github.com/creativeops/creativeops/internal/tracing"
	"github.com/creativeops/creativeops/ipreg"
	"github.com/creativeops/creativeops/plans"
	"github.com/creativeops/creativeops/server"
	"github.com/creativeops/creativeops/server/edge"
	"github.com/creativeops/creativeops/server/wire"
	"github.com/creativeops/creativeops/storage"
)

const usage = `creativeops — workflow engine, creator accounts, IP registry, webhooks and analytics.

Usage:
  creativeops serve   [flags]        run the service (REST and gRPC on one port)
  creativeops migrate [flags]        bring the database schema up to date
  creativeops orgs create NAME       create an organization
  creativeops orgs list              list the organizations
  creativeops keys create --org NAME --scopes LIST [--name LABEL]
                                     create an API key (printed once, alone, on stdout)
  creativeops keys list   --org NAME
  creativeops keys revoke --org NAME --id KEY_ID
  creativeops oauth-clients create --org NAME --scopes LIST [--name LABEL] [--jwks-file F | --jwks-uri URL]
                                     create an OAuth client (prints its id, then its secret, once)
  creativeops oauth-clients list   --org NAME
  creativeops oauth-clients rotate --org NAME --id CLIENT_ID [--grace-period 24h]
  creativeops oauth-clients revoke --org NAME --id CLIENT_ID
  creativeops oauth rotate-signing-key
                                     sign access tokens with a new key (the old one keeps verifying)
  creativeops audit list  --org NAME | --installation [--action A] [--limit N]
                                     the audit log of security-relevant changes
  creativeops ip rotate-keys         retire the IP registry's signing keys, start a new log
  creativeops secrets new-key --out FILE
                                     write a new master key file (0600)
  creativeops secrets rotate         seal every secret at rest under the newest master key
  creativeops listen --forward-to URL [--api-key KEY] [--url URL] [--state FILE]
                                     forward the organization's events (GET /v1/events) to a
                                     local URL as signed webhook deliveries; prints the secret
  creativeops verify --bundle FILE [--file WORK] [--root PEM --log-key KEY]
                                     check an IP certificate offline
  creativeops verify --monitor URL --log-key KEY [--checkpoint FILE] [--interval D] [--once]
                                     follow the IP transparency log, proving each new checkpoint
                                     consistent with the last one verified; exits non-zero on a fork
  creativeops version                print the version, VCS commit and Go version
                                     (also creativeops --version or -v)
  creativeops help COMMAND           the flags of a command (help keys create)

Every command but listen, verify, version and secrets new-key takes --data-dir
and --database-url (env CREATIVEOPS_DATA_DIR, CREATIVEOPS_DATABASE_URL); listen
talks to a running service with an API key instead.
Run "creativeops COMMAND -h" for the flags of a command.
`

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	os.Exit(exitCode(run(ctx, os.Args[1:], os.Stdout, os.Stderr), os.Stderr))
}

// exitCode reports err on stderr and turns it into the exit status: 0 for
// success and help, 2 for a command line that cannot be acted on, 1 for a
// command that failed.
func exitCode(err error, stderr io.Writer) int {
	var badUsage usageError
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
		return 0
	case errors.As(err, &badUsage):
		fmt.Fprintln(stderr, "creativeops:", err)
		return 2
	}
	fmt.Fprintln(stderr, "creativeops:", err)
	return 1
}

// command is a subcommand: run gets the arguments after its name.
type command func(ctx context.Context, args []string, stdout, stderr io.Writer) error

var commands = map[string]command{
	"serve":   serve,
	"migrate": migrate,
	"orgs":    group("orgs", map[string]command{"create": orgsCreate, "list": orgsList}),
	"keys":    group("keys", map[string]command{"create": keysCreate, "list": keysList, "revoke": keysRevoke}),
	"oauth-clients": group("oauth-clients", map[string]command{
		"create": oauthClientsCreate, "list": oauthClientsList, "rotate": oauthClientsRotate, "revoke": oauthClientsRevoke,
	}),
	"oauth":   group("oauth", map[string]command{"rotate-signing-key": oauthRotateSigningKey}),
	"ip":      group("ip", map[string]command{"rotate-keys": ipRotateKeys}),
	"audit":   group("audit", map[string]command{"list": auditList}),
	"secrets": group("secrets", map[string]command{"new-key": secretsNewKey, "rotate": secretsRotate}),
	"verify":  verifyCommand,
	"listen":  listen,
	"version": version,
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return usagef("no command given")
	}
	if args[0] == "--version" || args[0] == "-version" || args[0] == "-v" {
		return version(ctx, args[1:], stdout, stderr)
	}
	if isHelp(args[0]) {
		if len(args) > 1 && args[0] == "help" {
			// help keys create is keys create -h.
			return run(ctx, append(slices.Clone(args[1:]), "-h"), stdout, stderr)
		}
		fmt.Fprint(stdout, usage)
		return nil
	}
	cmd, ok := commands[args[0]]
	if !ok {
		return usagef("unknown command %q (run creativeops help)", args[0])
	}
	return cmd(ctx, args[1:], stdout, stderr)
}

func isHelp(arg string) bool {
	return arg == "help" || arg == "-h" || arg == "-help" || arg == "--help"
}

// group is a command made of subcommands (keys create, keys list, ...).
func group(name string, subs map[string]command) command {
	names := slices.Sorted(maps.Keys(subs))
	return func(ctx context.Context, args []string, stdout, stderr io.Writer) error {
		if len(args) == 0 {
			return usagef("%s needs a subcommand: %s (run creativeops %s -h)", name, strings.Join(names, ", "), name)
		}
		if isHelp(args[0]) {
			fmt.Fprintf(stdout, "Usage: creativeops %s SUBCOMMAND [flags]\n\nSubcommands: %s\nRun \"creativeops %s SUBCOMMAND -h\" for the flags of one.\n", name, strings.Join(names, ", "), name)
			return nil
		}
		sub, ok := subs[args[0]]
		if !ok {
			return usagef("unknown %s subcommand %q: want %s", name, args[0], strings.Join(names, ", "))
		}
		return sub(ctx, args[1:], stdout, stderr)
	}
}

// defaultMemoryLimit is the Go runtime's soft memory limit for serve
// unless --memory-limit or GOMEMLIMIT sets another. It bounds the Go heap;
// the rest of the process (the mapped binary, SQLite's page caches and
// statements, thread stacks) adds 50-60 MiB of RSS under load, so a
// replica needs the limit plus 64 MiB (docs/deployment.md). A tighter one
// costs CPU when an overload queues thousands of requests, whose
// goroutines' stacks count against the limit: on the 1,000 req/s mix past
// saturation the collector took 27 % of the server's CPU at 100 MiB, 10 %
// at 150 MiB and 5 % with no limit (docs/performance.md).
const defaultMemoryLimit = 120 << 20

// gcPercentWithLimit is GOGC while a memory limit is set and the
// environment sets no GOGC. The live heap is small (a few MiB idle, tens
// of MiB under load) and nearly everything a request allocates dies with
// it, so collecting at 5x the live heap rather than 2x costs little memory
// and gives back most of the collector's CPU, which on a 2-core machine
// also keeps one core from being lent to marking in every cycle; the limit
// caps what the 5x could grow to when the live heap grows under overload.
// Without a limit (--memory-limit 0) Go's default of 100 applies.
const gcPercentWithLimit = 400

// serveOptions is what serve's flags and environment set: the server's
// configuration and the process's own settings.
type serveOptions struct {
	cfg       server.Config
	logFormat string
	logLevel  slog.Level
	// envNames are the CREATIVEOPS_* variables serve reads.
	envNames []string
	// memoryLimit is --memory-limit in bytes: 0 for none, -1 when neither
	// the flag nor its variable was given.
	memoryLimit int64
	// rates is the reference-rate table of --rates-file, nil for the one
	// built into the binary.
	rates *engine.RateTable
}

// serveConfig parses the flags and environment of serve into the server's
// configuration, starting from server.DefaultConfig.
func serveConfig(args []string, stdout io.Writer) (server.Config, string, error) {
	o, err := serveFlags(args, stdout)
	return o.cfg, o.logFormat, err
}

// serveFlags parses the flags and environment of serve.
func serveFlags(args []string, stdout io.Writer) (serveOptions, error) {
	cfg := server.DefaultConfig()
	memoryLimit := int64(-1)
	fs := newFlagSet("serve [flags]", 0)
	fs.env(textValue{&cfg.HTTPAddr, listenAddr(false)}, "http-addr", "address serving REST and gRPC")
	fs.env(textValue{&cfg.GRPCAddr, listenAddr(true)}, "grpc-addr", "optional address serving gRPC only")
	fs.env(textValue{&cfg.DebugAddr, listenAddr(true)}, "debug-addr", "optional address serving the Go profiler at /debug/pprof/ (keep it private, e.g. 127.0.0.1:6060)")
	dbURL := fs.database(&cfg.DataDir)
	fs.env(boolValue{&cfg.AllowInsecureWebhooks}, "allow-insecure-webhooks", "allow http:// and private-address webhook URLs (development only)")
	logFormat := "json"
	fs.env(textValue{&logFormat, oneOf("json", "text")}, "log-format", "log format: json or text")
	logLevel := slog.LevelInfo
	fs.env(levelValue{&logLevel}, "log-level", "least severe log lines written: debug, info, warn or error")
	fs.env(intValue{&cfg.Workers, 1}, "workers", "concurrent asynchronous engine runs")
	fs.env(durationValue{p: &cfg.JobTimeout}, "job-timeout", "time limit of one attempt of an asynchronous run; a run whose server died is retried after twice this")
	fs.env(scheduleValue{&cfg.WebhookSchedule}, "webhook-retry-schedule", "delays before each webhook delivery attempt, comma-separated Go durations (the first is before the first attempt)")
	fs.env(intValue{&cfg.WebhookWorkers, 1}, "webhook-workers", "concurrent webhook delivery attempts")
	fs.env(durationValue{p: &cfg.WebhookSecretGrace, zero: "the old secret stops at once"}, "webhook-secret-grace", "how long a rotated-out webhook secret keeps signing deliveries beside the new one")
	var authorities string
	fs.env(textValue{&authorities, func(s string) error { return ipreg.CheckAuthorities(splitList(s)) }}, "timestamp-authority",
		"RFC 3161 timestamp authorities that also timestamp every IP registration, comma-separated http(s) URLs (docs/ip-registry.md); their tokens are fetched in the background, so one that is down fails no registration")
	fs.env(intValue{&cfg.WebhookDisableAfter, 0}, "webhook-disable-after", "disable a webhook after this many deliveries in a row failed every retry (0: never)")
	fs.env(floatValue{&cfg.RateLimit.RequestsPerSecond}, "rate-limit", "default requests per second per API key (a key's own limit overrides it)")
	fs.env(intValue{&cfg.RateLimit.Burst, 1}, "rate-limit-burst", "default burst (token bucket size) per API key")
	fs.env(floatValue{&cfg.LogReadLimit.RequestsPerSecond}, "ip-log-rate-limit", "requests per second per client address to the public IP transparency log (its checkpoints and tiles, read without a key)")
	fs.env(intValue{&cfg.LogReadLimit.Burst, 1}, "ip-log-rate-limit-burst", "burst per client address to the public IP transparency log")
	fs.env(textValue{&cfg.RedisURL, redisURL}, "redis-url", "Redis shared by the replicas for rate limits, e.g. redis://host:6379/0 (empty: each replica limits alone)")
	recordUsage := !cfg.DisableAnalytics
	bodyMemoryMiB := int(cfg.BodyMemory >> 20)
	fs.env(boolValue{&recordUsage}, "analytics", "record per-request usage analytics (GET /v1/analytics/usage)")
	fs.env(durationValue{p: &cfg.AnalyticsFlushInterval}, "analytics-flush-interval", "how often usage aggregates are written to the database")
	fs.env(durationValue{p: &cfg.AnalyticsRetention, zero: "keep forever"}, "analytics-retention", "how long per-minute usage is kept")
	fs.env(durationValue{p: &cfg.AuditRetention, zero: "keep forever"}, "audit-retention", "how long audit events are kept (GET /v1/audit-events)")
	fs.env(durationValue{p: &cfg.EventRetention, zero: "keep forever"}, "event-retention", "how long events are kept (GET /v1/events, redelivery)")
	masterKeyFlag(fs, &cfg.MasterKeyFiles)
	fs.env(textValue{p: &cfg.TLSCertFile}, "tls-cert-file", "PEM certificate chain: serve TLS (read again when it changes; needs --tls-key-file)")
	fs.env(textValue{p: &cfg.TLSKeyFile}, "tls-key-file", "PEM private key of --tls-cert-file")
	fs.env(textValue{&cfg.LogRequests, oneOf(edge.LogRequestsAll, edge.LogRequestsSampled, edge.LogRequestsErrors)}, "log-requests",
		fmt.Sprintf("which requests get a log line: all, sampled (failed and slow ones, and 1 in %d of the others) or errors (failed and slow ones); client and server errors at most %d lines/s each per organization", edge.RequestLogSampleEvery, edge.ErrorLinesPerSecond))
	fs.env(durationValue{p: &cfg.LogSlow}, "log-slow", "requests taking at least this long are always logged")
	fs.env(durationValue{p: &cfg.ReadHeaderTimeout}, "read-header-timeout", "time a new connection has to send its first request's headers")
	fs.env(durationValue{p: &cfg.ReadTimeout}, "read-timeout", "time to receive one whole request, body included (per stream on HTTP/2 and gRPC)")
	fs.env(durationValue{p: &cfg.WriteTimeout}, "write-timeout", "time from a request's headers to the end of its response")
	fs.env(durationValue{p: &cfg.IdleTimeout}, "idle-timeout", "how long a connection with no request in flight stays open")
	fs.env(intValue{&bodyMemoryMiB, 1}, "request-body-memory", "MiB of request bodies (REST, Connect, gRPC-Web) held in memory at once across all requests")
	fs.env(durationValue{p: &cfg.Sessions.Idle}, "session-idle", "a dashboard session ends when unused for this long")
	fs.env(durationValue{p: &cfg.Sessions.Max}, "session-max", "a dashboard session ends this long after sign-in, however used")
	signIns := cfg.SignInLimit.Burst
	fs.env(intValue{&signIns, 1}, "sign-in-limit", "failed dashboard sign-in attempts per minute per client address, and per credential tried (successful sign-ins do not count)")
	var corsOrigins string
	fs.env(textValue{&corsOrigins, func(s string) error { return edge.CheckCORSOrigins(splitList(s)) }}, "cors-allowed-origins",
		"origins whose browser pages may call the API, comma-separated (https://app.example.com, https://*.example.com), or * for any (empty: same-origin only)")
	var trustedProxies string
	fs.env(textValue{&trustedProxies, func(s string) error { _, err := edge.ParseTrustedProxies(splitList(s)); return err }}, "trusted-proxies",
		"proxies whose --client-ip-header names the client, comma-separated CIDRs or addresses (10.0.0.0/8, 192.0.2.10); the address then counts for per-address limits, the audit log and the request log (empty: the TCP peer is the client)")
	fs.env(textValue{&cfg.ClientIPHeader, func(s string) error { _, err := edge.CheckClientIPHeader(s); return err }}, "client-ip-header",
		"the header the --trusted-proxies write the client's address in: x-forwarded-for or forwarded (RFC 7239); the other one is ignored, as a client could have written it")
	fs.env(byteSizeValue{&memoryLimit, "none"}, "memory-limit",
		fmt.Sprintf("the Go runtime's soft memory limit, such as 120MiB or 1GiB (0: none; default %s unless GOMEMLIMIT is set); with a limit and no GOGC, GOGC is 400", formatBytes(defaultMemoryLimit)))
	fs.env(textValue{&cfg.PublicURL, publicURL}, "public-url", "URL clients reach the service at: the OAuth token issuer, the same on every replica (empty: http://localhost:<port>)")
	fs.env(witnessesValue{&cfg.Witnesses}, "witness", "an IP log witness VKEY@URL (repeatable; in the environment, several separated by spaces): each new checkpoint is sent to it for cosigning (c2sp.org/tlog-witness)")
	fs.env(tokenLifetime{durationValue{p: &cfg.OAuthTokenLifetime}}, "oauth-token-lifetime", "lifetime of OAuth access tokens of clients that set none (1m to 24h)")
	var rates *engine.RateTable
	var ratesFile string
	fs.env(textValue{&ratesFile, func(s string) (err error) {
		if s != "" {
			rates, err = engine.LoadRateTable(s)
		}
		return err
	}}, "rates-file", "the ECB's eurofxref.csv (or the same layout) that plans convert benchmark amounts with, read at start; the same file on every replica (empty: the table built into the binary)")
	if err := fs.parse(args, stdout); err != nil {
		return serveOptions{cfg: cfg}, err
	}
	if cfg.Sessions.Idle > cfg.Sessions.Max {
		return serveOptions{cfg: cfg}, usagef("--session-idle (%s) must not exceed --session-max (%s)", cfg.Sessions.Idle, cfg.Sessions.Max)
	}
	cfg.SignInLimit = auth.RateLimit{RequestsPerSecond: float64(signIns) / 60, Burst: signIns}
	if (cfg.TLSCertFile == "") != (cfg.TLSKeyFile == "") {
		return serveOptions{cfg: cfg}, usagef("--tls-cert-file and --tls-key-file go together: set both or neither")
	}
	cfg.DatabaseURL = dbURL()
	cfg.DisableAnalytics = !recordUsage
	cfg.BodyMemory = int64(bodyMemoryMiB) << 20
	cfg.RescueAfter = 2 * cfg.JobTimeout
	cfg.CORSAllowedOrigins = splitList(corsOrigins)
	cfg.TrustedProxies = splitList(trustedProxies)
	cfg.TimestampAuthorities = splitList(authorities)
	return serveOptions{cfg: cfg, logFormat: logFormat, logLevel: logLevel, memoryLimit: memoryLimit, rates: rates, envNames: fs.envNames()}, nil
}

// gcSettings is the collector's configuration for serve: the memory limit
// in bytes (math.MaxInt64 for none) and GOGC, each with whether to set it.
// The flag wins; then GOMEMLIMIT and GOGC from the environment, which the
// Go runtime has already applied and which are kept; then the defaults.
// GOGC, unless the environment sets it, is gcPercentWithLimit under a
// limit and Go's 100 without one.
func gcSettings(flagLimit int64, getenv func(string) string) (limit int64, gcPercent int, setLimit, setPercent bool) {
	envLimit := getenv("GOMEMLIMIT")
	limited := true
	switch {
	case flagLimit == 0:
		limit, setLimit, limited = math.MaxInt64, true, false
	case flagLimit > 0:
		limit, setLimit = flagLimit, true
	case envLimit == "":
		limit, setLimit = defaultMemoryLimit, true
	case envLimit == "off":
		limited = false
	}
	if getenv("GOGC") == "" {
		gcPercent, setPercent = 100, true
		if limited {
			gcPercent = gcPercentWithLimit
		}
	}
	return limit, gcPercent, setLimit, setPercent
}

func serve(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	o, err := serveFlags(args, stdout)
	if err != nil {
		return err
	}
	cfg := o.cfg
	log := newLogger(o.logFormat, o.logLevel, stderr)
	slog.SetDefault(log)
	warnUnknownEnv(log, os.Environ(), o.envNames)
	limit, gcPercent, setLimit, setPercent := gcSettings(o.memoryLimit, os.Getenv)
	if setLimit {
		debug.SetMemoryLimit(limit)
	}
	gogc := os.Getenv("GOGC")
	if setPercent {
		debug.SetGCPercent(gcPercent)
		gogc = "off"
		if gcPercent >= 0 {
			gogc = strconv.Itoa(gcPercent)
		}
	}
	if o.rates != nil {
		engine.UseRates(o.rates)
	}
	rt := engine.Rates()
	log.Info("reference rates", "table", rt.Name, "date", engine.FormatDate(rt.Date), "currencies", len(rt.Currencies()))
	bi := buildinfo.Read()
	log.Info("starting creativeops", "version", bi.Version, "commit", bi.Commit, "go_version", bi.GoVersion, "data_dir", cfg.DataDir,
		"memory_limit", formatLimit(debug.SetMemoryLimit(-1)), "gogc", gogc)
	if err := os.MkdirAll(cfg.DataDir, 0o750); err != nil {
		return fmt.Errorf("--data-dir: %w", err)
	}
	cfg.Logger, cfg.Console = log, stderr
	tp, err := tracing.FromEnv(ctx, bi.Version, log)
	if err != nil {
		return err
	}
	if tp == nil {
		return server.Run(ctx, cfg)
	}
	log.Info("tracing", "exporter", tp.Exporter, "protocol", tp.Protocol)
	cfg.TracerProvider = tp
	runErr := server.Run(ctx, cfg)
	// The spans of the last requests are still buffered.
	flushCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if err := tp.Shutdown(flushCtx); err != nil {
		log.Warn("tracing: sending the last spans failed", "error", err)
	}
	return runErr
}

// newLogger is serve's logger: JSON or text lines on w, from level up.
func newLogger(format string, level slog.Level, w io.Writer) *slog.Logger {
	opts := &slog.HandlerOptions{Level: level}
	if format == "text" {
		return slog.New(slog.NewTextHandler(w, opts))
	}
	return slog.New(slog.NewJSONHandler(w, opts))
}

// dbFlags declares the database flags of an administration command.
func dbFlags(fs *flagSet) func() string {
	var dataDir string
	return fs.database(&dataDir)
}

// openStore opens an existing database for an administration command:
// only serve and migrate create one (openOrCreateStore).
func openStore(ctx context.Context, url string) (*storage.Store, error) {
	return migrated(ctx, url, storage.Existing())
}

// openOrCreateStore opens the database, creating a new one (inside the
// data directory only) when there is none, and says so on stderr.
func openOrCreateStore(ctx context.Context, url, dataDir string, stderr io.Writer) (*storage.Store, error) {
	st, err := migrated(ctx, url, storage.CreateWithin(dataDir))
	if err == nil && st.Created {
		slog.New(slog.NewTextHandler(stderr, nil)).Warn("created a new, empty database", "path", st.Path())
	}
	return st, err
}

func migrated(ctx context.Context, url string, opts ...storage.Option) (*storage.Store, error) {
	st, err := storage.Open(ctx, url, opts...)
	if err != nil {
		return nil, err
	}
	if err := st.Migrate(ctx); err != nil {
		st.Close()
		return nil, err
	}
	return st, nil
}

func migrate(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("migrate [flags]", 0)
	var dataDir string
	dbURL := fs.database(&dataDir)
	if err := fs.parse(args, stdout); err != nil {
		return err
	}
	st, err := openOrCreateStore(ctx, dbURL(), dataDir, stderr)
	if err != nil {
		return err
	}
	defer st.Close()
	fmt.Fprintln(stderr, "database schema is up to date")
	// Plans stored before a plan read its context and result from its job
	// kept copies of them: dropped here, once, rather than on every start.
	n, err := plans.NewService(st, nil, nil).Compact(ctx)
	if err != nil {
		return fmt.Errorf("compact tracked plans: %w", err)
	}
	if n > 0 {
		fmt.Fprintf(stderr, "tracked plans: dropped the copies of %d plans' context and result (their jobs keep them)\n", n)
	}
	return nil
}

func version(_ context.Context, args []string, stdout, _ io.Writer) error {
	fs := newFlagSet("version", 0)
	if err := fs.parse(args, stdout); err != nil {
		return err
	}
	fmt.Fprintln(stdout, buildinfo.Read())
	return nil
}

func orgsCreate(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("orgs create [flags] NAME", 1)
	dbURL := dbFlags(fs)
	if err := fs.parse(args, stdout); err != nil {
		return err
	}
	name := strings.TrimSpace(fs.arg(0))
	if name == "" || len(name) > 100 {
		return usagef("orgs create: the name must be 1 to 100 characters")
	}
	st, err := openStore(ctx, dbURL())
	if err != nil {
		return err
	}
	defer st.Close()
	var o *ent.Organization
	ctx = audit.CLI(ctx)
	err = st.Tx(ctx, func(ctx context.Context, tx *ent.Client, _ *sql.Tx) error {
		var err error
		if o, err = tx.Organization.Create().SetID(ids.New(ids.Organization)).SetName(name).Save(ctx); err != nil {
			return err
		}
		return audit.Record(ctx, tx, audit.Entry{
			OrganizationID: o.ID, Action: audit.OrganizationCreated,
			TargetType: audit.TargetOrganization, TargetID: o.ID, Details: map[string]string{"name": name},
		})
	})
	if ent.IsConstraintError(err) {
		return fmt.Errorf("organization %q already exists", name)
	}
	if err != nil {
		return err
	}
	fmt.Fprintln(stdout, o.ID)
	fmt.Fprintf(stderr, "created organization %q; give it a key with: creativeops keys create --org %s --scopes '*'\n", name, shellQuote(name))
	return nil
}

func orgsList(ctx context.Context, args []string, stdout, _ io.Writer) error {
	fs := newFlagSet("orgs list [flags]", 0)
	dbURL := dbFlags(fs)
	if err := fs.parse(args, stdout); err != nil {
		return err
	}
	st, err := openStore(ctx, dbURL())
	if err != nil {
		return err
	}
	defer st.Close()
	orgs, err := st.Ent.Organization.Query().Order(ent.Asc(organization.FieldName)).All(ctx)
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tNAME\tACTIVE KEYS\tCREATED")
	for _, o := range orgs {
		n, err := st.Ent.APIKey.Query().Where(apikey.OrganizationID(o.ID), apikey.RevokedAtIsNil(),
			apikey.Or(apikey.ExpiresAtIsNil(), apikey.ExpiresAtGT(time.Now()))).Count(ctx)
		if err != nil {
			return err
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\n", o.ID, o.Name, n, o.CreatedAt.Format(time.RFC3339))
	}
	return tw.Flush()
}

// keysFlags declares what every keys subcommand takes.
func keysFlags(synopsis string) (fs *flagSet, dbURL func() string, org *string) {
	fs = newFlagSet(synopsis, 0)
	dbURL = dbFlags(fs)
	org = fs.String("org", "", "organization name (creativeops orgs list shows them)")
	return fs, dbURL, org
}

// openOrg opens the database and finds the organization a keys command
// names. A name that matches none is an error: creating organizations is
// orgs create's alone, so a typo never makes a new one.
func openOrg(ctx context.Context, cmd, dbURL, name string) (*storage.Store, *ent.Organization, error) {
	if name == "" {
		return nil, nil, usagef("%s needs --org NAME", cmd)
	}
	st, err := openStore(ctx, dbURL)
	if err != nil {
		return nil, nil, err
	}
	o, err := st.Ent.Organization.Query().Where(organization.Name(name)).Only(ctx)
	if ent.IsNotFound(err) {
		err = fmt.Errorf("no organization named %q: see them with creativeops orgs list, or create it with creativeops orgs create %s", name, shellQuote(name))
	}
	if err != nil {
		st.Close()
		return nil, nil, err
	}
	return st, o, nil
}

func keysCreate(ctx context.Context, args []string, stdout, _ io.Writer) error {
	fs, dbURL, org := keysFlags("keys create --org NAME --scopes LIST [--name LABEL] [flags]")
	scopeList := fs.String("scopes", "", `comma-separated scopes, or "*" for all`)
	name := fs.String("name", "cli", "label of the key")
	if err := fs.parse(args, stdout); err != nil {
		return err
	}
	if *scopeList == "" {
		return usagef("keys create needs --scopes (comma-separated, or \"*\" for all)")
	}
	scopes := strings.Split(*scopeList, ",")
	for i, sc := range scopes {
		scopes[i] = strings.TrimSpace(sc)
		if !auth.ValidScope(scopes[i]) {
			return usagef("--scopes: unknown scope %q (known: %s)", scopes[i], strings.Join(auth.AllScopes, ", "))
		}
	}
	st, o, err := openOrg(ctx, "keys create", dbURL(), *org)
	if err != nil {
		return err
	}
	defer st.Close()
	_, secret, err := (&auth.Store{Ent: st.Ent}).CreateKey(audit.CLI(ctx), auth.NewKeyParams{OrganizationID: o.ID, Name: *name, Scopes: scopes})
	if err != nil {
		return err
	}
	fmt.Fprintln(stdout, secret)
	return nil
}

func keysList(ctx context.Context, args []string, stdout, _ io.Writer) error {
	fs, dbURL, org := keysFlags("keys list --org NAME [flags]")
	if err := fs.parse(args, stdout); err != nil {
		return err
	}
	st, o, err := openOrg(ctx, "keys list", dbURL(), *org)
	if err != nil {
		return err
	}
	defer st.Close()
	ks, err := st.Ent.APIKey.Query().Where(apikey.OrganizationID(o.ID)).Order(ent.Asc(apikey.FieldID)).All(ctx)
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tNAME\tPREFIX\tSCOPES\tCREATED\tSTATE")
	for _, k := range ks {
		state := "active"
		switch {
		case k.RevokedAt != nil:
			state = "revoked"
		case k.ExpiresAt != nil && k.ExpiresAt.Before(time.Now()):
			state = "expired"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s…\t%s\t%s\t%s\n", k.ID, k.Name, k.Prefix, strings.Join(k.Scopes, ","), k.CreatedAt.Format(time.RFC3339), state)
	}
	return tw.Flush()
}

func keysRevoke(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs, dbURL, org := keysFlags("keys revoke --org NAME --id KEY_ID [flags]")
	id := fs.String("id", "", "id of the key to revoke (creativeops keys list shows them)")
	if err := fs.parse(args, stdout); err != nil {
		return err
	}
	if *id == "" {
		return usagef("keys revoke needs --id KEY_ID")
	}
	st, o, err := openOrg(ctx, "keys revoke", dbURL(), *org)
	if err != nil {
		return err
	}
	defer st.Close()
	if err := (&auth.Store{Ent: st.Ent}).RevokeKey(audit.CLI(ctx), nil, o.ID, *id); errors.Is(err, auth.ErrNoSuchKey) {
		return fmt.Errorf("no active key %s in organization %q", *id, *org)
	} else if err != nil {
		return err
	}
	fmt.Fprintf(stderr, "revoked %s\n", *id)
	return nil
}

// shellQuote quotes a name for a command line an operator copies.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_.@", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// verify checks a certificate bundle (the JSON of
// GET /v1/ip/certificates/{id}) without contacting the service.
func verify(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("verify --bundle FILE [--file WORK] [--root PEM --log-key KEY] [--tsa-ca PEM]... [--witness-key VKEY ... [--min-witnesses N]]", 0)
	bundlePath := fs.String("bundle", "", "certificate bundle JSON file")
	workPath := fs.String("file", "", "the work itself, to check its SHA-256 against the record")
	rootPath := fs.String("root", "", "expected TSA root certificate (PEM file), e.g. from GET /v1/ip/keys")
	logKey := fs.String("log-key", "", "expected log verifier key, e.g. from GET /v1/ip/keys")
	witnesses := witnessVerifyFlags(fs)
	fs.String("monitor", "", "instead of a bundle, follow the log at this base URL: see verify --monitor URL -h")
	tsaCAs := tsaCAFlag(fs)
	if err := fs.parse(args, stdout); err != nil {
		return err
	}
	if *bundlePath == "" {
		return usagef("verify needs --bundle FILE")
	}
	data, err := os.ReadFile(*bundlePath)
	if err != nil {
		return err
	}
	var cert creativeopsv1.Certificate
	if err := (protojson.UnmarshalOptions{DiscardUnknown: true}).Unmarshal(data, &cert); err != nil {
		return fmt.Errorf("%s is not a certificate bundle: %w", *bundlePath, err)
	}
	var work []byte
	if *workPath != "" {
		if work, err = os.ReadFile(*workPath); err != nil {
			return err
		}
	}
	bundle := wire.Bundle(&cert)
	var report ipreg.Report
	if *rootPath != "" || *logKey != "" {
		if *rootPath == "" || *logKey == "" {
			return usagef("pin both --root and --log-key, or neither")
		}
		root, err := os.ReadFile(*rootPath)
		if err != nil {
			return err
		}
		report, err = ipreg.VerifyPinned(bundle, work, ipreg.TrustAnchors{TSARootPEM: string(root), LogVerifierKey: strings.TrimSpace(*logKey)})
		_ = err // the report says what failed
	} else {
		report, _ = ipreg.Verify(bundle, work)
	}
	if err := witnesses.check(fs, &report, bundle); err != nil {
		return err
	}
	if report, err = withExternalTimestamps(report, bundle, *tsaCAs); err != nil {
		return err
	}
	for _, c := range report.Checks {
		mark := "ok  "
		switch {
		case c.Skipped:
			mark = "skip"
		case !c.OK:
			mark = "FAIL"
		}
		fmt.Fprintf(stdout, "%s  %-22s %s\n", mark, c.Name, c.Detail)
	}
	if !report.OK {
		return fmt.Errorf("certificate %s does NOT verify: %s", cert.GetCertificateId(), strings.Join(report.Failed(), ", "))
	}
	fmt.Fprintf(stdout, "certificate %s verifies: %q (%s) existed at %s\n", cert.GetCertificateId(), cert.GetTitle(), cert.GetContentHash(), cert.GetTimestamp().AsTime().Format(time.RFC3339))
	return nil
}
