package clustertest

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"time"
)

// Config describes a cluster to start.
type Config struct {
	// DB is "sqlite" or "postgres".
	DB string
	// PostgresURL is the server to create a fresh database on (DB postgres).
	PostgresURL string
	Replicas    int
	// Dir holds data directories, logs and the SQLite file.
	Dir      string
	Launcher *Launcher
	Serve    ServeArgs
	// Proxy puts the round-robin proxy in front even of a single replica
	// (several replicas always get one).
	Proxy bool
}

// Cluster is a running set of replicas on one database.
type Cluster struct {
	Replicas []*Replica
	// Proxy is nil when clients talk to the only replica directly.
	Proxy *Proxy
	// Addr is where clients connect: the proxy or the single replica.
	Addr        string
	Key         string
	DatabaseURL string
	dropDB      func() error
}

// StartCluster creates the database, bootstraps a load-test key, and starts
// the replicas (and the proxy).
func StartCluster(ctx context.Context, cfg Config) (c *Cluster, err error) {
	if cfg.Replicas < 1 {
		cfg.Replicas = 1
	}
	c = &Cluster{}
	defer func() {
		if err != nil {
			_ = c.Close()
			c = nil
		}
	}()
	switch cfg.DB {
	case "sqlite":
		if cfg.Replicas > 1 {
			return c, errors.New("several replicas need PostgreSQL")
		}
		c.DatabaseURL = "sqlite://" + filepath.Join(cfg.Dir, "creativeops.db")
	case "postgres":
		base := cfg.PostgresURL
		if base == "" {
			base = DefaultPostgresURL
		}
		c.DatabaseURL, c.dropDB, err = CreatePostgresDatabase(ctx, base, "bench")
		if err != nil {
			return c, err
		}
	default:
		return c, fmt.Errorf("unknown database %q (sqlite or postgres)", cfg.DB)
	}
	if c.Key, err = Bootstrap(ctx, c.DatabaseURL, "load"); err != nil {
		return c, fmt.Errorf("bootstrap: %w", err)
	}
	serve := cfg.Serve
	serve.DatabaseURL = c.DatabaseURL
	for i := 1; i <= cfg.Replicas; i++ {
		r, err := cfg.Launcher.NewReplica(fmt.Sprintf("r%d", i), cfg.Dir, serve)
		if err != nil {
			return c, err
		}
		if err := r.Start(ctx); err != nil {
			return c, err
		}
		c.Replicas = append(c.Replicas, r)
	}
	c.Addr = c.Replicas[0].Addr
	if cfg.Replicas > 1 || cfg.Proxy {
		if c.Proxy, err = StartProxy(c.Replicas); err != nil {
			return c, err
		}
		c.Addr = c.Proxy.Addr
	}
	return c, nil
}

// Close stops the replicas gracefully, then the proxy, and drops the
// PostgreSQL database.
func (c *Cluster) Close() error {
	var errs []error
	for _, r := range c.Replicas {
		if err := r.Terminate(30 * time.Second); err != nil {
			errs = append(errs, err)
		}
	}
	if c.Proxy != nil {
		errs = append(errs, c.Proxy.Close())
	}
	if c.dropDB != nil {
		errs = append(errs, c.dropDB())
	}
	return errors.Join(errs...)
}

// Replica returns the replica called name, or nil.
func (c *Cluster) Replica(name string) *Replica {
	for _, r := range c.Replicas {
		if r.Name == name {
			return r
		}
	}
	return nil
}

// Pause stops every replica with SIGSTOP.
func (c *Cluster) Pause() error {
	var errs []error
	for _, r := range c.Replicas {
		errs = append(errs, r.Pause())
	}
	return errors.Join(errs...)
}

// Resume continues paused replicas and waits until each answers /readyz
// and the proxy's health check has seen it.
func (c *Cluster) Resume(ctx context.Context) error {
	for _, r := range c.Replicas {
		if err := r.Resume(); err != nil {
			return err
		}
	}
	for _, r := range c.Replicas {
		r.mu.Lock()
		done := r.done
		r.mu.Unlock()
		if err := r.waitReady(ctx, done, 30*time.Second); err != nil {
			return err
		}
	}
	if c.Proxy != nil {
		for deadline := time.Now().Add(10 * time.Second); !c.Proxy.AllUp(); time.Sleep(50 * time.Millisecond) {
			if time.Now().After(deadline) {
				return errors.New("proxy does not see every replica healthy after resume")
			}
		}
	}
	return nil
}
