// Package idempotency keeps the outcome of requests sent with an
// Idempotency-Key, so a retried request runs at most once per organization
// and key: the insert of an in-progress row decides, across replicas,
// which request runs; the others get its stored outcome, or wait.
package idempotency

import (
	"context"
	"fmt"
	"time"

	"google.golang.org/grpc/codes"

	"github.com/creativeops/creativeops/apierror"
	"github.com/creativeops/creativeops/ent"
	"github.com/creativeops/creativeops/ent/idempotencykey"
	"github.com/creativeops/creativeops/storage"
)

const (
	// TTL is how long a key's first outcome is kept.
	TTL = 24 * time.Hour
	// LockTimeout is when a request still marked in progress is assumed
	// lost with its replica, and a retry may run it again.
	LockTimeout = 5 * time.Minute
	// MaxKeyLen bounds the length of a key.
	MaxKeyLen = 255

	stateInProgress = "in_progress"
	stateDone       = "done"
)

// Outcome is what a finished request stored: its response (a serialized
// message, or a serialized status when Failed), HTTP status and the
// response headers a replay repeats.
type Outcome struct {
	Failed     bool
	Response   []byte
	HTTPStatus int
	Headers    map[string]string
}

// Begun says what to do with a request: run it (Run, holding the claim
// ID), or answer with a stored Outcome (Replay).
type Begun struct {
	Run    bool
	ID     int
	Replay *Outcome
}

// Store claims keys and stores outcomes.
type Store struct {
	store *storage.Store
}

// NewStore returns the idempotency store.
func NewStore(store *storage.Store) *Store { return &Store{store: store} }

// CheckKey returns what is wrong with a key, or "".
func CheckKey(key string) string {
	if key == "" {
		return "must not be empty"
	}
	if len(key) > MaxKeyLen {
		return fmt.Sprintf("must be at most %d characters", MaxKeyLen)
	}
	for i := 0; i < len(key); i++ {
		if key[i] < 0x20 || key[i] > 0x7e {
			return "must be printable ASCII"
		}
	}
	return ""
}

// Begin claims the key for a request with the given method and
// fingerprint, or finds the outcome of the request that claimed it first.
// A key used with another request is IDEMPOTENCY_KEY_MISMATCH; one whose
// request is still running is IDEMPOTENCY_REQUEST_IN_PROGRESS.
func (s *Store) Begin(ctx context.Context, orgID, key, method, fingerprint string) (Begun, error) {
	client := s.store.Ent
	for range 3 {
		now := time.Now().UTC().Truncate(time.Microsecond)
		row, err := client.IdempotencyKey.Create().
			SetOrganizationID(orgID).SetKey(key).SetMethod(method).SetFingerprint(fingerprint).
			SetState(stateInProgress).SetCreatedAt(now).SetLockedAt(now).SetExpiresAt(now.Add(TTL)).
			Save(ctx)
		if err == nil {
			return Begun{Run: true, ID: row.ID}, nil
		}
		if !ent.IsConstraintError(err) {
			return Begun{}, err
		}
		prev, err := client.IdempotencyKey.Query().
			Where(idempotencykey.OrganizationID(orgID), idempotencykey.Key(key)).Only(ctx)
		if ent.IsNotFound(err) {
			continue // dropped meanwhile (a failed first request): try again
		}
		if err != nil {
			return Begun{}, err
		}
		switch {
		case prev.ExpiresAt.Before(now):
			// Expired but not yet cleaned up: it no longer counts.
			if _, err := client.IdempotencyKey.Delete().Where(idempotencykey.ID(prev.ID), idempotencykey.ExpiresAtLT(now)).Exec(ctx); err != nil {
				return Begun{}, err
			}
			continue
		case prev.Fingerprint != fingerprint:
			e := apierror.New(codes.FailedPrecondition, "IDEMPOTENCY_KEY_MISMATCH",
				"this Idempotency-Key was used with a different request; use a new key for a new request")
			e.Metadata = map[string]string{"idempotency_key": key}
			return Begun{}, e
		case prev.State == stateDone:
			o := &Outcome{Failed: prev.Failed, HTTPStatus: prev.HTTPStatus, Headers: prev.Headers}
			if prev.Response != nil {
				o.Response = *prev.Response
			}
			return Begun{Replay: o}, nil
		case prev.LockedAt.Before(now.Add(-LockTimeout)):
			// The first request's replica died mid-way; this one takes over.
			n, err := client.IdempotencyKey.Update().
				Where(idempotencykey.ID(prev.ID), idempotencykey.State(stateInProgress), idempotencykey.LockedAtLT(now.Add(-LockTimeout))).
				SetLockedAt(now).Save(ctx)
			if err != nil {
				return Begun{}, err
			}
			if n == 1 {
				return Begun{Run: true, ID: prev.ID}, nil
			}
			continue
		}
		return Begun{}, errInProgress(key)
	}
	return Begun{}, errInProgress(key)
}

func errInProgress(key string) error {
	e := apierror.New(codes.Aborted, "IDEMPOTENCY_REQUEST_IN_PROGRESS",
		"a request with this Idempotency-Key is still in progress; retry once it has finished")
	e.Metadata = map[string]string{"idempotency_key": key, "retry_after_seconds": "1"}
	return e
}

// Finish stores the outcome of the request holding claim id.
func (s *Store) Finish(ctx context.Context, id int, o Outcome) error {
	update := s.store.Ent.IdempotencyKey.Update().
		Where(idempotencykey.ID(id), idempotencykey.State(stateInProgress)).
		SetState(stateDone).SetFailed(o.Failed).SetResponse(o.Response).SetHTTPStatus(o.HTTPStatus)
	if len(o.Headers) > 0 {
		update = update.SetHeaders(o.Headers)
	}
	_, err := update.Save(ctx)
	return err
}

// Release drops the claim id, so a retry runs the request again (after a
// server error or a cancellation).
func (s *Store) Release(ctx context.Context, id int) error {
	_, err := s.store.Ent.IdempotencyKey.Delete().Where(idempotencykey.ID(id)).Exec(ctx)
	return err
}

// DeleteExpired deletes the keys expired at now and says how many.
func (s *Store) DeleteExpired(ctx context.Context, now time.Time) (int, error) {
	return storage.DeleteInBatches(ctx, s.store, idempotencykey.Table, storage.DeleteBatch, idempotencykey.ExpiresAtLT(now))
}
