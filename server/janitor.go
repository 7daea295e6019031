package server

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/creativeops/creativeops/analytics"
	"github.com/creativeops/creativeops/audit"
	"github.com/creativeops/creativeops/auth"
	"github.com/creativeops/creativeops/events"
	"github.com/creativeops/creativeops/idempotency"
	"github.com/creativeops/creativeops/oauth"
	"github.com/creativeops/creativeops/storage"
)

// cleanupEvery is how often expired idempotency keys and usage past its
// retention are deleted. Every replica does it; the deletes are
// idempotent. An expired key still in the table is ignored by requests.
const cleanupEvery = 10 * time.Minute

// janitor deletes what has outlived its use: expired idempotency keys,
// expired dashboard sessions, usage minutes past the analytics retention,
// audit events past the audit retention, events past the event retention,
// and OAuth token revocations and client assertions past their tokens'
// expiry.
type janitor struct {
	store       *storage.Store
	idempotency *idempotency.Store
	sessions    *auth.Store
	oauth       *oauth.Service
	retentions  retentions
	log         *slog.Logger
	stop, done  chan struct{}
}

// retentions are how long the janitor keeps each kind of record; 0 keeps
// it forever.
type retentions struct {
	usage, audit, events time.Duration
}

func newJanitor(store *storage.Store, idem *idempotency.Store, sessions *auth.Store, oa *oauth.Service, keep retentions, log *slog.Logger) *janitor {
	return &janitor{store: store, idempotency: idem, sessions: sessions, oauth: oa, retentions: keep, log: log}
}

func (j *janitor) Start(context.Context) error {
	j.stop, j.done = make(chan struct{}), make(chan struct{})
	go j.loop(cleanupEvery)
	return nil
}

func (j *janitor) Stop(context.Context) error {
	close(j.stop)
	<-j.done
	return nil
}

func (j *janitor) loop(interval time.Duration) {
	defer close(j.done)
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-j.stop:
			return
		case <-t.C:
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			if err := j.CleanUp(ctx); err != nil {
				j.log.Warn("clean-up failed", "error", err)
			}
			cancel()
		}
	}
}

// CleanUp deletes expired idempotency keys, expired dashboard sessions,
// usage aggregates older than the analytics retention, audit events older
// than the audit retention and events older than the event retention.
func (j *janitor) CleanUp(ctx context.Context) error {
	now := time.Now().UTC()
	keys, err := j.idempotency.DeleteExpired(ctx, now)
	if err != nil {
		return fmt.Errorf("delete expired idempotency keys: %w", err)
	}
	sessions, err := j.sessions.DeleteExpiredSessions(ctx, now)
	if err != nil {
		return fmt.Errorf("delete expired sessions: %w", err)
	}
	var minutes int
	if j.retentions.usage > 0 {
		if minutes, err = analytics.DeleteBefore(ctx, j.store, now.Add(-j.retentions.usage)); err != nil {
			return fmt.Errorf("delete usage past retention: %w", err)
		}
	}
	var audited int
	if j.retentions.audit > 0 {
		if audited, err = audit.DeleteBefore(ctx, j.store, now.Add(-j.retentions.audit)); err != nil {
			return fmt.Errorf("delete audit events past retention: %w", err)
		}
	}
	var expired int
	if j.retentions.events > 0 {
		if expired, err = events.DeleteBefore(ctx, j.store, now.Add(-j.retentions.events)); err != nil {
			return fmt.Errorf("delete events past retention: %w", err)
		}
	}
	oauthRows, err := j.oauth.PurgeExpired(ctx)
	if err != nil {
		return err
	}
	if keys > 0 || sessions > 0 || minutes > 0 || audited > 0 || expired > 0 || oauthRows > 0 {
		j.log.Debug("cleaned up", "idempotency_keys", keys, "sessions", sessions, "usage_rows", minutes, "audit_events", audited, "events", expired, "oauth_rows", oauthRows)
	}
	return nil
}
