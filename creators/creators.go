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
}

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
	After    string // the last id of the previous page
	Limit    int
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
		existsQuery: store.KeyedQuery(creator.Table, []string{creator.FieldID}, creator.FieldID, creator.FieldOrganizationID)}
}

// getColumns are the columns Get reads, in the order it scans them: every
// column of the table but email_key, which only serves the unique index,
// and the two keys, which the read is given (each column read costs the
// embedded SQLite driver a name, a value and their copies).
var getColumns = []string{
	creator.FieldName, creator.FieldEmail, creator.FieldVertical,
	creator.FieldStatus, creator.FieldMetadata, creator.FieldCreatedAt, creator.FieldUpdatedAt,
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
		ID: ids.New(ids.Creator), OrganizationID: orgID,
		Name: in.Name, Email: in.Email, Vertical: in.Vertical, Status: "active",
		Metadata: in.Metadata, CreatedAt: t, UpdatedAt: t,
	}
	// The event is encoded before the transaction, which then only writes.
	data, err := s.events.Encode(c)
	if err != nil {
		return nil, err
	}
	err = s.store.Tx(ctx, func(ctx context.Context, tx *ent.Client, sqlTx *sql.Tx) error {
		err := tx.Creator.Create().
			SetID(c.ID).
			SetOrganizationID(c.OrganizationID).
			SetName(c.Name).
			SetEmail(c.Email).
			SetEmailKey(strings.ToLower(c.Email)).
			SetVertical(c.Vertical).
			SetStatus(c.Status).
			SetMetadata(c.Metadata).
			SetCreatedAt(t).
			SetUpdatedAt(t).
			Exec(ctx)
		if err != nil {
			return err
		}
		_, err = s.events.EmitEncoded(ctx, tx, sqlTx, orgID, events.CreatorCreated, data)
		return err
	})
	if ent.IsConstraintError(err) {
		return nil, apierror.Conflict("DUPLICATE_EMAIL", fmt.Sprintf("a creator with email %s already exists in this organization", in.Email),
			map[string]string{"field": "email"})
	}
	if err != nil {
		return nil, err
	}
	return c, nil
}

// Get returns a creator of the organization. It is the service's most
// frequent read, so it is a keyed read with a statement written once
// rather than an ent query.
func (s *Service) Get(ctx context.Context, orgID, id string) (*Creator, error) {
	c := Creator{ID: id, OrganizationID: orgID}
	var metadata []byte
	err := s.store.KeyedRead(ctx, s.getQuery, []any{id, orgID},
		&c.Name, &c.Email, &c.Vertical, &c.Status, &metadata, &c.CreatedAt, &c.UpdatedAt)
	if errors.Is(err, sql.ErrNoRows) {
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

// Exists reports whether the organization has the creator. Every IP
// registration asks it first, so it is a keyed read too.
func (s *Service) Exists(ctx context.Context, orgID, id string) (bool, error) {
	var found string
	err := s.store.KeyedRead(ctx, s.existsQuery, []any{id, orgID}, &found)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	return err == nil, err
}

// List returns up to q.Limit creators after q.After, newest first.
func (s *Service) List(ctx context.Context, orgID string, q ListQuery) ([]*Creator, error) {
	query := s.store.Read.Creator.Query().Where(creator.OrganizationID(orgID))
	if q.Vertical != "" {
		if err := engine.CheckVertical("vertical", q.Vertical); err != nil {
			return nil, err
		}
		query = query.Where(creator.Vertical(q.Vertical))
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
		CreatedAt: c.CreatedAt, UpdatedAt: c.UpdatedAt,
	}
}
