// Package events records what happens in the service (a job completed, a
// work registered, a creator created) as event rows written in the same
// transaction as the change itself. Webhook deliveries are fanned out from
// them, so a crash between the change and its notification loses nothing.
package events

import (
	"context"
	"database/sql"
	"time"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

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

// Marshal renders a resource exactly as the REST API returns it.
var Marshal = protojson.MarshalOptions{UseProtoNames: true, EmitUnpopulated: true}

// FanOut is called inside the emitting transaction for every event, so
// deliveries are enqueued atomically with it. Nil until webhooks are wired.
type FanOut func(ctx context.Context, tx *ent.Client, sqlTx *sql.Tx, ev *ent.Event) error

// Emitter writes events.
type Emitter struct {
	FanOut FanOut
}

// Encode renders an event's data. Callers encode before opening their
// transaction, so the database's write lock is not held while JSON is built.
func Encode(data proto.Message) ([]byte, error) { return Marshal.Marshal(data) }

// Emit records an event inside the caller's transaction.
func (e *Emitter) Emit(ctx context.Context, tx *ent.Client, sqlTx *sql.Tx, orgID, typ string, data proto.Message) (*ent.Event, error) {
	b, err := Encode(data)
	if err != nil {
		return nil, err
	}
	return e.EmitEncoded(ctx, tx, sqlTx, orgID, typ, b)
}

// EmitEncoded records an event whose data is already encoded (see Encode)
// inside the caller's transaction.
func (e *Emitter) EmitEncoded(ctx context.Context, tx *ent.Client, sqlTx *sql.Tx, orgID, typ string, data []byte) (*ent.Event, error) {
	ev, err := tx.Event.Create().
		SetID(ids.New(ids.Event)).
		SetOrganizationID(orgID).
		SetType(typ).
		SetData(string(data)).
		SetCreatedAt(time.Now().UTC().Truncate(time.Microsecond)).
		Save(ctx)
	if err != nil {
		return nil, err
	}
	if e != nil && e.FanOut != nil {
		if err := e.FanOut(ctx, tx, sqlTx, ev); err != nil {
			return nil, err
		}
	}
	return ev, nil
}
