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
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"entgo.io/ent/dialect"
	entsql "entgo.io/ent/dialect/sql"

	"github.com/creativeops/creativeops/ent"
	"github.com/creativeops/creativeops/ent/event"
	"github.com/creativeops/creativeops/ent/eventsequence"
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
			saved, sub, err := e.insert(ctx, tx, sqlTx, part, at)
			if err != nil {
				return nil, err
			}
			evs, subscribed = append(evs, saved...), append(subscribed, sub...)
			continue
		}
		seqs, err := e.sequences(ctx, tx, sqlTx, part)
		if err != nil {
			return nil, err
		}
		creates := make([]*ent.EventCreate, len(part))
		for i, b := range part {
			creates[i] = tx.Event.Create().
				SetID(ids.New(ids.Event)).
				SetOrganizationID(b.OrganizationID).
				SetType(b.Type).
				SetData(string(b.Data)).
				SetCreatedAt(at).
				SetSequence(seqs[i]).
				SetObjectID(ObjectID(b.Data)).
				SetCreatorID(CreatorID(b.Data))
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
func (e *Emitter) insert(ctx context.Context, tx *ent.Client, sqlTx *sql.Tx, batch []Encoded, at time.Time) (evs, subscribed []*ent.Event, err error) {
	p, err := e.Prepare(ctx, tx, sqlTx, batch, at)
	if err != nil {
		return nil, nil, err
	}
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
// belongs to, on PostgreSQL), after taking the events' sequence numbers in
// the caller's transaction (see sequences). The caller runs the insert
// inside that transaction and hands what it returned to Finish.
func (e *Emitter) Prepare(ctx context.Context, tx *ent.Client, sqlTx *sql.Tx, batch []Encoded, at time.Time) (*Prepared, error) {
	cond := "(TRUE)" // parenthesised: not an identifier to quote
	if e != nil && e.subscribed != "" {
		cond = e.subscribed
	}
	seqs, err := e.sequences(ctx, tx, sqlTx, batch)
	if err != nil {
		return nil, err
	}
	p := &Prepared{
		e:   e,
		evs: make([]*ent.Event, len(batch)),
		pos: make(map[string]int, len(batch)),
		Insert: entsql.Insert(event.Table).
			Columns(event.FieldID, event.FieldOrganizationID, event.FieldType, event.FieldData, event.FieldCreatedAt,
				event.FieldSequence, event.FieldObjectID, event.FieldCreatorID),
	}
	for i, b := range batch {
		creator := CreatorID(b.Data)
		ev := &ent.Event{ID: ids.New(ids.Event), OrganizationID: b.OrganizationID, Type: b.Type, Data: string(b.Data), CreatedAt: at,
			Sequence: seqs[i], ObjectID: ObjectID(b.Data), CreatorID: &creator}
		p.Insert.Values(ev.ID, ev.OrganizationID, ev.Type, ev.Data, ev.CreatedAt, ev.Sequence, ev.ObjectID, creator)
		p.evs[i], p.pos[ev.ID] = ev, i
	}
	p.Insert.Returning(event.FieldID, cond)
	return p, nil
}

// sequences takes the next sequence numbers of the batch's organizations
// and returns each event's, in the batch's order. The organization's
// EventSequence row is written (upserted) in the caller's transaction and
// stays locked until it ends, so an organization's emitting transactions
// take their numbers one after another and each commits before the next
// one can take any: a reader that has seen number n will never later see
// a smaller one appear (on SQLite, whose writers are serialised anyway,
// as on PostgreSQL). The rows are written in the order of their ids, so
// two transactions of several organizations cannot wait for each other.
func (e *Emitter) sequences(ctx context.Context, tx *ent.Client, sqlTx *sql.Tx, batch []Encoded) ([]int64, error) {
	counts := map[string]int64{}
	for _, b := range batch {
		counts[b.OrganizationID]++
	}
	orgs := make([]string, 0, len(counts))
	for org := range counts {
		orgs = append(orgs, org)
	}
	slices.Sort(orgs)
	last := make(map[string]int64, len(orgs))
	if e != nil && e.dialect != "" && sqlTx != nil {
		// One statement: every organization's row, added to and read back.
		var b strings.Builder
		args := make([]any, 0, 2*len(orgs))
		fmt.Fprintf(&b, `INSERT INTO %q (%q, %q) VALUES `, eventsequence.Table, eventsequence.FieldID, eventsequence.FieldLast)
		for i, org := range orgs {
			if i > 0 {
				b.WriteString(", ")
			}
			if e.dialect == dialect.Postgres {
				fmt.Fprintf(&b, "($%d, $%d)", 2*i+1, 2*i+2)
			} else {
				b.WriteString("(?, ?)")
			}
			args = append(args, org, counts[org])
		}
		fmt.Fprintf(&b, ` ON CONFLICT (%q) DO UPDATE SET %q = %q.%q + excluded.%q RETURNING %q, %q`,
			eventsequence.FieldID, eventsequence.FieldLast, eventsequence.Table, eventsequence.FieldLast, eventsequence.FieldLast,
			eventsequence.FieldID, eventsequence.FieldLast)
		rows, err := sqlTx.QueryContext(ctx, b.String(), args...)
		if err != nil {
			return nil, fmt.Errorf("events: take sequence numbers: %w", err)
		}
		defer rows.Close()
		for rows.Next() {
			var org string
			var n int64
			if err := rows.Scan(&org, &n); err != nil {
				return nil, err
			}
			last[org] = n
		}
		if err := rows.Err(); err != nil {
			return nil, err
		}
	} else {
		for _, org := range orgs {
			err := tx.EventSequence.Create().SetID(org).SetLast(counts[org]).
				OnConflictColumns(eventsequence.FieldID).AddLast(counts[org]).Exec(ctx)
			if err != nil {
				return nil, fmt.Errorf("events: take sequence numbers: %w", err)
			}
		}
		rows, err := tx.EventSequence.Query().Where(eventsequence.IDIn(orgs...)).All(ctx)
		if err != nil {
			return nil, err
		}
		for _, r := range rows {
			last[r.ID] = r.Last
		}
	}
	// Each organization's numbers run up to its last, in batch order.
	next := make(map[string]int64, len(orgs))
	for _, org := range orgs {
		n, ok := last[org]
		if !ok {
			return nil, fmt.Errorf("events: no sequence number for organization %q", org)
		}
		next[org] = n - counts[org] + 1
	}
	out := make([]int64, len(batch))
	for i, b := range batch {
		out[i] = next[b.OrganizationID]
		next[b.OrganizationID]++
	}
	return out, nil
}

// ObjectID is the id of the resource an event's data is about: its "id",
// or, for data that wraps or refers to a plan, the plan's ("plan_id", or
// "plan"'s "id"). Empty when the data names none.
func ObjectID(data []byte) string {
	var v struct {
		ID     string `json:"id"`
		PlanID string `json:"plan_id"`
		Plan   *struct {
			ID string `json:"id"`
		} `json:"plan"`
	}
	if json.Unmarshal(data, &v) != nil {
		return ""
	}
	switch {
	case v.ID != "":
		return v.ID
	case v.PlanID != "":
		return v.PlanID
	case v.Plan != nil:
		return v.Plan.ID
	}
	return ""
}

// CreatorID is the creator an event's data names: the creator_id of the
// resource (a job, a plan, an IP record), of the plan it carries (a
// re-plan, a reminder) or of the job, or the id of a creator itself; ""
// for none.
func CreatorID(data []byte) string {
	type named struct {
		CreatorID string `json:"creator_id"`
	}
	var v struct {
		named
		ID   string `json:"id"`
		Plan *named `json:"plan"`
		Job  *named `json:"job"`
	}
	if json.Unmarshal(data, &v) != nil {
		return ""
	}
	switch {
	case v.CreatorID != "":
		return v.CreatorID
	case strings.HasPrefix(v.ID, ids.Creator+"_"):
		return v.ID
	case v.Plan != nil && v.Plan.CreatorID != "":
		return v.Plan.CreatorID
	case v.Job != nil && v.Job.CreatorID != "":
		return v.Job.CreatorID
	}
	return ""
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
