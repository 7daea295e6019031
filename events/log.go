package events

import (
	"context"
	"fmt"
	"time"

	"github.com/creativeops/creativeops/apierror"
	"github.com/creativeops/creativeops/ent"
	"github.com/creativeops/creativeops/ent/event"
	"github.com/creativeops/creativeops/ent/predicate"
	"github.com/creativeops/creativeops/storage"
)

// Record is a recorded event, as GET /v1/events shows it.
type Record struct {
	ID        string
	Type      string
	CreatedAt time.Time
	// Data is the event's data, JSON: what a delivery's body carries.
	Data     []byte
	ObjectID string
	// Sequence is the event's position among its organization's events.
	Sequence int64
}

// Log reads an organization's recorded events.
type Log struct{ store *storage.Store }

// NewLog returns the reader of the events store holds.
func NewLog(store *storage.Store) *Log { return &Log{store: store} }

func toRecord(e *ent.Event) *Record {
	return &Record{ID: e.ID, Type: e.Type, CreatedAt: e.CreatedAt, Data: []byte(e.Data), ObjectID: e.ObjectID, Sequence: e.Sequence}
}

// List returns a page of the organization's events (see Filter, Page).
func (l *Log) List(ctx context.Context, orgID string, f Filter, p Page) ([]*Record, error) {
	rows, err := List(ctx, l.store.Read, orgID, f, p)
	if err != nil {
		return nil, err
	}
	out := make([]*Record, len(rows))
	for i, r := range rows {
		out[i] = toRecord(r)
	}
	return out, nil
}

// Get returns an event of the organization.
func (l *Log) Get(ctx context.Context, orgID, id string) (*Record, error) {
	ev, err := Get(ctx, l.store.Read, orgID, id)
	if ent.IsNotFound(err) {
		return nil, apierror.NotFound("event", id)
	}
	if err != nil {
		return nil, err
	}
	return toRecord(ev), nil
}

// Position returns the sequence number of an event of the organization,
// to list the events after it; field names the request field that gave
// the id, for the error when there is no such event (never recorded, of
// another organization, or past the retention).
func (l *Log) Position(ctx context.Context, orgID, id, field string) (int64, error) {
	ev, err := l.store.Read.Event.Query().Where(event.ID(id), event.OrganizationID(orgID)).
		Select(event.FieldSequence).Only(ctx)
	if ent.IsNotFound(err) {
		return 0, apierror.Invalid("EVENT_NOT_FOUND", field, fmt.Sprintf(
			"%s: no event %s: it is not one of the organization's, or it is past the event retention; list from created_after instead", field, id))
	}
	if err != nil {
		return 0, err
	}
	return ev.Sequence, nil
}

// DefaultRetention is how long events are kept for GET /v1/events (and for
// redelivery) unless the server is configured otherwise.
const DefaultRetention = 30 * 24 * time.Hour

// Filter narrows a listing of an organization's events.
type Filter struct {
	// Types: only events of these types (none: every type).
	Types []string
	// CreatedAfter, CreatedBefore: only events recorded at or after, and
	// before, these times (zero: unbounded).
	CreatedAfter, CreatedBefore time.Time
	// ObjectID: only events about this resource.
	ObjectID string
}

// Page is where a listing starts and which way it runs.
type Page struct {
	// Ascending lists oldest first, from the sequence number after
	// Position; otherwise newest first, from the one before Position (0:
	// from the newest).
	Ascending bool
	Position  int64
	Limit     int
}

// List returns an organization's events in sequence order (see
// Event.sequence): the order in which they were committed. Each page is a
// walk of the (organization_id, sequence) index, or of the
// (organization_id, object_id, sequence) one with an object id.
func List(ctx context.Context, c *ent.Client, orgID string, f Filter, p Page) ([]*ent.Event, error) {
	where := []predicate.Event{event.OrganizationID(orgID)}
	if len(f.Types) > 0 {
		where = append(where, event.TypeIn(f.Types...))
	}
	if !f.CreatedAfter.IsZero() {
		where = append(where, event.CreatedAtGTE(f.CreatedAfter.UTC()))
	}
	if !f.CreatedBefore.IsZero() {
		where = append(where, event.CreatedAtLT(f.CreatedBefore.UTC()))
	}
	if f.ObjectID != "" {
		where = append(where, event.ObjectID(f.ObjectID))
	}
	order := ent.Desc(event.FieldSequence)
	switch {
	case p.Ascending:
		where = append(where, event.SequenceGT(p.Position))
		order = ent.Asc(event.FieldSequence)
	case p.Position > 0:
		where = append(where, event.SequenceLT(p.Position))
	}
	return c.Event.Query().Where(where...).Order(order).Limit(p.Limit).All(ctx)
}

// Get returns an event of the organization; another organization's is not
// found.
func Get(ctx context.Context, c *ent.Client, orgID, id string) (*ent.Event, error) {
	return c.Event.Query().Where(event.ID(id), event.OrganizationID(orgID)).Only(ctx)
}

// DeleteBefore deletes the events recorded before t, in bounded batches
// found through the created_at index: a pass costs what it deletes. It
// returns how many it deleted.
func DeleteBefore(ctx context.Context, st *storage.Store, t time.Time) (int, error) {
	return storage.DeleteInBatches(ctx, st, event.Table, storage.DeleteBatch, event.CreatedAtLT(t.UTC()))
}
