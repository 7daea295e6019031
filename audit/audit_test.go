package audit_test

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/creativeops/creativeops/audit"
	"github.com/creativeops/creativeops/ent"
	"github.com/creativeops/creativeops/ent/organization"
	"github.com/creativeops/creativeops/ids"
	"github.com/creativeops/creativeops/internal/testdb"
	"github.com/creativeops/creativeops/internal/teststore"
)

var caller = audit.Origin{ClientIP: "203.0.113.7", UserAgent: "test/1.0", RequestID: "req_1", Transport: audit.TransportREST}

// An entry commits with its change, and vanishes with it when the change
// fails after it was recorded; an entry that cannot be recorded fails the
// change.
func TestRecordIsPartOfTheChange(t *testing.T) {
	for _, b := range testdb.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			st := teststore.Open(t, b)
			ctx := audit.WithCaller(context.Background(), "key_caller", caller)
			createOrg := func(name string, details map[string]string, failAfter error) error {
				return st.Tx(ctx, func(ctx context.Context, tx *ent.Client, _ *sql.Tx) error {
					o, err := tx.Organization.Create().SetID(ids.New(ids.Organization)).SetName(name).Save(ctx)
					if err != nil {
						return err
					}
					if err := audit.Record(ctx, tx, audit.Entry{OrganizationID: o.ID, Action: audit.OrganizationCreated,
						TargetType: audit.TargetOrganization, TargetID: o.ID, Details: details}); err != nil {
						return err
					}
					return failAfter
				})
			}
			if err := createOrg("kept", map[string]string{"name": "kept"}, nil); err != nil {
				t.Fatal(err)
			}
			boom := errors.New("boom")
			if err := createOrg("rolled-back", map[string]string{"name": "rolled-back"}, boom); !errors.Is(err, boom) {
				t.Fatalf("want the change's error, got %v", err)
			}
			if err := createOrg("refused", map[string]string{"secret": "x"}, nil); !errors.Is(err, audit.ErrSecretDetail) {
				t.Fatalf("want ErrSecretDetail, got %v", err)
			}
			for _, name := range []string{"rolled-back", "refused"} {
				if n, _ := st.Ent.Organization.Query().Where(organization.Name(name)).Count(ctx); n != 0 {
					t.Errorf("organization %q exists although its change failed", name)
				}
			}
			rows, err := st.Ent.AuditEvent.Query().All(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if len(rows) != 1 || rows[0].Details["name"] != "kept" {
				t.Fatalf("want only the committed change's entry, got %v", rows)
			}
			r := rows[0]
			if r.Actor != "key_caller" || r.ClientIP != caller.ClientIP || r.UserAgent != caller.UserAgent ||
				r.RequestID != caller.RequestID || r.Transport != caller.Transport || !strings.HasPrefix(r.ID, "aud_") {
				t.Errorf("entry does not carry the context's caller: %+v", r)
			}
		})
	}
}

func TestCheckRefusesSecretsAndUnknownActions(t *testing.T) {
	ok := audit.Entry{Action: audit.KeyCreated, TargetType: audit.TargetKey, TargetID: "key_1", Details: map[string]string{"name": "ci", "scopes": "ip:read"}}
	if err := ok.Check(); err != nil {
		t.Fatalf("a plain entry is refused: %v", err)
	}
	long := strings.Repeat("x", 2000)
	for name, e := range map[string]audit.Entry{
		"unknown action":         {Action: "key.stolen", TargetType: audit.TargetKey, TargetID: "key_1"},
		"no target":              {Action: audit.KeyCreated},
		"secret name":            {Action: audit.KeyCreated, TargetType: audit.TargetKey, TargetID: "key_1", Details: map[string]string{"new_secret": "abc"}},
		"hash name":              {Action: audit.KeyCreated, TargetType: audit.TargetKey, TargetID: "key_1", Details: map[string]string{"Secret_Hash": "abc"}},
		"token name":             {Action: audit.KeyCreated, TargetType: audit.TargetKey, TargetID: "key_1", Details: map[string]string{"token": "abc"}},
		"API key value":          {Action: audit.KeyCreated, TargetType: audit.TargetKey, TargetID: "key_1", Details: map[string]string{"note": "was co_live_abc"}},
		"webhook secret value":   {Action: audit.WebhookCreated, TargetType: audit.TargetWebhook, TargetID: "wh_1", Details: map[string]string{"url": "https://x/?s=whsec_abc"}},
		"feed URL value":         {Action: audit.PlanFeedCreated, TargetType: audit.TargetPlan, TargetID: "plan_1", Details: map[string]string{"url": "https://x/v1/plans/plan_1/calendar.ics?token=pft_abc"}},
		"value too long":         {Action: audit.KeyCreated, TargetType: audit.TargetKey, TargetID: "key_1", Details: map[string]string{"name": long}},
		"value not UTF-8":        {Action: audit.KeyCreated, TargetType: audit.TargetKey, TargetID: "key_1", Details: map[string]string{"name": "\xff"}},
		"too many details":       {Action: audit.KeyCreated, TargetType: audit.TargetKey, TargetID: "key_1", Details: manyDetails(17)},
		"empty detail name":      {Action: audit.KeyCreated, TargetType: audit.TargetKey, TargetID: "key_1", Details: map[string]string{"": "x"}},
		"master key name":        {Action: audit.SecretsResealed, TargetType: audit.TargetMasterKey, TargetID: "mk", Details: map[string]string{"master_key": "x"}},
		"password in mixed case": {Action: audit.KeyCreated, TargetType: audit.TargetKey, TargetID: "key_1", Details: map[string]string{"PassWord": "x"}},
	} {
		if err := e.Check(); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

func manyDetails(n int) map[string]string {
	m := map[string]string{}
	for i := range n {
		m[string(rune('a'+i))] = "v"
	}
	return m
}

// Without a caller in the context the change is the service's own.
func TestNoCallerIsTheSystem(t *testing.T) {
	ctx := context.Background()
	if a := audit.ActorFrom(ctx); a != audit.ActorSystem {
		t.Errorf("actor %q", a)
	}
	if o := audit.OriginFrom(ctx); o.Transport != audit.TransportSystem {
		t.Errorf("origin %+v", o)
	}
	cli := audit.CLI(ctx)
	if a := audit.ActorFrom(cli); !strings.HasPrefix(a, "cli:") || len(a) <= len("cli:") {
		t.Errorf("CLI actor %q", a)
	}
	if o := audit.OriginFrom(cli); o.Transport != audit.TransportCLI {
		t.Errorf("CLI origin %+v", o)
	}
}

// List filters by organization, action, actor, target and time, newest
// first, and continues after an id; DeleteBefore prunes by age.
func TestListAndPrune(t *testing.T) {
	for _, b := range testdb.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			st := teststore.Open(t, b)
			ctx := context.Background()
			record := func(actor, org string, action audit.Action, target string) {
				t.Helper()
				ctx := audit.WithCaller(ctx, actor, caller)
				if err := st.Tx(ctx, func(ctx context.Context, tx *ent.Client, _ *sql.Tx) error {
					return audit.Record(ctx, tx, audit.Entry{OrganizationID: org, Action: action, TargetType: audit.TargetKey, TargetID: target})
				}); err != nil {
					t.Fatal(err)
				}
			}
			record("key_a", "org_1", audit.KeyCreated, "key_x")
			record("key_a", "org_1", audit.KeyRotated, "key_x")
			record("key_b", "org_1", audit.KeyRevoked, "key_y")
			record("key_c", "org_2", audit.KeyCreated, "key_z")
			list := func(f audit.Filter) []string {
				t.Helper()
				evs, err := audit.List(ctx, st.Read, f)
				if err != nil {
					t.Fatal(err)
				}
				out := make([]string, len(evs))
				for i, e := range evs {
					out[i] = string(e.Action) + "/" + e.TargetID
				}
				return out
			}
			check := func(name string, got []string, want ...string) {
				t.Helper()
				if strings.Join(got, " ") != strings.Join(want, " ") {
					t.Errorf("%s: got %v, want %v", name, got, want)
				}
			}
			check("organization", list(audit.Filter{OrganizationID: "org_1"}), "key.revoked/key_y", "key.rotated/key_x", "key.created/key_x")
			check("action", list(audit.Filter{OrganizationID: "org_1", Action: audit.KeyCreated}), "key.created/key_x")
			check("actor", list(audit.Filter{OrganizationID: "org_1", Actor: "key_b"}), "key.revoked/key_y")
			check("target", list(audit.Filter{OrganizationID: "org_1", TargetID: "key_x"}), "key.rotated/key_x", "key.created/key_x")
			check("other organization's target", list(audit.Filter{OrganizationID: "org_1", TargetID: "key_z"}))
			check("limit", list(audit.Filter{OrganizationID: "org_1", Limit: 1}), "key.revoked/key_y")
			first, _ := audit.List(ctx, st.Read, audit.Filter{OrganizationID: "org_1", Limit: 1})
			check("after", list(audit.Filter{OrganizationID: "org_1", After: first[0].ID}), "key.rotated/key_x", "key.created/key_x")
			future := time.Now().Add(time.Hour)
			check("from the future", list(audit.Filter{OrganizationID: "org_1", From: future}))
			check("to the future", list(audit.Filter{OrganizationID: "org_2", To: future}), "key.created/key_z")
			check("to the past", list(audit.Filter{OrganizationID: "org_2", To: time.Now().Add(-time.Hour)}))

			n, err := audit.DeleteBefore(ctx, st, time.Now().Add(-time.Hour))
			if err != nil || n != 0 {
				t.Fatalf("pruned %d recent entries (%v)", n, err)
			}
			n, err = audit.DeleteBefore(ctx, st, future)
			if err != nil || n != 4 {
				t.Fatalf("pruned %d of 4 old entries (%v)", n, err)
			}
		})
	}
}

// What a client sent is recorded cleaned, never refused: invalid UTF-8 and
// control characters (PostgreSQL refuses NUL and invalid UTF-8) become
// U+FFFD, and overlong values are cut on a character boundary.
func TestRecordCleansClientValues(t *testing.T) {
	for _, b := range testdb.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			st := teststore.Open(t, b)
			ua := "agent\xff\x00\x1b[31m" + strings.Repeat("é", 300)
			ctx := audit.WithCaller(context.Background(), "key_caller", audit.Origin{UserAgent: ua, Transport: audit.TransportGRPC})
			if err := st.Tx(ctx, func(ctx context.Context, tx *ent.Client, _ *sql.Tx) error {
				return audit.Record(ctx, tx, audit.Entry{Action: audit.KeyCreated, TargetType: audit.TargetKey, TargetID: "key_1"})
			}); err != nil {
				t.Fatal(err)
			}
			got := st.Ent.AuditEvent.Query().OnlyX(ctx).UserAgent
			if !strings.HasPrefix(got, "agent\ufffd\ufffd\ufffd[31mé") || len(got) > 512 || !utf8.ValidString(got) {
				t.Errorf("user agent stored as %q (%d bytes)", got, len(got))
			}
		})
	}
}

// RecordBatch, the seeding fast path, checks every entry as Record does:
// one entry naming a secret refuses the batch, and a good batch stores
// each entry with the caller and origin Record would.
func TestRecordBatchChecksEveryEntry(t *testing.T) {
	b := testdb.Backends(t)[0]
	st := teststore.Open(t, b)
	ctx := audit.WithCaller(context.Background(), "key_caller", caller)
	entry := func(details map[string]string) audit.Entry {
		return audit.Entry{OrganizationID: "org_a", Action: audit.CreatorUpdated, TargetType: audit.TargetCreator,
			TargetID: ids.New(ids.Creator), Details: details}
	}
	batch := func(es ...audit.Entry) error {
		return st.Tx(ctx, func(ctx context.Context, tx *ent.Client, _ *sql.Tx) error { return audit.RecordBatch(ctx, tx, es) })
	}
	if err := batch(entry(map[string]string{"fields": "name"}), entry(map[string]string{"password": "x"})); !errors.Is(err, audit.ErrSecretDetail) {
		t.Fatalf("a batch with a secret detail: %v", err)
	}
	if n := st.Read.AuditEvent.Query().CountX(ctx); n != 0 {
		t.Fatalf("the refused batch wrote %d entries", n)
	}
	if err := batch(entry(map[string]string{"fields": "name"}), entry(nil)); err != nil {
		t.Fatal(err)
	}
	rows := st.Read.AuditEvent.Query().AllX(ctx)
	if len(rows) != 2 {
		t.Fatalf("%d entries stored, want 2", len(rows))
	}
	for _, r := range rows {
		if r.Actor != "key_caller" || r.ClientIP != caller.ClientIP || r.Transport != caller.Transport || r.Action != string(audit.CreatorUpdated) {
			t.Errorf("stored %+v", r)
		}
	}
}
