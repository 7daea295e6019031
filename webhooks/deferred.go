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

// maxFanOutSnooze bounds the wait for budget between two looks.
const maxFanOutSnooze = 30 * time.Second

// Work fans the event out, or snoozes until the budget could pay. Running
// twice (a rescue) creates nothing twice: webhooks that already have a
// delivery of the event are skipped.
func (w *FanOutWorker) Work(ctx context.Context, job *river.Job[FanOutArgs]) error {
	b := w.Dispatcher.FanOutBudget
	if org := job.Args.OrganizationID; b != nil && org != "" {
		if wait := b.waitFor(org, 1, time.Now()); wait > 0 {
			return river.JobSnooze(fanOutSnooze(wait, job))
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
			return river.JobSnooze(fanOutSnooze(b.waitFor(ev.OrganizationID, len(targets), now), job))
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

// fanOutSnooze is how long a deferred fan-out waits for its budget: at
// least until the budget could pay (wait), backing off like a
// slot-starved delivery so that many deferred events of one organization
// are not all looked at again each time the budget refills for one of
// them; at most maxFanOutSnooze.
func fanOutSnooze(wait time.Duration, job *river.Job[FanOutArgs]) time.Duration {
	return min(max(wait, snoozeFor(job.Metadata, snoozeOrganization)), maxFanOutSnooze)
}
