// Package audit keeps the audit log: one entry per security-relevant change
// (API keys, webhooks, master keys, IP registry keys), saying who made it,
// what it was, when, and from where.
//
// # Recording
//
// An entry is written with Record inside the transaction of the change it
// describes, so a change never commits without its entry and an entry never
// exists for a change that rolled back:
//
//	err := store.Tx(ctx, func(ctx context.Context, tx *ent.Client, _ *sql.Tx) error {
//		if err := tx.Webhook.Create()...Exec(ctx); err != nil {
//			return err
//		}
//		return audit.Record(ctx, tx, audit.Entry{
//			OrganizationID: orgID, Action: audit.WebhookCreated,
//			TargetType: "webhook", TargetID: id,
//			Details: map[string]string{"url": url},
//		})
//	})
//
// Who and from where come from the context: the server puts the calling
// key's id and the request's Origin there (WithCaller) before any service
// method runs, and the command line its operator (CLI). A change made by the service itself (the first start's
// bootstrap key) is recorded with the actor "system".
//
// A new kind of change needs a constant below (actions are a closed set,
// dotted "<resource>.<past tense>") and its name in Actions.
//
// # Never a secret
//
// Details are a small map of strings describing the change (a key's name
// and scopes, a webhook's URL): Record refuses a detail whose name says it
// holds a secret (secret, password, token, hash, ...) or whose value looks
// like one of the service's secrets (co_live_..., whsec_...), and bounds
// their number and size. Secrets, their hashes and sealed forms are never
// passed to it.
//
// # Retention
//
// Entries are kept for a configurable period, 365 days by default
// (DefaultRetention); the server's clean-up deletes older ones (DeleteBefore).
package audit

import (
	"context"
	"errors"
	"fmt"
	"os/user"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/creativeops/creativeops/ent"
	"github.com/creativeops/creativeops/ent/auditevent"
	"github.com/creativeops/creativeops/ids"
	"github.com/creativeops/creativeops/storage"
)

// Action names a kind of recorded change.
type Action string

// The recorded actions.
const (
	// KeyCreated: an API key was created (through the API, the command line,
	// or the first start's bootstrap).
	KeyCreated Action = "key.created"
	// KeyRotated: a key got a new secret; the old one works for a grace period.
	KeyRotated Action = "key.rotated"
	// KeyRevoked: a key was revoked.
	KeyRevoked Action = "key.revoked"
	// WebhookCreated: a webhook (and its signing secret) was registered.
	WebhookCreated Action = "webhook.created"
	// WebhookDeleted: a webhook was deleted.
	WebhookDeleted Action = "webhook.deleted"
	// WebhookUpdated: a webhook's url, events or description changed.
	WebhookUpdated Action = "webhook.updated"
	// WebhookDisabled: a webhook was disabled, through the API or by the
	// service (after a run of failed deliveries, or a 410 Gone).
	WebhookDisabled Action = "webhook.disabled"
	// WebhookEnabled: a disabled webhook was enabled again.
	WebhookEnabled Action = "webhook.enabled"
	// WebhookSecretRotated: a webhook got a new signing secret; the old one
	// still signs deliveries for a grace period.
	WebhookSecretRotated Action = "webhook.secret_rotated"
	// OrganizationCreated: an organization was created (command line or bootstrap).
	OrganizationCreated Action = "organization.created"
	// SecretsResealed: secrets at rest were sealed again under the newest
	// master key (creativeops secrets rotate, or a start after the master
	// key files changed): one entry per transaction that rewrote some.
	// Installation-wide.
	SecretsResealed Action = "secrets.resealed"
	// IPKeysRotated: the IP registry's signing keys were retired and a new
	// log started (creativeops ip rotate-keys). Installation-wide.
	IPKeysRotated Action = "ip.keys_rotated"
	// SessionCreated: a key signed in to the developer dashboard.
	SessionCreated Action = "session.created"
	// SessionEnded: a dashboard session was signed out. (Sessions that
	// expire, or end with their key's revocation, are not entries of their
	// own: key.revoked says the latter.)
	SessionEnded Action = "session.ended"
	// OAuthClientCreated: an OAuth client was created.
	OAuthClientCreated Action = "oauth_client.created"
	// OAuthClientRotated: an OAuth client got a new secret; the old one
	// works for a grace period.
	OAuthClientRotated Action = "oauth_client.rotated"
	// OAuthClientDeleted: an OAuth client was revoked, and its tokens with it.
	OAuthClientDeleted Action = "oauth_client.deleted"
	// PlanDeleted: a tracked plan was deleted (its reminders and its
	// calendar feed end with it).
	PlanDeleted Action = "plan.deleted"
	// PlanFeedCreated: a plan's secret calendar feed URL was made (detail
	// replaced=true when it replaced an earlier one, which stopped working).
	PlanFeedCreated Action = "plan_feed.created"
	// PlanFeedRevoked: a plan's calendar feed URL was revoked.
	PlanFeedRevoked Action = "plan_feed.revoked"
	// CreatorUpdated: a creator was changed; the details name the fields
	// that changed, never their values (personal data stays out of the
	// audit log, which outlives an erasure).
	CreatorUpdated Action = "creator.updated"
	// CreatorErased: a creator's personal data was erased (DELETE
	// /v1/creators/{id}).
	CreatorErased Action = "creator.erased"
)

// Actions lists every action, for validation and documentation.
var Actions = []Action{
	KeyCreated, KeyRotated, KeyRevoked,
	WebhookCreated, WebhookDeleted, WebhookUpdated, WebhookDisabled, WebhookEnabled, WebhookSecretRotated,
	OrganizationCreated, SecretsResealed, IPKeysRotated,
	SessionCreated, SessionEnded,
	OAuthClientCreated, OAuthClientRotated, OAuthClientDeleted,
	PlanDeleted, PlanFeedCreated, PlanFeedRevoked,
	CreatorUpdated, CreatorErased,
}

// Valid reports whether a is one of Actions.
func (a Action) Valid() bool { return slices.Contains(Actions, a) }

// Target types.
const (
	TargetKey          = "api_key"
	TargetWebhook      = "webhook"
	TargetOrganization = "organization"
	TargetOAuthClient  = "oauth_client"
	// TargetMasterKey: the id (secrets.KeyID, a fingerprint) of the master
	// key secrets were sealed under.
	TargetMasterKey = "master_key"
	// TargetIPLog: the origin of the IP registry log new keys sign.
	TargetIPLog        = "ip_log"
	TargetInstallation = "installation"
	TargetSession      = "session"
	TargetPlan         = "plan"
	TargetCreator      = "creator"
)

// Transports an Origin names.
const (
	TransportREST    = "rest"
	TransportGRPC    = "grpc"
	TransportConnect = "connect"
	TransportGRPCWeb = "grpc-web"
	TransportCLI     = "cli"
	TransportSystem  = "system"
)

// ActorSystem is the actor of changes the service makes by itself.
const ActorSystem = "system"

// DefaultRetention is how long entries are kept unless configured.
const DefaultRetention = 365 * 24 * time.Hour

// Origin is where a change came from.
type Origin struct {
	// ClientIP is the address the request came from (the TCP peer).
	ClientIP  string
	UserAgent string
	RequestID string
	// Transport is one of the Transport constants.
	Transport string
}

// caller is who acts and from where, as WithCaller puts it in a context.
type caller struct {
	actor  string
	origin Origin
}

type callerKey struct{}

// WithCaller returns ctx carrying who acts (an API key id, or CLIActor())
// and where the request came from; Record reads them.
func WithCaller(ctx context.Context, actor string, o Origin) context.Context {
	return &callerContext{Context: ctx, caller: caller{actor: actor, origin: o}}
}

// callerContext is a context carrying a caller: what context.WithValue
// of a *caller would be, in one allocation instead of two (every API call
// has its caller).
type callerContext struct {
	context.Context
	caller caller
}

func (c *callerContext) Value(key any) any {
	if key == (callerKey{}) {
		return &c.caller
	}
	return c.Context.Value(key)
}

// ActorFrom returns the actor WithCaller put in ctx, or ActorSystem: a
// change with no caller is the service's own.
func ActorFrom(ctx context.Context) string {
	if c, ok := ctx.Value(callerKey{}).(*caller); ok && c.actor != "" {
		return c.actor
	}
	return ActorSystem
}

// OriginFrom returns the origin WithCaller put in ctx, or the transport
// "system" alone.
func OriginFrom(ctx context.Context) Origin {
	if c, ok := ctx.Value(callerKey{}).(*caller); ok {
		return c.origin
	}
	return Origin{Transport: TransportSystem}
}

// CLIActor names the operator of a command-line change: "cli:" and the
// operating-system user running it.
func CLIActor() string {
	name := "unknown"
	if u, err := user.Current(); err == nil && u.Username != "" {
		name = u.Username
	}
	return "cli:" + name
}

// CLI returns ctx for a change made by the command line: actor CLIActor,
// transport cli.
func CLI(ctx context.Context) context.Context {
	return WithCaller(ctx, CLIActor(), Origin{Transport: TransportCLI})
}

// Entry is a change to record. Actor and origin come from the context.
type Entry struct {
	// OrganizationID owns the entry; empty for installation-wide changes.
	OrganizationID string
	Action         Action
	TargetType     string
	TargetID       string
	// Details describe the change; never a secret (see the package doc).
	Details map[string]string
}

// Limits of an entry's details.
const (
	maxDetails       = 16
	maxDetailNameLen = 64
	maxDetailLen     = 1024
)

// secretWords are parts of detail names that announce a secret.
var secretWords = []string{"secret", "password", "passwd", "token", "hash", "private", "credential", "sealed", "master_key", "api_key"}

// secretPrefixes start the service's own secrets: API keys, webhook
// signing secrets, OAuth client secrets and plans' calendar feed tokens.
var secretPrefixes = []string{"co_live_", "whsec_", "co_oauth_", "pft_"}

// ErrSecretDetail is returned by Record for a detail that is or names a
// secret: a programming error, which fails the change rather than log it.
var ErrSecretDetail = errors.New("audit: a detail would hold a secret")

// Check validates an entry without writing it.
func (e Entry) Check() error {
	if !e.Action.Valid() {
		return fmt.Errorf("audit: unknown action %q", e.Action)
	}
	if e.TargetType == "" || e.TargetID == "" {
		return fmt.Errorf("audit: %s needs a target type and id", e.Action)
	}
	if len(e.Details) > maxDetails {
		return fmt.Errorf("audit: %s has %d details, at most %d", e.Action, len(e.Details), maxDetails)
	}
	for k, v := range e.Details {
		if k == "" || len(k) > maxDetailNameLen || len(v) > maxDetailLen || !utf8.ValidString(v) {
			return fmt.Errorf("audit: %s: detail %q is empty, too long or not UTF-8", e.Action, k)
		}
		name := strings.ToLower(k)
		for _, w := range secretWords {
			if strings.Contains(name, w) {
				return fmt.Errorf("%w: %q", ErrSecretDetail, k)
			}
		}
		for _, p := range secretPrefixes {
			if strings.Contains(v, p) {
				return fmt.Errorf("%w: the value of %q", ErrSecretDetail, k)
			}
		}
	}
	return nil
}

// Record writes e inside the caller's transaction tx, with the actor and
// origin of ctx. Its error must fail the transaction.
func Record(ctx context.Context, tx *ent.Client, e Entry) error {
	if err := e.Check(); err != nil {
		return err
	}
	if err := create(ctx, tx, e).Exec(ctx); err != nil {
		return fmt.Errorf("audit: record %s: %w", e.Action, err)
	}
	return nil
}

// entriesPerInsert keeps one multi-row insert of audit events (11
// columns) under SQLite's 32,766 and PostgreSQL's 65,535 bound parameters.
const entriesPerInsert = 1000

// RecordBatch writes many entries inside the caller's transaction, each
// checked and stored as Record stores it, with a few multi-row inserts:
// the fast path of seeding (bench/scale). One invalid entry refuses all.
func RecordBatch(ctx context.Context, tx *ent.Client, es []Entry) error {
	for i, e := range es {
		if err := e.Check(); err != nil {
			return fmt.Errorf("entry %d: %w", i, err)
		}
	}
	for from := 0; from < len(es); from += entriesPerInsert {
		part := es[from:min(from+entriesPerInsert, len(es))]
		creates := make([]*ent.AuditEventCreate, len(part))
		for i, e := range part {
			creates[i] = create(ctx, tx, e)
		}
		if err := tx.AuditEvent.CreateBulk(creates...).Exec(ctx); err != nil {
			return fmt.Errorf("audit: record a batch: %w", err)
		}
	}
	return nil
}

// create is the insert of a checked entry, with the actor and origin of ctx.
func create(ctx context.Context, tx *ent.Client, e Entry) *ent.AuditEventCreate {
	o := OriginFrom(ctx)
	c := tx.AuditEvent.Create().
		SetID(ids.New(ids.AuditEvent)).
		SetOrganizationID(e.OrganizationID).
		SetActor(clean(ActorFrom(ctx), 200)).
		SetAction(string(e.Action)).
		SetTargetType(e.TargetType).
		SetTargetID(clean(e.TargetID, 200)).
		SetClientIP(clean(o.ClientIP, 64)).
		SetUserAgent(clean(o.UserAgent, 512)).
		SetRequestID(clean(o.RequestID, 128)).
		SetTransport(clean(o.Transport, 16)).
		SetCreatedAt(time.Now().UTC().Truncate(time.Microsecond))
	if len(e.Details) > 0 {
		c.SetDetails(e.Details)
	}
	return c
}

// clean makes what a client sent (a user agent, say) storable and safe to
// print: invalid UTF-8 and control characters (which PostgreSQL refuses, or
// a terminal would obey) become U+FFFD, and the result is cut to at most n
// bytes without splitting a character. A client's odd header is recorded,
// never a reason for its change to fail.
func clean(s string, n int) string {
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return utf8.RuneError
		}
		return r
	}, strings.ToValidUTF8(s, string(utf8.RuneError)))
	if len(s) <= n {
		return s
	}
	s = s[:n]
	for len(s) > 0 && !utf8.ValidString(s) {
		s = s[:len(s)-1]
	}
	return s
}

// Scopes renders a list of scopes as one detail value.
func Scopes(scopes []string) string { return strings.Join(scopes, ",") }

// Event is a recorded entry as the API shows it.
type Event struct {
	ID             string
	OrganizationID string
	Actor          string
	Action         Action
	TargetType     string
	TargetID       string
	Origin         Origin
	Details        map[string]string
	CreatedAt      time.Time
}

func toEvent(r *ent.AuditEvent) *Event {
	return &Event{
		ID: r.ID, OrganizationID: r.OrganizationID, Actor: r.Actor, Action: Action(r.Action),
		TargetType: r.TargetType, TargetID: r.TargetID,
		Origin:  Origin{ClientIP: r.ClientIP, UserAgent: r.UserAgent, RequestID: r.RequestID, Transport: r.Transport},
		Details: r.Details, CreatedAt: r.CreatedAt,
	}
}

// Filter selects entries of one organization ("" for installation-wide
// ones). Empty fields do not filter.
type Filter struct {
	OrganizationID string
	Action         Action
	Actor          string
	TargetID       string
	// From (inclusive) and To (exclusive) bound created_at.
	From, To time.Time
	// After continues a list after this id (ids sort by time).
	After string
	Limit int
}

// List returns the entries f selects, newest first, read with c.
func List(ctx context.Context, c *ent.Client, f Filter) ([]*Event, error) {
	q := c.AuditEvent.Query().Where(auditevent.OrganizationID(f.OrganizationID))
	if f.Action != "" {
		q = q.Where(auditevent.Action(string(f.Action)))
	}
	if f.Actor != "" {
		q = q.Where(auditevent.Actor(f.Actor))
	}
	if f.TargetID != "" {
		q = q.Where(auditevent.TargetID(f.TargetID))
	}
	if !f.From.IsZero() {
		q = q.Where(auditevent.CreatedAtGTE(f.From.UTC()))
	}
	if !f.To.IsZero() {
		q = q.Where(auditevent.CreatedAtLT(f.To.UTC()))
	}
	if f.After != "" {
		q = q.Where(auditevent.IDLT(f.After))
	}
	if f.Limit > 0 {
		q = q.Limit(f.Limit)
	}
	rows, err := q.Order(ent.Desc(auditevent.FieldID)).All(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]*Event, len(rows))
	for i, r := range rows {
		out[i] = toEvent(r)
	}
	return out, nil
}

// DeleteBefore deletes the entries, of every organization, recorded
// before t, in bounded batches, and returns how many.
func DeleteBefore(ctx context.Context, st *storage.Store, t time.Time) (int, error) {
	return storage.DeleteInBatches(ctx, st, auditevent.Table, storage.DeleteBatch, auditevent.CreatedAtLT(t.UTC()))
}
