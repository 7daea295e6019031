package creators

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"entgo.io/ent/dialect"
	entsql "entgo.io/ent/dialect/sql"
	"google.golang.org/grpc/codes"

	"github.com/creativeops/creativeops/apierror"
	"github.com/creativeops/creativeops/audit"
	"github.com/creativeops/creativeops/engine"
	"github.com/creativeops/creativeops/ent"
	"github.com/creativeops/creativeops/ent/creator"
	"github.com/creativeops/creativeops/ent/delivery"
	"github.com/creativeops/creativeops/ent/deliveryattempt"
	"github.com/creativeops/creativeops/ent/event"
	"github.com/creativeops/creativeops/ent/idempotencykey"
	"github.com/creativeops/creativeops/ent/job"
	"github.com/creativeops/creativeops/ent/plan"
	"github.com/creativeops/creativeops/ent/planmilestone"
	"github.com/creativeops/creativeops/ent/planreminder"
	"github.com/creativeops/creativeops/events"
	"github.com/creativeops/creativeops/jobs"
)

// Patch is a change to a creator: the fields set change, the others stay.
type Patch struct {
	Name, Email, Vertical *string
	// Metadata is merged over the creator's metadata key by key; a key
	// whose value is nil is removed.
	Metadata map[string]any
	// ClearMetadata removes every key before Metadata is merged.
	ClearMetadata bool
	// Revision, when set, is the revision the patch was made against: the
	// update is refused if the creator is at another one.
	Revision *int
}

// Deleted is the data of a creator.deleted event: nothing personal.
type Deleted struct {
	ID        string
	DeletedAt time.Time
}

// Update applies a patch. The change, its creator.updated event and its
// audit entry (naming the fields changed, never their values) are written
// in one transaction. A patch that changes nothing returns the creator as
// it is, without a new revision or an event.
func (s *Service) Update(ctx context.Context, orgID, id string, p Patch) (*Creator, error) {
	var violations []apierror.FieldViolation
	if p.Vertical != nil {
		if err := engine.CheckVertical("vertical", *p.Vertical); err != nil {
			return nil, err
		}
	}
	if p.Email != nil {
		if err := checkEmail(*p.Email); err != nil {
			violations = append(violations, err.Violations...)
		}
	}
	if len(violations) > 0 {
		return nil, apierror.InvalidFields("invalid request: email", violations)
	}
	var out *Creator
	err := s.store.Tx(ctx, func(ctx context.Context, tx *ent.Client, sqlTx *sql.Tx) error {
		row, err := tx.Creator.Query().Where(creator.ID(id), creator.OrganizationID(orgID), creator.StatusNEQ(Erased)).Only(ctx)
		if ent.IsNotFound(err) {
			return apierror.NotFound("creator", id)
		}
		if err != nil {
			return err
		}
		if p.Revision != nil && *p.Revision != row.Revision {
			return revisionMismatch(id, row.Revision)
		}
		c := fromEnt(row)
		var changed []string
		if p.Name != nil && *p.Name != c.Name {
			c.Name, changed = *p.Name, append(changed, "name")
		}
		if p.Email != nil && *p.Email != c.Email {
			c.Email, changed = *p.Email, append(changed, "email")
		}
		if p.Vertical != nil && *p.Vertical != c.Vertical {
			c.Vertical, changed = *p.Vertical, append(changed, "vertical")
		}
		if p.ClearMetadata || p.Metadata != nil {
			merged := mergeMetadata(c.Metadata, p.Metadata, p.ClearMetadata)
			if !metadataEqual(merged, c.Metadata) {
				b, err := json.Marshal(merged)
				if err != nil {
					return apierror.InvalidField("metadata", "is not a JSON object")
				}
				if len(b) > MaxMetadataBytes {
					return apierror.InvalidField("metadata", fmt.Sprintf("would be %d bytes as JSON after the merge; at most %d are allowed", len(b), MaxMetadataBytes))
				}
				c.Metadata, changed = merged, append(changed, "metadata")
			}
		}
		if len(changed) == 0 {
			out = c
			return nil
		}
		c.UpdatedAt = time.Now().UTC().Truncate(time.Microsecond)
		c.Revision++
		upd := tx.Creator.Update().
			// The revision read is the guard: of two concurrent updates of
			// one revision, one changes nothing and is told so.
			Where(creator.ID(id), creator.OrganizationID(orgID), creator.Revision(row.Revision), creator.StatusNEQ(Erased)).
			SetName(c.Name).SetEmail(c.Email).SetEmailKey(strings.ToLower(c.Email)).
			SetVertical(c.Vertical).SetUpdatedAt(c.UpdatedAt).SetRevision(c.Revision)
		if c.Metadata == nil {
			upd.ClearMetadata()
		} else {
			upd.SetMetadata(c.Metadata)
		}
		n, err := upd.Save(ctx)
		if err != nil {
			return err
		}
		if n == 0 {
			return revisionMismatch(id, row.Revision+1)
		}
		data, err := s.events.Encode(c)
		if err != nil {
			return err
		}
		if _, err := s.events.EmitEncoded(ctx, tx, sqlTx, orgID, events.CreatorUpdated, data); err != nil {
			return err
		}
		slices.Sort(changed)
		if err := audit.Record(ctx, tx, audit.Entry{
			OrganizationID: orgID, Action: audit.CreatorUpdated, TargetType: audit.TargetCreator, TargetID: id,
			Details: map[string]string{"fields": strings.Join(changed, ","), "revision": strconv.Itoa(c.Revision)},
		}); err != nil {
			return err
		}
		out = c
		return nil
	})
	if ent.IsConstraintError(err) && p.Email != nil {
		return nil, duplicateEmail(*p.Email)
	}
	if err != nil {
		return nil, err
	}
	return out, nil
}

func revisionMismatch(id string, current int) error {
	e := apierror.New(codes.Aborted, "REVISION_MISMATCH",
		fmt.Sprintf("creator %s changed since it was read: it is at revision %d; read it again and retry", id, current))
	e.Metadata = map[string]string{"revision": strconv.Itoa(current)}
	return e
}

// mergeMetadata merges patch over base (a copy; base is not changed): a
// nil value removes its key. clear starts from no keys. No keys at all is
// no metadata (nil).
func mergeMetadata(base, patch map[string]any, clear bool) map[string]any {
	out := map[string]any{}
	if !clear {
		maps.Copy(out, base)
	}
	for k, v := range patch {
		if v == nil {
			delete(out, k)
		} else {
			out[k] = v
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

func metadataEqual(a, b map[string]any) bool {
	if len(a) != len(b) {
		return false
	}
	ja, errA := json.Marshal(a)
	jb, errB := json.Marshal(b)
	return errA == nil && errB == nil && string(ja) == string(jb)
}

// Erase removes a creator's personal data from the service, in one
// transaction (docs/privacy.md says what is kept and why):
//
//   - the creator's row keeps its id, organization, creation time and the
//     time of erasure, as a tombstone with status erased: the id answers
//     404 and the primary key forbids its reuse; name, email, vertical and
//     metadata are emptied;
//   - its tracked plans are deleted, with their milestones and reminders;
//   - its runs (jobs given its creator_id) lose their context and result,
//     and those still queued or running are canceled;
//   - every event whose data named it, but ip.registered (the IP record is
//     kept), is reduced to the ids it held, so no redelivery sends the
//     personal data again, and the response bodies its deliveries logged
//     are removed;
//   - the idempotency records whose stored response holds it are deleted;
//   - a creator.deleted event (its id and the time) and a creator.erased
//     audit entry are written.
//
// IP records and their certificates are kept unchanged: their signed
// bytes hold the creator's id, not its name, and must keep verifying.
func (s *Service) Erase(ctx context.Context, orgID, id string) error {
	t := time.Now().UTC().Truncate(time.Microsecond)
	data, err := s.events.Encode(&Deleted{ID: id, DeletedAt: t})
	if err != nil {
		return err
	}
	return s.store.Tx(ctx, func(ctx context.Context, tx *ent.Client, sqlTx *sql.Tx) error {
		n, err := tx.Creator.Update().
			Where(creator.ID(id), creator.OrganizationID(orgID), creator.StatusNEQ(Erased)).
			SetStatus(Erased).SetName("").SetEmail("").SetEmailKey("erased:" + id).SetVertical("").
			ClearMetadata().SetUpdatedAt(t).AddRevision(1).
			Save(ctx)
		if err != nil {
			return err
		}
		if n == 0 {
			return apierror.NotFound("creator", id)
		}
		if err := erasePlans(ctx, tx, orgID, id); err != nil {
			return err
		}
		if err := keepPlanDocuments(ctx, tx, orgID, id); err != nil {
			return err
		}
		if err := jobs.CancelCreatorRuns(ctx, s.store.Dialect, tx, orgID, id, t); err != nil {
			return err
		}
		if _, err := tx.Job.Update().
			Where(job.OrganizationID(orgID), job.CreatorID(id)).
			SetContext(map[string]any{}).ClearResult().ClearErrorMessage().SetUpdatedAt(t).Save(ctx); err != nil {
			return err
		}
		if err := s.redactEvents(ctx, tx, sqlTx, orgID, id); err != nil {
			return err
		}
		if err := s.deleteIdempotencyRecords(ctx, sqlTx, orgID, id); err != nil {
			return err
		}
		if _, err := s.events.EmitEncoded(ctx, tx, sqlTx, orgID, events.CreatorDeleted, data); err != nil {
			return err
		}
		return audit.Record(ctx, tx, audit.Entry{
			OrganizationID: orgID, Action: audit.CreatorErased, TargetType: audit.TargetCreator, TargetID: id,
		})
	})
}

// chunk bounds the ids of one IN list, well under both databases'
// bound-parameter limits.
const chunk = 500

func erasePlans(ctx context.Context, tx *ent.Client, orgID, id string) error {
	planIDs, err := tx.Plan.Query().Where(plan.OrganizationID(orgID), plan.CreatorID(id)).IDs(ctx)
	if err != nil {
		return err
	}
	for part := range slices.Chunk(planIDs, chunk) {
		if _, err := tx.PlanMilestone.Delete().Where(planmilestone.OrganizationID(orgID), planmilestone.PlanIDIn(part...)).Exec(ctx); err != nil {
			return err
		}
		if _, err := tx.PlanReminder.Delete().Where(planreminder.PlanIDIn(part...)).Exec(ctx); err != nil {
			return err
		}
		if _, err := tx.Plan.Delete().Where(plan.OrganizationID(orgID), plan.IDIn(part...)).Exec(ctx); err != nil {
			return err
		}
	}
	return nil
}

// keepPlanDocuments gives each plan that one of the creator's runs made,
// and that is not the creator's own (tracked for another creator or none,
// so not erased), its own copy of the run's context and result: a plan
// reads them from the job that made its current revision (package plans),
// and erasure is about to empty that job.
func keepPlanDocuments(ctx context.Context, tx *ent.Client, orgID, id string) error {
	js, err := tx.Job.Query().Where(job.OrganizationID(orgID), job.CreatorID(id), job.PlanIDNEQ("")).
		Select(job.FieldID, job.FieldPlanID, job.FieldContext, job.FieldResult).All(ctx)
	if err != nil {
		return err
	}
	for _, j := range js {
		p, err := tx.Plan.Query().
			Where(plan.OrganizationID(orgID), plan.ID(j.PlanID), plan.JobID(j.ID), plan.CreatorIDNEQ(id)).
			Select(plan.FieldID, plan.FieldUpdatedAt).Only(ctx)
		if ent.IsNotFound(err) {
			continue
		}
		if err != nil {
			return err
		}
		planContext := maps.Clone(j.Context)
		if planContext == nil {
			planContext = map[string]any{}
		}
		delete(planContext, engine.AsOfField)
		// The plan reads as it did: updated_at stays.
		if err := tx.Plan.UpdateOneID(p.ID).SetContext(planContext).SetResult(j.Result).
			SetUpdatedAt(p.UpdatedAt).Exec(ctx); err != nil {
			return err
		}
	}
	return nil
}

// Event is an event whose data named a creator.
type Event struct {
	ID        string
	Type      string
	CreatedAt time.Time
	Data      []byte
}

// namingQuery selects the organization's events that name the creator,
// newest first, through the (organization, creator) index: an erasure or
// an export reads the creator's events, not the organization's. Rows
// written before events had a creator column (NULL there) are matched by
// the creator's id in their data; event retention removes them in time.
func namingQuery(c *ent.Client, orgID, id string) *ent.EventQuery {
	// Each side of the OR names the organization, so each can search the
	// index on its own (SQLite's OR-by-union plan needs that).
	return c.Event.Query().Where(event.Or(
		event.And(event.OrganizationID(orgID), event.CreatorID(id)),
		event.And(event.OrganizationID(orgID), event.CreatorIDIsNil(), event.DataContains(`"`+id+`"`)),
	)).Order(ent.Desc(event.FieldID))
}

// Events returns the events whose data named the creator, newest first,
// for its export. An erased creator has none left that hold its data.
func (s *Service) Events(ctx context.Context, orgID, id string) ([]Event, error) {
	rows, err := namingQuery(s.store.Read, orgID, id).All(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]Event, len(rows))
	for i, r := range rows {
		out[i] = Event{ID: r.ID, Type: r.Type, CreatedAt: r.CreatedAt, Data: []byte(r.Data)}
	}
	return out, nil
}

// redactEvents reduces the data of every event that named the creator to
// the ids it held, and removes the response bodies logged by their
// deliveries (a receiver may echo what it was sent).
func (s *Service) redactEvents(ctx context.Context, tx *ent.Client, sqlTx *sql.Tx, orgID, id string) error {
	rows, err := namingQuery(tx, orgID, id).Where(event.TypeNEQ(events.IPRegistered)).All(ctx)
	if err != nil {
		return err
	}
	eventIDs := make([]string, len(rows))
	for i, r := range rows {
		eventIDs[i] = r.ID
		q, args := entsql.Dialect(s.store.Dialect).Update(event.Table).
			Set(event.FieldData, string(redactedData(r.Data))).
			Where(entsql.EQ(event.FieldID, r.ID)).Query()
		if _, err := sqlTx.ExecContext(ctx, q, args...); err != nil {
			return err
		}
	}
	for part := range slices.Chunk(eventIDs, chunk) {
		deliveryIDs, err := tx.Delivery.Query().Where(delivery.EventIDIn(part...)).IDs(ctx)
		if err != nil {
			return err
		}
		for dpart := range slices.Chunk(deliveryIDs, chunk) {
			in := make([]any, len(dpart))
			for i, d := range dpart {
				in[i] = d
			}
			q, args := entsql.Dialect(s.store.Dialect).Update(deliveryattempt.Table).
				SetNull(deliveryattempt.FieldResponseBody).
				Where(entsql.In(deliveryattempt.FieldDeliveryID, in...)).Query()
			if _, err := sqlTx.ExecContext(ctx, q, args...); err != nil {
				return err
			}
		}
	}
	return nil
}

// redactedData is an event's data reduced to its ids: the top-level "id"
// and "..._id" strings, and the "id" of each top-level object as
// "<name>_id" (plan.replanned's plan). It says it was redacted.
func redactedData(data string) []byte {
	var m map[string]any
	out := map[string]any{"redacted": "creator erased"}
	if json.Unmarshal([]byte(data), &m) == nil {
		for k, v := range m {
			switch v := v.(type) {
			case string:
				if k == "id" || strings.HasSuffix(k, "_id") {
					out[k] = v
				}
			case map[string]any:
				if nested, ok := v["id"].(string); ok {
					out[k+"_id"] = nested
				}
			}
		}
	}
	b, _ := json.Marshal(out)
	return b
}

// deleteIdempotencyRecords deletes the organization's idempotency records
// whose stored response holds the creator's id (its creation, runs and
// plans made for it): a replay must not return its personal data. They
// live 24 hours, so this reads a day of the organization's records.
func (s *Service) deleteIdempotencyRecords(ctx context.Context, sqlTx *sql.Tx, orgID, id string) error {
	q := "DELETE FROM " + idempotencykey.Table + " WHERE " + idempotencykey.FieldOrganizationID + " = $1 AND position($2::bytea in " + idempotencykey.FieldResponse + ") > 0"
	if s.store.Dialect == dialect.SQLite {
		q = "DELETE FROM " + idempotencykey.Table + " WHERE " + idempotencykey.FieldOrganizationID + " = ? AND instr(" + idempotencykey.FieldResponse + ", ?) > 0"
	}
	_, err := sqlTx.ExecContext(ctx, q, orgID, []byte(id))
	return err
}
