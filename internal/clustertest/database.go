package clustertest

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // registers the "pgx" driver

	"github.com/creativeops/creativeops/auth"
	"github.com/creativeops/creativeops/storage"
)

// PostgresEnv names the variable holding the PostgreSQL URL that tests (and
// the benchmark's default) create their databases from.
const PostgresEnv = "CREATIVEOPS_TEST_POSTGRES_URL"

// DefaultPostgresURL is the machine's local server.
const DefaultPostgresURL = "postgres://postgres@127.0.0.1:5432/test?sslmode=disable"

// CreatePostgresDatabase creates an empty database named prefix_<unix nanos>
// on the server of base and returns its URL and a function dropping it.
func CreatePostgresDatabase(ctx context.Context, base, prefix string) (string, func() error, error) {
	u, err := url.Parse(base)
	if err != nil {
		return "", nil, fmt.Errorf("postgres url: %w", err)
	}
	admin, err := sql.Open("pgx", storage.WithoutPoolParams(base))
	if err != nil {
		return "", nil, err
	}
	name := fmt.Sprintf("%s_%d", prefix, time.Now().UnixNano())
	if _, err := admin.ExecContext(ctx, "CREATE DATABASE "+name); err != nil {
		admin.Close()
		return "", nil, fmt.Errorf("create database %s: %w", name, err)
	}
	drop := func() error {
		defer admin.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_, err := admin.ExecContext(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)")
		return err
	}
	u.Path = "/" + name
	return u.String(), drop, nil
}

// Bootstrap migrates the database and creates organization org with an
// all-scopes API key whose rate limit is high enough for load tests (the
// default of 100 requests/s per key would make a benchmark measure the
// limiter). It returns the key.
func Bootstrap(ctx context.Context, databaseURL, org string) (string, error) {
	st, err := storage.Open(ctx, databaseURL)
	if err != nil {
		return "", err
	}
	defer st.Close()
	if err := st.Migrate(ctx); err != nil {
		return "", err
	}
	ks := &auth.Store{Ent: st.Ent}
	o, err := ks.EnsureOrganization(ctx, org)
	if err != nil {
		return "", err
	}
	_, key, err := ks.CreateKey(ctx, auth.NewKeyParams{
		OrganizationID: o.ID,
		Name:           "cluster-load",
		Scopes:         []string{"*"},
		RateLimit:      &auth.RateLimit{RequestsPerSecond: 1e6, Burst: 1_000_000},
	})
	return key, err
}
