// Package creators keeps the creator accounts of an organization: who they
// are, which vertical they work in, and the metadata the platform attaches.
package creators

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"net/mail"
	"strings"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/creativeops/creativeops/apierror"
	"github.com/creativeops/creativeops/engine"
	"github.com/creativeops/creativeops/ent"
	"github.com/creativeops/creativeops/ent/creator"
	"github.com/creativeops/creativeops/events"
	"github.com/creativeops/creativeops/ids"
	"github.com/creativeops/creativeops/storage"
)

// Creator is a creator account.
type Creator struct {
	ID             string
	OrganizationID string
	Name           string
	Email          string
	Vertical       string
	Status         string
	Metadata       map[string]any
	CreatedAt      time.Time
	UpdatedAt      time.Time
	// Revision is 1 when created and raised by each update.
	Revision int
}

// Statuses of a creator's row. An erased creator's row stays as a
// tombstone without its personal data: its id is never served again and,
// being the row's primary key, never given to another creator.
const (
	Active = "active"
	Erased = "erased"
)

// MaxMetadataBytes bounds a creator's metadata as JSON.
const MaxMetadataBytes = 16 << 10

// New describes a creator to create.
type New struct {
	Name     string
	Email    string
	Vertical string
	Metadata map[string]any
}

// ListQuery selects a page of creators, newest first.
type ListQuery struct {
	Vertical string // empty: every vertical
	// Email: only the creator with this email, compared case-insensitively.
	Email string
	// CreatedAfter and CreatedBefore bound created_at (at or after, before).
	CreatedAfter, CreatedBefore *time.Time
	After                       string // the last id of the previous page
	Limit                       int
}

// Service creates and reads creators.
type Service struct {
	store  *storage.Store
	events *events.Emitter
	// getQuery and existsQuery are Get's and Exists' statements in the
	// store's dialect, built once (see storage.Store.KeyedRead).
	getQuery, existsQuery string
}

// NewService returns the creators service.
func NewService(store *storage.Store, emitter *events.Emitter) *Service {
	return &Service{store: store, events: emitter,
		getQuery:    store.KeyedQuery(creator.Table, getColumns, creator.FieldID, creator.FieldOrganizationID),
		existsQuery: store.KeyedQuery(creator.Table, []string{creator.FieldStatus}, creator.FieldID, creator.FieldOrganizationID)}
}

// getColumns are the columns Get reads, in the order it scans them: every
// column of the table but email_key, which only serves the unique index,
// and the two keys, which the read is given (each column read costs the
// embedded SQLite driver a name, a value and their copies).
var getColumns = []string{
	creator.FieldName, creator.FieldEmail, creator.FieldVertical,
	creator.FieldStatus, creator.FieldMetadata, creator.FieldCreatedAt, creator.FieldUpdatedAt,
	creator.FieldRevision,
}

// Create stores a creator and its creator.created event in one
// transaction, so neither exists without the other.
func (s *Service) Create(ctx context.Context, orgID string, in New) (*Creator, error) {
	// Report every business-rule problem at once, like schema violations.
	vErr, eErr := engine.CheckVertical("vertical", in.Vertical), checkEmail(in.Email)
	switch {
	case vErr != nil && eErr != nil:
		return nil, apierror.InvalidFields("invalid request: vertical and email", append(vErr.Violations, eErr.Violations...))
	case vErr != nil:
		return nil, vErr
	case eErr != nil:
		return nil, eErr
	}
	t := time.Now().UTC().Truncate(time.Microsecond)
	c := &Creator{
		OrganizationID: orgID,
		Name:           in.Name, Email: in.Email, Vertical: in.Vertical, Status: Active,
		Metadata: in.Metadata, CreatedAt: t, UpdatedAt: t, Revision: 1,
	}
	// An id is 48 bits of time and 80 random bits; should a new one ever
	// equal an existing id (an erased creator's tombstone included), the
	// primary key refuses the insert and another id is drawn: an id is
	// never given to a second creator.
	for attempt := 0; ; attempt++ {
		c.ID = ids.New(ids.Creator)
		err := s.insert(ctx, c)
		if err == nil {
			return c, nil
		}
		if !ent.IsConstraintError(err) {
			return nil, err
		}
		taken, qErr := s.store.Ent.Creator.Query().
			Where(creator.OrganizationID(orgID), creator.EmailKey(strings.ToLower(in.Email))).Exist(ctx)
		if qErr != nil {
			return nil, qErr
		}
		if taken {
			return nil, duplicateEmail(in.Email)
		}
		if attempt == 2 {
			return nil, err
		}
	}
}

func duplicateEmail(email string) error {
	return apierror.Conflict("DUPLICATE_EMAIL", fmt.Sprintf("a creator with email %s already exists in this organization", email),
		map[string]string{"field": "email"})
}

// insert stores a new creator and its creator.created event in one
// transaction.
func (s *Service) insert(ctx context.Context, c *Creator) error {
	// The event is encoded before the transaction, which then only writes.
	data, err := s.events.Encode(c)
	if err != nil {
		return err
	}
	return s.store.Tx(ctx, func(ctx context.Context, tx *ent.Client, sqlTx *sql.Tx) error {
		err := tx.Creator.Create().
			SetID(c.ID).
			SetOrganizationID(c.OrganizationID).
			SetName(c.Name).
			SetEmail(c.Email).
			SetEmailKey(strings.ToLower(c.Email)).
			SetVertical(c.Vertical).
			SetStatus(c.Status).
			SetMetadata(c.Metadata).
			SetCreatedAt(c.CreatedAt).
			SetUpdatedAt(c.UpdatedAt).
			SetRevision(c.Revision).
			Exec(ctx)
		if err != nil {
			return err
		}
		_, err = s.events.EmitEncoded(ctx, tx, sqlTx, c.OrganizationID, events.CreatorCreated, data)
		return err
	})
}

// Get returns a creator of the organization. It is the service's most
// frequent read, so it is a keyed read with a statement written once
// rather than an ent query.
func (s *Service) Get(ctx context.Context, orgID, id string) (*Creator, error) {
	c := Creator{ID: id, OrganizationID: orgID}
	var metadata []byte
	err := s.store.KeyedRead(ctx, s.getQuery, []any{id, orgID},
		&c.Name, &c.Email, &c.Vertical, &c.Status, &metadata, &c.CreatedAt, &c.UpdatedAt, &c.Revision)
	if errors.Is(err, sql.ErrNoRows) || err == nil && c.Status == Erased {
		return nil, apierror.NotFound("creator", id)
	}
	if err != nil {
		return nil, err
	}
	// As ent reads the column: no value, or JSON's null, is no metadata.
	if len(metadata) > 0 {
		if err := json.Unmarshal(metadata, &c.Metadata); err != nil {
			return nil, fmt.Errorf("creator %s: metadata: %w", id, err)
		}
	}
	return &c, nil
}

// Exists reports whether the organization has the creator (an erased
// one it has not). Every IP registration asks it first, so it is a keyed
// read too.
func (s *Service) Exists(ctx context.Context, orgID, id string) (bool, error) {
	var status string
	err := s.store.KeyedRead(ctx, s.existsQuery, []any{id, orgID}, &status)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	return err == nil && status != Erased, err
}

// List returns up to q.Limit creators after q.After, newest first.
func (s *Service) List(ctx context.Context, orgID string, q ListQuery) ([]*Creator, error) {
	query := s.store.Read.Creator.Query().Where(creator.OrganizationID(orgID), creator.StatusNEQ(Erased))
	if q.Vertical != "" {
		if err := engine.CheckVertical("vertical", q.Vertical); err != nil {
			return nil, err
		}
		query = query.Where(creator.Vertical(q.Vertical))
	}
	if q.Email != "" {
		// The unique (organization_id, email_key) index finds it.
		query = query.Where(creator.EmailKey(strings.ToLower(q.Email)))
	}
	// The time bounds are also bounds on the id, whose first 48 bits are
	// the creation time in milliseconds: the (organization_id, id) index
	// (or the vertical's) reads only the range, and created_at then
	// decides exactly.
	if q.CreatedAfter != nil {
		query = query.Where(creator.IDGTE(idAt(*q.CreatedAfter)), creator.CreatedAtGTE(*q.CreatedAfter))
	}
	if q.CreatedBefore != nil {
		// The id is drawn just after created_at is read: a second's slack
		// covers the moment between the two.
		query = query.Where(creator.IDLT(idAt(q.CreatedBefore.Add(time.Second))), creator.CreatedAtLT(*q.CreatedBefore))
	}
	if q.After != "" {
		query = query.Where(creator.IDLT(q.After))
	}
	rows, err := query.Order(ent.Desc(creator.FieldID)).Limit(q.Limit).All(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]*Creator, len(rows))
	for i, c := range rows {
		out[i] = fromEnt(c)
	}
	return out, nil
}

// checkEmail accepts a bare RFC 5322 address (no display name) whose
// domain has a dot.
func checkEmail(s string) *apierror.Error {
	addr, err := mail.ParseAddress(s)
	if err != nil || addr.Name != "" || addr.Address != s || !strings.Contains(s[strings.LastIndexByte(s, '@')+1:], ".") {
		return apierror.InvalidField("email", "must be an email address such as name@example.com")
	}
	return nil
}

func fromEnt(c *ent.Creator) *Creator {
	return &Creator{
		ID: c.ID, OrganizationID: c.OrganizationID, Name: c.Name, Email: c.Email,
		Vertical: c.Vertical, Status: c.Status, Metadata: c.Metadata,
		CreatedAt: c.CreatedAt, UpdatedAt: c.UpdatedAt, Revision: c.Revision,
	}
}

// idAt is the smallest creator id of the millisecond t falls in.
func idAt(t time.Time) string {
	var u ulid.ULID
	if t.Before(time.UnixMilli(0)) {
		t = time.UnixMilli(0)
	}
	if err := u.SetTime(ulid.Timestamp(t)); err != nil {
		u = ulid.ULID{0xff, 0xff, 0xff, 0xff, 0xff, 0xff}
	}
	return ids.Creator + "_" + strings.ToLower(u.String())
}
