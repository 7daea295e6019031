package webhooks

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"time"

	"github.com/riverqueue/river"

	"github.com/creativeops/creativeops/ent"
	"github.com/creativeops/creativeops/ent/delivery"
	"github.com/creativeops/creativeops/ent/webhook"
	"github.com/creativeops/creativeops/storage"
)

// FanOutArgs is the River job that fans out an event its organization's
// budget could not pay for when it happened. Without deferral, an
// organization with 50 webhooks creating creators at its rate limit wrote
// a delivery and a queue job per webhook inside each request: 100 rows per
// request, thousands a second, which on SQLite held the one writer most of
// the time and slowed every other organization's writes. Deferred, the
// request writes one job, and the deliveries are created at the budget's
// pace, which is well above what an application needs and well below what
// fills the database.
type FanOutArgs struct {
	EventID string `json:"event_id"`
	// OrganizationID is the event's organization, so that a job its
	// budget cannot pay for yet is put off before anything is read (jobs
	// enqueued before it was added have none and read first).
	OrganizationID string `json:"organization_id,omitempty"`
	// Deliveries is how many deliveries the event had to fan out when it
	// was deferred: what the job waits for the budget to pay.
	Deliveries int `json:"deliveries,omitempty"`
	// NotBefore is the job's turn (see Budget.park) when it is queued
	// available rather than scheduled (a turn within immediateWithin):
	// fetched earlier, it snoozes until then.
	NotBefore time.Time `json:"not_before,omitzero"`
}

// Kind names the River job kind.
func (FanOutArgs) Kind() string { return "webhooks.fan_out" }

// InsertOpts puts deferred fan-outs on the delivery queue, behind every
// organization's deliveries at normal priority.
func (FanOutArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: Queue, MaxAttempts: maxJobAttempts, Priority: priorityBacklog}
}

// FanOutWorker creates a deferred event's deliveries once its
// organization's fan-out budget pays for them, to the webhooks subscribed
// then.
type FanOutWorker struct {
	river.WorkerDefaults[FanOutArgs]
	Store      *storage.Store
	Dispatcher *Dispatcher
}

// Work fans the event out, or snoozes until the budget could pay. Running
// twice (a rescue) creates nothing twice: webhooks that already have a
// delivery of the event are skipped.
func (w *FanOutWorker) Work(ctx context.Context, job *river.Job[FanOutArgs]) error {
	if wait := time.Until(job.Args.NotBefore); wait > 0 {
		return river.JobSnooze(wait)
	}
	b := w.Dispatcher.FanOutBudget
	if org, n := job.Args.OrganizationID, max(job.Args.Deliveries, 1); b != nil && org != "" {
		if now := time.Now(); b.waitFor(org, n, now) > 0 {
			return river.JobSnooze(b.park(org, n, now))
		}
	}
	ev, err := w.Store.Read.Event.Get(ctx, job.Args.EventID)
	if ent.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	hooks, err := w.Store.Read.Webhook.Query().
		Where(webhook.OrganizationID(ev.OrganizationID), webhook.Status(WebhookActive), webhook.DeletedAtIsNil()).
		Select(webhook.FieldID, webhook.FieldEvents).
		All(ctx)
	if err != nil {
		return err
	}
	done, err := w.Store.Read.Delivery.Query().Where(delivery.EventID(ev.ID)).Select(delivery.FieldWebhookID).Strings(ctx)
	if err != nil {
		return err
	}
	var targets []target
	for _, wh := range hooks {
		if Matches(wh.Events, ev.Type) && !slices.Contains(done, wh.ID) {
			targets = append(targets, target{ev, wh.ID})
		}
	}
	if len(targets) == 0 {
		return nil
	}
	more := false
	if b != nil {
		// At most a burst at a time; the job comes back for the rest.
		more = len(targets) > b.Burst
		targets = targets[:min(len(targets), b.Burst)]
		now := time.Now()
		if !b.takeAll(ev.OrganizationID, len(targets), now) {
			return river.JobSnooze(b.park(ev.OrganizationID, len(targets), now))
		}
	}
	err = w.Store.Tx(ctx, func(ctx context.Context, tx *ent.Client, sqlTx *sql.Tx) error {
		_, err := w.Dispatcher.enqueue(ctx, tx, sqlTx, targets)
		return err
	})
	if err != nil {
		return fmt.Errorf("webhooks: deferred fan-out: %w", err)
	}
	if more {
		return river.JobSnooze(0)
	}
	return nil
}
