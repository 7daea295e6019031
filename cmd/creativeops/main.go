// Command creativeops runs the creativeops service and its administration
// commands.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"google.golang.org/protobuf/encoding/protojson"

	"github.com/creativeops/creativeops/auth"
	"github.com/creativeops/creativeops/ent"
	"github.com/creativeops/creativeops/ent/apikey"
	"github.com/creativeops/creativeops/ent/organization"
	creativeopsv1 "github.com/creativeops/creativeops/gen/creativeops/v1"
	"github.com/creativeops/creativeops/ipreg"
	"github.com/creativeops/creativeops/server"
	"github.com/creativeops/creativeops/storage"
	"github.com/creativeops/creativeops/webhooks"
)

const usage = `creativeops — workflow engine, creator accounts, IP registry, webhooks and analytics.

Usage:
  creativeops serve   [flags]   run the service (REST and gRPC on one port)
  creativeops migrate [flags]   bring the database schema up to date
  creativeops keys create --org NAME --scopes LIST [--name LABEL]
  creativeops keys list   --org NAME
  creativeops keys revoke --org NAME --id KEY_ID
  creativeops ip rotate-keys    retire the IP registry's signing keys, start a new log
  creativeops verify --bundle FILE [--file WORK] [--root PEM --log-key KEY]
                                check an IP certificate offline

Every command but verify takes --database-url (env CREATIVEOPS_DATABASE_URL).
Run "creativeops COMMAND -h" for the flags of a command.
`

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(os.Stderr, "creativeops:", err)
		}
		os.Exit(2)
	}
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return flag.ErrHelp
	}
	switch args[0] {
	case "serve":
		return serve(ctx, args[1:], stderr)
	case "migrate":
		return migrate(ctx, args[1:], stderr)
	case "keys":
		return keys(ctx, args[1:], stdout, stderr)
	case "verify":
		return verify(args[1:], stdout, stderr)
	case "ip":
		return ipCommand(ctx, args[1:], stdout, stderr)
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return nil
	}
	fmt.Fprint(stderr, usage)
	return fmt.Errorf("unknown command %q", args[0])
}

// flagSet makes a flag set whose flags default to CREATIVEOPS_<FLAG>
// environment variables.
type flagSet struct {
	*flag.FlagSet
}

func newFlagSet(name string, stderr io.Writer) *flagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	return &flagSet{fs}
}

func envName(flagName string) string {
	return "CREATIVEOPS_" + strings.ToUpper(strings.ReplaceAll(flagName, "-", "_"))
}

func (f *flagSet) str(name, def, help string) *string {
	if v, ok := os.LookupEnv(envName(name)); ok {
		def = v
	}
	return f.String(name, def, help+" (env "+envName(name)+")")
}

func (f *flagSet) boolean(name string, def bool, help string) *bool {
	if v, ok := os.LookupEnv(envName(name)); ok {
		def = v == "1" || strings.EqualFold(v, "true")
	}
	return f.Bool(name, def, help+" (env "+envName(name)+")")
}

func (f *flagSet) integer(name string, def int, help string) *int {
	if v, ok := os.LookupEnv(envName(name)); ok {
		if n, err := strconv.Atoi(v); err == nil {
			def = n
		}
	}
	return f.Int(name, def, help+" (env "+envName(name)+")")
}

func (f *flagSet) duration(name string, def time.Duration, help string) *time.Duration {
	if v, ok := os.LookupEnv(envName(name)); ok {
		if d, err := time.ParseDuration(v); err == nil {
			def = d
		}
	}
	return f.Duration(name, def, help+" (env "+envName(name)+")")
}

const defaultDatabaseURL = "sqlite://./data/creativeops.db"

func (f *flagSet) databaseURL() *string {
	return f.str("database-url", defaultDatabaseURL, "database: sqlite://<path> or postgres://...")
}

// defaultGCPercent is the server's GOGC unless the environment sets one.
// Its live heap is small (tens of MiB) and most of what a request
// allocates dies with it, so collecting at 5x the live heap rather than 2x
// costs little memory and gives back most of the CPU the collector took,
// which on a 2-core machine also keeps one of the two cores from being
// lent to marking during every cycle (docs/deployment.md).
const defaultGCPercent = 400

func serve(ctx context.Context, args []string, stderr io.Writer) error {
	fs := newFlagSet("serve", stderr)
	httpAddr := fs.str("http-addr", ":8080", "address serving REST and gRPC")
	grpcAddr := fs.str("grpc-addr", "", "optional address serving gRPC only")
	debugAddr := fs.str("debug-addr", "", "optional address serving the Go profiler at /debug/pprof/ (keep it private, e.g. 127.0.0.1:6060)")
	dbURL := fs.databaseURL()
	dataDir := fs.str("data-dir", "./data", "directory for local state")
	insecure := fs.boolean("allow-insecure-webhooks", false, "allow http:// and private-address webhook URLs (development only)")
	logFormat := fs.str("log-format", "json", "log format: json or text")
	workers := fs.integer("workers", 8, "concurrent asynchronous engine runs")
	jobTimeout := fs.duration("job-timeout", time.Minute, "time limit of one attempt of an asynchronous run; a run whose server died is retried after twice this")
	webhookSchedule := fs.str("webhook-retry-schedule", webhooks.DefaultSchedule.String(), "delays before each webhook delivery attempt, comma-separated Go durations (the first is before the first attempt)")
	webhookWorkers := fs.integer("webhook-workers", 20, "concurrent webhook delivery attempts")
	rateLimit := fs.integer("rate-limit", server.DefaultRateLimitRPS, "default requests per second per API key (a key's own limit overrides it)")
	rateBurst := fs.integer("rate-limit-burst", server.DefaultRateLimitBurst, "default burst (token bucket size) per API key")
	redisURL := fs.str("redis-url", "", "Redis shared by the replicas for rate limits, e.g. redis://host:6379/0 (empty: each replica limits alone)")
	recordUsage := fs.boolean("analytics", true, "record per-request usage analytics (GET /v1/analytics/usage)")
	flushEvery := fs.duration("analytics-flush-interval", 5*time.Second, "how often usage aggregates are written to the database")
	retention := fs.duration("analytics-retention", 90*24*time.Hour, "how long per-minute usage is kept (0 keeps it forever)")
	def := server.DefaultConfig()
	readHeaderTimeout := fs.duration("read-header-timeout", def.ReadHeaderTimeout, "time a new connection has to send its first request's headers")
	readTimeout := fs.duration("read-timeout", def.ReadTimeout, "time to receive one whole request, body included (per stream on HTTP/2 and gRPC)")
	writeTimeout := fs.duration("write-timeout", def.WriteTimeout, "time from a request's headers to the end of its response")
	idleTimeout := fs.duration("idle-timeout", def.IdleTimeout, "how long a connection with no request in flight stays open")
	if err := fs.Parse(args); err != nil {
		return err
	}
	for _, t := range []struct {
		flag string
		d    time.Duration
	}{{"--read-header-timeout", *readHeaderTimeout}, {"--read-timeout", *readTimeout},
		{"--write-timeout", *writeTimeout}, {"--idle-timeout", *idleTimeout}} {
		if t.d <= 0 {
			return fmt.Errorf("%s must be positive, not %s", t.flag, t.d)
		}
	}
	if *retention < 0 {
		return errors.New("--analytics-retention must not be negative")
	}
	if *rateLimit <= 0 || *rateBurst <= 0 {
		return errors.New("--rate-limit and --rate-limit-burst must be positive")
	}
	schedule, err := webhooks.ParseSchedule(*webhookSchedule)
	if err != nil {
		return fmt.Errorf("--webhook-retry-schedule: %w", err)
	}
	var handler slog.Handler
	switch *logFormat {
	case "json":
		handler = slog.NewJSONHandler(stderr, nil)
	case "text":
		handler = slog.NewTextHandler(stderr, nil)
	default:
		return fmt.Errorf("--log-format must be json or text, not %q", *logFormat)
	}
	log := slog.New(handler)
	slog.SetDefault(log)
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(defaultGCPercent)
	}
	if err := os.MkdirAll(*dataDir, 0o750); err != nil {
		return err
	}
	return server.Run(ctx, server.Config{
		HTTPAddr:              *httpAddr,
		GRPCAddr:              *grpcAddr,
		DebugAddr:             *debugAddr,
		DatabaseURL:           *dbURL,
		DataDir:               *dataDir,
		AllowInsecureWebhooks: *insecure,
		Logger:                log,
		Console:               stderr,
		Workers:               *workers,
		JobTimeout:            *jobTimeout,
		RescueAfter:           2 * *jobTimeout,
		WebhookSchedule:       schedule,
		WebhookWorkers:        *webhookWorkers,

		RateLimit:              auth.RateLimit{RequestsPerSecond: float64(*rateLimit), Burst: *rateBurst},
		RedisURL:               *redisURL,
		DisableAnalytics:       !*recordUsage,
		AnalyticsFlushInterval: *flushEvery,
		AnalyticsRetention:     *retention,
		ReadHeaderTimeout:      *readHeaderTimeout,
		ReadTimeout:            *readTimeout,
		WriteTimeout:           *writeTimeout,
		IdleTimeout:            *idleTimeout,
	})
}

func openStore(ctx context.Context, url string) (*storage.Store, error) {
	st, err := storage.Open(ctx, url)
	if err != nil {
		return nil, err
	}
	if err := st.Migrate(ctx); err != nil {
		st.Close()
		return nil, err
	}
	return st, nil
}

func migrate(ctx context.Context, args []string, stderr io.Writer) error {
	fs := newFlagSet("migrate", stderr)
	dbURL := fs.databaseURL()
	if err := fs.Parse(args); err != nil {
		return err
	}
	st, err := openStore(ctx, *dbURL)
	if err != nil {
		return err
	}
	defer st.Close()
	fmt.Fprintln(stderr, "database schema is up to date")
	return nil
}

func keys(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return errors.New("keys needs a subcommand: create, list or revoke")
	}
	fs := newFlagSet("keys "+args[0], stderr)
	dbURL := fs.databaseURL()
	org := fs.String("org", "", "organization name")
	switch args[0] {
	case "create":
		scopeList := fs.String("scopes", "", `comma-separated scopes, or "*" for all`)
		name := fs.String("name", "cli", "label of the key")
		if err := fs.Parse(args[1:]); err != nil {
			return err
		}
		if *org == "" || *scopeList == "" {
			return errors.New("keys create needs --org and --scopes")
		}
		scopes := strings.Split(*scopeList, ",")
		for i, sc := range scopes {
			scopes[i] = strings.TrimSpace(sc)
			if !auth.ValidScope(scopes[i]) {
				return fmt.Errorf("unknown scope %q (known: %s)", scopes[i], strings.Join(auth.AllScopes, ", "))
			}
		}
		st, err := openStore(ctx, *dbURL)
		if err != nil {
			return err
		}
		defer st.Close()
		ks := &auth.Store{Ent: st.Ent}
		o, err := ks.EnsureOrganization(ctx, *org)
		if err != nil {
			return err
		}
		_, secret, err := ks.CreateKey(ctx, auth.NewKeyParams{OrganizationID: o.ID, Name: *name, Scopes: scopes})
		if err != nil {
			return err
		}
		fmt.Fprintln(stdout, secret)
		return nil
	case "list", "revoke":
		id := fs.String("id", "", "key id (revoke)")
		if err := fs.Parse(args[1:]); err != nil {
			return err
		}
		if *org == "" {
			return fmt.Errorf("keys %s needs --org", args[0])
		}
		st, err := openStore(ctx, *dbURL)
		if err != nil {
			return err
		}
		defer st.Close()
		o, err := st.Ent.Organization.Query().Where(organization.Name(*org)).Only(ctx)
		if ent.IsNotFound(err) {
			return fmt.Errorf("no organization named %q", *org)
		}
		if err != nil {
			return err
		}
		if args[0] == "revoke" {
			if *id == "" {
				return errors.New("keys revoke needs --id")
			}
			if err := (&auth.Store{Ent: st.Ent}).RevokeKey(ctx, o.ID, *id); ent.IsNotFound(err) {
				return fmt.Errorf("no active key %s in organization %q", *id, *org)
			} else if err != nil {
				return err
			}
			fmt.Fprintf(stderr, "revoked %s\n", *id)
			return nil
		}
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
	return fmt.Errorf("unknown keys subcommand %q", args[0])
}

// verify checks a certificate bundle (the JSON of
// GET /v1/ip/certificates/{id}) without contacting the service.
func verify(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("verify", stderr)
	bundlePath := fs.String("bundle", "", "certificate bundle JSON file")
	workPath := fs.String("file", "", "the work itself, to check its SHA-256 against the record")
	rootPath := fs.String("root", "", "expected TSA root certificate (PEM file), e.g. from GET /v1/ip/keys")
	logKey := fs.String("log-key", "", "expected log verifier key, e.g. from GET /v1/ip/keys")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *bundlePath == "" {
		return errors.New("verify needs --bundle FILE")
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
	bundle := ipreg.BundleFromProto(&cert)
	var report ipreg.Report
	if *rootPath != "" || *logKey != "" {
		if *rootPath == "" || *logKey == "" {
			return errors.New("pin both --root and --log-key, or neither")
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

func ipCommand(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] != "rotate-keys" {
		return errors.New("ip needs a subcommand: rotate-keys")
	}
	fs := newFlagSet("ip rotate-keys", stderr)
	dbURL := fs.databaseURL()
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	st, err := openStore(ctx, *dbURL)
	if err != nil {
		return err
	}
	defer st.Close()
	k, err := ipreg.RotateKeys(ctx, st)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "new log origin %s\nverifier key %s\n", k.Origin(), k.VerifierKey())
	fmt.Fprintln(stderr, "restart every server to sign with the new keys; the old ones stay published")
	return nil
}
