// Package events records what happens in the service (a job completed, a
// work registered, a creator created) as event rows written in the same
// transaction as the change itself. Webhook deliveries are fanned out from
// them, so a crash between the change and its notification loses nothing.
package events

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"time"

	entsql "entgo.io/ent/dialect/sql"

	"github.com/creativeops/creativeops/ent"
	"github.com/creativeops/creativeops/ent/event"
	"github.com/creativeops/creativeops/ids"
)

// Event types.
const (
	JobCompleted   = "engine.job.completed"
	JobFailed      = "engine.job.failed"
	IPRegistered   = "ip.registered"
	CreatorCreated = "creator.created"
	WebhookTest    = "webhook.test"
)

// FanOut is called inside the emitting transaction with the events it just
// wrote, so deliveries are enqueued atomically with them.
type FanOut func(ctx context.Context, tx *ent.Client, sqlTx *sql.Tx, evs []*ent.Event) error

// Encoder renders a domain resource (a creator, a job, an IP record) as
// the data of its event: exactly as the API returns the resource. The
// transport layer provides it, so the domain never knows the wire format.
type Encoder func(resource any) ([]byte, error)

// Emitter writes events.
type Emitter struct {
	encode Encoder
	fanOut FanOut
	// dialect and subscribed: see Subscribed.
	dialect, subscribed string
}

// NewEmitter returns an emitter that encodes event data with encode and
// hands the events it writes to fanOut (nil: no webhooks).
func NewEmitter(encode Encoder, fanOut FanOut) *Emitter {
	return &Emitter{encode: encode, fanOut: fanOut}
}

// Subscribed makes the emitter ask the database, with each event it
// inserts, whether anything can subscribe to it: cond is an SQL condition
// on the new row (the columns of "events"), valid in the store's dialect.
// Only the events it holds for reach the fan-out, so a write of an
// organization without webhooks costs no query for them: one round trip
// less per write on PostgreSQL, where each is a network exchange.
func (e *Emitter) Subscribed(dialect, cond string) *Emitter {
	e.dialect, e.subscribed = dialect, cond
	return e
}

// Encode renders an event's data. Callers encode before opening their
// transaction, so the database's write lock is not held while JSON is built.
func (e *Emitter) Encode(resource any) ([]byte, error) { return e.encode(resource) }

// Emit records an event about resource inside the caller's transaction.
func (e *Emitter) Emit(ctx context.Context, tx *ent.Client, sqlTx *sql.Tx, orgID, typ string, resource any) (*ent.Event, error) {
	b, err := e.Encode(resource)
	if err != nil {
		return nil, err
	}
	return e.EmitEncoded(ctx, tx, sqlTx, orgID, typ, b)
}

// EmitEncoded records an event whose data is already encoded (see Encode)
// inside the caller's transaction.
func (e *Emitter) EmitEncoded(ctx context.Context, tx *ent.Client, sqlTx *sql.Tx, orgID, typ string, data []byte) (*ent.Event, error) {
	evs, err := e.EmitBatch(ctx, tx, sqlTx, []Encoded{{OrganizationID: orgID, Type: typ, Data: data}})
	if err != nil {
		return nil, err
	}
	return evs[0], nil
}

// Encoded is an event to record, its data already encoded.
type Encoded struct {
	OrganizationID string
	Type           string
	Data           []byte
}

// maxBatchRows keeps one insert of five-column rows under SQLite's and
// PostgreSQL's bound-parameter limits.
const maxBatchRows = 500

// EmitBatch records several events inside the caller's transaction with
// one insert and one fan-out, so a batch costs a few statements rather
// than a few per event (the IP registry seals many records at once).
func (e *Emitter) EmitBatch(ctx context.Context, tx *ent.Client, sqlTx *sql.Tx, batch []Encoded) ([]*ent.Event, error) {
	at := time.Now().UTC().Truncate(time.Microsecond)
	evs := make([]*ent.Event, 0, len(batch))
	var subscribed []*ent.Event
	for part := range slices.Chunk(batch, maxBatchRows) {
		if e != nil && e.subscribed != "" && e.fanOut != nil {
			saved, sub, err := e.insert(ctx, sqlTx, part, at)
			if err != nil {
				return nil, err
			}
			evs, subscribed = append(evs, saved...), append(subscribed, sub...)
			continue
		}
		creates := make([]*ent.EventCreate, len(part))
		for i, b := range part {
			creates[i] = tx.Event.Create().
				SetID(ids.New(ids.Event)).
				SetOrganizationID(b.OrganizationID).
				SetType(b.Type).
				SetData(string(b.Data)).
				SetCreatedAt(at)
		}
		saved, err := tx.Event.CreateBulk(creates...).Save(ctx)
		if err != nil {
			return nil, err
		}
		evs = append(evs, saved...)
		subscribed = append(subscribed, saved...)
	}
	if e != nil && e.fanOut != nil && len(subscribed) > 0 {
		if err := e.fanOut(ctx, tx, sqlTx, subscribed); err != nil {
			return nil, err
		}
	}
	return evs, nil
}

// insert writes events with one statement that also returns, for each,
// whether the Subscribed condition holds for it: the events, and those of
// them it holds for.
func (e *Emitter) insert(ctx context.Context, sqlTx *sql.Tx, batch []Encoded, at time.Time) (evs, subscribed []*ent.Event, err error) {
	ins := entsql.Dialect(e.dialect).Insert(event.Table).
		Columns(event.FieldID, event.FieldOrganizationID, event.FieldType, event.FieldData, event.FieldCreatedAt)
	evs = make([]*ent.Event, len(batch))
	pos := make(map[string]int, len(batch))
	for i, b := range batch {
		ev := &ent.Event{ID: ids.New(ids.Event), OrganizationID: b.OrganizationID, Type: b.Type, Data: string(b.Data), CreatedAt: at}
		ins.Values(ev.ID, ev.OrganizationID, ev.Type, ev.Data, ev.CreatedAt)
		evs[i], pos[ev.ID] = ev, i
	}
	query, args := ins.Returning(event.FieldID, e.subscribed).Query()
	rows, err := sqlTx.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, nil, err
	}
	defer rows.Close()
	holds := make([]bool, len(batch))
	for rows.Next() {
		var id string
		var v any
		if err := rows.Scan(&id, &v); err != nil {
			return nil, nil, err
		}
		i, ok := pos[id]
		if !ok {
			return nil, nil, fmt.Errorf("events: insert returned an unknown id %q", id)
		}
		// PostgreSQL returns a boolean, SQLite an integer.
		switch v := v.(type) {
		case bool:
			holds[i] = v
		case int64:
			holds[i] = v != 0
		default:
			return nil, nil, fmt.Errorf("events: subscribed condition returned a %T", v)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, nil, err
	}
	// RETURNING promises no order: the fan-out sees the batch's.
	for i, ev := range evs {
		if holds[i] {
			subscribed = append(subscribed, ev)
		}
	}
	return evs, subscribed, nil
}
