package webhooks

import (
	"context"
	"database/sql"
	"testing"
	"time"

	"github.com/riverqueue/river"

	"github.com/creativeops/creativeops/ent"
	"github.com/creativeops/creativeops/ent/delivery"
	"github.com/creativeops/creativeops/events"
	"github.com/creativeops/creativeops/ids"
	"github.com/creativeops/creativeops/internal/testdb"
	"github.com/creativeops/creativeops/internal/teststore"
)

// With the Subscribed condition, the event insert itself tells which events
// belong to an organization with an active webhook: only those reach the
// fan-out (whose query for webhooks the others are spared), in the batch's
// order, and every event is written whatever it says.
func TestEmitterSkipsOrganizationsWithoutWebhooks(t *testing.T) {
	for _, b := range testdb.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			ctx := context.Background()
			st := teststore.Open(t, b)
			disp := &Dispatcher{Schedule: Schedule{0, time.Minute}, Jitter: func() float64 { return 0.5 }}
			var err error
			if disp.River, err = river.NewClient(st.River, &river.Config{}); err != nil {
				t.Fatal(err)
			}
			hook := func(org string) *ent.WebhookCreate {
				return st.Ent.Webhook.Create().SetID(ids.New(ids.Webhook)).SetOrganizationID(org).
					SetURL("https://example.com/hook").SetEvents([]string{"*"}).SetSecret("sealed")
			}
			active := hook("org_a").SaveX(ctx)
			hook("org_deleted").SetDeletedAt(time.Now()).SaveX(ctx)
			hook("org_disabled").SetStatus(WebhookDisabled).SaveX(ctx)

			var fannedOut []*ent.Event
			emitter := events.NewEmitter(nil, func(ctx context.Context, tx *ent.Client, sqlTx *sql.Tx, evs []*ent.Event) error {
				fannedOut = append(fannedOut, evs...)
				return disp.FanOut(ctx, tx, sqlTx, evs)
			}).Subscribed(st.Dialect, Subscribed)
			batch := []events.Encoded{
				{OrganizationID: "org_a", Type: events.CreatorCreated, Data: []byte(`{"n":1}`)},
				{OrganizationID: "org_none", Type: events.CreatorCreated, Data: []byte(`{"n":2}`)},
				{OrganizationID: "org_deleted", Type: events.CreatorCreated, Data: []byte(`{"n":3}`)},
				{OrganizationID: "org_disabled", Type: events.CreatorCreated, Data: []byte(`{"n":4}`)},
				{OrganizationID: "org_a", Type: events.JobCompleted, Data: []byte(`{"n":5}`)},
			}
			var written []*ent.Event
			err = st.Tx(ctx, func(ctx context.Context, tx *ent.Client, sqlTx *sql.Tx) error {
				written, err = emitter.EmitBatch(ctx, tx, sqlTx, batch)
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
			if len(written) != len(batch) {
				t.Fatalf("%d events returned, want %d", len(written), len(batch))
			}
			for i, ev := range written {
				saved, err := st.Ent.Event.Get(ctx, ev.ID)
				if err != nil {
					t.Fatalf("event %d not written: %v", i, err)
				}
				if saved.OrganizationID != batch[i].OrganizationID || saved.Type != batch[i].Type || saved.Data != string(batch[i].Data) ||
					!saved.CreatedAt.Equal(ev.CreatedAt) {
					t.Fatalf("event %d written as %+v, returned as %+v", i, saved, ev)
				}
			}
			if len(fannedOut) != 2 || fannedOut[0] != written[0] || fannedOut[1] != written[4] {
				t.Fatalf("fanned out %v, want org_a's two events in order", fannedOut)
			}
			ds := st.Ent.Delivery.Query().Order(ent.Asc(delivery.FieldEventID)).AllX(ctx)
			if len(ds) != 2 || ds[0].WebhookID != active.ID || ds[1].WebhookID != active.ID {
				t.Fatalf("deliveries %v, want two to org_a's webhook", ds)
			}
		})
	}
}
