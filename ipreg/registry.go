package ipreg

import (
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"math/big"
	"slices"
	"strings"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"entgo.io/ent/dialect"
	entsql "entgo.io/ent/dialect/sql"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/oklog/ulid/v2"
	"go.opentelemetry.io/otel/trace"
	"golang.org/x/mod/sumdb/tlog"

	"github.com/creativeops/creativeops/apierror"
	"github.com/creativeops/creativeops/audit"
	"github.com/creativeops/creativeops/ent"
	"github.com/creativeops/creativeops/ent/iprecord"
	"github.com/creativeops/creativeops/ent/loghash"
	"github.com/creativeops/creativeops/ent/logstate"
	"github.com/creativeops/creativeops/ent/predicate"
	"github.com/creativeops/creativeops/ent/signingkey"
	"github.com/creativeops/creativeops/events"
	"github.com/creativeops/creativeops/ids"
	"github.com/creativeops/creativeops/secrets"
	"github.com/creativeops/creativeops/storage"
)

// maxBatch bounds how many registrations share one checkpoint.
const maxBatch = 256

// Registry registers works: it timestamps each record, appends it to the
// transparency log and signs a checkpoint covering it, in one transaction
// with the record and its ip.registered event. Registrations that arrive
// while a batch is being sealed are sealed together in the next one, so
// under load many records share one checkpoint signature and one commit.
type Registry struct {
	store  *storage.Store
	events *events.Emitter
	log    *slog.Logger

	keys *Keys

	queue chan *pending
	stop  context.CancelFunc
	done  chan struct{}

	// staleAt is when (Unix nanoseconds) a plan made ahead last found the
	// log moved on under it: on PostgreSQL, another replica appending.
	staleAt atomic.Int64
	// advanced counts batches whose plan made ahead moved the head
	// without taking the lock first (see advance).
	advanced atomic.Int64
	// rechecked counts batches planned again with the duplicate query
	// after their insert found registered content (see commit).
	rechecked atomic.Int64
	// tail is the current log's head and right edge as last committed.
	tail logTail
	// witnesses submits checkpoints to witnesses (StartWitnesses).
	witnesses atomic.Pointer[witnessing]
	// external is the independent timestamp authorities (WithExternal).
	external External
	// titleStats are the titles' statistics on PostgreSQL, which say
	// which words of a title search are common (uncommonWords).
	titleStats titleStats
}

// Registration is a work to register.
type Registration struct {
	OrganizationID string
	CreatorID      string
	Title          string
	Type           string
	ContentHash    string // normalised
	Description    string
}

// storable refuses, before it can join a batch, text the database would
// refuse (PostgreSQL stores no NUL bytes) or could not return as valid UTF-8.
func (reg Registration) storable() error {
	for _, f := range []struct{ name, value string }{
		{"creator_id", reg.CreatorID}, {"title", reg.Title}, {"type", reg.Type},
		{"content_hash", reg.ContentHash}, {"description", reg.Description},
	} {
		switch {
		case strings.IndexByte(f.value, 0) >= 0:
			return apierror.InvalidField(f.name, "must not contain NUL bytes")
		case !utf8.ValidString(f.value):
			return apierror.InvalidField(f.name, "must be valid UTF-8")
		}
	}
	return nil
}

type pending struct {
	reg Registration
	// row and leaf are the record as drafted by newPending: everything but
	// its log position.
	row  *ent.IPRecord
	leaf []byte
	rec  *ent.IPRecord
	err  error
	done chan struct{}
	// traced is the span of the request that registered it, if any.
	traced trace.Span
}

// OpenRegistry loads the current signing keys, creating them on the first
// start (every replica then loads the same ones), and starts the sequencer.
// The keys are stored sealed under keyring's master key; any stored in the
// clear (by an earlier version) or under an older master key are sealed
// again first (ResealKeys).
func OpenRegistry(ctx context.Context, store *storage.Store, keyring *secrets.Keyring, emitter *events.Emitter, log *slog.Logger, opts ...Option) (*Registry, error) {
	if n, err := ResealKeys(ctx, store, keyring); err != nil {
		return nil, err
	} else if n > 0 {
		log.Info("sealed IP registry keys under the master key", "keys", n, "master_key", keyring.SealingKeyID())
	}
	keys, err := loadOrCreateKeys(ctx, store, keyring)
	if err != nil {
		return nil, err
	}
	seqCtx, stop := context.WithCancel(context.WithoutCancel(ctx))
	r := &Registry{store: store, events: emitter, log: log, keys: keys, queue: make(chan *pending, 4*maxBatch), stop: stop, done: make(chan struct{})}
	for _, o := range opts {
		o(r)
	}
	if err := CheckAuthorities(r.external.Authorities); err != nil {
		stop()
		return nil, err
	}
	if len(r.external.Authorities) > 0 && r.external.Queue == nil {
		stop()
		return nil, errors.New("ipreg: timestamp authorities need a queue for their jobs")
	}
	go r.sequence(seqCtx)
	return r, nil
}

// Close stops the sequencer after the batch in progress.
func (r *Registry) Close() {
	r.stop()
	<-r.done
	if w := r.witnesses.Load(); w != nil {
		w.close()
	}
}

// Keys are the current signing keys.
func (r *Registry) Keys() *Keys { return r.keys }

// RotateKeys retires the current signing keys and creates new ones with a
// new log origin: records registered from then on go to a fresh log, and
// the retired keys stay published (GET /v1/ip/keys) so every certificate
// issued before keeps verifying. Running servers switch when restarted.
func RotateKeys(ctx context.Context, store *storage.Store, keyring *secrets.Keyring) (*Keys, error) {
	k, err := GenerateKeys(newOrigin(), time.Now())
	if err != nil {
		return nil, err
	}
	err = store.Tx(ctx, func(ctx context.Context, tx *ent.Client, _ *sql.Tx) error {
		if err := tx.SigningKey.Update().Where(signingkey.Current(true)).SetCurrent(false).Exec(ctx); err != nil {
			return err
		}
		if err := storeKeys(ctx, tx, keyring, k); err != nil {
			return err
		}
		return audit.Record(ctx, tx, audit.Entry{
			Action: audit.IPKeysRotated, TargetType: audit.TargetIPLog, TargetID: k.Origin(),
			Details: map[string]string{"verifier_key": k.VerifierKey()},
		})
	})
	if err != nil {
		return nil, err
	}
	return k, nil
}

func newOrigin() string { return "creativeops.dev/ip-log/" + ids.New("log")[4:] }

// storeKeys makes k the current keys and opens the empty log of its origin.
func storeKeys(ctx context.Context, tx *ent.Client, keyring *secrets.Keyring, k *Keys) error {
	plain, err := k.MarshalBinary()
	if err != nil {
		return err
	}
	keyID, material := keyring.Seal(plain, materialAAD(k.Origin()))
	if err := tx.SigningKey.Create().SetOrigin(k.Origin()).SetMaterial(material).SetMaterialKeyID(keyID).SetVerifierKey(k.VerifierKey()).
		SetTsaRootPem(string(k.RootPEM())).SetTsaCertPem(string(k.TSACertPEM())).Exec(ctx); err != nil {
		return err
	}
	return tx.LogState.Create().SetOrigin(k.Origin()).Exec(ctx)
}

func loadOrCreateKeys(ctx context.Context, store *storage.Store, keyring *secrets.Keyring) (*Keys, error) {
	for attempt := 0; attempt < 3; attempt++ {
		row, err := store.Ent.SigningKey.Query().Where(signingkey.Current(true)).Order(ent.Desc(signingkey.FieldCreatedAt)).First(ctx)
		if err == nil {
			plain, err := openMaterial(keyring, row)
			if err != nil {
				return nil, err
			}
			k := &Keys{}
			if err := k.UnmarshalBinary(plain); err != nil {
				return nil, fmt.Errorf("load IP registry keys: %w", err)
			}
			return k, nil
		}
		if !ent.IsNotFound(err) {
			return nil, err
		}
		k, err := GenerateKeys(newOrigin(), time.Now())
		if err != nil {
			return nil, err
		}
		err = store.Tx(ctx, func(ctx context.Context, tx *ent.Client, _ *sql.Tx) error {
			// Another replica may have created keys meanwhile: the first
			// committed set wins and everyone loads it on the next loop.
			if n, err := tx.SigningKey.Query().Where(signingkey.Current(true)).Count(ctx); err != nil || n > 0 {
				return errors.Join(err, errKeysExist)
			}
			return storeKeys(ctx, tx, keyring, k)
		})
		if err == nil {
			return k, nil
		}
		if !errors.Is(err, errKeysExist) && !ent.IsConstraintError(err) {
			return nil, err
		}
	}
	return nil, errors.New("could not load or create IP registry keys")
}

var errKeysExist = errors.New("keys exist")

// materialAAD binds sealed key material to its log origin.
func materialAAD(origin string) []byte { return []byte("creativeops ip registry keys\x00" + origin) }

// openMaterial returns the key material of a row: sealed, or in the clear
// when an earlier version stored it (no key id) and ResealKeys has not
// sealed it yet.
func openMaterial(keyring *secrets.Keyring, row *ent.SigningKey) ([]byte, error) {
	if row.MaterialKeyID == "" {
		return row.Material, nil
	}
	plain, err := keyring.Open(row.MaterialKeyID, row.Material, materialAAD(row.Origin))
	if err != nil {
		return nil, fmt.Errorf("IP registry keys of %s: %w", row.Origin, err)
	}
	return plain, nil
}

// ResealKeys seals under keyring's newest master key the key material of
// every log origin, retired ones included, stored in the clear (before
// keys were sealed) or under an older master key, and returns how many it
// rewrote. A row is rewritten only if it still has the key it was read
// with, so replicas starting together agree. Material sealed under a key
// the keyring lacks is an error: the master key files are not those the
// database was written with.
func ResealKeys(ctx context.Context, store *storage.Store, keyring *secrets.Keyring) (int, error) {
	current := keyring.SealingKeyID()
	rows, err := store.Ent.SigningKey.Query().Where(signingkey.MaterialKeyIDNEQ(current)).All(ctx)
	if err != nil {
		return 0, fmt.Errorf("find IP registry keys to seal: %w", err)
	}
	n := 0
	for _, row := range rows {
		plain, err := openMaterial(keyring, row)
		if err != nil {
			return n, err
		}
		keyID, sealed := keyring.Seal(plain, materialAAD(row.Origin))
		k := 0
		err = store.Tx(ctx, func(ctx context.Context, tx *ent.Client, _ *sql.Tx) error {
			var err error
			k, err = tx.SigningKey.Update().
				Where(signingkey.ID(row.ID), signingkey.MaterialKeyID(row.MaterialKeyID)).
				SetMaterial(sealed).SetMaterialKeyID(keyID).
				Save(ctx)
			if err != nil || k == 0 {
				return err
			}
			return audit.Record(ctx, tx, audit.Entry{
				Action: audit.SecretsResealed, TargetType: audit.TargetMasterKey, TargetID: keyID,
				Details: map[string]string{"kind": "IP registry keys", "ip_log": row.Origin},
			})
		})
		if err != nil {
			return n, fmt.Errorf("seal IP registry keys of %s: %w", row.Origin, err)
		}
		n += k
	}
	return n, nil
}

// SealingKeyIDs lists the master keys the registry's signing keys are
// sealed under ("" for keys an earlier version stored in the clear), so
// that a start can tell whether a new master key could open them.
func SealingKeyIDs(ctx context.Context, store *storage.Store) ([]string, error) {
	return store.Ent.SigningKey.Query().Unique(true).Select(signingkey.FieldMaterialKeyID).Strings(ctx)
}

// Register timestamps and logs a work. It returns once the record is
// covered by a signed checkpoint and committed.
func (r *Registry) Register(ctx context.Context, reg Registration) (*Work, error) {
	if err := reg.storable(); err != nil {
		return nil, err
	}
	p, err := r.newPending(reg)
	if err != nil {
		return nil, err
	}
	p.traced = trace.SpanFromContext(ctx)
	select {
	case r.queue <- p:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	select {
	case <-p.done:
		if p.err != nil {
			return nil, p.err
		}
		return toWork(p.rec), nil
	case <-ctx.Done():
		// The batch may still commit; the client can find the record in the
		// catalog by its content hash.
		return nil, ctx.Err()
	}
}

func (r *Registry) sequence(ctx context.Context) {
	defer close(r.done)
	// flights are the batches whose transactions are queued or running,
	// oldest first.
	var flights []*flight
	for {
		flights = slices.DeleteFunc(flights, (*flight).landed)
		var oldest chan struct{}
		if len(flights) > 0 {
			oldest = flights[0].done
		}
		var batch []*pending
		if len(flights) < maxFlights {
			select {
			case p := <-r.queue:
				batch = append(batch, p)
			case <-oldest:
				continue
			case <-ctx.Done():
				for _, f := range flights {
					<-f.done
				}
				return
			}
		} else {
			<-oldest
			continue
		}
	drain:
		for len(batch) < maxBatch {
			select {
			case p := <-r.queue:
				batch = append(batch, p)
			default:
				break drain
			}
		}
		flights = append(flights, r.seal(ctx, batch, flights))
	}
}

// stalePause is how long a PostgreSQL sequencer places its batches under
// the lock after a plan made ahead was found stale.
const stalePause = 10 * time.Second

// maxFlights bounds how many sealed batches wait for the writer at once:
// on SQLite the sequencer plans the next batch on top of the one being
// committed instead of waiting for it.
const maxFlights = 2

// flight is a batch handed to the database.
type flight struct {
	// plan is what the batch was planned as outside the transaction (nil
	// when it is placed under the head's lock); its transaction may still
	// place it again.
	plan *sealPlan
	done chan struct{}
}

func (f *flight) landed() bool {
	select {
	case <-f.done:
		return true
	default:
		return false
	}
}

// seal appends a batch to the log. What does not depend on the log's
// position (canonical bytes, timestamp tokens) was prepared by each
// registration before it queued (newPending). The rest (duplicate checks,
// tree hashes, the checkpoint signature, event payloads) is planned outside
// the write transaction, so the log head's lock (and on SQLite the single
// writer) is held only for the writes: against the log head as last
// committed, or, while earlier batches still wait for the lock, on top of
// the last of their plans. This process's sequencer runs its transactions
// in the order it queued them, so the plan is normally still current when
// the transaction locks the head. On PostgreSQL several replicas may
// append to one log, and a plan made outside the lock is stale when
// another replica appended meanwhile: for stalePause after a stale plan,
// batches are placed under the lock instead (with a fixed handful of
// statements however large the batch), since planning ahead would mostly
// be wasted. Either way, if the head is not the one the plan was built on
// (another sequencer appended, or an earlier batch failed), the batch is
// planned again under the lock.
//
// A batch shares one transaction, so a row the database refuses would fail
// every registration in it, other organizations' included: a batch that
// fails is sealed again one registration at a time, and only the ones that
// still fail report the error.
func (r *Registry) seal(ctx context.Context, batch []*pending, ahead []*flight) *flight {
	f := &flight{done: make(chan struct{})}
	ctx, span := startSealSpan(ctx, batch)
	wait := r.commit(ctx, f, batch, ahead)
	go func() {
		defer close(f.done)
		err := wait()
		defer endSealSpan(span, batch, err)
		if err != nil && len(batch) > 1 && ctx.Err() == nil {
			r.log.Warn("sealing IP registrations failed; sealing them one by one", "records", len(batch), "error", err)
			for _, p := range batch {
				p.rec, p.err = nil, nil
				if err := r.commit(ctx, &flight{}, []*pending{p}, nil)(); err != nil {
					r.log.Error("sealing an IP registration failed", "record", p.row.ID, "organization", p.reg.OrganizationID, "error", err)
					p.rec, p.err = nil, err
				}
			}
		} else if err != nil {
			r.log.Error("sealing IP registrations failed", "records", len(batch), "error", err)
			for _, p := range batch {
				p.rec, p.err = nil, err
			}
		}
		for _, p := range batch {
			close(p.done)
		}
		if w := r.witnesses.Load(); w != nil {
			w.notify()
		}
	}()
	return f
}

// commit queues the transaction that writes a batch and returns the wait
// for its outcome. On success each registration has its record or its
// rejection; once it committed, the log tail has the new head and hashes.
//
// On PostgreSQL a batch is first planned without asking which of its
// contents are registered already: that query was a round trip of the
// sequencer's before every batch, and a registration of content already
// registered is rare. The unique index on an organization's content
// hashes refuses such a batch's insert (the log head's update with it),
// and the batch is then planned again with the query (counted in
// rechecked). The store runs PostgreSQL's transaction before TxAsync
// returns, so both attempts happen here, in the sequencer, before the
// next batch is planned. SQLite's query is a call into the process, and
// its transactions are queued: it always asks first.
func (r *Registry) commit(ctx context.Context, f *flight, batch []*pending, ahead []*flight) func() error {
	if r.store.Dialect != dialect.Postgres {
		return r.attempt(ctx, f, batch, ahead, true)
	}
	err := r.attempt(ctx, f, batch, ahead, false)()
	if errors.Is(err, errUnchecked) {
		r.rechecked.Add(1)
		err = r.attempt(ctx, f, batch, ahead, true)()
	}
	return func() error { return err }
}

// errUnchecked is what a batch planned without the duplicate query
// (sealPlan.unchecked) fails with when it held registered content.
var errUnchecked = errors.New("ipreg: content registered already")

// attempt is commit's transaction, its batch planned with the duplicate
// query or not (check).
func (r *Registry) attempt(ctx context.Context, f *flight, batch []*pending, ahead []*flight, check bool) func() error {
	drafts := draftBatch(batch)
	f.plan = nil
	if r.store.Dialect != dialect.Postgres || time.Since(time.Unix(0, r.staleAt.Load())) > stalePause {
		f.plan = r.planAhead(ctx, drafts, ahead, check)
	}
	// written is the plan the transaction wrote, for the log tail once it
	// committed.
	var written *sealPlan
	wait := r.store.TxAsync(ctx, func(ctx context.Context, tx *ent.Client, sqlTx *sql.Tx) error {
		p := f.plan
		// A plan made ahead moves the head from the one it was made on,
		// if that is still the head: locking the head, checking it and
		// moving it in one statement (on PostgreSQL the update takes the
		// row lock that serialises sequencers of all replicas, and
		// re-reads the row once another's commit releases it).
		moved, err := r.advance(ctx, tx, p)
		if err != nil {
			return err
		}
		if !moved {
			q := tx.LogState.Query().Where(logstate.Origin(r.keys.Origin()))
			if r.store.Dialect == dialect.Postgres {
				// Serialises sequencers of all replicas; SQLite
				// transactions are already serialised by its single writer.
				q = q.ForUpdate()
			}
			locked, err := q.Only(ctx)
			if err != nil {
				return fmt.Errorf("lock log head: %w", err)
			}
			if p == nil || !p.buildsOn(locked) {
				if p != nil {
					r.staleAt.Store(time.Now().UnixNano())
				}
				if p, err = r.place(ctx, tx, locked, drafts); err != nil {
					return err
				}
			}
			if err := r.advanceLocked(ctx, tx, locked, p); err != nil {
				return err
			}
		}
		if err := r.write(ctx, tx, sqlTx, p); err != nil {
			if p.unchecked && duplicateContent(err) {
				return fmt.Errorf("%w: %w", errUnchecked, err)
			}
			return err
		}
		if err := r.queueExternal(ctx, tx, sqlTx, p.rows); err != nil {
			return err
		}
		written = p
		for _, d := range drafts {
			d.err = d.rejected
		}
		for d, existingID := range p.rejected {
			d.err = duplicate(d.row.ContentHash, existingID)
		}
		for i, row := range p.rows {
			p.accepted[i].rec = row
		}
		return nil
	})
	return func() error {
		err := wait()
		if err == nil {
			r.tail.committed(written)
		}
		return err
	}
}

// planAhead plans drafts outside the write transaction: on top of the last
// batch still waiting for the writer, or else on the committed head. It
// returns nil, leaving the batch to be placed under the lock, when it
// cannot plan (an earlier batch failed and its hashes will never be
// stored, say).
func (r *Registry) planAhead(ctx context.Context, drafts []*draft, ahead []*flight, check bool) *sealPlan {
	var (
		base     *ent.LogState
		reader   = r.tail.reader(&dbHashes{ctx: ctx, client: r.store.Read, origin: r.keys.Origin()})
		inFlight map[string]string
	)
	for _, f := range ahead {
		if f.plan == nil {
			return nil
		}
		if base == nil {
			base = &ent.LogState{Size: f.plan.from, RootHash: f.plan.fromRoot}
		} else if !f.plan.buildsOn(base) {
			return nil
		}
		if len(f.plan.accepted) > 0 {
			reader = Overlay(reader, f.plan.from, f.plan.hashes)
			base = &ent.LogState{Size: f.plan.size, RootHash: f.plan.root[:]}
		}
		for _, row := range f.plan.rows {
			if inFlight == nil {
				inFlight = map[string]string{}
			}
			inFlight[contentKey(row.OrganizationID, row.ContentHash)] = row.ID
		}
	}
	if base == nil {
		base = r.tail.lastHead()
	}
	if base == nil {
		head, err := r.store.Read.LogState.Query().Where(logstate.Origin(r.keys.Origin())).Only(ctx)
		if err != nil {
			return nil
		}
		base = head
	}
	p, err := r.placeOn(ctx, r.store.Read, reader, base, drafts, inFlight, check)
	if err != nil {
		return nil
	}
	return p
}

// draft is a registration of a batch being sealed.
type draft struct {
	*pending
	// rejected is set when the batch already holds the same content.
	rejected error
}

// newPending drafts a registration's record and signs its timestamp token,
// in the registering request's goroutine: the signatures of concurrent
// registrations are made in parallel and ahead of the sequencer, which then
// has only the log to extend. The token's serial number is the certificate
// id's ULID, unique per TSA as RFC 3161 requires and independent of the
// log position.
func (r *Registry) newPending(reg Registration) (*pending, error) {
	at := time.Now().UTC().Truncate(time.Second)
	rec := Record{
		ID:             ids.New(ids.IPRecord),
		OrganizationID: reg.OrganizationID,
		CreatorID:      reg.CreatorID,
		Title:          reg.Title,
		Type:           reg.Type,
		ContentHash:    reg.ContentHash,
		Description:    reg.Description,
		Timestamp:      at,
		CertificateID:  ids.New(ids.Certificate),
	}
	leaf := CanonicalBytes(rec)
	serial, err := certificateSerial(rec.CertificateID)
	if err != nil {
		return nil, err
	}
	token, err := r.keys.Timestamp(sha256.Sum256(leaf), serial, at)
	if err != nil {
		return nil, fmt.Errorf("timestamp: %w", err)
	}
	row := &ent.IPRecord{
		ID: rec.ID, OrganizationID: rec.OrganizationID, CreatorID: rec.CreatorID, Title: rec.Title,
		Type: rec.Type, ContentHash: rec.ContentHash, Description: rec.Description, Timestamp: at,
		CertificateID: rec.CertificateID, Status: "registered", LogOrigin: r.keys.Origin(),
		RecordBytes: leaf, Token: token, CreatedAt: time.Now().UTC().Truncate(time.Microsecond),
	}
	return &pending{reg: reg, row: row, leaf: leaf, done: make(chan struct{})}, nil
}

// draftBatch pairs a batch with its outcome so far: the later of two
// registrations of the same content in one batch is a duplicate already.
func draftBatch(batch []*pending) []*draft {
	seen := map[string]string{}
	out := make([]*draft, len(batch))
	for i, pd := range batch {
		out[i] = &draft{pending: pd}
		key := contentKey(pd.reg.OrganizationID, pd.reg.ContentHash)
		if first, dup := seen[key]; dup {
			out[i].rejected = duplicate(pd.reg.ContentHash, first)
			continue
		}
		seen[key] = pd.row.ID
	}
	return out
}

// certificateSerial is the timestamp serial number of a certificate: the
// 128 bits of its id's ULID.
func certificateSerial(certificateID string) (*big.Int, error) {
	u, err := ulid.ParseStrict(strings.ToUpper(strings.TrimPrefix(certificateID, ids.Certificate+"_")))
	if err != nil {
		return nil, fmt.Errorf("certificate id %s: %w", certificateID, err)
	}
	return new(big.Int).SetBytes(u[:]), nil
}

// sealPlan is a batch ready to be written on top of the log head of size
// from and root hash fromRoot.
type sealPlan struct {
	from     int64
	fromRoot []byte
	// rejected are the drafts whose content is already registered, with
	// the existing record's id.
	rejected   map[*draft]string
	accepted   []*draft
	rows       []*ent.IPRecord
	events     []events.Encoded
	hashes     []tlog.Hash
	size       int64
	root       tlog.Hash
	checkpoint []byte
	// unchecked is set when the plan did not ask the database which
	// contents are registered already (see commit): the unique index on
	// an organization's content hashes then finds them.
	unchecked bool
}

// buildsOn reports whether head is the log the plan was made for. Its
// size alone would not do: a batch placed again under the lock can end at
// the size its plan would have, with other records.
func (p *sealPlan) buildsOn(head *ent.LogState) bool {
	return head.Size == p.from && bytes.Equal(head.RootHash, p.fromRoot)
}

// place plans drafts for appending to the log at head, reading through
// client (the locking transaction).
func (r *Registry) place(ctx context.Context, client *ent.Client, head *ent.LogState, drafts []*draft) (*sealPlan, error) {
	return r.placeOn(ctx, client, r.tail.reader(&dbHashes{ctx: ctx, client: client, origin: r.keys.Origin()}), head, drafts, nil, true)
}

// placeOn plans drafts for appending to the log at head, whose tree hashes
// reader reads; client finds registered content, and inFlight (contentKey
// → record id) is content of batches planned but not yet committed;
// unless check is set, it does not ask client which contents are
// registered already, and marks the plan unchecked. It
// leaves the drafts as they are, so a stale plan can be replaced by
// another.
func (r *Registry) placeOn(ctx context.Context, client *ent.Client, reader tlog.HashReader, head *ent.LogState, drafts []*draft, inFlight map[string]string, check bool) (*sealPlan, error) {
	n := head.Size
	p := &sealPlan{from: n, fromRoot: head.RootHash, rejected: map[*draft]string{}, unchecked: !check}
	var registered map[string]string
	if check {
		var err error
		if registered, err = registeredContent(ctx, client, drafts); err != nil {
			return nil, err
		}
	}
	var leaves [][]byte
	for _, d := range drafts {
		if d.rejected != nil {
			continue
		}
		key := contentKey(d.row.OrganizationID, d.row.ContentHash)
		id, dup := registered[key]
		if !dup {
			id, dup = inFlight[key]
		}
		if dup {
			p.rejected[d] = id
			continue
		}
		row := *d.row
		row.LogIndex = n + int64(len(p.accepted))
		data, err := r.events.Encode(toWork(&row))
		if err != nil {
			return nil, err
		}
		p.accepted = append(p.accepted, d)
		p.rows = append(p.rows, &row)
		p.events = append(p.events, events.Encoded{OrganizationID: row.OrganizationID, Type: events.IPRegistered, Data: data})
		leaves = append(leaves, d.leaf)
	}
	if len(p.accepted) == 0 {
		return p, nil
	}
	hashes, err := AppendHashes(n, leaves, reader)
	if err != nil {
		return nil, fmt.Errorf("append to log: %w", err)
	}
	p.hashes = hashes
	p.size = n + int64(len(p.accepted))
	if p.root, err = TreeHash(p.size, Overlay(reader, n, hashes)); err != nil {
		return nil, fmt.Errorf("tree hash: %w", err)
	}
	if p.checkpoint, err = SignCheckpoint(r.keys, p.size, p.root); err != nil {
		return nil, err
	}
	return p, nil
}

// registeredContent finds which of the drafts' contents their
// organizations already registered, with one query per organization in
// the batch, by contentKey → existing record id.
func registeredContent(ctx context.Context, client *ent.Client, drafts []*draft) (map[string]string, error) {
	byOrg := map[string][]string{}
	for _, d := range drafts {
		if d.rejected == nil {
			byOrg[d.row.OrganizationID] = append(byOrg[d.row.OrganizationID], d.row.ContentHash)
		}
	}
	found := map[string]string{}
	for org, hashes := range byOrg {
		rows, err := client.IPRecord.Query().
			Where(iprecord.OrganizationID(org), iprecord.ContentHashIn(hashes...)).
			Select(iprecord.FieldID, iprecord.FieldContentHash).
			All(ctx)
		if err != nil {
			return nil, fmt.Errorf("check duplicates: %w", err)
		}
		for _, row := range rows {
			found[contentKey(org, row.ContentHash)] = row.ID
		}
	}
	return found, nil
}

// advance moves the log head to the end of a plan made ahead if the head
// is still the one the plan was made on, and reports whether it did. A
// plan that appends nothing, or none, is left to the lock.
func (r *Registry) advance(ctx context.Context, tx *ent.Client, p *sealPlan) (bool, error) {
	if p == nil || len(p.accepted) == 0 || len(p.fromRoot) == 0 {
		return false, nil
	}
	n, err := moveHead(ctx, tx, p, logstate.Origin(r.keys.Origin()), logstate.Size(p.from), logstate.RootHash(p.fromRoot))
	if err != nil {
		return false, fmt.Errorf("advance log head: %w", err)
	}
	if n == 1 {
		r.advanced.Add(1)
	}
	return n == 1, nil
}

// advanceLocked moves the locked head to the end of p.
func (r *Registry) advanceLocked(ctx context.Context, tx *ent.Client, head *ent.LogState, p *sealPlan) error {
	if len(p.accepted) == 0 {
		return nil
	}
	_, err := moveHead(ctx, tx, p, logstate.ID(head.ID))
	return err
}

// moveHead sets the head rows matching where to the end of p and returns
// how many it changed (Update, not UpdateOne: UpdateOne would read the row
// back).
func moveHead(ctx context.Context, tx *ent.Client, p *sealPlan, where ...predicate.LogState) (int, error) {
	return tx.LogState.Update().Where(where...).
		SetSize(p.size).SetRootHash(p.root[:]).SetCheckpoint(string(p.checkpoint)).
		Save(ctx)
}

// write stores a planned batch whose head has moved: tree hashes, the
// records and their events. On PostgreSQL the three inserts are one
// statement (data-modifying WITH queries), one round trip instead of
// three in the transaction that holds the log head's lock: the
// sequencer's transaction is what every registration waits for in turn.
// maxBatch bounds a batch well under both databases' bound-parameter
// limits (15 per record, 5 per event, 3 per stored hash, of which an
// append stores fewer than two per record).
func (r *Registry) write(ctx context.Context, tx *ent.Client, sqlTx *sql.Tx, p *sealPlan) error {
	if len(p.accepted) == 0 {
		return nil
	}
	origin := r.keys.Origin()
	first := tlog.StoredHashIndex(0, p.from)
	hashes := entsql.Insert(loghash.Table).Columns(loghash.FieldOrigin, loghash.FieldIdx, loghash.FieldHash)
	for i, h := range p.hashes {
		hashes.Values(origin, first+int64(i), h[:])
	}
	records := entsql.Insert(iprecord.Table).Columns(iprecord.Columns...)
	for _, row := range p.rows {
		records.Values(recordValues(row)...)
	}
	evs, err := r.events.Prepare(ctx, tx, sqlTx, p.events, time.Now().UTC().Truncate(time.Microsecond))
	if err != nil {
		return fmt.Errorf("store registrations: %w", err)
	}
	if r.store.Dialect == dialect.Postgres {
		b := &entsql.Builder{}
		b.SetDialect(r.store.Dialect)
		b.WriteString("WITH hashes AS (").Join(hashes).WriteString("), records AS (").Join(records).WriteString(") ").Join(evs.Insert)
		return r.finishEvents(ctx, tx, sqlTx, evs, b)
	}
	for _, ins := range []struct {
		what string
		b    *entsql.InsertBuilder
	}{{"log hashes", hashes}, {"records", records}} {
		ins.b.SetDialect(r.store.Dialect)
		query, args := ins.b.Query()
		if _, err := sqlTx.ExecContext(ctx, query, args...); err != nil {
			return fmt.Errorf("store %s: %w", ins.what, err)
		}
	}
	evs.Insert.SetDialect(r.store.Dialect)
	return r.finishEvents(ctx, tx, sqlTx, evs, evs.Insert)
}

// statement is a built SQL statement: ent's builders.
type statement interface {
	Query() (string, []any)
	Err() error
}

// finishEvents runs the statement that ends with the batch's event insert
// and fans the events out.
func (r *Registry) finishEvents(ctx context.Context, tx *ent.Client, sqlTx *sql.Tx, evs *events.Prepared, b statement) error {
	query, args := b.Query()
	if err := b.Err(); err != nil {
		return err
	}
	rows, err := sqlTx.QueryContext(ctx, query, args...)
	if err != nil {
		return fmt.Errorf("store registrations: %w", err)
	}
	_, err = evs.Finish(ctx, tx, sqlTx, rows)
	return err
}

// recordValues lists a record's fields in the order of iprecord.Columns.
func recordValues(row *ent.IPRecord) []any {
	return []any{
		row.ID, row.OrganizationID, row.CreatorID, row.Title, row.Type, row.ContentHash, row.Description,
		row.Timestamp, row.CertificateID, row.Status, row.LogOrigin, row.LogIndex,
		row.RecordBytes, row.Token, row.CreatedAt,
	}
}

// contentKey identifies a work within the registry: an organization
// registers a content hash once.
func contentKey(orgID, contentHash string) string { return orgID + "\x00" + contentHash }

// duplicateContent reports whether PostgreSQL refused a record because
// its organization registered the same content already (the unique index
// of iprecord's schema on organization_id and content_hash).
func duplicateContent(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && pgErr.Code == "23505" /* unique_violation */ &&
		pgErr.ConstraintName == "iprecord_organization_id_content_hash"
}

func duplicate(hash, existingID string) error {
	return apierror.Conflict("DUPLICATE_CONTENT",
		fmt.Sprintf("content %s is already registered as %s; the first registration is the priority claim", hash, existingID),
		map[string]string{"existing_id": existingID})
}

// dbHashes reads stored tree hashes for tlog.
type dbHashes struct {
	ctx    context.Context
	client *ent.Client
	origin string
}

func (d *dbHashes) ReadHashes(indexes []int64) ([]tlog.Hash, error) {
	rows, err := d.client.LogHash.Query().Where(loghash.Origin(d.origin), loghash.IdxIn(indexes...)).All(d.ctx)
	if err != nil {
		return nil, err
	}
	byIdx := make(map[int64][]byte, len(rows))
	for _, row := range rows {
		byIdx[row.Idx] = row.Hash
	}
	out := make([]tlog.Hash, len(indexes))
	for i, idx := range indexes {
		h, ok := byIdx[idx]
		if !ok || len(h) != tlog.HashSize {
			return nil, fmt.Errorf("log %s: hash %d missing", d.origin, idx)
		}
		copy(out[i][:], h)
	}
	return out, nil
}

// Head is a log's latest signed state.
type Head struct {
	Origin     string
	Size       int64
	Root       []byte
	Checkpoint string
}

// Head returns the current log's latest checkpoint.
func (r *Registry) Head(ctx context.Context) (Head, error) {
	st, err := r.store.Read.LogState.Query().Where(logstate.Origin(r.keys.Origin())).Only(ctx)
	if err != nil {
		return Head{}, err
	}
	return Head{Origin: st.Origin, Size: st.Size, Root: st.RootHash, Checkpoint: st.Checkpoint}, nil
}

// Certificate builds the bundle for a record, with an inclusion proof
// against the latest checkpoint of the record's log.
func (r *Registry) Certificate(ctx context.Context, rec *Work) (Bundle, error) {
	st, err := r.store.Read.LogState.Query().Where(logstate.Origin(rec.logOrigin)).Only(ctx)
	if err != nil {
		return Bundle{}, err
	}
	key, err := r.store.Read.SigningKey.Query().Where(signingkey.Origin(rec.logOrigin)).Only(ctx)
	if err != nil {
		return Bundle{}, err
	}
	size, checkpoint := st.Size, st.Checkpoint
	// A checkpoint witnesses cosigned, if one covers the record, rather
	// than the latest, which they may not have cosigned yet.
	if n, cosigned, ok, err := r.cosignedCheckpoint(ctx, rec.logOrigin, rec.LogIndex); err != nil {
		return Bundle{}, err
	} else if ok {
		size, checkpoint = n, cosigned
	}
	proof, err := InclusionProof(size, rec.LogIndex, &dbHashes{ctx: ctx, client: r.store.Read, origin: rec.logOrigin})
	if err != nil {
		return Bundle{}, err
	}
	parsed, err := ParseRecord(rec.recordBytes)
	if err != nil {
		return Bundle{}, err
	}
	b := Bundle{
		Format: BundleFormat, Record: rec.recordBytes,
		ID: parsed.ID, OrganizationID: parsed.OrganizationID, CreatorID: parsed.CreatorID, Title: parsed.Title,
		Type: parsed.Type, Description: parsed.Description, Timestamp: parsed.Timestamp, CertificateID: parsed.CertificateID,
		ContentHash: parsed.ContentHash, Token: rec.Token, LogIndex: rec.LogIndex, TreeSize: size,
		InclusionProof: proof, Checkpoint: checkpoint, LogVerifierKey: key.VerifierKey,
		TSARootPEM: key.TsaRootPem, TSAPolicyOID: PolicyOID,
	}
	if b.ExternalTimestamps, err = externalTimestamps(ctx, r.store.Read, rec.ID); err != nil {
		return Bundle{}, err
	}
	return b, nil
}

// Consistency proves that the current log at size `to` extends size `from`.
func (r *Registry) Consistency(ctx context.Context, from, to int64) (tlog.TreeProof, error) {
	return ConsistencyProof(from, to, &dbHashes{ctx: ctx, client: r.store.Read, origin: r.keys.Origin()})
}

// PublishedKey is one log origin's public keys.
type PublishedKey struct {
	Origin      string
	VerifierKey string
	Current     bool
	TSARootPEM  string
	TSACertPEM  string
}

// PublishedKeys lists every log origin's keys, current first.
func (r *Registry) PublishedKeys(ctx context.Context) ([]PublishedKey, error) {
	rows, err := r.store.Read.SigningKey.Query().Order(ent.Desc(signingkey.FieldCurrent), ent.Desc(signingkey.FieldCreatedAt)).All(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]PublishedKey, len(rows))
	for i, k := range rows {
		out[i] = PublishedKey{Origin: k.Origin, VerifierKey: k.VerifierKey, Current: k.Current, TSARootPEM: k.TsaRootPem, TSACertPEM: k.TsaCertPem}
	}
	return out, nil
}
