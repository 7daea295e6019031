package webhooks

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/riverqueue/river"

	"github.com/creativeops/creativeops/ent"
	"github.com/creativeops/creativeops/ent/delivery"
	"github.com/creativeops/creativeops/ent/event"
	"github.com/creativeops/creativeops/ent/webhook"
	"github.com/creativeops/creativeops/events"
	"github.com/creativeops/creativeops/ids"
)

// Webhook statuses.
const (
	WebhookActive = "active"
	// WebhookDisabled: the endpoint answered 410 Gone; it receives nothing
	// more.
	WebhookDisabled = "disabled"
)

// Delivery statuses.
const (
	DeliveryPending   = "pending"
	DeliverySucceeded = "succeeded"
	// DeliveryFailed: retries exhausted, endpoint gone (410), or the
	// webhook was disabled or deleted before the delivery completed.
	DeliveryFailed = "failed"
)

// Queue is the River queue deliveries run on, separate from engine runs so
// that a slow customer endpoint never delays a job, nor the reverse.
const Queue = "webhooks"

// maxJobAttempts bounds River's own retries of a delivery job. Failed HTTP
// attempts never count against it (they follow the Schedule, each as a new
// job); only errors of our own, such as a database outage while recording
// an attempt, do.
const maxJobAttempts = 10

// immediateWithin is the delay under which a retry job is inserted as
// available and the worker snoozes it until the attempt is due. River
// promotes scheduled jobs only every 5 seconds (its scheduler interval, not
// configurable), which would stretch a 1 s retry into 5; a snoozed job
// shorter than that interval is made available at once with its due time,
// which the fetch query honours to the poll interval.
const immediateWithin = 4 * time.Second

// DeliverArgs is the River job that makes the next attempt of a delivery.
type DeliverArgs struct {
	DeliveryID string `json:"delivery_id"`
	// Attempt is how many attempts the delivery had when the job was
	// enqueued. The job only acts while the delivery still has that many,
	// so a job run twice (a rescue after a crash, a retry after the
	// attempt was recorded) cannot record or send a later attempt twice.
	Attempt int `json:"attempt"`
	// OrganizationID is the delivery's organization, so that a job whose
	// organization holds all its slots is put off before anything is read
	// (jobs enqueued before it was added have none and read first).
	OrganizationID string `json:"organization_id,omitempty"`
}

// Kind names the River job kind.
func (DeliverArgs) Kind() string { return "webhooks.deliver" }

// InsertOpts puts deliveries on their queue.
func (DeliverArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: Queue, MaxAttempts: maxJobAttempts}
}

// Dispatcher turns events into deliveries. Everything it writes goes into
// the caller's transaction, so an event and its deliveries and their queue
// jobs commit, or vanish, together.
type Dispatcher struct {
	// River inserts the delivery jobs; set once the client exists.
	River *river.Client[*sql.Tx]
	// Schedule is the retry schedule (DefaultSchedule when empty).
	Schedule Schedule
	// Jitter returns values in [0, 1) for the schedule (nil: random).
	Jitter func() float64
	// Budget, when set, queues an organization's deliveries beyond its
	// budget behind other organizations' (see Budget).
	Budget *Budget
	// FanOutBudget, when set, defers the fan-out of an organization's
	// events beyond it out of the emitting transaction (see FanOutArgs).
	FanOutBudget *Budget
	// Slots, when set, is the instance's delivery slots (the Worker's).
	// Deliveries of an organization that holds all its slots when they are
	// enqueued go to the backlog, without spending its budget: none could
	// start before one of its running deliveries ends, and at normal
	// priority each would be fetched ahead of other organizations'
	// deliveries only to be moved back (see Worker.moveToBacklog). An
	// organization whose receivers hang thus no longer puts its budget's
	// burst in front of everyone else's next delivery.
	Slots *Slots
}

// priorities gives each of an organization-ordered list of new deliveries
// its job priority: backlog for an organization holding all its slots,
// else as its budget pays (see Budget.priorities). parked is how long the
// former wait for their turn among the organization's parked jobs (see
// Slots.park); zero for the others.
func (d *Dispatcher) priorities(orgs []string, now time.Time) (prio []int, parked []time.Duration) {
	full := map[string]bool{}
	paying := make([]string, 0, len(orgs))
	for _, org := range orgs {
		if _, seen := full[org]; !seen {
			full[org] = d.Slots.organizationFull(org)
		}
		if !full[org] {
			paying = append(paying, org)
		}
	}
	paid := d.Budget.priorities(paying, now)
	prio, parked = make([]int, len(orgs)), make([]time.Duration, len(orgs))
	for i, org := range orgs {
		if full[org] {
			prio[i], parked[i] = priorityBacklog, d.Slots.park(org, now)
			continue
		}
		prio[i], paid = paid[0], paid[1:]
	}
	return prio, parked
}

func (d *Dispatcher) schedule() Schedule {
	if len(d.Schedule) == 0 {
		return DefaultSchedule
	}
	return d.Schedule
}

// Subscribed is the condition on a new event row under which FanOut can
// have work for it: its organization has an active webhook (for
// events.Emitter.Subscribed; the same SQL on SQLite and PostgreSQL). The
// event's type is matched in FanOut, against each webhook's list.
var Subscribed = fmt.Sprintf(`EXISTS (SELECT 1 FROM %q WHERE %q.%q = %q.%q AND %q.%q = '%s' AND %q.%q IS NULL)`,
	webhook.Table,
	webhook.Table, webhook.FieldOrganizationID, event.Table, event.FieldOrganizationID,
	webhook.Table, webhook.FieldStatus, WebhookActive,
	webhook.Table, webhook.FieldDeletedAt)

// FanOut is an events.FanOut: for every event it creates one delivery to
// each active webhook of the event's organization subscribed to its type,
// reading each organization's webhooks once per batch. webhook.test events
// are left out: they are addressed to one webhook, by Enqueue.
func (d *Dispatcher) FanOut(ctx context.Context, tx *ent.Client, sqlTx *sql.Tx, evs []*ent.Event) error {
	subscribers := map[string][]*ent.Webhook{}
	var targets []target
	for _, ev := range evs {
		if ev.Type == events.WebhookTest {
			continue
		}
		hooks, ok := subscribers[ev.OrganizationID]
		if !ok {
			var err error
			hooks, err = tx.Webhook.Query().
				Where(webhook.OrganizationID(ev.OrganizationID), webhook.Status(WebhookActive), webhook.DeletedAtIsNil()).
				Select(webhook.FieldID, webhook.FieldEvents).
				All(ctx)
			if err != nil {
				return fmt.Errorf("webhooks: find subscribers: %w", err)
			}
			subscribers[ev.OrganizationID] = hooks
		}
		var mine []target
		for _, wh := range hooks {
			if Matches(wh.Events, ev.Type) {
				mine = append(mine, target{ev, wh.ID})
			}
		}
		if len(mine) == 0 {
			continue
		}
		// An event the organization's fan-out budget cannot pay for whole
		// is fanned out later, at the budget's pace (see FanOutWorker): one
		// job now instead of a delivery and a job per webhook.
		if !d.FanOutBudget.takeAll(ev.OrganizationID, len(mine), time.Now()) {
			if d.River == nil {
				return errors.New("webhooks: dispatcher has no River client")
			}
			// Queued for its turn: it could not be paid for sooner. A turn
			// within immediateWithin is kept by the job itself (River
			// would promote a scheduled job up to its scheduler interval
			// late), a later one by River.
			now := time.Now()
			turn := now.Add(d.FanOutBudget.park(ev.OrganizationID, len(mine), now))
			args := FanOutArgs{EventID: ev.ID, OrganizationID: ev.OrganizationID, Deliveries: len(mine), NotBefore: turn}
			opts := &river.InsertOpts{}
			if turn.Sub(now) > immediateWithin {
				opts.ScheduledAt = turn
			}
			if _, err := d.River.InsertTx(ctx, sqlTx, args, opts); err != nil {
				return fmt.Errorf("webhooks: defer fan-out: %w", err)
			}
			continue
		}
		targets = append(targets, mine...)
	}
	_, err := d.enqueue(ctx, tx, sqlTx, targets)
	return err
}

// target is one delivery to create: an event to a webhook.
type target struct {
	ev        *ent.Event
	webhookID string
}

// Enqueue creates a delivery of ev to one webhook, whatever the webhook
// subscribes to: for webhook.test and redeliveries.
func (d *Dispatcher) Enqueue(ctx context.Context, tx *ent.Client, sqlTx *sql.Tx, ev *ent.Event, webhookID string) (*ent.Delivery, error) {
	out, err := d.enqueue(ctx, tx, sqlTx, []target{{ev, webhookID}})
	if err != nil {
		return nil, err
	}
	return out[0], nil
}

// maxDeliveryRows keeps one insert of ten-column rows under SQLite's and
// PostgreSQL's bound-parameter limits.
const maxDeliveryRows = 300

// enqueue creates deliveries and their jobs, at the priorities the
// budget gives them.
func (d *Dispatcher) enqueue(ctx context.Context, tx *ent.Client, sqlTx *sql.Tx, targets []target) ([]*ent.Delivery, error) {
	if len(targets) == 0 {
		return nil, nil
	}
	if d.River == nil {
		return nil, errors.New("webhooks: dispatcher has no River client")
	}
	t := now()
	delay, _ := d.schedule().Next(0, d.Jitter)
	due := t.Add(delay)
	ds := make([]*ent.Delivery, 0, len(targets))
	for part := range slices.Chunk(targets, maxDeliveryRows) {
		creates := make([]*ent.DeliveryCreate, len(part))
		for i, tg := range part {
			creates[i] = tx.Delivery.Create().
				SetID(ids.New(ids.Delivery)).
				SetOrganizationID(tg.ev.OrganizationID).
				SetWebhookID(tg.webhookID).
				SetEventID(tg.ev.ID).
				SetEventType(tg.ev.Type).
				SetStatus(DeliveryPending).
				SetNextRetryAt(due).
				SetCreatedAt(t).
				SetUpdatedAt(t)
		}
		saved, err := tx.Delivery.CreateBulk(creates...).Save(ctx)
		if err != nil {
			return nil, fmt.Errorf("webhooks: create deliveries: %w", err)
		}
		ds = append(ds, saved...)
	}
	orgs := make([]string, len(ds))
	for i, dl := range ds {
		orgs[i] = dl.OrganizationID
	}
	prio, parked := d.priorities(orgs, time.Now())
	jobs := make([]river.InsertManyParams, len(ds))
	for i, dl := range ds {
		opts := jobOpts(t, due, prio[i])
		if until := t.Add(parked[i]); parked[i] > 0 && until.After(due) {
			// Scheduled even when soon: available, it would be fetched at
			// once and parked again.
			opts.ScheduledAt = until
		}
		jobs[i] = river.InsertManyParams{Args: DeliverArgs{DeliveryID: dl.ID, OrganizationID: dl.OrganizationID}, InsertOpts: opts}
	}
	if _, err := d.River.InsertManyTx(ctx, sqlTx, jobs); err != nil {
		return nil, fmt.Errorf("webhooks: enqueue deliveries: %w", err)
	}
	return ds, nil
}

// jobOpts schedules a job for due (see immediateWithin) at priority.
func jobOpts(now, due time.Time, priority int) *river.InsertOpts {
	if due.Sub(now) <= immediateWithin {
		return &river.InsertOpts{Priority: priority}
	}
	return &river.InsertOpts{ScheduledAt: due, Priority: priority}
}

// StopDeliveries fails the pending deliveries of a webhook that was just
// disabled or deleted, in the caller's transaction. Their queued jobs then
// find nothing to do, so the endpoint receives nothing more.
func StopDeliveries(ctx context.Context, tx *ent.Client, webhookID, reason string) error {
	t := now()
	_, err := tx.Delivery.Update().
		Where(delivery.WebhookID(webhookID), delivery.Status(DeliveryPending)).
		SetStatus(DeliveryFailed).
		SetLastError(reason).
		ClearNextRetryAt().
		SetCompletedAt(t).
		SetUpdatedAt(t).
		Save(ctx)
	return err
}

// Times are kept to the microsecond, the precision PostgreSQL stores, so
// both databases return the same values.
func now() time.Time { return time.Now().UTC().Truncate(time.Microsecond) }
