package creators

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/creativeops/creativeops/apierror"
	"github.com/creativeops/creativeops/engine"
	"github.com/creativeops/creativeops/ent"
	"github.com/creativeops/creativeops/events"
	"github.com/creativeops/creativeops/ids"
)

// creatorsPerInsert keeps one multi-row insert of creators (12 columns)
// under SQLite's 32,766 and PostgreSQL's 65,535 bound parameters.
const creatorsPerInsert = 1000

// CreateBatch creates many creators of one organization at once, each
// checked as Create checks it and stored with its creator.created event,
// with a few multi-row inserts in one transaction instead of a transaction
// each: the fast path of seeding (the scale benchmark, bench/scale). The
// whole batch is refused, naming the entry, if any entry is invalid or its
// email is taken (in the organization or earlier in the batch).
func (s *Service) CreateBatch(ctx context.Context, orgID string, in []New) ([]*Creator, error) {
	seen := make(map[string]int, len(in))
	for i, n := range in {
		if err := engine.CheckVertical("vertical", n.Vertical); err != nil {
			return nil, fmt.Errorf("creator %d: %w", i, err)
		}
		if err := checkEmail(n.Email); err != nil {
			return nil, fmt.Errorf("creator %d: %w", i, err)
		}
		k := strings.ToLower(n.Email)
		if j, dup := seen[k]; dup {
			return nil, fmt.Errorf("creator %d: %w (entry %d)", i, duplicateEmail(n.Email), j)
		}
		seen[k] = i
	}
	t := time.Now().UTC().Truncate(time.Microsecond)
	out := make([]*Creator, len(in))
	evs := make([]events.Encoded, len(in))
	for i, n := range in {
		c := &Creator{
			ID: ids.New(ids.Creator), OrganizationID: orgID,
			Name: n.Name, Email: n.Email, Vertical: n.Vertical, Status: Active,
			Metadata: n.Metadata, CreatedAt: t, UpdatedAt: t, Revision: 1,
		}
		data, err := s.events.Encode(c)
		if err != nil {
			return nil, err
		}
		out[i], evs[i] = c, events.Encoded{OrganizationID: orgID, Type: events.CreatorCreated, Data: data}
	}
	err := s.store.Tx(ctx, func(ctx context.Context, tx *ent.Client, sqlTx *sql.Tx) error {
		for chunk := range slices.Chunk(out, creatorsPerInsert) {
			creates := make([]*ent.CreatorCreate, len(chunk))
			for i, c := range chunk {
				creates[i] = tx.Creator.Create().
					SetID(c.ID).SetOrganizationID(c.OrganizationID).SetName(c.Name).
					SetEmail(c.Email).SetEmailKey(strings.ToLower(c.Email)).SetVertical(c.Vertical).
					SetStatus(c.Status).SetMetadata(c.Metadata).
					SetCreatedAt(c.CreatedAt).SetUpdatedAt(c.UpdatedAt).SetRevision(c.Revision)
			}
			if err := tx.Creator.CreateBulk(creates...).Exec(ctx); err != nil {
				if ent.IsConstraintError(err) {
					return apierror.Conflict("DUPLICATE_EMAIL", "a creator of the batch has an email already taken in this organization", map[string]string{"field": "email"})
				}
				return err
			}
		}
		_, err := s.events.EmitBatch(ctx, tx, sqlTx, evs)
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}
