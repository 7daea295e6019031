// Package storage opens the database behind the service: embedded SQLite by
// default, PostgreSQL for several replicas. ent and River share one *sql.DB
// so a state change and the background job it causes commit together.
package storage

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"entgo.io/ent/dialect"
	entsql "entgo.io/ent/dialect/sql"
	"github.com/riverqueue/river/riverdriver"
	"github.com/riverqueue/river/riverdriver/riverdatabasesql"
	"github.com/riverqueue/river/riverdriver/riversqlite"
	"github.com/riverqueue/river/rivermigrate"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"
	"go.opentelemetry.io/otel/trace"
	"modernc.org/sqlite"

	"github.com/creativeops/creativeops/ent"
	"github.com/creativeops/creativeops/ent/migrate"
)

// IdleConns is how many of a PostgreSQL pool of maxConns connections
// database/sql keeps idle between statements: half, at least one.
func IdleConns(maxConns int32) int { return max(1, int(maxConns)/2) }

// BackgroundConns is the size of a replica's second PostgreSQL pool, the
// one background work uses (Store.Background): River's job workers (their
// LISTEN connection, fetches, completions, maintenance) and the jobs they
// run (asynchronous engine runs, webhook fan-outs and deliveries).
// Requests never wait for these connections, nor background work for the
// requests' ones. When they shared one pool, a burst of requests queued
// for connections ahead of the workers, whose jobs need several statements
// each: asynchronous runs waited seconds to start, and their clients,
// polling meanwhile, made the burst worse.
const BackgroundConns = 8

// riverReservedConns of the background pool are left to River itself
// (its LISTEN connection and a fetch) by the background jobs' database/sql.
const riverReservedConns = 2

// DefaultMaxConns is the PostgreSQL pool size of one replica unless the
// database URL's pool_max_conns says otherwise.
const DefaultMaxConns = 16

// Store is an open database.
type Store struct {
	DB  *sql.DB
	Ent *ent.Client
	// Read serves queries that need no transaction. On SQLite it is a
	// separate pool of read-only connections, so reads run in parallel
	// beside the single writer (WAL); on PostgreSQL it is Ent.
	Read   *ent.Client
	readDB *sql.DB
	// group batches SQLite's write transactions (nil on PostgreSQL).
	group *groupCommitter
	// checkpoints is the connection SQLite's WAL checkpoints run on.
	checkpoints *sql.DB
	Dialect     string
	// River is the queue driver over the same pool.
	River riverdriver.Driver[*sql.Tx]
	// Pool is the PostgreSQL connection pool behind DB (nil on SQLite).
	Pool *pgxpool.Pool
	// Background is the store background work uses: on PostgreSQL the
	// same database through a pool of its own, of BackgroundConns
	// connections, whose Pool River's job workers use through River's pgx
	// driver (which can LISTEN for inserted jobs instead of polling); on
	// SQLite the store itself.
	Background *Store
	// sqlitePath is the database file (empty on PostgreSQL).
	sqlitePath string
	// Created reports that Open made a new, empty SQLite database file.
	Created bool
	// log is where Migrate reports what it could not do (Logger).
	log *slog.Logger
}

// Path is the SQLite database file, empty on PostgreSQL.
func (s *Store) Path() string { return s.sqlitePath }

// prepareSQLiteFile applies o's creation policy to the SQLite file at path
// and reports whether SQLite will create it.
func prepareSQLiteFile(path, query string, o openOptions) (bool, error) {
	if path == ":memory:" || strings.Contains(query, "mode=memory") {
		return false, nil
	}
	if _, err := os.Stat(path); err == nil {
		return false, nil
	} else if !errors.Is(err, fs.ErrNotExist) {
		return false, fmt.Errorf("database %s: %w", path, err)
	}
	dir := filepath.Dir(path)
	switch o.create {
	case createNever:
		return false, fmt.Errorf("database %s does not exist: check --data-dir or --database-url (creativeops serve or creativeops migrate creates a new one)", path)
	case createWithin:
		if _, err := os.Stat(dir); err == nil {
			return true, nil
		}
		if !within(o.createDir, dir) {
			return false, fmt.Errorf("database %s: directory %s does not exist (only directories inside --data-dir %s are created): check --database-url", path, dir, o.createDir)
		}
	}
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return false, fmt.Errorf("create database directory: %w", err)
	}
	return true, nil
}

// RemoveSQLiteFiles removes a SQLite database file Open created, with
// its write-ahead log and lock files, once its store is closed.
func RemoveSQLiteFiles(path string) {
	for _, suffix := range []string{"", "-wal", "-shm", "-journal", "-migrate.lock"} {
		_ = os.Remove(path + suffix)
	}
}

// within reports whether path is dir or inside it.
func within(dir, path string) bool {
	if dir == "" {
		return false
	}
	d, err1 := filepath.Abs(dir)
	p, err2 := filepath.Abs(path)
	if err1 != nil || err2 != nil {
		return false
	}
	rel, err := filepath.Rel(d, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// WithoutPoolParams returns a PostgreSQL URL without its pool_ parameters
// (pool_max_conns, pool_min_conns, ...), which are Open's pool's (pgxpool's):
// the URL for a single connection or for libpq's tools (psql, pg_dump),
// which refuse them. PostgreSQL, sent them by a plain connection, refuses
// them as unknown settings.
func WithoutPoolParams(rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil {
		return rawURL // the connection reports it
	}
	q := u.Query()
	for k := range q {
		if strings.HasPrefix(k, "pool_") {
			q.Del(k)
		}
	}
	u.RawQuery = q.Encode()
	return u.String()
}

// Option changes how Open connects.
type Option func(*openOptions)

type openOptions struct {
	warm   bool
	tracer trace.TracerProvider // nil: statements are not traced
	// wrap, when set, wraps the connector of each database/sql pool.
	wrap func(driver.Connector) driver.Connector
	// create is who may create a missing SQLite database (see Existing
	// and CreateWithin).
	create    createPolicy
	createDir string
	log       *slog.Logger // nil: slog.Default()
}

type createPolicy int

const (
	createAnywhere createPolicy = iota // Open's default, for tests and tools
	createNever
	createWithin
)

// Existing is Open's option for a command that administers a database
// (orgs, keys, audit...): a SQLite file that does not exist is an error
// naming it, not a new empty database (in whatever directory the command
// was run from) where the command would then find nothing.
func Existing() Option { return func(o *openOptions) { o.create = createNever } }

// CreateWithin is Open's option for serve and migrate, which may create a
// new SQLite database (Store.Created reports it, for the caller to say
// so), but create missing directories for it only inside dir, the data
// directory: a mistyped path elsewhere is an error naming it, not a new
// installation.
func CreateWithin(dir string) Option {
	return func(o *openOptions) { o.create, o.createDir = createWithin, dir }
}

// Warm is Open's option for a server: on PostgreSQL, both pools open all
// their connections at once and keep them open (pgxpool's MinConns), so a
// burst after a quiet spell finds them ready. Opened on demand instead,
// each new connection costs a backend's start and its first statements'
// preparation on both sides, in the middle of the burst: at the start of
// bench/isolation's attack the pools grew by some twenty connections at
// once and every request of both organizations stalled for up to a
// second. The URL's pool_min_conns, when given, still applies (to the
// background pool too, at most its size). Commands that run for a moment
// open without it, connecting as they go.
func Warm() Option { return func(o *openOptions) { o.warm = true } }

// Logger is Open's option giving the logger Migrate warns on (by default
// slog's default logger).
func Logger(l *slog.Logger) Option { return func(o *openOptions) { o.log = l } }

// Open connects to a database URL: sqlite://<path> (sqlite://./data/x.db,
// sqlite:///var/lib/x.db) or postgres://...
func Open(ctx context.Context, databaseURL string, opts ...Option) (*Store, error) {
	var o openOptions
	for _, opt := range opts {
		opt(&o)
	}
	s := &Store{log: o.log}
	if s.log == nil {
		s.log = slog.Default()
	}
	switch {
	case strings.HasPrefix(databaseURL, "sqlite://"):
		path := strings.TrimPrefix(databaseURL, "sqlite://")
		path, query, _ := strings.Cut(path, "?")
		if path == "" {
			return nil, errors.New("database url: sqlite:// needs a file path, e.g. sqlite://./data/creativeops.db")
		}
		created, err := prepareSQLiteFile(path, query, o)
		if err != nil {
			return nil, err
		}
		s.Created = created
		// WAL lets readers run beside the writer; IMMEDIATE transactions take
		// the write lock up front so two writers never deadlock on upgrade.
		// The writer checkpoints the WAL itself only as a fallback; see
		// walCheckpointer. secure_delete overwrites what a statement deletes
		// or replaces with zeros, so an erased creator's name is not left in
		// free space that a page-by-page backup (.backup) would copy
		// (docs/privacy.md).
		dsn := "file:" + path + "?_pragma=foreign_keys(1)&_pragma=journal_mode(WAL)&_pragma=busy_timeout(10000)&_pragma=synchronous(NORMAL)&_pragma=secure_delete(1)&_txlock=immediate" +
			fmt.Sprintf("&_pragma=wal_autocheckpoint(%d)", 4*restartFrames)
		if query != "" {
			dsn += "&" + query
		}
		db := openDB(stmtConnector{dsn: dsn, drv: &sqlite.Driver{}}, o, "sqlite")
		// SQLite runs one writer at a time; one connection turns lock
		// contention (SQLITE_BUSY) into orderly queueing, as River's SQLite
		// driver recommends.
		db.SetMaxOpenConns(1)
		db.SetConnMaxIdleTime(0)
		s.DB, s.Dialect, s.sqlitePath = db, dialect.SQLite, path
		readDB := openDB(stmtConnector{dsn: "file:" + path + "?_pragma=foreign_keys(1)&_pragma=busy_timeout(10000)&_pragma=query_only(1)", drv: &sqlite.Driver{}}, o, "sqlite")
		readDB.SetMaxOpenConns(4)
		readDB.SetMaxIdleConns(4)
		s.readDB = readDB
		s.River = riversqlite.New(db)
		ckptDB := sql.OpenDB(stmtConnector{dsn: "file:" + path + "?_pragma=busy_timeout(10000)&_pragma=synchronous(NORMAL)", drv: &sqlite.Driver{}})
		ckptDB.SetMaxOpenConns(1)
		s.checkpoints = ckptDB
	case strings.HasPrefix(databaseURL, "postgres://"), strings.HasPrefix(databaseURL, "postgresql://"):
		if _, err := url.Parse(databaseURL); err != nil {
			return nil, fmt.Errorf("database url: %w", err)
		}
		cfg, err := pgxpool.ParseConfig(databaseURL)
		if err != nil {
			return nil, fmt.Errorf("database url: %w", err)
		}
		// Replicas share the server's connection limit (100 by default):
		// 16 each leaves room for several replicas and for operators. The
		// URL's pool_max_conns sets another size (docs/deployment.md).
		if !strings.Contains(cfg.ConnString(), "pool_max_conns=") {
			cfg.MaxConns = DefaultMaxConns
		}
		bgMin := cfg.MinConns
		if !strings.Contains(cfg.ConnString(), "pool_min_conns=") && o.warm {
			cfg.MinConns, bgMin = cfg.MaxConns, BackgroundConns
		}
		cfg.MaxConnLifetime = 30 * time.Minute
		cfg.AfterConnect = func(_ context.Context, conn *pgx.Conn) error {
			encodePQArrays(conn.TypeMap())
			return nil
		}
		pool, err := pgxpool.NewWithConfig(ctx, cfg)
		if err != nil {
			return nil, fmt.Errorf("connect to database: %w", err)
		}
		bcfg := cfg.Copy()
		bcfg.MaxConns, bcfg.MinConns = BackgroundConns, min(bgMin, BackgroundConns)
		bgPool, err := pgxpool.NewWithConfig(ctx, bcfg)
		if err != nil {
			pool.Close()
			return nil, fmt.Errorf("connect to database: %w", err)
		}
		// Requests wait for connections in the pool, in turn: database/sql
		// keeps half of them idle between statements.
		db := sqlOverPool(pool, 0, IdleConns(cfg.MaxConns), o)
		s.DB, s.Dialect, s.Pool = db, dialect.Postgres, pool
		s.River = riverdatabasesql.New(db)
		// Background jobs may use all but riverReservedConns, so River's
		// workers always find a connection.
		bgDB := sqlOverPool(bgPool, BackgroundConns-riverReservedConns, BackgroundConns-riverReservedConns, o)
		bgEnt := ent.NewClient(ent.Driver(entsql.OpenDB(dialect.Postgres, bgDB)))
		s.Background = &Store{DB: bgDB, Ent: bgEnt, Read: bgEnt, Dialect: dialect.Postgres, Pool: bgPool}
	default:
		return nil, fmt.Errorf("database url %q: want sqlite://<path> or postgres://...", databaseURL)
	}
	pingCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := s.DB.PingContext(pingCtx); err != nil {
		if s.checkpoints != nil {
			s.checkpoints.Close()
			s.readDB.Close()
		}
		s.DB.Close()
		if s.Pool != nil {
			s.Pool.Close()
			s.Background.Close()
		}
		if s.Dialect == dialect.SQLite {
			return nil, sqliteOpenError(strings.TrimPrefix(databaseURL, "sqlite://"), err)
		}
		return nil, fmt.Errorf("connect to database: %w", err)
	}
	s.Ent = ent.NewClient(ent.Driver(entsql.OpenDB(s.Dialect, s.DB)))
	s.Read = s.Ent
	if s.readDB != nil {
		s.Read = ent.NewClient(ent.Driver(entsql.OpenDB(s.Dialect, s.readDB)))
	}
	if s.Dialect == dialect.SQLite {
		s.group = newGroupCommitter(s.DB, s.Dialect, startCheckpointer(s.checkpoints))
	}
	if s.Background == nil {
		s.Background = s
	}
	return s, nil
}

// sqlOverPool is database/sql over a pgx pool: it may open at most maxOpen
// of the pool's connections (0: no limit but the pool's) and keeps up to
// maxIdle of them between statements. (OpenDBFromPool keeps none idle, so
// every statement outside a transaction acquired a pool connection and
// wrapped it anew, an allocation-heavy driver connection and a release:
// ~3 % of the server's CPU under the request mix.) Callers beyond what is
// open wait in the pool, served first come, first served; database/sql's
// own queue (when maxOpen is set) serves them in random order.
func sqlOverPool(pool *pgxpool.Pool, maxOpen, maxIdle int, o openOptions) *sql.DB {
	db := openDB(stdlib.GetPoolConnector(pool), o, "postgresql")
	db.SetMaxOpenConns(maxOpen)
	db.SetMaxIdleConns(maxIdle)
	// Connections idle in database/sql are out of the pool's sight: they
	// return to it after a minute unused, and at the pool's own lifetime,
	// when the pool closes the ones that reached it.
	db.SetConnMaxIdleTime(time.Minute)
	db.SetConnMaxLifetime(pool.Config().MaxConnLifetime)
	return db
}

// Migrate brings the schema up to date. It only adds: columns and indexes
// that a newer version no longer uses are left in place, so upgrades never
// drop data.
// Processes that start together take turns: each migrates under a lock (a
// session advisory lock on PostgreSQL, a lock file beside a SQLite
// database), so the second finds the schema made and adds nothing, instead
// of both creating the same tables and types at once.
func (s *Store) Migrate(ctx context.Context) error {
	// ent's schema migration writes to the generated package-level table
	// descriptors, so two migrations in one process (tests open many
	// stores) must not overlap, whatever database each one migrates.
	inProcessMigration.Lock()
	defer inProcessMigration.Unlock()
	var unlock func()
	var err error
	switch {
	case s.Pool != nil:
		unlock, err = s.advisoryLock(ctx, migrationLock)
	case s.sqlitePath != "":
		// Processes sharing the file (serve, and creativeops migrate or
		// keys beside it) take the same turns.
		unlock, err = lockFile(s.sqlitePath + "-migrate.lock")
	}
	if err != nil {
		return fmt.Errorf("migrate schema: %w", err)
	}
	if unlock != nil {
		defer unlock()
	}
	if err := s.Ent.Schema.Create(ctx, migrate.WithDropColumn(false), migrate.WithDropIndex(false)); err != nil {
		return fmt.Errorf("migrate schema: %w", err)
	}
	// Indexes no query uses any more, which only cost their rows' space
	// and their writes. Dropping one loses no data.
	for _, name := range unusedIndexes {
		if _, err := s.DB.ExecContext(ctx, "DROP INDEX IF EXISTS "+name); err != nil {
			return fmt.Errorf("migrate schema: drop index %s: %w", name, err)
		}
	}
	// A database from before the job_minutes rollup gets its finished
	// jobs counted in it, once.
	if _, err := s.backfillJobMinutes(ctx); err != nil {
		return fmt.Errorf("migrate schema: backfill job minutes: %w", err)
	}
	if err := s.migrateTitleIndex(ctx); err != nil {
		return err
	}
	m, err := rivermigrate.New(s.River, nil)
	if err != nil {
		return fmt.Errorf("migrate queue: %w", err)
	}
	if _, err := m.Migrate(ctx, rivermigrate.DirectionUp, nil); err != nil {
		return fmt.Errorf("migrate queue: %w", err)
	}
	return nil
}

// sqliteOpenError names the file SQLite could not open and the likely
// cause: SQLite's own message ("unable to open database file") says
// neither.
func sqliteOpenError(path string, err error) error {
	path, _, _ = strings.Cut(path, "?")
	cause := "check that its directory is writable by this user"
	if fi, statErr := os.Stat(path); statErr == nil && fi.IsDir() {
		cause = "it is a directory; give the path of a file inside it"
	} else if statErr == nil {
		cause = "check that the file and its directory are writable by this user"
	}
	return fmt.Errorf("open SQLite database %s: %w (%s)", path, err, cause)
}

// migrationLock is the key of the PostgreSQL advisory lock held while
// migrating ("cops" in ASCII), shared by every version of the service.
const migrationLock int64 = 0x636f7073

// advisoryLock waits for a PostgreSQL session advisory lock and returns
// its release. It holds the lock on a connection of its own, outside the
// pool, so that the work done under it can use every pooled connection
// (a pool_max_conns=1 pool would otherwise deadlock on itself).
func (s *Store) advisoryLock(ctx context.Context, key int64) (unlock func(), err error) {
	conn, err := pgx.ConnectConfig(ctx, s.Pool.Config().ConnConfig.Copy())
	if err != nil {
		return nil, fmt.Errorf("connect to database: %w", err)
	}
	if _, err := conn.Exec(ctx, "SELECT pg_advisory_lock($1)", key); err != nil {
		conn.Close(context.WithoutCancel(ctx))
		return nil, fmt.Errorf("take the advisory lock %d: %w", key, err)
	}
	return func() {
		// Closing the session releases the lock even if the unlock fails.
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		defer cancel()
		_, _ = conn.Exec(ctx, "SELECT pg_advisory_unlock($1)", key)
		conn.Close(ctx)
	}, nil
}

// TxFunc is the work of one transaction. It must use the ctx it is given
// (not one from outside) for its statements.
type TxFunc func(ctx context.Context, tx *ent.Client, sqlTx *sql.Tx) error

// Tx runs fn in a transaction, giving it an ent client bound to the
// transaction and the raw *sql.Tx (for River's InsertTx). On SQLite the
// transaction may be shared with others queued at the same moment (see
// groupCommitter): fn's writes commit or roll back as a unit all the same,
// and fn's error undoes only fn's writes. There ctx is detached from
// cancellation once fn starts, so a caller that gives up cannot roll back
// its neighbours.
func (s *Store) Tx(ctx context.Context, fn TxFunc) error {
	if s.group != nil {
		return s.group.do(ctx, fn)
	}
	sqlTx, err := s.DB.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if err := fn(ctx, txClient(s.Dialect, sqlTx), sqlTx); err != nil {
		_ = sqlTx.Rollback()
		return err
	}
	return sqlTx.Commit()
}

// TxAsync queues fn to run as Tx runs it and returns without waiting for
// the transaction: wait reports its outcome as Tx would (re-raising fn's
// panic). Transactions that one goroutine queues run in the order it
// queued them, so it can queue work that builds on work not yet
// committed; the later one must check that what it built on did commit.
// Where writes are not grouped (PostgreSQL) there is no queue: fn has run
// and committed or failed by the time TxAsync returns.
func (s *Store) TxAsync(ctx context.Context, fn TxFunc) (wait func() error) {
	if s.group == nil {
		err := s.Tx(ctx, fn)
		return func() error { return err }
	}
	r, err := s.group.enqueue(ctx, fn)
	if err != nil {
		return func() error { return err }
	}
	return r.wait
}

// txClient is an ent client bound to an open transaction.
func txClient(dialect string, sqlTx *sql.Tx) *ent.Client {
	return ent.NewClient(ent.Driver(txDriver{entsql.NewDriver(dialect, entsql.Conn{ExecQuerier: sqlTx})}))
}

// txDriver runs everything on an open transaction; ent operations that
// would start their own (UpdateOne) join it instead.
type txDriver struct{ *entsql.Driver }

func (d txDriver) Tx(context.Context) (dialect.Tx, error) { return dialect.NopTx(d.Driver), nil }

// ReadDB is the pool behind Read: SQLite's read-only connections, or DB.
// Its Stats show how often reads waited for a connection.
func (s *Store) ReadDB() *sql.DB {
	if s.readDB != nil {
		return s.readDB
	}
	return s.DB
}

// Ping checks the database is reachable (readiness).
func (s *Store) Ping(ctx context.Context) error { return s.DB.PingContext(ctx) }

// Close closes the pools.
func (s *Store) Close() error {
	if s.group != nil {
		s.group.close()
	}
	if s.readDB != nil {
		s.readDB.Close()
	}
	err := s.DB.Close()
	if s.Pool != nil {
		s.Pool.Close()
	}
	if s.Background != nil && s.Background != s {
		err = errors.Join(err, s.Background.Close())
	}
	return err
}

// unusedIndexes are the indexes earlier versions made that no query uses:
// planmilestone_state_date served a scan of pending milestones across
// plans, which plans.next_check replaced (every milestone query now names
// its plan, which the unique (plan_id, key) index serves); it took ~30
// bytes a milestone. job_organization_id_created_at_status_started_at_completed_at
// served the usage report's job counts and mean duration, read from every
// job in the window; finished jobs are now counted in job_minutes, and
// the active ones through job_organization_id_status_created_at_key_id.
// plan_feed_token_hash held every plan, a million of them with an empty
// hash; plan_feed_token_hash_set holds the plans that have a feed.
var unusedIndexes = []string{"planmilestone_state_date", "job_organization_id_created_at_status_started_at_completed_at", "plan_feed_token_hash"}

// inProcessMigration serialises the migrations of one process (see Migrate).
var inProcessMigration sync.Mutex

// QueueDepth counts the background queue's jobs waiting or running, by
// queue and state. Finished jobs are left out, so the index on state keeps
// it cheap; River's table is the same on both databases.
func (s *Store) QueueDepth(ctx context.Context) (map[[2]string]int64, error) {
	rows, err := s.DB.QueryContext(ctx, `SELECT queue, state, count(*) FROM river_job
		WHERE state IN ('available', 'scheduled', 'retryable', 'running') GROUP BY queue, state`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[[2]string]int64{}
	for rows.Next() {
		var queue, state string
		var n int64
		if err := rows.Scan(&queue, &state, &n); err != nil {
			return nil, err
		}
		out[[2]string{queue, state}] = n
	}
	return out, rows.Err()
}
