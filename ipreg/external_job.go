package ipreg

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"github.com/creativeops/creativeops/ent"
	"github.com/creativeops/creativeops/ent/ipexternaltimestamp"
	"github.com/creativeops/creativeops/ent/iprecord"
	"github.com/creativeops/creativeops/events"
	"github.com/creativeops/creativeops/storage"
)

// Queue is the River queue of the ip.timestamp jobs.
const Queue = "ip"

// timestampAttempts is how many times a batch's missing tokens are asked
// for: with River's backoff (attempt⁴ seconds) the last attempt is about
// eight days after the registration.
const timestampAttempts = 20

// TimestampArgs is the River job, one per sealed batch, that fetches the
// external timestamps of its records still pending. It is queued in the
// batch's transaction, so a registration committed is one whose tokens
// will be asked for, whatever happens to the replica.
type TimestampArgs struct {
	RecordIDs []string `json:"record_ids"`
}

// Kind names the River job kind.
func (TimestampArgs) Kind() string { return "ip.timestamp" }

// InsertOpts puts the job on its queue, with its retries.
func (TimestampArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: Queue, MaxAttempts: timestampAttempts}
}

// Inserter queues River jobs in a transaction (a *river.Client[*sql.Tx]).
type Inserter interface {
	InsertTx(ctx context.Context, tx *sql.Tx, args river.JobArgs, opts *river.InsertOpts) (*rivertype.JobInsertResult, error)
}

// External configures timestamps from independent authorities.
type External struct {
	// Authorities are the RFC 3161 authorities' URLs (CheckAuthorities).
	Authorities []string
	// Queue queues the ip.timestamp jobs in a batch's transaction.
	Queue Inserter
}

// Option configures OpenRegistry.
type Option func(*Registry)

// WithExternal has every registration also timestamped by ext's
// authorities.
func WithExternal(ext External) Option {
	return func(r *Registry) { r.external = ext }
}

// queueExternal records the pending external timestamps of a batch's
// records and queues the job that fetches them, in the batch's
// transaction: one insert and one job per batch.
func (r *Registry) queueExternal(ctx context.Context, tx *ent.Client, sqlTx *sql.Tx, rows []*ent.IPRecord) error {
	if len(r.external.Authorities) == 0 || len(rows) == 0 {
		return nil
	}
	creates := make([]*ent.IPExternalTimestampCreate, 0, len(rows)*len(r.external.Authorities))
	ids := make([]string, len(rows))
	for i, row := range rows {
		ids[i] = row.ID
		for _, a := range r.external.Authorities {
			creates = append(creates, tx.IPExternalTimestamp.Create().
				SetRecordID(row.ID).SetOrganizationID(row.OrganizationID).SetAuthority(a).SetCreatedAt(row.CreatedAt).SetUpdatedAt(row.CreatedAt))
		}
	}
	if err := tx.IPExternalTimestamp.CreateBulk(creates...).Exec(ctx); err != nil {
		return fmt.Errorf("store pending external timestamps: %w", err)
	}
	if _, err := r.external.Queue.InsertTx(ctx, sqlTx, TimestampArgs{RecordIDs: ids}, nil); err != nil {
		return fmt.Errorf("queue external timestamps: %w", err)
	}
	return nil
}

// externalTimestamps lists a record's external timestamps in the order of
// the authorities when it was registered.
func externalTimestamps(ctx context.Context, client *ent.Client, recordID string) ([]ExternalTimestamp, error) {
	rows, err := client.IPExternalTimestamp.Query().Where(ipexternaltimestamp.RecordID(recordID)).
		Order(ent.Asc(ipexternaltimestamp.FieldID)).All(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]ExternalTimestamp, len(rows))
	for i, row := range rows {
		out[i] = ExternalTimestamp{AuthorityURL: row.Authority, Status: row.Status, Error: row.LastError, Attempts: row.Attempts}
		if row.Token != nil {
			out[i].Token = *row.Token
		}
		if row.GenTime != nil {
			t := row.GenTime.UTC()
			out[i].GenTime = &t
		}
	}
	return out, nil
}

// CertificateUpdate is the data of ip.certificate.updated.
type CertificateUpdate struct {
	ID                 string
	CertificateID      string
	ExternalTimestamps []ExternalTimestamp
}

// TimestampWorker works the ip.timestamp jobs.
type TimestampWorker struct {
	river.WorkerDefaults[TimestampArgs]
	// Store is where the records and their timestamps are (the
	// background store).
	Store  *storage.Store
	Events *events.Emitter
	Client *TSAClient
	Log    *slog.Logger
	// Failed is told of every failed fetch, by authority (a metric).
	Failed func(authority string)
}

// Work asks each authority for the batch's records it has not stamped
// yet. An authority that fails is not asked again in this attempt (it is
// likely down; the rest of the batch would only wait for its timeouts).
// The tokens that arrived are stored, each record whose timestamps changed
// gets an ip.certificate.updated event, and if some are still missing the
// job fails so River retries it later; on the last attempt they are
// marked failed instead. An attempt that runs out of time (River's job
// timeout) stores what arrived before it ends, so a slow authority's
// batch progresses from one attempt to the next.
func (w *TimestampWorker) Work(ctx context.Context, job *river.Job[TimestampArgs]) error {
	pending, err := w.Store.Read.IPExternalTimestamp.Query().
		Where(ipexternaltimestamp.RecordIDIn(job.Args.RecordIDs...), ipexternaltimestamp.Status(ExternalPending)).
		Order(ent.Asc(ipexternaltimestamp.FieldID)).All(ctx)
	if err != nil || len(pending) == 0 {
		return err
	}
	recs, err := w.Store.Read.IPRecord.Query().Where(iprecord.IDIn(job.Args.RecordIDs...)).
		Select(iprecord.FieldID, iprecord.FieldRecordBytes, iprecord.FieldCertificateID, iprecord.FieldOrganizationID).All(ctx)
	if err != nil {
		return err
	}
	byID := make(map[string]*ent.IPRecord, len(recs))
	for _, rec := range recs {
		byID[rec.ID] = rec
	}
	byAuthority := map[string][]*ent.IPExternalTimestamp{}
	var order []string
	for _, row := range pending {
		if byAuthority[row.Authority] == nil {
			order = append(order, row.Authority)
		}
		byAuthority[row.Authority] = append(byAuthority[row.Authority], row)
	}
	type outcome struct {
		token   []byte
		genTime time.Time
		err     error
	}
	results := make(map[*ent.IPExternalTimestamp]outcome, len(pending))
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, authority := range order {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var down error
			for _, row := range byAuthority[authority] {
				var o outcome
				switch rec := byID[row.RecordID]; {
				case down != nil:
					o.err = down
				case rec == nil:
					o.err = fmt.Errorf("record %s not found", row.RecordID)
				case ctx.Err() != nil:
					// Out of time (the job's timeout, or shutting down):
					// what arrived is stored, the rest waits for the retry.
					o.err = ctx.Err()
				default:
					der, info, err := w.Client.Fetch(ctx, authority, sha256.Sum256(rec.RecordBytes))
					o = outcome{token: der, genTime: info.GenTime, err: err}
					if err != nil && ctx.Err() == nil {
						down = err
						w.Failed(authority)
						w.Log.Warn("timestamp authority failed", "authority", authority, "record", row.RecordID, "attempt", job.Attempt, "error", err)
					}
				}
				mu.Lock()
				results[row] = o
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	interrupted := ctx.Err()
	if interrupted != nil {
		// Keep the tokens that arrived: a batch of a slow authority
		// then progresses from one attempt to the next.
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		defer cancel()
	}

	final := job.Attempt >= job.MaxAttempts
	missing := 0
	err = w.Store.Tx(ctx, func(ctx context.Context, tx *ent.Client, sqlTx *sql.Tx) error {
		changed := map[string]bool{}
		for _, row := range pending {
			o := results[row]
			// Only a row still pending is written: a job run twice (a
			// rescue) never replaces a token.
			upd := tx.IPExternalTimestamp.Update().
				Where(ipexternaltimestamp.ID(row.ID), ipexternaltimestamp.Status(ExternalPending)).
				AddAttempts(1)
			switch {
			case o.err == nil:
				upd.SetStatus(ExternalOK).SetToken(o.token).SetGenTime(o.genTime).SetLastError("")
			case final:
				upd.SetStatus(ExternalFailed).SetLastError(truncate(o.err.Error(), 500))
			default:
				upd.SetLastError(truncate(o.err.Error(), 500))
				missing++
			}
			n, err := upd.Save(ctx)
			if err != nil {
				return err
			}
			if n > 0 && (o.err == nil || final) {
				changed[row.RecordID] = true
			}
		}
		for _, id := range job.Args.RecordIDs {
			rec := byID[id]
			if !changed[id] || rec == nil {
				continue
			}
			ets, err := externalTimestamps(ctx, tx, id)
			if err != nil {
				return err
			}
			if _, err := w.Events.Emit(ctx, tx, sqlTx, rec.OrganizationID, events.IPCertificateUpdated,
				&CertificateUpdate{ID: id, CertificateID: rec.CertificateID, ExternalTimestamps: ets}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	if interrupted != nil {
		return interrupted
	}
	if missing > 0 {
		return fmt.Errorf("%d external timestamps still pending", missing)
	}
	return nil
}

// truncate makes an error storable: at most n bytes, valid UTF-8, no NUL
// (PostgreSQL stores none), whatever an authority answered.
func truncate(s string, n int) string {
	if len(s) > n {
		s = s[:n]
	}
	return strings.ReplaceAll(strings.ToValidUTF8(s, ""), "\x00", "")
}
