// Package events records what happens in the service (a job completed, a
// work registered, a creator created) as event rows written in the same
// transaction as the change itself. Webhook deliveries are fanned out from
// them, so a crash between the change and its notification loses nothing.
//
// The event types (types.go) are generated from their one declaration in
// the protos, proto/creativeops/v1/events.proto, by internal/genevents.
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
	p := e.Prepare(batch, at)
	p.Insert.SetDialect(e.dialect)
	query, args := p.Insert.Query()
	if err := p.Insert.Err(); err != nil {
		return nil, nil, err
	}
	rows, err := sqlTx.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, nil, err
	}
	subscribed, err = p.read(rows)
	if err != nil {
		return nil, nil, err
	}
	return p.evs, subscribed, nil
}

// Prepared is a batch of events to insert as part of a statement of the
// caller's (Prepare).
type Prepared struct {
	e   *Emitter
	evs []*ent.Event
	pos map[string]int
	// Insert inserts the events and returns each one's id and whether the
	// Subscribed condition holds for it (always, when the emitter has
	// none). Its dialect is set by the statement it joins.
	Insert *entsql.InsertBuilder
}

// Prepare builds the insert of a batch of at most maxBatchRows events
// (data-modifying WITH queries make it one statement with the writes it
// belongs to, on PostgreSQL). The caller runs it inside its transaction
// and hands what it returned to Finish.
func (e *Emitter) Prepare(batch []Encoded, at time.Time) *Prepared {
	cond := "(TRUE)" // parenthesised: not an identifier to quote
	if e != nil && e.subscribed != "" {
		cond = e.subscribed
	}
	p := &Prepared{
		e:   e,
		evs: make([]*ent.Event, len(batch)),
		pos: make(map[string]int, len(batch)),
		Insert: entsql.Insert(event.Table).
			Columns(event.FieldID, event.FieldOrganizationID, event.FieldType, event.FieldData, event.FieldCreatedAt),
	}
	for i, b := range batch {
		ev := &ent.Event{ID: ids.New(ids.Event), OrganizationID: b.OrganizationID, Type: b.Type, Data: string(b.Data), CreatedAt: at}
		p.Insert.Values(ev.ID, ev.OrganizationID, ev.Type, ev.Data, ev.CreatedAt)
		p.evs[i], p.pos[ev.ID] = ev, i
	}
	p.Insert.Returning(event.FieldID, cond)
	return p
}

// Finish reads what the prepared insert returned (rows, which it closes)
// and fans the events out, inside the transaction that inserted them; it
// returns the events.
func (p *Prepared) Finish(ctx context.Context, tx *ent.Client, sqlTx *sql.Tx, rows *sql.Rows) ([]*ent.Event, error) {
	subscribed, err := p.read(rows)
	if err != nil {
		return nil, err
	}
	if p.e != nil && p.e.fanOut != nil && len(subscribed) > 0 {
		if err := p.e.fanOut(ctx, tx, sqlTx, subscribed); err != nil {
			return nil, err
		}
	}
	return p.evs, nil
}

// read reads the ids and conditions the insert returned and returns the
// events the condition holds for, in the batch's order.
func (p *Prepared) read(rows *sql.Rows) ([]*ent.Event, error) {
	defer rows.Close()
	holds := make([]bool, len(p.evs))
	n := 0
	for rows.Next() {
		var id string
		var v any
		if err := rows.Scan(&id, &v); err != nil {
			return nil, err
		}
		i, ok := p.pos[id]
		if !ok {
			return nil, fmt.Errorf("events: insert returned an unknown id %q", id)
		}
		n++
		// PostgreSQL returns a boolean, SQLite an integer.
		switch v := v.(type) {
		case bool:
			holds[i] = v
		case int64:
			holds[i] = v != 0
		default:
			return nil, fmt.Errorf("events: subscribed condition returned a %T", v)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if n != len(p.evs) {
		return nil, fmt.Errorf("events: insert returned %d of %d events", n, len(p.evs))
	}
	// RETURNING promises no order: the fan-out sees the batch's.
	var subscribed []*ent.Event
	for i, ev := range p.evs {
		if holds[i] {
			subscribed = append(subscribed, ev)
		}
	}
	return subscribed, nil
}
