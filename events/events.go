// Package events records what happens in the service (a job completed, a
// work registered, a creator created) as event rows written in the same
// transaction as the change itself. Webhook deliveries are fanned out from
// them, so a crash between the change and its notification loses nothing.
package events

import (
	"context"
	"database/sql"
	"slices"
	"time"

	"github.com/creativeops/creativeops/ent"
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
}

// NewEmitter returns an emitter that encodes event data with encode and
// hands the events it writes to fanOut (nil: no webhooks).
func NewEmitter(encode Encoder, fanOut FanOut) *Emitter {
	return &Emitter{encode: encode, fanOut: fanOut}
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
	for part := range slices.Chunk(batch, maxBatchRows) {
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
	}
	if e != nil && e.fanOut != nil && len(evs) > 0 {
		if err := e.fanOut(ctx, tx, sqlTx, evs); err != nil {
			return nil, err
		}
	}
	return evs, nil
}
